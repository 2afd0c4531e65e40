#pragma once
// Subnormal (denormal) numbers on the host's threads.  A CPU takes a
// microcode assist for each operation that meets or makes one, and float
// runs make many: split3d's dissipation squares velocity gradients that start
// near zero (1e-20 squared is below FLT_MIN, 1.2e-38), and its float steps
// took 1.5 to 2.7 times longer on CPUs for it (docs/performance.md,
// "Tuning choices").  kflow therefore flushes them to zero on its host
// threads by default (--subnormals keep keeps them): a value changes by less
// than FLT_MIN (DBL_MIN in double).  GPUs handle subnormals at full speed
// and keep them.

#include <string>

namespace kflow {

enum class Subnormals { flush, keep };

// "flush" or "keep"; throws kflow::Error naming `where` and the value otherwise.
Subnormals parse_subnormals(const std::string& value, const std::string& where);

// Sets the calling thread's floating-point control (x86-64: MXCSR's
// flush-to-zero and denormals-are-zero bits; AArch64: FPCR.FZ); threads it
// starts later inherit it.  False where this platform has no such control.
bool set_thread_subnormals(Subnormals mode);

// Whether the calling thread flushes subnormals to zero.
bool thread_flushes_subnormals();

// set_thread_subnormals on the calling thread and on every thread of the
// host execution space (Kokkos initialized).
void set_host_subnormals(Subnormals mode);

// "subnormals flushed to zero", "subnormals kept" or, where the host
// space's threads differ, "subnormals flushed on N of M threads".
std::string describe_host_subnormals();

}  // namespace kflow
