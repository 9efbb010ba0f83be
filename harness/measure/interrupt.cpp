#include "measure/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <cstdlib>

namespace tb {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
    if (g_interrupted.exchange(true)) std::_Exit(130);  // a second Ctrl-C ends at once
}

}  // namespace

void install_interrupt_handler() { std::signal(SIGINT, on_sigint); }
bool interrupted() { return g_interrupted.load(); }

}  // namespace tb
