#pragma once
// Backends (Kokkos execution spaces) compiled into this build, by name.

#include <string>
#include <vector>

namespace kflow {

// "cuda", "openmp", "serial" — those compiled in, fastest first.
std::vector<std::string> compiled_backends();
std::string default_backend();
// Throws kflow::Error naming the backends compiled in when `name` is not one.
void require_backend(const std::string& name, const std::string& where);
// One-paragraph description of the device behind a backend.
std::string backend_description(const std::string& name);
// Free memory (bytes) where a backend allocates: the device's for cuda
// (Kokkos initialized), the host's (MemAvailable) otherwise; -1 if unknown.
double available_memory(const std::string& name);

}  // namespace kflow
