// Test runner: Kokkos stays initialised for the whole Catch2 session.
#include <Kokkos_Core.hpp>

#include <catch2/catch_session.hpp>

#include <string>

// The only test source compiled with the tree's paths, so that every other
// one is the same in each clone of the sources (and compiler caches reuse it).
namespace kflow::test {
std::string source_dir() { return KFLOW_SOURCE_DIR; }
std::string scratch_dir() { return KFLOW_TEST_TMPDIR; }
}  // namespace kflow::test

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(Kokkos::InitializationSettings().set_disable_warnings(true));
  return Catch::Session().run(argc, argv);
}
