#include "kflow/model/parallel.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#ifdef KFLOW_HAVE_MPI
#include "kflow/linalg/dist/global_reduce.hpp"
#endif
#if defined(KFLOW_HAVE_MPI) && defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT
#endif
#ifdef KFLOW_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#include <Kokkos_Core.hpp>
#endif

namespace kflow::parallel {

namespace {
bool g_active = false;
int g_rank = 0, g_size = 1;
std::string g_transport;
#ifdef KFLOW_HAVE_NCCL
ncclComm_t g_nccl = nullptr;
#endif

#ifdef KFLOW_HAVE_MPI
// KFLOW_HALO: "auto" (unset), "nccl" or "host".
std::string halo_choice() {
  const char* e = std::getenv("KFLOW_HALO");
  const std::string v = e ? e : "";
  if (v.empty()) return "auto";
  if (v == "auto" || v == "nccl" || v == "host") return v;
  throw AgreedError("environment variable KFLOW_HALO='" + v +
                    "': expected auto, nccl or host (how the halo exchange of a distributed "
                    "run on GPUs sends its buffers)");
}

// Set by Open MPI, MPICH/Hydra, PMIx and Slurm launchers.
bool launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                        "MPI_LOCALNRANKS", "SLURM_STEP_NUM_TASKS"})
    if (const char* e = std::getenv(v); e && *e) return true;
  return false;
}
#endif
}  // namespace

int launcher_ranks() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* e = std::getenv(v); e && *e) return std::max(1, std::atoi(e));
  return 1;
}

bool built_with_mpi() {
#ifdef KFLOW_HAVE_MPI
  return true;
#else
  return false;
#endif
}

void init(int* argc, char*** argv) {
#ifdef KFLOW_HAVE_MPI
  if (!launched()) return;
  MPI_Init(argc, argv);
  g_active = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
#else
  (void)argc, (void)argv;
#endif
}

void finalize() {
#ifdef KFLOW_HAVE_MPI
  if (g_active) MPI_Finalize();
#endif
  g_active = false;
}

bool active() {
  return g_active;
}
int rank() {
  return g_rank;
}
int size() {
  return g_size;
}

namespace {
// This rank's index among the ranks of its host, and their number.
std::pair<int, int> on_host() {
#ifdef KFLOW_HAVE_MPI
  if (g_active) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
    int r = 0, n = 1;
    MPI_Comm_rank(node, &r);
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    return {r, n};
  }
#endif
  return {0, 1};
}
}  // namespace

int local_rank() {
  return on_host().first;
}

namespace {
#ifdef KFLOW_HAVE_NCCL

std::string nccl_version() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "NCCL";
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

// The communicator over every rank, on each rank's Kokkos device (collective).
ncclComm_t nccl_comm() {
  if (g_nccl) return g_nccl;
  ncclUniqueId id{};
  int ok = g_rank == 0 ? int(ncclGetUniqueId(&id) == ncclSuccess) : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok)
    throw AgreedError(
        "NCCL: ncclGetUniqueId failed on rank 0; KFLOW_HALO=host stages the halo through host "
        "memory instead");
  MPI_Bcast(&id, int(sizeof id), MPI_BYTE, 0, MPI_COMM_WORLD);
  const ncclResult_t r = ncclCommInitRank(&g_nccl, g_size, id, g_rank);
  if (r != ncclSuccess) {
    g_nccl = nullptr;
    throw Error(std::string("NCCL: ncclCommInitRank failed: ") + ncclGetErrorString(r));
  }
  Kokkos::push_finalize_hook([] {
    if (g_nccl) ncclCommDestroy(g_nccl);
    g_nccl = nullptr;
  });
  return g_nccl;
}
#endif
}  // namespace

#ifdef KFLOW_HAVE_MPI
linalg::dist::Transport transport(bool device_buffers) {
  linalg::dist::Transport t(MPI_COMM_WORLD);
  const std::string choice = halo_choice();
  std::string why_not;
#ifdef KFLOW_HAVE_NCCL
  if (!device_buffers) {
    why_not = "the backend is not cuda";
  } else if (choice != "host") {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess) {
      (void)cudaGetLastError();
      devices = 0;
    }
    const int here = on_host().second;
    if (!any(here > devices)) {
      t.nccl = nccl_comm();
      g_transport = nccl_version() + " (device to device)";
      return t;
    }
    why_not = "ranks share a GPU (" + std::to_string(here) + " ranks on a host with " +
              std::to_string(devices) + " GPUs; NCCL needs one GPU per rank)";
  }
#else
  (void)device_buffers;
  why_not = "this kflow was built without NCCL";
#endif
  if (choice == "nccl")
    throw AgreedError("KFLOW_HALO=nccl, but the halo cannot go device to device with NCCL: " +
                      why_not + "; unset KFLOW_HALO or set it to host");
  g_transport = "MPI through host memory";
  return t;
}
#endif

std::string transport_name() {
  return g_transport;
}

std::string transport_description() {
  // Whether the MPI library says it takes device pointers (kflow passes it
  // none: GPU halos go through NCCL or host memory).
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  const std::string aware = MPIX_Query_cuda_support() ? "CUDA-aware" : "not CUDA-aware at run time";
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  const std::string aware = "not CUDA-aware";
#else
  const std::string aware = "CUDA-awareness not reported";
#endif
#ifdef KFLOW_HAVE_NCCL
  return aware + "; GPU halos device to device with " + nccl_version() +
         " where each rank has its own GPU, else through host memory (KFLOW_HALO=auto|nccl|host)";
#else
  return aware + "; halos through host memory (built without NCCL)";
#endif
}

std::string library() {
#ifdef KFLOW_HAVE_MPI
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(text, &n);
  std::string s(text, std::size_t(n));
  if (const auto nl = s.find_first_of("\n,"); nl != std::string::npos) s.resize(nl);
  return s;
#else
  return "none (built without MPI)";
#endif
}

double max(double v) {
#ifdef KFLOW_HAVE_MPI
  if (g_size > 1) v = linalg::dist::global_max(v, MPI_COMM_WORLD);
#endif
  return v;
}
double sum(double v) {
#ifdef KFLOW_HAVE_MPI
  if (g_size > 1) v = linalg::dist::global_sum(v, MPI_COMM_WORLD);
#endif
  return v;
}
bool any(bool v) {
  return max(v ? 1.0 : 0.0) > 0;
}
void barrier() {
#ifdef KFLOW_HAVE_MPI
  if (g_size > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}
std::vector<double> gather(double v) {
  std::vector<double> all(g_rank == 0 ? std::size_t(g_size) : 0);
#ifdef KFLOW_HAVE_MPI
  if (g_size > 1) {
    MPI_Gather(&v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return all;
  }
#endif
  all.assign(1, v);
  return all;
}

std::vector<double> all_gather(const std::vector<double>& v) {
#ifdef KFLOW_HAVE_MPI
  if (g_size > 1) {
    const auto ranks = static_cast<std::size_t>(g_size);
    std::vector<int> counts(ranks), at(ranks, 0);
    const int n = int(v.size());
    MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    for (std::size_t r = 1; r < counts.size(); ++r) at[r] = at[r - 1] + counts[r - 1];
    std::vector<double> all(std::size_t(at.back() + counts.back()));
    MPI_Allgatherv(v.data(), n, MPI_DOUBLE, all.data(), counts.data(), at.data(), MPI_DOUBLE,
                   MPI_COMM_WORLD);
    return all;
  }
#endif
  return v;
}

std::string broadcast(const std::string& s) {
#ifdef KFLOW_HAVE_MPI
  if (g_size > 1) {
    long n = long(s.size());
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    std::string r = g_rank == 0 ? s : std::string(std::size_t(n), '\0');
    if (n > 0) MPI_Bcast(r.data(), int(n), MPI_CHAR, 0, MPI_COMM_WORLD);
    return r;
  }
#endif
  return s;
}

std::string rank_prefix() {
  const int n = size();
  return n > 1 ? "rank " + std::to_string(rank()) + " of " + std::to_string(n) + ": " : "";
}

void check_job(const std::string& command, bool distributed_bench) {
  if (!built_with_mpi() && launcher_ranks() > 1 && command == "run")
    throw Error(
        "this kflow was built without MPI (KFLOW_ENABLE_MPI=OFF, or no MPI found at "
        "configure time), so each of the " +
        std::to_string(launcher_ranks()) +
        " processes mpirun started would run the whole case alone; run it without "
        "mpirun, or rebuild kflow with MPI ('kflow info' says whether a build has it)");
  if (size() > 1 && command != "run" && command != "info" && command != "list" &&
      !distributed_bench)
    throw AgreedError(
        "kflow " + command + " runs on one rank (this job has " + std::to_string(size()) +
        "); only 'kflow run', and 'kflow bench MODEL' of a model that runs on several ranks "
        "and has a kernel benchmark, run distributed over MPI");
}

void abort(int code) {
#ifdef KFLOW_HAVE_MPI
  if (g_active && g_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

#ifdef KFLOW_HAVE_MPI
MPI_Comm comm() {
  return MPI_COMM_WORLD;
}
#endif

}  // namespace kflow::parallel
