// Memory for a case: the estimate against what the machine has
// (check_memory, check_case_memory), and the message of a failed
// allocation (failure_message).

#include <sys/resource.h>

#include <filesystem>
#include <new>
#include <string>

#include "kflow/core/backend.hpp"
#include "kflow/core/driver.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/number_text.hpp"
#include "progress.hpp"

namespace fs = std::filesystem;

namespace kflow {

// ", 22.3 GB are free here" (and the process's own limit, ulimit -v), for
// messages about memory.
std::string free_memory_text(const std::string& backend) {
  const double free = available_memory(backend);
  std::string t =
      free > 0 ? ", " + number_text(free / 1e9, 3) + " GB are free here" : std::string();
  rlimit lim{};
  if (backend != "cuda" && ::getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
    t += " and this process may use at most " + number_text(double(lim.rlim_cur) / 1e9, 3) +
         " GB (ulimit -v)";
  return t;
}

std::string failure_message(const std::exception& e) {
  const std::string what = e.what();
  if (dynamic_cast<const Error*>(&e)) return what;
  // Kokkos: "Kokkos ERROR: Host memory space failed to allocate 745.1 GiB (label="a")."
  const std::string kokkos = "Kokkos ERROR: ", failed = " memory space failed to allocate ";
  if (const auto at = what.find(failed); what.rfind(kokkos, 0) == 0 && at != std::string::npos) {
    const std::string space = what.substr(kokkos.size(), at - kokkos.size());
    std::string size = what.substr(at + failed.size()), label;
    if (const auto lp = size.find(" (label=\""); lp != std::string::npos) {
      label = size.substr(lp + 9);
      label = label.substr(0, label.find('"'));
      size = size.substr(0, lp);
    }
    const bool gpu = space.find("Cuda") != std::string::npos;
    return "out of memory: " + size + " of " + space + " memory for \"" + label +
           "\" could not be allocated" + free_memory_text(gpu ? "cuda" : "openmp") +
           "; a smaller grid or size, float precision or a larger machine";
  }
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "out of memory: an allocation on the host failed (" + what + ")" +
           free_memory_text("openmp") + "; a smaller grid or size, or a larger machine";
  if (const auto* f = dynamic_cast<const fs::filesystem_error*>(&e))
    return f->path1().string() + (f->path2().empty() ? "" : " -> " + f->path2().string()) + ": " +
           f->code().message();
  return what;
}

void check_memory(double device_bytes, double host_bytes, const std::string& backend,
                  const std::string& what, const std::string& detail, const std::string& advice) {
  auto gb = [](double b) {
    return number_text(b / 1e9, 3) + " GB";
  };
  const bool host = backend != "cuda";
  const double free = available_memory(backend), host_free = available_memory("openmp");
  const double need = device_bytes + (host ? host_bytes : 0);
  if (free > 0 && need > 0.9 * free)
    throw Error(what + " needs about " + gb(need) + " of " + (host ? "host" : "device") +
                " memory (" + detail + "), " + gb(free) + " are free here; " + advice);
  if (!host && host_free > 0 && host_bytes > 0.9 * host_free)
    throw Error(what + " needs about " + gb(host_bytes) + " of host memory beside the device's (" +
                detail + "), " + gb(host_free) + " are free here; " + advice);
}

void check_case_memory(const PreparedCase& pc) {
  check_memory(pc.state_bytes, pc.frame_bytes, pc.backend, "the case",
               "grid " + pc.setup->grid.cells_text() + ", " + pc.precision,
               "a coarser grid, float precision or a larger machine");
}

}  // namespace kflow
