// Registration of the linear-algebra kernel benchmarks (kflow bench tridiag | sip | poisson |
// spmv).
#include "kflow/core/bench.hpp"
#include "kflow/model/registry.hpp"

KFLOW_REGISTER_BENCH((kflow::KernelBenchInfo{
    "tridiag",
    "batched and single tridiagonal solves: Thomas, CR, PCR, hybrid, partitioned, register "
    "(and cuSPARSE in CUDA builds); Ezzatti & Nesmachnow's Table 3 and 3D ADI batches",
    "case=batched|adi|single (batched), n=LIST (batched 512,256; adi 512 GPU / 256 CPU; single "
    "2^16,2^22,2^24,2^25), systems=N (batched; default n^2), layout=contiguous,interleaved, "
    "method=LIST of thomas,cr,pcr,hybrid,partitioned,register,auto,cusparse or all, "
    "rows_per_chunk=R (hybrid, partitioned: 8), team_size=T (pcr, hybrid, partitioned; 0 = from "
    "n), segment_rows=L (partitioned; 0 = the longest that fits team scratch); register (one row "
    "per combination): register_rows=LIST of 8,16 (rows per thread; 0 = by shape), "
    "register_team=LIST (most "
    "threads per team; 0 = 256, single systems 128, GPUs' streamed kernel 512), "
    "register_systems=LIST (systems per team; 0 = fill the team), "
    "register_stage=LIST of auto,on,off (loads through team scratch; auto: single systems on "
    "GPUs), register_groups=LIST (GPUs' streamed kernel: groups of systems per team; 0 = chosen)"}))

KFLOW_REGISTER_BENCH((kflow::KernelBenchInfo{
    "sip",
    "Stone's SIP on the 2D Poisson problem with (2^k+2)^2 nodes (Ezzatti & Nesmachnow's Table 2): "
    "factorization, one iteration, iterations and time to tolerance; red-black SOR beside it",
    "dim=2|3 (2; 3: SIP 3D on n^3 cells, n = 2^k, k 4,5,6), k=LIST (5,7,9,10), ordering=LIST of "
    "lexicographic (CPU),diagonals,pipelined,tiles or all (GPU diagonals,pipelined,tiles; CPU "
    "lexicographic,tiles), "
    "alpha=A (0.92), tolerance=T (max|b - Ax| <= T max|b|; 1e-6 double, 1e-2 float), "
    "check_every=N (5), max_iterations=N (100000), to_tolerance=LIST of orderings or none (GPU "
    "tiles, CPU none), sweeps=N (10, for the per-iteration time), "
    "strip_rows=H (pipelined: 32 GPU, 1 CPU; tiles: 32 GPU (32 or 64), 32 CPU), "
    "tile_cols=W (tiles on CPUs: progress every W columns; 128), tile_group=G (tiles on GPUs: "
    "8 or 16 wavefront steps per group; 8), tile_threads=T (tiles on GPUs: threads per "
    "team; 0 = one warp computing and enough loaders plus one warp, 128 at the defaults), "
    "solvers=sip,rbsor"}))

KFLOW_REGISTER_BENCH((kflow::KernelBenchInfo{
    "poisson",
    "time to tolerance of SIP, red-black SOR (optimal omega), CG (none, Jacobi, multigrid), "
    "CG over Kokkos Kernels (where built) and geometric multigrid on one 2D Poisson problem with "
    "(2^k+2)^2 nodes (docs/performance.md compares them at k = 10), or a 3D one on (2^k)^3 "
    "cells",
    "k=LIST (5,7; the comparison: 10), solvers=LIST of "
    "sip,rbsor,cg,cg_jacobi,kk_cg,kk_cg_jacobi,kk_gmres,kk_gmres_jacobi,mg,mg_f,mg_v1,mg_v3,"
    "mg_cheb,"
    "cg_mg,cg_mg_cheb,hypre_pfmg,hypre_pcg (all; hypre in builds with hypre, one MPI rank; "
    "kk_* in builds with Kokkos Kernels; restart=M (kk_gmres: 50); "
    "dim=3: mg,mg_f,mg_cheb,cg_mg,cg_jacobi; also mg_v1, mg_v3, cg_mg_cheb, cg), dim=2|3 (2), "
    "bc=dirichlet|neumann (dim=3; "
    "dirichlet), "
    "rhs=random|peak|sine (random; sine is an eigenvector: CG takes 1 iteration), "
    "tolerance=T (max|b - Ax| <= T max|b|; 1e-6 double, 1e-2 float), check_every=N (5), "
    "max_iterations=N (200000), alpha=A (SIP, 0.92), ordering=lexicographic (CPU "
    "default),diagonals,pipelined,tiles (GPU default) (SIP), sweeps=N (10, per-iteration time), "
    "coarse=sweeps|cg (multigrid's coarsest level; sweeps), smoother_omega=W (multigrid's "
    "red-black smoothing factor; 1.15), team_cells=N (multigrid levels of at "
    "most N cells cycled by one team; -1: 1024 on GPUs, 0 on CPUs)"}))

KFLOW_REGISTER_BENCH((kflow::KernelBenchInfo{
    "spmv",
    "y = A x for the 5-point Laplacian (Dirichlet sides) on n x n cells: matrix-free "
    "(linalg::Uniform5), DIA (linalg::Dia5, Baumann & Buran's format) and Kokkos Kernels' "
    "KokkosSparse::spmv on the CRS form (linalg::make_crs; where built); ideal bytes for the "
    "bandwidth, GFlop/s at 9 flop/row",
    "n=LIST (cells per side, 1024,4096)"}))
