#pragma once
// Batched tridiagonal solvers: many independent systems at once (one per grid
// line in x, y or z of an ADI or splitting step), or one very large system.
//
// System m has n unknowns x_0 .. x_{n-1}:
//
//   a_k x_{k-1} + b_k x_k + c_k x_{k+1} = d_k,   k = 0 .. n-1,
//
// with a_0 and c_{n-1} ignored (treated as 0).  Where the unknowns live is a
// TridiagShape (tridiag_shape.hpp); x may be the same View as d, and a, b, c
// are never written.
//
// solve_cyclic: the same batches as periodic loops (the lines of a periodic
// direction), a_0 coupling x_0 to x_{n-1} and c_{n-1} x_{n-1} to x_0.  It is
// reduced to ordinary systems of n - 1 unknowns with two right-hand sides:
// Thomas eliminates once for both (detail/tridiag_thomas.hpp), the other
// methods solve twice (detail/tridiag_cyclic.hpp), so every method and
// backend serves it.
//
// No pivoting: the matrices must be diagonally dominant (|b_k| >= |a_k| +
// |c_k|, strictly in at least one row of each irreducible block) or symmetric
// positive definite, as the ADI and implicit-diffusion systems are.  A zero or
// NaN pivot is detected on the device and thrown as ZeroPivot naming the
// first system that met it; the check costs one integer copied to the host
// per solve and can be switched off (TridiagOptions::check_pivots).
//
// Methods:
//   thomas    one thread per system (CPUs: up to 2048 bytes of neighbouring
//             systems a work item, as the lanes of vectorised loops); O(n),
//             c' in a workspace.
//   register  the partition method in registers (Laszlo, Giles & Appleyard,
//             ACM TOMS 42(4), 2016; Klein & Strzodka 2021): a thread reduces M
//             = 8 or 16 consecutive rows to two equations, the reduced system
//             is solved by PCR in team scratch, every thread writes x from its
//             registers (a, b, c, d read and x written once).  Systems longer
//             than a team go through a reduced system solved recursively.
//   automatic CPUs: thomas.  GPUs: register.
// The reproductions of Ezzatti & Nesmachnow's GPU methods (cyclic reduction,
// PCR, the hybrid and partitioned methods in team scratch) live in the
// application's benchmarks (bench/linalg), not in this library.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kflow/linalg/detail/tridiag_cyclic.hpp"
#include "kflow/linalg/detail/tridiag_register.hpp"
#include "kflow/linalg/detail/tridiag_rows.hpp"
#include "kflow/linalg/detail/tridiag_stream.hpp"
#include "kflow/linalg/detail/tridiag_thomas.hpp"
#include "kflow/linalg/options.hpp"
#include "kflow/linalg/space.hpp"
#include "kflow/linalg/tridiag_shape.hpp"

namespace kflow::linalg {

// One row {a, b, c, d} of a system (Tridiag::solve_rows' row sources return it).
template <class Real>
using TridiagRow = detail::Row<Real>;
// Prefetch hints for CPUs' lane cursors (detail/tridiag_thomas.hpp).
using detail::prefetch_lanes;

// `register_` is the method named "register" (a C++ keyword).
enum class TridiagMethod { automatic, thomas, register_ };

template <>
struct EnumNames<TridiagMethod> {
  static constexpr const char* what = "tridiagonal method";
  static constexpr std::pair<TridiagMethod, const char*> table[] = {
      {TridiagMethod::thomas, "thomas"},
      {TridiagMethod::register_, "register"},
      {TridiagMethod::automatic, "auto"}};
};

// Options of a Tridiag, fixed at construction.  The register settings: 0
// means chosen from the shape and the backend.
struct TridiagOptions {
  bool check_pivots = true;  // one integer copied to the host per solve
  int register_rows = 0;     // rows per thread M: 8 or 16 (0: 16 for strided
                             // batches and single systems, 8 for contiguous)
  int register_team = 0;     // most threads per team (0: 256, single systems
                             // 128, GPUs' streamed kernel 512)
  int register_systems = 0;  // systems per team (0: as many as fill the team)
  int register_groups = 0;   // GPUs' streamed kernel: groups of systems per team
  int register_stage = -1;   // staged loads: -1 GPUs for single systems, 0 never, 1 always
};

// A reusable batched tridiagonal solver on one execution-space instance: it
// keeps its workspace (grown on demand) and the pivot flag between calls.
template <class ExecSpace, class Real>
class Tridiag {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using ConstArray = Kokkos::View<const Real*, memory_space>;
  using Array = Kokkos::View<Real*, memory_space>;
  static constexpr bool gpu = on_gpu<ExecSpace>;

  explicit Tridiag(const ExecSpace& space, const TridiagOptions& options = {})
      : space_(space), opt_(options), flag_(space) {
    if (opt_.register_rows != 0 && opt_.register_rows != 8 && opt_.register_rows != 16)
      throw std::invalid_argument("tridiag: register_rows must be 8 or 16 (or 0: chosen)");
    if (opt_.register_team < 0 || opt_.register_systems < 0 || opt_.register_groups < 0)
      throw std::invalid_argument(
          "tridiag: register_team, register_systems and register_groups must be >= 0");
    if (opt_.register_stage < -1 || opt_.register_stage > 1)
      throw std::invalid_argument("tridiag: register_stage must be -1, 0 or 1");
  }

  const TridiagOptions& options() const { return opt_; }

  // The method `automatic` resolves to on this backend.
  static TridiagMethod choose(const TridiagShape&) {
    return gpu ? TridiagMethod::register_ : TridiagMethod::thomas;
  }

  // How the last register solve ran: per level, rows per thread, systems (or
  // segments) x partitions per team, staging.
  const std::string& register_plan() const { return plan_; }

  // Solves every system of `sh`; x may be the same View as d.  Returns the
  // method used.  Throws ZeroPivot (when checking) or std::invalid_argument.
  TridiagMethod solve(const TridiagShape& sh, const ConstArray& a, const ConstArray& b,
                      const ConstArray& c, const ConstArray& d, const Array& x,
                      TridiagMethod method = TridiagMethod::automatic) {
    detail::validate(sh, a, b, c, d, x);
    if (sh.systems() == 0) return method;
    if (method == TridiagMethod::automatic) method = choose(sh);
    if (opt_.check_pivots) flag_.reset();
    run(sh, a, b, c, d, x, method, 0);
    if (opt_.check_pivots) flag_.check(name(method), sh.n);
    return method;
  }

  // Solves every system of `sh` as a cyclic one: row 0 is a_0 x_{n-1} + b_0
  // x_0 + c_0 x_1 = d_0, row n-1 a_{n-1} x_{n-2} + b_{n-1} x_{n-1} + c_{n-1}
  // x_0 = d_{n-1} (n = 2: both neighbours of a row are the other unknown;
  // n = 1: (a_0 + b_0 + c_0) x_0 = d_0).  Thomas: one elimination carrying
  // both right-hand sides of the reduction (detail/tridiag_thomas.hpp); the
  // other methods: two solves of rows 0 .. n-2 and two light kernels (a
  // workspace the size of sh.span(), kept).  One pivot check for all; a zero
  // Schur complement (a singular cyclic matrix) is reported as a ZeroPivot
  // too.  x may be d.  This form reads a, b, c as they are (Sherman-Morrison
  // would need a modified copy of b).
  TridiagMethod solve_cyclic(const TridiagShape& sh, const ConstArray& a, const ConstArray& b,
                             const ConstArray& c, const ConstArray& d, const Array& x,
                             TridiagMethod method = TridiagMethod::automatic) {
    detail::validate(sh, a, b, c, d, x);
    if (sh.systems() == 0) return method;
    if (method == TridiagMethod::automatic) method = choose(sh);
    if (opt_.check_pivots) flag_.reset();
    const detail::ArrayRows<Real, ConstArray> rows{a, b, c, d};
    if (sh.n > 1 && method == TridiagMethod::thomas) {
      detail::run_thomas<ExecSpace, Real, true>(space_, sh, rows, x, ws_, flag_.view());
    } else {
      if (sh.n > 1) {
        TridiagShape sub = sh;  // rows 0 .. n-2 of every system
        sub.n = sh.n - 1;
        detail::grow(space_, cyc_, sh.span());
        detail::cyclic_rhs<ExecSpace, Real>(space_, sh, a, c, cyc_);
        run(sub, a, b, c, d, x, method, 0);
        run(sub, a, b, c, cyc_, cyc_, method, 0);
      }
      detail::cyclic_finish<ExecSpace, Real>(space_, sh, rows, x, cyc_, flag_.view());
    }
    if (opt_.check_pivots) flag_.check((std::string(name(method)) + ", cyclic").c_str(), sh.n);
    return method;
  }

  // Solves every system of `sh` whose rows are assembled on the fly: the row
  // source's rows.line(f, st) is a system's cursor (first unknown at index f
  // of x, the next ones st apart) and line(k) returns row k as a
  // TridiagRow<Real> {a, b, c, d}, called once per row as the elimination
  // reaches it (again only to name a failing system).  Nothing but x and the
  // Thomas workspace is written: the assembly fused into the solve, so that
  // a, b, c and d never travel through memory.  Thomas (one thread per
  // system, CPUs in lanes), whatever the backend.  A row source may also
  // offer CPUs' lanes cursor (detail/tridiag_thomas.hpp, lanes_of).
  template <class Rows>
  void solve_rows(const TridiagShape& sh, const Rows& rows, const Array& x) {
    solve_fused<false>(sh, rows, x);
  }

  // solve_rows for periodic lines (solve_cyclic's systems): solve_cyclic's
  // Thomas, one elimination carrying both right-hand sides, with the rows
  // from the source, each assembled once and never stored.  The same bits as
  // solve_cyclic by Thomas on the stored rows.
  template <class Rows>
  void solve_rows_cyclic(const TridiagShape& sh, const Rows& rows, const Array& x) {
    solve_fused<true>(sh, rows, x);
  }

  // solve_rows in two halves: start_rows queues the solve on this solver's
  // instance and returns; finish() waits for it and throws its ZeroPivot.
  // This way two Tridiags on two instances (linalg::side_instance) run their
  // solves side by side on a GPU: one launch's last, partly filled wave
  // overlaps the other's.  Nothing else may run on the instance between.
  template <class Rows>
  void start_rows(const TridiagShape& sh, const Rows& rows, const Array& x) {
    start<false>(sh, rows, x);
  }
  // start_rows for periodic lines (solve_rows_cyclic's first half).
  template <class Rows>
  void start_rows_cyclic(const TridiagShape& sh, const Rows& rows, const Array& x) {
    start<true>(sh, rows, x);
  }
  void finish() {
    if (pending_n_ == 0) return;
    const long n = pending_n_;
    pending_n_ = 0;
    if (opt_.check_pivots)
      flag_.check(pending_cyclic_ ? "thomas, cyclic, rows assembled in the solve"
                                  : "thomas, rows assembled in the solve",
                  n);
    else
      space_.fence("kflow::linalg::tridiag::finish");
  }

 private:
  // solve_rows and solve_rows_cyclic: start, then check (or leave queued)
  template <bool Cyclic, class Rows>
  void solve_fused(const TridiagShape& sh, const Rows& rows, const Array& x) {
    start<Cyclic>(sh, rows, x);
    if (opt_.check_pivots)
      finish();
    else
      pending_n_ = 0;  // unchecked, the solve stays queued
  }
  template <bool Cyclic, class Rows>
  void start(const TridiagShape& sh, const Rows& rows, const Array& x) {
    detail::validate(sh, x);
    pending_n_ = 0;
    if (sh.systems() == 0) return;
    if (opt_.check_pivots) flag_.reset();
    if constexpr (Cyclic) {
      if (sh.n == 1)
        detail::cyclic_finish<ExecSpace, Real>(space_, sh, rows, x, cyc_, flag_.view());
      else
        detail::run_thomas<ExecSpace, Real, true>(space_, sh, rows, x, ws_, flag_.view());
    } else {
      detail::run_thomas<ExecSpace, Real>(space_, sh, rows, x, ws_, flag_.view());
    }
    pending_n_ = sh.n, pending_cyclic_ = Cyclic;
  }

  void run(const TridiagShape& sh, const ConstArray& a, const ConstArray& b, const ConstArray& c,
           const ConstArray& d, const Array& x, TridiagMethod method, int depth) {
    if (method == TridiagMethod::thomas) {
      detail::run_thomas<ExecSpace, Real>(
          space_, sh, detail::ArrayRows<Real, ConstArray>{a, b, c, d}, x, ws_, flag_.view());
      return;
    }
    if (depth == 0) {
      const bool single = sh.systems() == 1;
      rows_now_ = opt_.register_rows > 0 ? opt_.register_rows : single || sh.stride > 1 ? 16 : 8;
      single_now_ = single;
    }
    if (rows_now_ == 16)
      run_register<16>(sh, a, b, c, d, x, depth);
    else
      run_register<8>(sh, a, b, c, d, x, depth);
  }

  // The register method with M rows per thread: one launch when a system's
  // P = ceil(n / M) partitions fit one team, else reduce, the reduced system
  // (2 P rows per system) recursively, finish.
  template <int M>
  void run_register(const TridiagShape& sh, const ConstArray& a, const ConstArray& b,
                    const ConstArray& c, const ConstArray& d, const Array& x, int depth) {
    const long n = sh.n, ns = sh.systems(), P = (n + M - 1) / M;
    const bool stage = opt_.register_stage >= 0 ? opt_.register_stage == 1
                                                : gpu && sh.stride == 1 && n > 1 && single_now_;
    long tmax = opt_.register_team > 0 ? opt_.register_team : single_now_ ? 128 : 256;
    if constexpr (gpu) tmax = std::min(tmax, long(register_team_max<M>()));
    auto fits = [&](long S, long V) {  // GPUs: on-chip scratch
      return !gpu || detail::register_scratch<ExecSpace, Real, M>(int(S), int(V), stage, false) <=
                         std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
    };
    const Array none;
    if (depth == 0) plan_.clear();
    auto note = [&](long S, long Pt, const char* what) {
      plan_ += (plan_.empty() ? "" : "; ") + std::string(what) + " M " + std::to_string(M) + ", " +
               std::to_string(S) + " x " + std::to_string(Pt) + " per team" +
               (stage ? ", staged" : "");
    };
    if constexpr (gpu) {
      // Unstaged and a system fits a team of 512: register_stream.  Groups
      // per team: up to 8 while that leaves ~4 teams per multiprocessor (one
      // resident team each).
      const long vmax = opt_.register_team > 0 ? std::min(opt_.register_team, 512) : 512;
      if (!stage && P <= vmax) {
        long S = opt_.register_systems > 0 ? opt_.register_systems : vmax / P;
        S = std::max(1L, std::min({S, ns, vmax / P}));
        const long groups = (ns + S - 1) / S;
        const long sms = std::max(1L, long(space_.concurrency()) / 2048);
        const long G = opt_.register_groups > 0 ? opt_.register_groups
                                                : std::clamp(groups / (4 * sms), 1L, 8L);
        note(S, P, "stream");
        plan_ += ", " + std::to_string(G) + (G == 1 ? " group" : " groups");
        detail::register_stream<ExecSpace, Real, M>(space_, sh, a, b, c, d, x, int(S), int(G),
                                                    flag_.view());
        return;
      }
    }
    if (P <= tmax && fits(1, P)) {
      long S = opt_.register_systems > 0 ? opt_.register_systems : std::max(1L, tmax / P);
      S = std::max(1L, std::min(S, ns));
      while (S > 1 && (S * P > tmax || !fits(S, S * P))) --S;
      note(S, P, "solve");
      detail::register_pass<ExecSpace, Real, M>(space_, sh, a, b, c, d, x, detail::reg_solve,
                                                int(S), int(P), stage, true, none, none, none, none,
                                                none, flag_.view());
      return;
    }
    long S = opt_.register_systems > 0 ? opt_.register_systems : sh.stride == 1 ? 1 : 8;
    S = std::max(1L, std::min({S, ns, tmax}));
    long Pt = std::max(1L, tmax / S);
    while (Pt > 1 && !fits(S, S * Pt)) Pt /= 2;
    note(S, Pt, "reduce");
    if (ns > LONG_MAX / 4 / P)
      throw std::invalid_argument("tridiag: system too large for the register method");
    if (int(red_.size()) <= depth) red_.resize(depth + 1);
    for (auto& w : red_[depth]) detail::grow(space_, w, 2 * P * ns);
    // a copy of the handles: the recursion below may resize red_
    const std::array<Array, 5> r = red_[depth];
    detail::register_pass<ExecSpace, Real, M>(space_, sh, a, b, c, d, x, detail::reg_reduce, int(S),
                                              int(Pt), stage, true, r[0], r[1], r[2], r[3], none,
                                              flag_.view());
    run(contiguous_shape(2 * P, ns), r[0], r[1], r[2], r[3], r[4], TridiagMethod::register_,
        depth + 1);
    detail::register_pass<ExecSpace, Real, M>(space_, sh, a, b, c, d, x, detail::reg_finish, int(S),
                                              int(Pt), stage, true, none, none, none, none, r[4],
                                              flag_.view());
  }

  // Largest team the register kernel with M rows per thread can run with
  // (its registers), asked once.
  template <int M>
  int register_team_max() {
    int& t = reg_tmax_[M == 16];
    if (t == 0) {
      const Array none;
      const ConstArray cnone;
      t = detail::register_pass<ExecSpace, Real, M>(
          space_, contiguous_shape(1, 1), cnone, cnone, cnone, cnone, none, detail::reg_solve, 1, 1,
          false, false, none, none, none, none, none, flag_.view());
    }
    return t;
  }

  ExecSpace space_;
  TridiagOptions opt_;
  detail::PivotFlag<ExecSpace> flag_;
  Array ws_;
  Array cyc_;  // solve_cyclic's second right-hand side (z) by the other methods
  std::vector<std::array<Array, 5>> red_;  // reduced systems of the register method, per depth
  int rows_now_ = 8;                       // M of the register solve under way (all levels)
  bool single_now_ = false;                // ... and whether it began as one system
  int reg_tmax_[2] = {0, 0};
  std::string plan_;
  long pending_n_ = 0;           // rows of the systems start_rows queued (0: none)
  bool pending_cyclic_ = false;  // queued by start_rows_cyclic
};

// One-off solve (allocates a workspace each call; keep a Tridiag for loops).
template <class ExecSpace, class Real, class M>
TridiagMethod solve_tridiag(const ExecSpace& space, const TridiagShape& sh,
                            const Kokkos::View<const Real*, M>& a,
                            const Kokkos::View<const Real*, M>& b,
                            const Kokkos::View<const Real*, M>& c,
                            const Kokkos::View<const Real*, M>& d, const Kokkos::View<Real*, M>& x,
                            TridiagMethod method = TridiagMethod::automatic) {
  Tridiag<ExecSpace, Real> t(space);
  return t.solve(sh, a, b, c, d, x, method);
}

}  // namespace kflow::linalg
