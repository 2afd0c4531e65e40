// linalg's shared traits: on_gpu per execution space, and the enum
// name/parse pair (options.hpp) with its error message.

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include "kflow/linalg/options.hpp"
#include "kflow/linalg/space.hpp"
#include "linalg/backends.hpp"

namespace {
enum class Colour { red, black };
}  // namespace

template <>
struct kflow::linalg::EnumNames<Colour> {
  static constexpr const char* what = "colour";
  static constexpr std::pair<Colour, const char*> table[] = {{Colour::red, "red"},
                                                             {Colour::black, "black"}};
};

TEMPLATE_LIST_TEST_CASE("linalg: on_gpu is true exactly for device spaces", "[unit][linalg]",
                        kflow::test::ExecutionSpaces) {
  constexpr bool host = Kokkos::SpaceAccessibility<TestType, Kokkos::HostSpace>::accessible;
  STATIC_REQUIRE(kflow::linalg::on_gpu<TestType> == !host);
#ifdef KOKKOS_ENABLE_CUDA
  STATIC_REQUIRE(kflow::linalg::on_gpu<TestType> == std::is_same_v<TestType, Kokkos::Cuda>);
#endif
}

TEST_CASE("linalg: option enums have one name/parse pair", "[unit][linalg]") {
  namespace la = kflow::linalg;
  CHECK(std::string(la::name(Colour::black)) == "black");
  CHECK(la::parse<Colour>("red") == Colour::red);
  CHECK(la::enum_names<Colour>("|") == "red|black");
  try {
    la::parse<Colour>("blue");
    FAIL("parse accepted an unknown name");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "colour \"blue\" is not one of red, black");
  }
}
