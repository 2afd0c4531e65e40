// Registration of `kflow bench rbsor` (bench_rbsor.hpp).
#include "kflow/model/registry.hpp"

KFLOW_REGISTER_BENCH((kflow::KernelBenchInfo{
    "rbsor",
    "red-black SOR sweeps on the masked 5-point pressure Laplacian of an n x n cavity "
    "(effective bandwidth: p read + written, rhs read, per iteration)",
    "n (cells per side, 4096), iterations (per timing, 100), omega (1.7)"}))
