#include "measure/run_monitor.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "measure/interrupt.hpp"

namespace tb {
namespace {

using Clock = std::chrono::steady_clock;

long long ns_of(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

std::string duration_text(double s) {
    const long long t = (long long)(s + 0.5);
    char buf[32];
    if (t >= 3600) std::snprintf(buf, sizeof buf, "%lldh%02lldm", t / 3600, t / 60 % 60);
    else std::snprintf(buf, sizeof buf, "%lldm%02llds", t / 60, t % 60);
    return buf;
}

std::string clock_time_in(double s) {
    const std::time_t t = std::time(nullptr) + std::time_t(s + 0.5);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
    return buf;
}

}  // namespace

RunMonitor::RunMonitor(MonitorOptions opt, std::size_t total)
    : opt_(std::move(opt)), total_(total), started_(Clock::now()), last_beat_(started_) {
    thread_ = std::thread([this] { watch(); });  // also needed for a stop signal's grace
}

RunMonitor::~RunMonitor() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void RunMonitor::arm(const std::string& what, bool set_up) {
    std::lock_guard<std::mutex> lock(mutex_);
    step_ = what;
    set_up_ = set_up;
    armed_at_ns_.store(ns_of(Clock::now()));
}

void RunMonitor::disarm() { armed_at_ns_.store(0); }

void RunMonitor::benchmark_done() { done_.fetch_add(1); }

void RunMonitor::heartbeat(Clock::time_point now) {
    const double elapsed = std::chrono::duration<double>(now - started_).count();
    const std::size_t done = done_.load();
    // The pace so far, bounded by the budget: a run whose sampling ends before its budget
    // (--min-time reached) must not be said to last the whole budget.
    std::string eta;
    double left = done > 0 ? elapsed / double(done) * double(total_ - done) : -1;
    bool budget_bound = false;
    if (opt_.budget_s > 0 && (left < 0 || opt_.budget_s - elapsed < left)) {
        left = opt_.budget_s - elapsed;
        budget_bound = true;
    }
    if (left >= 0)
        eta = ", expected end in ~" + duration_text(left) + " (" + clock_time_in(left) + ")" +
              (budget_bound ? " at the latest (--budget)" : "");
    else if (budget_bound) eta = ", past the budget's end (set-up is never cut)";
    std::fprintf(stderr, "tribench: %zu of %zu benchmarks done, %s elapsed%s\n", done, total_,
                 duration_text(elapsed).c_str(), eta.c_str());
    std::fflush(stderr);
}

void RunMonitor::watch() {
    double stop_seen_at = -1;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return quit_; });
            if (quit_) return;
        }
        const auto now = Clock::now();
        if (opt_.heartbeat_s > 0 && std::chrono::duration<double>(now - last_beat_).count() >= opt_.heartbeat_s) {
            last_beat_ = now;
            heartbeat(now);
        }
        const long long armed = armed_at_ns_.load();
        if (armed == 0) continue;
        const double in_step = double(ns_of(now) - armed) * 1e-9;
        if (interrupted()) {
            // The measuring thread stops at its next check; one stuck in the driver never
            // gets there, and the scheduler's SIGKILL would follow.
            const double since = std::chrono::duration<double>(now.time_since_epoch()).count();
            if (stop_seen_at < 0) stop_seen_at = since;
            if (since - stop_seen_at >= kStopGraceS) {
                std::string step;
                {
                    std::lock_guard<std::mutex> lock(mutex_);
                    step = step_;
                }
                std::fprintf(stderr, "tribench: %s: %s did not return %.0f s after the signal: ending now%s%s\n",
                             signal_name(stop_signal()), step.c_str(), kStopGraceS,
                             opt_.journal_note.empty() ? "" : "; ", opt_.journal_note.c_str());
                std::fflush(stderr);
                std::_Exit(stop_exit_status());
            }
        }
        if (opt_.kernel_timeout_s > 0 && in_step >= opt_.kernel_timeout_s && opt_.on_hang) {
            std::string step;
            bool set_up = false;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (armed_at_ns_.load() != armed) continue;  // that step ended meanwhile
                step = step_;
                set_up = set_up_;
            }
            const double limit = step_limit(opt_.kernel_timeout_s, set_up);
            if (in_step < limit) continue;
            opt_.on_hang(step, limit, set_up);
            return;  // the handler did not end the process: stop watching
        }
    }
}

}  // namespace tb
