#include "kflow/core/backend.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "kflow/core/subnormals.hpp"
#include "kflow/model/error.hpp"

namespace kflow {

std::vector<std::string> compiled_backends() {
  std::vector<std::string> r;
#ifdef KOKKOS_ENABLE_CUDA
  r.push_back("cuda");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  r.push_back("openmp");
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  r.push_back("serial");
#endif
  return r;
}

std::string default_backend() {
  return compiled_backends().front();
}

void require_backend(const std::string& name, const std::string& where) {
  const auto all = compiled_backends();
  if (std::find(all.begin(), all.end(), name) != all.end()) return;
  std::string list;
  for (const auto& b : all) list += (list.empty() ? "" : ", ") + b;
  const bool known = name == "cuda" || name == "openmp" || name == "serial";
  const std::string rebuild =
      ".  Rebuild kflow against a Kokkos with that backend enabled (docs/getting-started.md, '" +
      std::string(name == "cuda" ? "The GPU build (CUDA)" : "Building with CMake") + "').";
  throw Error(where + ": backend '" + name + "' " +
              (known ? "is not compiled into this build of kflow"
                     : "is not a backend kflow knows (serial, openmp, cuda)") +
              "; this build has: " + list + (known ? rebuild : "."));
}

std::string backend_description(const std::string& name) {
  std::ostringstream s;
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda") {
    s << "CUDA device " << Kokkos::device_id() << " (" << Kokkos::Cuda().cuda_device_prop().name
      << ", " << Kokkos::Cuda().cuda_device_prop().totalGlobalMem / (1024.0 * 1024 * 1024)
      << " GiB)";
    return s.str();
  }
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (name == "openmp") {
    s << "OpenMP, " << Kokkos::OpenMP().concurrency() << " threads, " << describe_host_subnormals();
    return s.str();
  }
#endif
  if (name == "serial")
    return std::string("Serial, 1 thread, subnormals ") +
           (thread_flushes_subnormals() ? "flushed to zero" : "kept");
  return name;
}

double available_memory(const std::string& name) {
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda") {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
      (void)cudaGetLastError();  // clear it: unknown is not an error here
      return -1;
    }
    return double(free);
  }
#endif
  (void)name;
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return -1;
}

}  // namespace kflow
