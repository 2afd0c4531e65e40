#include "kflow/core/subnormals.hpp"

#include <Kokkos_Core.hpp>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

#include "kflow/model/error.hpp"

namespace kflow {

namespace {
#if defined(__x86_64__) || defined(_M_X64)
constexpr unsigned kFtzDaz = 0x8040;  // MXCSR: flush to zero (bit 15), denormals are zero (bit 6)
#elif defined(__aarch64__)
constexpr unsigned long kFz = 1ul << 24;  // FPCR.FZ
unsigned long read_fpcr() {
  unsigned long v;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
  return v;
}
void write_fpcr(unsigned long v) {
  __asm__ __volatile__("msr fpcr, %0" : : "r"(v));
}
#endif
}  // namespace

Subnormals parse_subnormals(const std::string& value, const std::string& where) {
  if (value == "flush") return Subnormals::flush;
  if (value == "keep") return Subnormals::keep;
  throw Error(where + ": '" + value + "': expected 'flush' (the default) or 'keep'");
}

bool set_thread_subnormals(Subnormals mode) {
#if defined(__x86_64__) || defined(_M_X64)
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(mode == Subnormals::flush ? csr | kFtzDaz : csr & ~kFtzDaz);
  return true;
#elif defined(__aarch64__)
  const unsigned long v = read_fpcr();
  write_fpcr(mode == Subnormals::flush ? v | kFz : v & ~kFz);
  return true;
#else
  (void)mode;
  return false;
#endif
}

bool thread_flushes_subnormals() {
#if defined(__x86_64__) || defined(_M_X64)
  return (_mm_getcsr() & kFtzDaz) == kFtzDaz;
#elif defined(__aarch64__)
  return (read_fpcr() & kFz) != 0;
#else
  return false;
#endif
}

// One iteration a thread: Kokkos' host backends split a static range of
// `concurrency` iterations evenly over their threads.
void set_host_subnormals(Subnormals mode) {
  set_thread_subnormals(mode);
  using Host = Kokkos::DefaultHostExecutionSpace;
  const Host host;
  Kokkos::parallel_for(
      "kflow::subnormals",
      Kokkos::RangePolicy<Host, Kokkos::Schedule<Kokkos::Static>>(host, 0, host.concurrency()),
      [=](int) { set_thread_subnormals(mode); });
  host.fence("kflow::subnormals");
}

std::string describe_host_subnormals() {
  using Host = Kokkos::DefaultHostExecutionSpace;
  const Host host;
  const int n = host.concurrency();
  int flushed = 0;
  Kokkos::parallel_reduce(
      "kflow::subnormals::count",
      Kokkos::RangePolicy<Host, Kokkos::Schedule<Kokkos::Static>>(host, 0, n),
      [=](int, int& f) { f += thread_flushes_subnormals() ? 1 : 0; }, flushed);
  if (flushed == n) return "subnormals flushed to zero";
  if (flushed == 0) return "subnormals kept";
  return "subnormals flushed on " + std::to_string(flushed) + " of " + std::to_string(n) +
         " threads";
}

}  // namespace kflow
