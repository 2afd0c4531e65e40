#pragma once
// Signals during a run (internal to the driver): Ctrl-C, SIGTERM and SIGHUP
// end the run after the current step; a second one stops the step's solves.

namespace kflow {

// Installs the run's handlers for its lifetime and restores the previous ones.
// The first signal ends the run after the current step (a last frame and
// checkpoint); a second one, a quarter of a second or more later, stops the
// step's solves at once (solve_stop_flag(); the last complete checkpoint
// is kept).
struct SignalGuard {
  using Handler = void (*)(int);
  SignalGuard();
  ~SignalGuard();
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

 private:
  Handler old_int_, old_term_, old_hup_;
};

// Whether a signal arrived or stdout or stderr lost its reader (a closed
// pipe); on several ranks, whether any rank saw one (a collective: every
// rank calls it at the same step, and all end there).
bool interrupted();

}  // namespace kflow
