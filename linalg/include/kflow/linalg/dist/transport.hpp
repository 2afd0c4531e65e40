#pragma once
// How a halo's buffers travel between ranks: the MPI communicator of the
// decomposition and, in CUDA builds with NCCL, an NCCL communicator over the
// same ranks for device-to-device messages.  Needs MPI.

#include <mpi.h>
#ifdef KFLOW_HAVE_NCCL
#include <nccl.h>
#endif

namespace kflow::linalg::dist {

struct Transport {
  Transport(MPI_Comm c = MPI_COMM_WORLD) : mpi(c) {}  // NOLINT: an MPI_Comm is a Transport
  MPI_Comm mpi;  // the ranks of the decomposition (rank r of it is rank r here)
#ifdef KFLOW_HAVE_NCCL
  // Device to device on the execution space's stream (CUDA spaces; other
  // spaces ignore it); null: staged through host memory and MPI.
  ncclComm_t nccl = nullptr;
#endif
};

}  // namespace kflow::linalg::dist
