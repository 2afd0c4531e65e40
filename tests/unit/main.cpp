// Test runner: Kokkos stays initialised for the whole Catch2 session.
#include <Kokkos_Core.hpp>

#include <catch2/catch_session.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(Kokkos::InitializationSettings().set_disable_warnings(true));
  return Catch::Session().run(argc, argv);
}
