// Registration of `kflow bench lbm` (lbm_bench.hpp).
#include "kflow/model/registry.hpp"

KFLOW_REGISTER_BENCH((kflow::KernelBenchInfo{
    "lbm",
    "lattice Boltzmann 3D lid-driven cavity: MLUPS and effective bandwidth (2 Q sizeof(real) "
    "bytes per cell update) for each size and streaming scheme",
    "sizes=128,256 (cells per side), streaming=all|in_place|two_grid, stencil=D3Q19|D3Q27, "
    "collision=bgk|trt, steps=100 (per timing; best of --repeat), blocks=px,py,pz (under mpirun; "
    "default balanced), scaling=strong|weak (weak: each rank's block is the size)"}))
