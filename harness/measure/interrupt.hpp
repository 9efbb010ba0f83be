// Ctrl-C during a run: the first SIGINT sets a flag, the current sample finishes, nothing
// further runs, and the results measured so far are kept (docs/robustness.md). A second
// SIGINT ends the process at once (exit status 130).
#pragma once

namespace tb {

void install_interrupt_handler();
bool interrupted();

}  // namespace tb
