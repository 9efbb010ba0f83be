// Runs the planned cases: opens devices, compiles each program once per device, prepares,
// poisons, runs and validates each case, then lets Google Benchmark drive the timing loop
// with manual time taken from device events. Only validated cases are timed.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "results/results.hpp"
#include "plan/selection.hpp"
#include "stats/stopping.hpp"
#include "results/journal.hpp"
#include "measure/compile_timing.hpp"

namespace tb {

// Devices and compiled modules kept open across run_cases calls. `tune` runs one call per
// configuration: without a pool each call opened the device again and compiled (or loaded
// from the cache) every configuration's module again, though most keys share the device
// default's. With a pool, a module is dropped when the next program's is compiled on its
// device, so that a tune holds one program's configurations at a time.
struct DevicePool {
    using DeviceKey = std::pair<std::size_t, std::size_t>;  // slot, device index
    // slot, device index, program, defines
    using ModuleKey = std::tuple<std::size_t, std::size_t, std::string, std::string>;
    std::map<DeviceKey, std::unique_ptr<Device>> devices;
    std::map<ModuleKey, CompiledModule> modules;  // declared after devices: destroyed first
};

struct RunnerOptions {
    CompileOptions compile;           // math mode and defines
    std::uint64_t seed = 42;
    // Sampling: tribench's stopping rule (noise target, min time, timeout) unless the user
    // gave --benchmark_min_time, in which case Google Benchmark picks the iteration count.
    StoppingRule rule;
    bool gb_picks_iterations = false;
    bool calibrate = true;            // measure copy bandwidth and FP32 peak on each GPU
    bool l2_flush = false;            // overwrite a buffer larger than L2 before each sample
    bool scatter = true;              // an empty grid of pseudo-random size before each gated sample where the device asks (CUDA)
    bool compile_twice = true;        // report cold and cached compile times
    bool keep_going = false;          // carry on after a failed case
    std::string save_outputs_dir;     // write inputs/outputs as .npy when non-empty
    bool progress = false;            // one line per case on stderr
    TimingMode timing = TimingMode::Gated;  // how samples are bracketed (docs/measurement.md)
    bool batch = true;                // also time back-to-back runs (batch timing)
    // Set-up only (`run --validate-only`): each case is prepared, poisoned, run once and
    // validated; no warm-up, samples, batch, calibration or budget (the options above that
    // shape them are ignored). A validated case is ok with no samples.
    bool validate_only = false;
    double budget_s = 0;              // plan sampling so the run ends within this wall time (0: none)
    // Where each finished benchmark, device and calibration is written as it finishes
    // (results/journal.hpp); null: nowhere.
    Journal* journal = nullptr;
    // A resumed run whose journal holds a failure, without --keep-going: nothing more runs.
    bool start_stopped = false;
    // A device step (prepare, validation run, sample, batch) longer than this is a hung
    // kernel (0: no limit; opening a device and compiling get at least
    // RunMonitor::kSetUpFloorS): the benchmark is journaled as failed and on_hang is called
    // from the monitor's thread (cmd_run replaces the process; docs/robustness.md).
    double kernel_timeout_s = 0;
    std::function<void(const BenchmarkResult& failed)> on_hang;
    double heartbeat_s = 0;           // a progress line this often on stderr (0: none)
    // Where devices and modules outlive the call (null: the call opens and closes its own).
    DevicePool* pool = nullptr;
};

// Throughput as fractions of each device's calibrated copy bandwidth and FP32 peak, for
// every ok benchmark whose device r.calibration holds.
void apply_calibrations(Results& r);

// Runs the cases and returns their results (environment filled by the caller). Google
// Benchmark must have been initialised. Cases filtered out by --benchmark_filter are absent.
Results run_cases(std::vector<BackendSlot>& slots, const std::vector<Case>& cases, const RunnerOptions& opt);

}  // namespace tb
