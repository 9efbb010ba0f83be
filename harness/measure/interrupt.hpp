// Stopping a run from outside: SIGINT (Ctrl-C), SIGTERM (Slurm's time limit and scancel, CI
// cancellations, `timeout`, `docker stop`) and SIGHUP (a closed terminal or SSH session) all
// stop it the same way: the first one sets a flag, the current sample finishes, nothing
// further runs, the results measured so far are written, and the process exits with 128 +
// the signal's number (docs/robustness.md). The same signal again within kRepeatWindowS is
// taken as the same request: GNU timeout and a process group's delivery send one signal
// twice. A later second signal ends the process at once, with that signal's status; what
// had finished is still in the run's journal (results/journal.hpp).
#pragma once

namespace tb {

inline constexpr double kRepeatWindowS = 1.0;

// Installs the handler for SIGINT, SIGTERM and SIGHUP.
void install_interrupt_handler();
// True once one of those signals arrived.
bool interrupted();
// The first signal that arrived, 0 if none.
int stop_signal();
// The process exit status for a run stopped by stop_signal(): 128 + its number.
int stop_exit_status();
// "SIGTERM" and the like; "signal N" for others.
const char* signal_name(int sig);
// Where a second signal's message tells the user their finished results are (the run's
// journal, or empty): set once before measuring. Kept in a static buffer (the handler may
// only use async-signal-safe calls).
void set_interrupt_note(const char* note);

}  // namespace tb
