#include "measure/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>

#include <unistd.h>

namespace tb {
namespace {

std::atomic<int> g_signal{0};
std::atomic<long long> g_first_ns{0};
char g_note[1024] = {};

long long monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void say(const char* text) {
    const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
    (void)ignored;
}

extern "C" void on_stop_signal(int sig) {
    int none = 0;
    if (g_signal.compare_exchange_strong(none, sig)) {
        g_first_ns.store(monotonic_ns());
        return;
    }
    // The same request delivered twice (timeout(1) signals the child, then its group).
    if (sig == g_signal.load() && double(monotonic_ns() - g_first_ns.load()) < kRepeatWindowS * 1e9) return;
    say("\ntribench: ");
    say(signal_name(sig));
    say(" again: ending now");
    if (g_note[0]) {
        say("; ");
        say(g_note);
    }
    say("\n");
    std::_Exit(128 + sig);
}

}  // namespace

void install_interrupt_handler() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // a blocking read or wait is not cut short by the flag's signal
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

bool interrupted() { return g_signal.load() != 0; }
int stop_signal() { return g_signal.load(); }
int stop_exit_status() { return 128 + g_signal.load(); }

const char* signal_name(int sig) {
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGKILL: return "SIGKILL";
    case SIGQUIT: return "SIGQUIT";
    default: return "a signal";
    }
}

void set_interrupt_note(const char* note) {
    std::strncpy(g_note, note ? note : "", sizeof g_note - 1);
    g_note[sizeof g_note - 1] = '\0';
}

}  // namespace tb
