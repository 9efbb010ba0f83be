// A thread beside the measuring one that watches the run from outside:
//  - a step on the device (a compile, a prepare, a validation run, a sample, a batch) that
//    has not returned within the kernel timeout is a hung kernel: the monitor calls the
//    hang handler from its own thread, since the measuring thread is stuck in the driver and
//    no API of CUDA, OpenCL or PoCL can stop a kernel that never ends (docs/robustness.md,
//    "A hung kernel"); a step that runs none of the benchmark's kernels (opening the
//    device, compiling) gets at least kSetUpFloorS;
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
    // Called from the monitor's thread with the step that hung and the limit it overran
    // (set_up: a step with the floor, whose limit may not be kernel_timeout_s); expected not
    // to return (it replaces or ends the process). If it returns, the monitor stops watching.
    std::function<void(const std::string& step, double limit_s, bool set_up)> on_hang;
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
    // a sample"). Cheap: an atomic store and a string copy under a mutex.
    void arm(const std::string& what, bool set_up = false);
    void disarm();
    void benchmark_done();

    // Arms for the scope of one step; set_up: a step that runs none of the benchmark's
    // kernels, limited to max(kernel timeout, kSetUpFloorS).
    class Step {
    public:
        Step(RunMonitor* m, const std::string& what, bool set_up = false) : m_(m) {
            if (m_) m_->arm(what, set_up);
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
    // The least a set-up step gets (the default kernel timeout): its time is the driver's
    // and the compiler's, not a kernel's (NVRTC takes 10-20 s for fft's sources, PoCL twice
    // its time under ASan with a cold cache), so a short limit meant for kernels must not
    // fail a slow compile as a hung kernel.
    static constexpr double kSetUpFloorS = 300.0;

    // The limit of a step under kernel timeout `kernel_timeout_s` (0: none).
    static double step_limit(double kernel_timeout_s, bool set_up) {
        if (kernel_timeout_s <= 0) return 0;
        return set_up && kernel_timeout_s < kSetUpFloorS ? kSetUpFloorS : kernel_timeout_s;
    }

private:
    void watch();
    void heartbeat(std::chrono::steady_clock::time_point now);

    MonitorOptions opt_;
    std::size_t total_;
    std::atomic<std::size_t> done_{0};
    std::atomic<long long> armed_at_ns_{0};  // steady clock, 0: disarmed
    std::mutex mutex_;
    std::condition_variable wake_;
    std::string step_;    // the armed step's name and kind, under mutex_
    bool set_up_ = false;
    bool quit_ = false;
    std::chrono::steady_clock::time_point started_, last_beat_;
    std::thread thread_;
};

}  // namespace tb
