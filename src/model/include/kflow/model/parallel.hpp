#pragma once
// The ranks of a distributed run (MPI), for the core and the models.
//
// kflow starts MPI only when an MPI launcher (mpirun, srun) started it: a
// plain `kflow run` is one rank without touching MPI, and a build without
// MPI (KFLOW_HAVE_MPI undefined) is always one rank.  Every function works
// in all three situations.

#include <array>
#include <string>
#include <vector>

#include "kflow/model/error.hpp"

#ifdef KFLOW_HAVE_MPI
#include <mpi.h>

#include "kflow/linalg/dist/transport.hpp"
#endif

namespace kflow::parallel {

// An error that every rank raised alike (bad input, the checks before any
// work): rank 0 prints it once and every rank exits normally.  Any other
// error in a run of several ranks ends the job (MPI_Abort).
class AgreedError : public Error {
 public:
  using Error::Error;
};

bool built_with_mpi();
// The ranks an MPI launcher started (its environment; 1 without one): a
// build without MPI refuses more than one, which would be independent runs.
int launcher_ranks();
// Starts MPI when built with it and started by an MPI launcher.
void init(int* argc, char*** argv);
void finalize();
bool active();  // MPI was started here
int rank();
int size();
inline bool root() {
  return rank() == 0;
}
// The rank's index among the ranks of its host (one GPU per local rank).
int local_rank();
// "Open MPI v..." (the library's own words, first line), or why there is none.
std::string library();

// Collective over every rank (nothing to do with one rank).
double max(double v);
double sum(double v);
bool any(bool v);
void barrier();
std::vector<double> gather(double v);  // rank 0: one value per rank; others: empty
// Every rank: the ranks' vectors one after the other, in rank order.
std::vector<double> all_gather(const std::vector<double>& v);
// Runs fn on rank 0; a kflow::Error there becomes an AgreedError on every rank.
template <class Fn>
void on_root(Fn&& fn);
[[noreturn]] void abort(int code);
// "rank R of N: " in a run of several ranks, "" otherwise (error messages).
std::string rank_prefix();
// Refuses a job that cannot run as launched, before any work: a build
// without MPI started with several ranks for `kflow run` (kflow::Error),
// and several ranks for a command that runs on one (AgreedError; `bench`
// of a distributed model is allowed: distributed_bench).
void check_job(const std::string& command, bool distributed_bench);

#ifdef KFLOW_HAVE_MPI
MPI_Comm comm();
// How a model's halo sends its buffers (collective: every rank calls it at
// the same point).  device_buffers: the halo's space is CUDA
// (linalg::dist::nccl_space).  NCCL when built with it, several ranks each
// have their own GPU and KFLOW_HALO is not "host"; the NCCL communicator is
// made on the first such call and kept until Kokkos finalizes.  KFLOW_HALO=nccl
// refuses a job that cannot use it.
linalg::dist::Transport transport(bool device_buffers);
#endif
// "nccl (device to device)" or "host-staged MPI" for the last transport
// chosen, "" before any (the summary and the bench notes say which ran).
std::string transport_name();
// What KFLOW_HALO and the build allow, for `kflow info`.
std::string transport_description();

// Rank 0's message (empty: none) on every rank.
std::string broadcast(const std::string& s);

template <class Fn>
void on_root(Fn&& fn) {
  std::string failed;
  if (root()) try {
      fn();
    } catch (const Error& e) {
      failed = e.what();
      if (failed.empty()) failed = "error";
    }
  failed = broadcast(failed);
  if (!failed.empty()) throw AgreedError(failed);
}

}  // namespace kflow::parallel
