#include "signals.hpp"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iostream>

#include "kflow/model/model.hpp"
#include "kflow/model/parallel.hpp"

namespace kflow {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;  // a signal was received during the run
volatile std::sig_atomic_t g_stop_solves = 0;  // a second one: solves stop at once
std::atomic<long long> g_first_signal_ns{0};   // when, on CLOCK_MONOTONIC (0: not yet)
static_assert(std::atomic<long long>::is_always_lock_free, "used in a signal handler");

// One request may arrive twice: `timeout` (and any supervisor that does the
// same) signals the process and then its process group, and two threads can
// take the two.  Signals within this time of the first are that one request, not the
// second one that stops at once.
constexpr long long kSameRequestNs = 250000000;

extern "C" void on_signal(int) {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe (POSIX)
  const long long ns = now.tv_sec * 1000000000LL + now.tv_nsec;
  if (g_interrupted == 0) {
    g_first_signal_ns = ns;
    g_interrupted = 1;
    const char msg[] = "\nkflow: stopping after this step (signal again: stop at once)\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    return;
  }
  const long long first = g_first_signal_ns;
  if (first == 0 || ns - first < kSameRequestNs) return;
  g_stop_solves = 1;  // a solve in progress stops between iterations
}

// Whether stdout or stderr has lost its reader (`kflow run | head`, a `tee`
// killed by a hang-up): a message could not be written (SIGPIPE is ignored:
// the write fails with EPIPE and the stream goes bad), or either is a pipe
// whose reading end is closed (poll's POLLERR), looked at ten times a second
// at most.  The run then ends like an interrupted one: nobody reads it.
bool output_closed() {
  static bool closed = false;
  static std::chrono::steady_clock::time_point last{};
  if (closed || std::cout.bad() || std::cerr.bad()) return closed = true;
  const auto now = std::chrono::steady_clock::now();
  if (now - last < std::chrono::milliseconds(100)) return false;
  last = now;
  for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    pollfd p{fd, 0, 0};  // (POLLERR is reported whatever the events asked)
    if (::poll(&p, 1, 0) == 1 && (p.revents & POLLERR)) return closed = true;
  }
  return false;
}

}  // namespace

SignalGuard::SignalGuard() {
  g_interrupted = 0;
  g_first_signal_ns = 0;
  g_stop_solves = 0;
  old_int_ = std::signal(SIGINT, on_signal);
  old_term_ = std::signal(SIGTERM, on_signal);
  old_hup_ = std::signal(SIGHUP, on_signal);
}

SignalGuard::~SignalGuard() {
  std::signal(SIGINT, old_int_);
  std::signal(SIGTERM, old_term_);
  std::signal(SIGHUP, old_hup_);
  g_stop_solves = 0;
}

const volatile std::sig_atomic_t* solve_stop_flag() {
  return &g_stop_solves;
}

bool interrupted() {
  const bool here = g_interrupted != 0 || output_closed();
  return parallel::size() > 1 ? parallel::any(here) : here;
}

}  // namespace kflow
