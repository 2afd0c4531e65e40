// Ezzatti & Nesmachnow's 2D SIP orderings (bench/linalg/sip_paper.hpp: one launch per
// anti-diagonal, and pipelined strips with their spin-wait on the strip
// below) on every execution space compiled in: the iterates of the host's
// one-thread lexicographic sweep (linalg::Sip) to rounding, convergence with
// both criteria, the preconditioner L U z = r, and the orderings' names.

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <memory>
#include <vector>

#include "linalg/backends.hpp"
#include "linalg/sip_problems.hpp"
#include "sip_paper.hpp"

namespace la = kflow::linalg;
using kflow::linsys::SipPaper;
using kflow::linsys::SipPaperOrdering;

namespace {

using namespace kflow::test::sip;
using kflow::test::grid2;
using kflow::test::op_to_space;
using kflow::test::random_field;
using kflow::test::rhs_of;
using kflow::test::to_host;
using kflow::test::to_space;

const SipPaperOrdering paper_orderings[] = {SipPaperOrdering::diagonals,
                                            SipPaperOrdering::pipelined};

// Rows per strip of the pipelined ordering (0: default): 7, 32 and 64 on
// GPUs; 1 to 3 on host backends, no more than the backend has threads.
template <class Space>
std::vector<int> strips(SipPaperOrdering o) {
  if (o == SipPaperOrdering::diagonals) return {0};
  if (la::on_gpu<Space>) return {0, 7, 32, 64};
  std::vector<int> s;
  for (int h : {1, 2, 3})
    if (h <= Space().concurrency()) s.push_back(h);
  return s;
}

template <class Space>
auto paper(SipPaperOrdering o, double alpha, int strip) {
  return [=](const auto& op) {
    return std::make_unique<SipPaper<Space, std::decay_t<decltype(op)>>>(Space(), op, o, alpha,
                                                                         strip);
  };
}

}  // namespace

TEMPLATE_LIST_TEST_CASE(
    "Ezzatti & Nesmachnow's SIP orderings give the host's lexicographic iterates", "[unit][sip]",
    kflow::test::ExecutionSpaces) {
  using Space = TestType;
  for (auto [nx, ny] : {std::pair{21, 13}, std::pair{37, 29}, std::pair{200, 333}, std::pair{1, 40},
                        std::pair{64, 1}}) {
    if (!la::on_gpu<Space> && nx == 200) continue;  // many GPU strips
    const auto g = grid2(nx, ny);
    const auto op = variable_op(g);
    const F2 b = rhs_of(op, random_field(g, 17));
    la::SolveControl fixed;
    fixed.tolerance = 0;
    fixed.max_iterations = 6;
    const F2 ref = host_reference(op, b, 0.9, fixed);
    const double scale = 1 + max_diff(g, ref, field(g));
    for (auto ord : paper_orderings)
      for (int strip : strips<Space>(ord)) {
        la::SolveStats s;
        std::string name;
        const F2 x = solve_with<Space>(op, b, paper<Space>(ord, 0.9, strip), fixed, &s, &name);
        INFO(nx << "x" << ny << " " << name << " strip " << strip);
        CHECK(name == std::string("sip (") + la::name(ord) + ")");
        CHECK(s.iterations == 6);
        CHECK(max_diff(g, x, ref) <= 1e-12 * scale);
      }
  }
}

TEMPLATE_LIST_TEST_CASE("Ezzatti & Nesmachnow's SIP orderings solve a variable-coefficient system",
                        "[unit][sip]", kflow::test::ExecutionSpaces) {
  using Space = TestType;
  const auto g = grid2(23, 17);
  const auto op = variable_op(g);
  const F2 exact = random_field(g, 5);
  const F2 b = rhs_of(op, exact);
  for (auto ord : paper_orderings)
    for (auto crit : {la::Criterion::residual, la::Criterion::change}) {
      la::SolveControl c;
      c.tolerance = 1e-10;
      c.criterion = crit;
      c.check_every = 2;
      la::SolveStats s;
      const F2 x = solve_with<Space>(op, b, paper<Space>(ord, 0.92, 0), c, &s);
      INFO(la::name(ord) << " criterion " << int(crit) << ": " << s.iterations << " iterations");
      CHECK(s.converged);
      CHECK(max_diff(g, x, exact) < 1e-8);
    }
}

TEMPLATE_LIST_TEST_CASE("Ezzatti & Nesmachnow's SIP orderings as a preconditioner: L U z = r",
                        "[unit][sip]", kflow::test::ExecutionSpaces) {
  using Space = TestType;
  const auto g = grid2(15, 11);
  const auto dop = op_to_space<Space>(variable_op(g));
  for (auto ord : paper_orderings) {
    SipPaper<Space, decltype(dop)> sip(Space(), dop, ord, 0.92);
    const F2 r = random_field(g, 21);
    la::Field<double, 2, typename Space::memory_space> dz("z", g.extent(0), g.extent(1));
    sip.precondition(to_space<Space>(r), dz);
    const F2 z = to_host(dz);
    const auto& d = sip.factors();
    const F2 lw = to_host(d.lw), ls = to_host(d.ls), lpinv = to_host(d.lpinv), un = to_host(d.un),
             ue = to_host(d.ue);
    F2 y = field(g);  // y = U z, then L y must equal r
    for (int j = 1; j <= 11; ++j)
      for (int i = 1; i <= 15; ++i)
        y(i, j) = z(i, j) + un(i, j) * z(i, j + 1) + ue(i, j) * z(i + 1, j);
    double worst = 0;
    for (int j = 1; j <= 11; ++j)
      for (int i = 1; i <= 15; ++i)
        worst = std::max(worst, std::fabs(y(i, j) / lpinv(i, j) + lw(i, j) * y(i - 1, j) +
                                          ls(i, j) * y(i, j - 1) - r(i, j)));
    INFO(la::name(ord));
    CHECK(worst < 1e-12);
  }
}
