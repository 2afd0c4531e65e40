// Registration of `kflow bench geometry` (geometry_bench.hpp).
#include "kflow/model/registry.hpp"

KFLOW_REGISTER_BENCH((kflow::KernelBenchInfo{
    "geometry",
    "voxelising a closed triangle mesh generated in code (a torus or a sphere of about 1 M "
    "triangles) into a cube of nodes: the mesh check on the host, the upload, the solid flags "
    "and the boundary links with their wall fractions q (seconds, counts)",
    "size=N (nodes per side: 128 on CPUs, 512 on GPUs), triangles=T (1000000, about), "
    "body=torus|sphere (torus), stencil=D3Q19|D3Q27 (D3Q19), normals=0|1 (0)"}))
