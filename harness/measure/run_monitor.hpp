// A thread beside the measuring one that watches the run from outside:
//  - a step on the device (a compile, a prepare, a validation run, a sample, a batch) that
//    has not returned within the kernel timeout is a hung kernel: the monitor calls the
//    hang handler from its own thread, since the measuring thread is stuck in the driver and
//    no API of CUDA, OpenCL or PoCL can stop a kernel that never ends (docs/robustness.md,
//    "A hung kernel");
//  - when stderr is not a terminal (CI logs, Slurm output files), a heartbeat line every
//    heartbeat interval: benchmarks done of total, elapsed time, expected end;
//  - after a stop signal, a step that still has not returned within kStopGraceS ends the
//    process (128 + signal): what finished is in the journal.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tb {

struct MonitorOptions {
    double kernel_timeout_s = 0;  // 0: no limit
    double heartbeat_s = 0;       // 0: no heartbeat
    double budget_s = 0;          // the run's planned length, for the expected end (0: estimate)
    // Called from the monitor's thread with the step that hung; expected not to return
    // (it replaces or ends the process). If it returns, the monitor stops watching.
    std::function<void(const std::string& step, double limit_s)> on_hang;
    // Where a stop signal's forced end says the finished benchmarks are (may be empty).
    std::string journal_note;
};

class RunMonitor {
public:
    RunMonitor(MonitorOptions opt, std::size_t total);
    ~RunMonitor();
    RunMonitor(const RunMonitor&) = delete;
    RunMonitor& operator=(const RunMonitor&) = delete;

    // A device step begins: `what` names it in the hang message ("mandelbrot/128x128/opencl:
    // a sample"). Cheap: two atomic stores and a string copy under a mutex.
    void arm(const std::string& what);
    void disarm();
    void benchmark_done();

    // Arms for the scope of one step.
    class Step {
    public:
        Step(RunMonitor* m, const std::string& what) : m_(m) {
            if (m_) m_->arm(what);
        }
        ~Step() {
            if (m_) m_->disarm();
        }
        Step(const Step&) = delete;
        Step& operator=(const Step&) = delete;

    private:
        RunMonitor* m_;
    };

    // Grace a step gets after a stop signal before the process ends without it.
    static constexpr double kStopGraceS = 15.0;

private:
    void watch();
    void heartbeat(std::chrono::steady_clock::time_point now);

    MonitorOptions opt_;
    std::size_t total_;
    std::atomic<std::size_t> done_{0};
    std::atomic<long long> armed_at_ns_{0};  // steady clock, 0: disarmed
    std::mutex mutex_;
    std::condition_variable wake_;
    std::string step_;
    bool quit_ = false;
    std::chrono::steady_clock::time_point started_, last_beat_;
    std::thread thread_;
};

}  // namespace tb
