// Registration of the seed-003 kernel benchmarks (kflow bench tridiag | sip).
#include "kflow/core/bench.hpp"
#include "kflow/core/registry.hpp"

KFLOW_REGISTER_BENCH((kflow::KernelBenchInfo{
    "tridiag",
    "batched and single tridiagonal solves: Thomas, CR, PCR, hybrid (and cuSPARSE in CUDA "
    "builds); seed 003 Table 3 and 3D ADI batches",
    "case=batched|adi|single (batched), n=LIST (batched 512,256; adi 512 GPU / 256 CPU; single "
    "2^16,2^22,2^24,2^25), systems=N (batched; default n^2), layout=contiguous,interleaved, "
    "method=LIST of thomas,cr,pcr,hybrid,auto,cusparse or all, rows_per_chunk=R (hybrid, 8)"}))
