#pragma once
// STREAM-like kernels that measure the memory bandwidth an execution space
// reaches: BabelStream's five (Deakin, Price, Martineau & McIntosh-Smith,
// "GPU-STREAM v2.0", 2016): copy c = a, mul b = s c, add c = a + b, triad
// a = b + s c, dot sum a b.  The best of them is the ceiling every kflow
// benchmark divides by.  Each work item handles `per` packs of `lanes`
// contiguous elements (lanes 1, or 16 bytes' worth: one vector load or store
// on GPUs), the packs n / (per lanes) apart: several independent loads in
// flight per thread, every warp access still coalesced (one 4-byte element
// per thread reached half the bandwidth in float).  n must be a multiple of
// per × lanes, and with lanes > 1 the data 16-byte aligned (Kokkos'
// allocations are).

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kflow::linalg {

namespace detail {

// W contiguous values, loaded and stored as one (W sizeof(Real) bytes).
template <class Real, int W>
struct alignas(W * sizeof(Real)) StreamPack {
  Real v[W];
};

// out(i) = op(x(i), y(i)) over packs of W; Op::inputs of x and y are read
// (0: init, 1: copy and mul, 2: add and triad).
template <class Real, class Mem, int W, class Op>
struct StreamMap {
  using P = StreamPack<Real, W>;
  Kokkos::View<P*, Mem, Kokkos::MemoryUnmanaged> out;
  Kokkos::View<const P*, Mem, Kokkos::MemoryUnmanaged> x, y;
  Op op;
  long m;  // packs / per: the distance between a work item's packs
  int per;
  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    for (int k = 0; k < per; ++k) {
      P a{}, b{}, r;
      if constexpr (Op::inputs > 0) a = x(i + k * m);
      if constexpr (Op::inputs > 1) b = y(i + k * m);
      for (int l = 0; l < W; ++l) r.v[l] = op(a.v[l], b.v[l]);
      out(i + k * m) = r;
    }
  }
};

// sum x(i) y(i) in double over packs of W.
template <class Real, class Mem, int W>
struct StreamDot {
  using P = StreamPack<Real, W>;
  Kokkos::View<const P*, Mem, Kokkos::MemoryUnmanaged> x, y;
  long m;
  int per;
  KOKKOS_INLINE_FUNCTION void operator()(long i, double& acc) const {
    for (int k = 0; k < per; ++k) {
      const P a = x(i + k * m), b = y(i + k * m);
      for (int l = 0; l < W; ++l) acc += double(a.v[l]) * double(b.v[l]);
    }
  }
};

// The same memory as packs of W (n / W of them).
template <int W, class Real, class Mem>
auto stream_packs(const Kokkos::View<Real*, Mem>& v) {
  using P = std::conditional_t<std::is_const_v<Real>,
                               const StreamPack<std::remove_const_t<Real>, W>, StreamPack<Real, W>>;
  return Kokkos::View<P*, Mem, Kokkos::MemoryUnmanaged>(reinterpret_cast<P*>(v.data()),
                                                        v.extent(0) / W);
}

template <class Real>
constexpr int stream_vector_lanes = 16 / int(sizeof(Real));

// Checks n, per, lanes and the arrays' alignment, then calls
// fn(std::integral_constant<int, W>{}) with W = 1 or the 16-byte width.
template <class Real, class Fn>
void stream_packed(long n, int per, int lanes, std::initializer_list<const void*> data, Fn&& fn) {
  constexpr int V = stream_vector_lanes<Real>;
  if (per < 1 || (lanes != 1 && lanes != V) || n % (long(per) * lanes) != 0)
    throw std::invalid_argument("kflow::linalg::stream: " + std::to_string(n) +
                                " elements are no multiple of per (" + std::to_string(per) +
                                ") x lanes (" + std::to_string(lanes) + "; 1 or " +
                                std::to_string(V) + " allowed)");
  for (const void* d : data)
    if (lanes > 1 && reinterpret_cast<std::uintptr_t>(d) % 16 != 0)
      throw std::invalid_argument("kflow::linalg::stream: 16-byte packs need 16-byte aligned data");
  if (lanes == 1)
    fn(std::integral_constant<int, 1>{});
  else
    fn(std::integral_constant<int, V>{});
}

template <class ExecSpace, class Real, class Mem, class Op>
void stream_map(const ExecSpace& space, const char* label, const Kokkos::View<Real*, Mem>& out,
                const Kokkos::View<const Real*, Mem>& x, const Kokkos::View<const Real*, Mem>& y,
                Op op, int per, int lanes) {
  const long n = long(out.extent(0));
  stream_packed<Real>(n, per, lanes, {out.data(), x.data(), y.data()}, [&](auto w) {
    constexpr int W = decltype(w)::value;
    const StreamMap<Real, Mem, W, Op> f{
        stream_packs<W>(out), stream_packs<W>(x), stream_packs<W>(y), op, n / W / per, per};
    Kokkos::parallel_for(label,
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long>>(space, 0, f.m), f);
  });
}

struct CopyOp {
  static constexpr int inputs = 1;
  template <class R>
  KOKKOS_INLINE_FUNCTION R operator()(R a, R) const {
    return a;
  }
};
template <class Real>
struct ScaleOp {
  static constexpr int inputs = 1;
  Real s;
  KOKKOS_INLINE_FUNCTION Real operator()(Real c, Real) const { return s * c; }
};
struct AddOp {
  static constexpr int inputs = 2;
  template <class R>
  KOKKOS_INLINE_FUNCTION R operator()(R a, R b) const {
    return a + b;
  }
};
template <class Real>
struct TriadOp {
  static constexpr int inputs = 2;
  Real s;
  KOKKOS_INLINE_FUNCTION Real operator()(Real b, Real c) const { return b + s * c; }
};

template <class Real>
struct InitOp {
  static constexpr int inputs = 0;
  Real v;
  KOKKOS_INLINE_FUNCTION Real operator()(Real, Real) const { return v; }
};

}  // namespace detail

// BabelStream's initial values a = 0.1, b = 0.2, c = 0, written by the
// space's threads in the kernels' pattern (first touch places the pages).
template <class ExecSpace, class Real, class Mem>
void stream_init(const ExecSpace& space, const Kokkos::View<Real*, Mem>& a,
                 const Kokkos::View<Real*, Mem>& b, const Kokkos::View<Real*, Mem>& c, int per = 1,
                 int lanes = 1) {
  using CV = Kokkos::View<const Real*, Mem>;
  const char* label = "kflow::linalg::stream::init";
  detail::stream_map(space, label, a, CV(a), CV(a), detail::InitOp<Real>{Real(0.1)}, per, lanes);
  detail::stream_map(space, label, b, CV(b), CV(b), detail::InitOp<Real>{Real(0.2)}, per, lanes);
  detail::stream_map(space, label, c, CV(c), CV(c), detail::InitOp<Real>{Real(0)}, per, lanes);
}

// c(i) = a(i)
template <class ExecSpace, class Real, class Mem>
void copy(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& a,
          const Kokkos::View<Real*, Mem>& c, int per = 1, int lanes = 1) {
  detail::stream_map(space, "kflow::linalg::stream::copy", c, a, a, detail::CopyOp{}, per, lanes);
}

// b(i) = s c(i)
template <class ExecSpace, class Real, class Mem>
void mul(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& c,
         const Kokkos::View<Real*, Mem>& b, Real s, int per = 1, int lanes = 1) {
  detail::stream_map(space, "kflow::linalg::stream::mul", b, c, c, detail::ScaleOp<Real>{s}, per,
                     lanes);
}

// c(i) = a(i) + b(i)
template <class ExecSpace, class Real, class Mem>
void add(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& a,
         const Kokkos::View<const Real*, Mem>& b, const Kokkos::View<Real*, Mem>& c, int per = 1,
         int lanes = 1) {
  detail::stream_map(space, "kflow::linalg::stream::add", c, a, b, detail::AddOp{}, per, lanes);
}

// a(i) = b(i) + s c(i)
template <class ExecSpace, class Real, class Mem>
void triad(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& b,
           const Kokkos::View<const Real*, Mem>& c, const Kokkos::View<Real*, Mem>& a, Real s,
           int per = 1, int lanes = 1) {
  detail::stream_map(space, "kflow::linalg::stream::triad", a, b, c, detail::TriadOp<Real>{s}, per,
                     lanes);
}

// sum_i a(i) b(i), accumulated in double.
template <class ExecSpace, class Real, class Mem>
double dot(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& a,
           const Kokkos::View<const Real*, Mem>& b, int per = 1, int lanes = 1) {
  const long n = long(a.extent(0));
  double r = 0;
  detail::stream_packed<Real>(n, per, lanes, {a.data(), b.data()}, [&](auto w) {
    constexpr int W = decltype(w)::value;
    const detail::StreamDot<Real, Mem, W> f{detail::stream_packs<W>(a), detail::stream_packs<W>(b),
                                            n / W / per, per};
    Kokkos::parallel_reduce("kflow::linalg::stream::dot",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long>>(space, 0, f.m),
                            f, r);
  });
  space.fence("kflow::linalg::stream::dot");
  return r;
}

}  // namespace kflow::linalg
