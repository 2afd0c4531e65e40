// kflow::body_geometry, instantiated once per execution space of this
// Kokkos (the voxeliser is a large template: compiled in every model unit
// that calls it, it cost each lbm unit several seconds).

#include "kflow/core/case_geometry.hpp"

namespace kflow {

template <class ExecSpace>
geometry::Geometry<ExecSpace> body_geometry(const ExecSpace& space,
                                            const std::vector<geometry::Body>& bodies,
                                            const geometry::NodeGrid& nodes,
                                            const geometry::Directions& dirs, bool normals) {
  geometry::LinkOptions opt;
  opt.normals = normals;
  return geometry::voxelise(space, bodies, nodes, dirs, opt);
}

#if defined(KOKKOS_ENABLE_SERIAL)
template KFLOW_BODY_GEOMETRY(Kokkos::Serial);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
template KFLOW_BODY_GEOMETRY(Kokkos::OpenMP);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
template KFLOW_BODY_GEOMETRY(Kokkos::Cuda);
#endif

}  // namespace kflow
