#pragma once
// Global reductions over the ranks of a communicator (MPI_Allreduce of the
// rank's own result, already on the host): every rank gets the same value.
// Needs MPI (include only where KFLOW_HAVE_MPI is defined).

#include <mpi.h>

namespace kflow::linalg::dist {

inline double global_max(double v, MPI_Comm comm) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, comm);
  return v;
}
inline double global_min(double v, MPI_Comm comm) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MIN, comm);
  return v;
}
// The sum of the ranks' partial sums: the order of the additions differs
// from one rank's, so the last bits may too.
inline double global_sum(double v, MPI_Comm comm) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, comm);
  return v;
}

}  // namespace kflow::linalg::dist
