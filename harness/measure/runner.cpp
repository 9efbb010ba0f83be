#include "measure/runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include <benchmark/benchmark.h>

#include "measure/calibration.hpp"
#include "measure/compile_timing.hpp"
#include "measure/compiler_warnings.hpp"
#include "measure/interrupt.hpp"
#include "measure/run_monitor.hpp"
#include "measure/sampling.hpp"
#include "ptx/ptx_hash.hpp"
#include "results/npy.hpp"

namespace tb {
namespace {

std::string mib(std::uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

nlohmann::json calibration_json(const Calibration& cal) {
    return {{"copy_gbps", cal.copy_gbps},
            {"fp32_gflops", cal.fp32_gflops},
            {"empty_kernel_us", cal.empty_kernel_us},
            {"timing", cal.timing}};
}

// Google Benchmark prints nothing of its own: tribench prints its table instead, and
// --benchmark_out still writes Google Benchmark's file.
class SilentReporter : public benchmark::BenchmarkReporter {
public:
    bool ReportContext(const Context&) override { return true; }
    void ReportRuns(const std::vector<Run>&) override {}
};

class Session {
public:
    Session(std::vector<BackendSlot>& slots, const std::vector<Case>& cases, const RunnerOptions& opt)
        : slots_(slots), cases_(cases), opt_(opt), states_(cases.size()),
          devices_(opt.pool ? opt.pool->devices : own_pool_.devices),
          modules_(opt.pool ? opt.pool->modules : own_pool_.modules), stop_(opt.start_stopped),
          started_(std::chrono::steady_clock::now()) {
        MonitorOptions mo;
        mo.kernel_timeout_s = opt.kernel_timeout_s;
        mo.heartbeat_s = opt.heartbeat_s;
        mo.budget_s = opt.validate_only ? 0 : opt.budget_s;
        if (opt.journal) mo.journal_note = "finished benchmarks are in " + opt.journal->path();
        mo.on_hang = [this](const std::string& step, double limit_s, bool set_up) { on_hang(step, limit_s, set_up); };
        monitor_ = std::make_unique<RunMonitor>(std::move(mo), cases.size());
    }

    void register_all() {
        for (std::size_t i = 0; i < cases_.size(); ++i) {
            auto* b = benchmark::RegisterBenchmark(cases_[i].name.c_str(),
                                                   [this, i](benchmark::State& st) { this->measure(i, st); });
            // Microseconds: Google Benchmark fixes a benchmark's unit when it is registered,
            // before anything is timed, and its tools/compare.py pairs a benchmark across two
            // files only when the units agree and prints times as whole numbers. A unit picked
            // from the measured time would flip between runs near a boundary; ms printed 0 for
            // every sub-millisecond kernel. tribench's times run from ~2 us (short kernels on
            // an H100) to seconds (PoCL), all non-zero in us (docs/compare.md).
            b->UseManualTime()->Unit(benchmark::kMicrosecond);
            // Our stopping rule runs inside one Google Benchmark iteration per repetition;
            // validating takes one iteration whatever --benchmark_min_time says.
            if (!opt_.gb_picks_iterations || opt_.validate_only) b->Iterations(1);
        }
    }

    Results collect() {
        park_if_hung();
        settle_started();
        monitor_.reset();
        current_.reset();
        Results r;
        std::map<std::string, bool> device_listed;
        for (std::size_t i = 0; i < cases_.size(); ++i) {
            State& s = states_[i];
            if (!s.started) continue;
            finish(s.result);
            r.benchmarks.push_back(s.result);
            const Case& c = cases_[i];
            const std::string id = device_id(c);
            if (!device_listed[id]) {
                device_listed[id] = true;
                r.devices.push_back(DeviceRecord{id, slots_[c.slot].devices[c.device]});
            }
        }
        for (const auto& [id, cal] : calibrations_) r.calibration[id] = calibration_json(cal);
        apply_calibrations(r);
        return r;
    }

private:
    struct State {
        bool started = false;
        bool ready = false;  // validated; timing may proceed
        bool warmed_up = false;  // the device's warm-up sample, when it needs one, was taken
        bool settled = false;    // written to the journal (or not, if not run)
        double shared_setup_ms = 0;  // opening the device and compiling, left out of wall_ms
        std::map<std::string, std::size_t> sample_clocks;  // samples per clock (Device::timing_clock)
        BenchmarkResult result;
    };

    std::string device_id(const Case& c) const { return slots_[c.slot].id + ":" + std::to_string(c.device); }

    Device* device_for(const Case& c) {
        const std::pair<std::size_t, std::size_t> key{c.slot, c.device};
        auto& d = devices_[key];  // map references stay valid while others are closed
        if (!d) {
            close_devices_except(key);
            RunMonitor::Step step(monitor_.get(), "opening and calibrating " + device_id(c), /*set_up=*/true);
            d = slots_[c.slot].backend->open(c.device);
            if (opt_.journal && !journaled_devices_[device_id(c)]++)
                opt_.journal->add_device(DeviceRecord{device_id(c), slots_[c.slot].devices[c.device]});
            if (opt_.calibrate && !opt_.validate_only && d->info().is_gpu && !calibrations_.count(device_id(c))) {
                const std::string id = device_id(c);
                try {
                    // Timed as the benchmarks will be: the clock floor depends on it.
                    d->set_timing_mode(opt_.timing == TimingMode::Gated && d->supports_gated_timing() ? TimingMode::Gated
                                                                                                    : TimingMode::Plain);
                    calibrations_[id] = calibrate(*d);
                    if (opt_.journal) opt_.journal->add_calibration(id, calibration_json(calibrations_[id]));
                    if (opt_.progress)
                        std::fprintf(stderr, "calibrated %s: copy %.0f GB/s, FP32 %.0f GFLOP/s, empty kernel %.2f us\n",
                                     id.c_str(), calibrations_[id].copy_gbps, calibrations_[id].fp32_gflops,
                                     calibrations_[id].empty_kernel_us);
                } catch (const Error& e) {
                    std::cerr << "tribench: " << id << ": calibration failed: " << e.what() << "\n";
                }
            }
        }
        return d.get();
    }

    // One device open at a time (cases come backend by backend): a backend measured while
    // another backend's device stays open in the same process ran ~0.13 us (4%) slower per
    // short kernel launch on an H100, whichever backend came second (reports/h100/REPORT.md,
    // "Measurement fixes"). Closing the others first puts every backend in the same position.
    void close_devices_except(const std::pair<std::size_t, std::size_t>& keep) {
        for (auto& [key, dev] : devices_) {
            if (key == keep || !dev) continue;
            for (auto it = modules_.begin(); it != modules_.end();) {
                const bool on_dev = std::get<0>(it->first) == key.first && std::get<1>(it->first) == key.second;
                it = on_dev ? modules_.erase(it) : std::next(it);
            }
            flush_.release(dev.get());
            scatter_.release(dev.get());
            if (current_device_ == dev.get()) {
                current_.reset();
                current_device_ = nullptr;
            }
            dev.reset();
        }
    }

    // The configuration a case runs with (an empty Case::config: the program's reference).
    static TuningConfig config_of(const Case& c) { return c.program->config_of(RunConfig{"", LaunchMode::Stream, 0, c.config}); }

    // One module per device, program and configuration: the defines are part of the key.
    CompiledModule& module_for(const Case& c, Device& dev) {
        const auto defs = c.program->defines(config_of(c));
        std::string joined;
        for (const auto& d : defs) joined += d + " ";
        auto key = std::make_tuple(c.slot, c.device, c.program->name(), joined);
        auto it = modules_.find(key);
        if (it != modules_.end()) return it->second;
        if (opt_.pool)  // a shared pool holds one program's modules per device (DevicePool)
            std::erase_if(modules_, [&](const auto& m) {
                return std::get<0>(m.first) == c.slot && std::get<1>(m.first) == c.device &&
                       std::get<2>(m.first) != c.program->name();
            });
        CompiledModule& m = modules_[key];
        CompileOptions co = opt_.compile;
        co.defines.insert(co.defines.end(), defs.begin(), defs.end());
        try {
            const Source src = program_source(*c.program, dev.dialect());
            RunMonitor::Step step(monitor_.get(), c.name + ": compiling " + src.file_name, /*set_up=*/true);
            m.module = compile_timed(dev, src, co, opt_.compile_twice, m);
            print_compiler_warnings(std::cerr, device_id(c) + ": " + src.file_name, m.module->log);
        } catch (const Error& e) {
            const std::string msg = e.what();
            const auto nl = msg.find('\n');
            m.error = msg.substr(0, nl);
            std::cerr << "tribench: " << slots_[c.slot].id << ": " << m.error << "\n";
            if (nl != std::string::npos) std::cerr << msg.substr(nl + 1) << "\n";
        }
        return m;
    }

    // Once the watchdog has declared a hang, this process only waits to be replaced
    // (restart_after_hang): a driver call the teardown woke must not record its error, run the
    // next benchmark on the broken context or write the results; the fresh process does.
    void park_if_hung() const {
        while (hung_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }

    void fail(State& s, Status st, const std::string& why) {
        park_if_hung();
        s.result.status = st;
        s.result.error = why;
        if (st != Status::Skipped && !opt_.keep_going) stop_ = true;
    }

    // Everything before timing: device, module, memory check, inputs, one validated run.
    void setup(std::size_t i) {
        const Case& c = cases_[i];
        State& s = states_[i];
        s.started = true;
        BenchmarkResult& r = s.result;
        r.name = c.name;
        r.program = c.program->name();
        r.dataset = c.dataset.name;
        r.variant = c.variant;
        r.backend = c.vendor ? kVendorId : slots_[c.slot].id;
        r.launch = to_string(c.launch);
        r.device = device_id(c);
        r.math = to_string(opt_.compile.math);
        if (!c.vendor) {
            r.config = config_of(c);
            r.config_source = c.config_source;
        }
        {
            std::lock_guard<std::mutex> lock(identity_mutex_);
            identity_ = r;  // what a hang's failure record says (on_hang, the monitor's thread)
        }
        if (interrupted()) return fail(s, Status::Skipped, "not run: interrupted");
        if (stop_) return fail(s, Status::Skipped, "not run: stopped after a failure (use --keep-going)");

        current_.reset();  // one live dataset at a time
        if (!c.vendor)
            if (const std::string why = c.program->tuning_space().refusal(r.config, slots_[c.slot].devices[c.device]);
                !why.empty())
                return fail(s, Status::Error, "configuration " + to_string(r.config) + " refused: " + why);
        try {
            const auto t_shared = std::chrono::steady_clock::now();
            Device* dev = device_for(c);
            CompiledModule* m = nullptr;
            if (!c.vendor) m = &module_for(c, *dev);
            s.shared_setup_ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_shared).count();
            if (!c.vendor) {
                if (!m->module) return fail(s, Status::Error, m->error);
                r.compile_ms = m->module->compile_ms;
                r.compile_cached = m->module->from_cache;
                r.compile_cold_ms = m->cold_ms;
                r.compile_cached_ms = m->cached_ms;
                r.ptx_hash = ptx_hashes(m->module->ptx);
            }

            const DeviceInfo& info = dev->info();
            const std::uint64_t need = c.program->device_bytes(c.dataset, c.variant);
            const std::uint64_t have = info.free_mem_bytes ? info.free_mem_bytes : info.global_mem_bytes;
            if (have && need > have)
                return fail(s, Status::Error, "dataset " + c.dataset.name + " needs " + mib(need) + " but " + r.device +
                                                  " has " + mib(have) + (info.free_mem_bytes ? " free" : ""));

            RunConfig cfg{c.variant, c.launch, opt_.seed, r.config};
            dev->reset_transfer_stats();
            std::uint64_t launches = 0;
            {
                RunMonitor::Step step(monitor_.get(), c.name + ": preparing the inputs");
                current_ = c.vendor ? c.program->prepare_vendor(*dev, c.dataset, cfg)
                                    : c.program->prepare(*dev, *m->module, c.dataset, cfg);
                r.picked = current_->picked_variant();
                r.pick_cost_ms = current_->pick_cost_ms();
                r.pick_candidates_ms = current_->pick_candidates_ms();
                if (c.launch == LaunchMode::Graph) r.graph_capture_ms = current_->prepare_graph();
                r.upload_ms = dev->transfer_stats().upload_ms;
                current_->poison();
                dev->synchronize();
            }
            {
                RunMonitor::Step step(monitor_.get(), c.name + ": the validation run");
                dev->reset_launch_count();
                current_->run();
                launches = dev->launch_count();
                r.launches = static_cast<std::int64_t>(launches);
                dev->synchronize();
            }
            dev->reset_transfer_stats();
            r.validation = current_->validate();
            r.download_ms = dev->transfer_stats().download_ms;
            r.work = current_->work();
            if (!opt_.save_outputs_dir.empty()) save_outputs(c, r);
            if (!r.validation.ok) return fail(s, Status::ValidationFailed, "validation failed: " + r.validation.detail);
            const bool gated = opt_.timing == TimingMode::Gated && dev->supports_gated_timing();
            dev->set_timing_mode(gated ? TimingMode::Gated : TimingMode::Plain);
            r.timing = gated ? "gated" : "plain";
            if (opt_.timing == TimingMode::Gated && !gated) r.timing_note = "this backend cannot gate: timed plainly";
            if (gated && launches > Device::kGatedSegmentCommands)
                r.timing_note = "a run makes " + std::to_string(launches) + " launches: held and timed in segments of " +
                                std::to_string(Device::kGatedSegmentCommands) + " commands";
            current_device_ = dev;
            current_index_ = i;
            s.ready = true;
        } catch (const Error& e) {
            current_.reset();
            const std::string msg = e.what();
            fail(s, Status::Error, msg.substr(0, msg.find('\n')));
        }
    }

    void save_outputs(const Case& c, const BenchmarkResult& r) {
        std::filesystem::create_directories(opt_.save_outputs_dir);
        std::string stem = r.name;
        for (char& ch : stem)
            if (ch == '/' || ch == '@') ch = '_';
        (void)c;
        for (const auto& a : current_->arrays()) save_npy(opt_.save_outputs_dir, stem, a);
    }

    void measure(std::size_t i, benchmark::State& st) {
        park_if_hung();
        State& s = states_[i];
        // Google Benchmark runs a benchmark's repetitions before the next one starts: the
        // benchmarks started before this one are finished.
        if (!s.started) settle_started();
        // wall_ms: what this case costs beyond its device's opening and its program's compile
        // (shared by a device's cases); `run --shard` balances shards with it (cost_model.hpp).
        const auto t0 = std::chrono::steady_clock::now();
        struct AddWall {
            State& s;
            std::chrono::steady_clock::time_point t0;
            ~AddWall() {
                const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                s.result.wall_ms += std::max(0.0, ms - s.shared_setup_ms);
                s.shared_setup_ms = 0;
            }
        } add_wall{s, t0};
        if (!s.started) {
            const auto setup_t0 = std::chrono::steady_clock::now();
            setup(i);
            const double setup_s = seconds_since(setup_t0);
            if (setups_ == 0) first_setup_seconds_ = setup_s;
            setup_seconds_ += setup_s;
            ++setups_;
            report_progress(i);
        }
        if (s.ready && current_index_ != i) {
            // Only one dataset lives on the device at a time; interleaving would need all.
            fail(s, Status::Error, "--benchmark_enable_random_interleaving is not supported");
            s.ready = false;
        }
        if (!s.ready) {
            st.SkipWithError(s.result.error.c_str());
            for (auto _ : st) {
            }
            return;
        }
        if (opt_.validate_only) {
            // The validated run was the last device work; Google Benchmark still wants its
            // iteration, timed by nobody.
            for (auto _ : st) {
            }
            s.result.status = Status::Ok;
            return;
        }
        if (!s.warmed_up) {
            s.warmed_up = true;
            current_device_->start_timing_series();  // its clock follows its own runs only
            scatter_.restart();
            if (current_device_->needs_warmup_sample()) {
                RunMonitor::Step step(monitor_.get(), s.result.name + ": the warm-up sample");
                timed_run(*current_device_, *current_, s.result);
            }
        }
        if (opt_.gb_picks_iterations)
            measure_gb_iterations(i, st);
        else
            measure_until_stable(i, st);
        if (s.ready) record_clocks(s);
        if (s.ready && opt_.batch && !interrupted()) {
            RunMonitor::Step step(monitor_.get(), s.result.name + ": batch timing");
            measure_batch(*current_device_, *current_, s.result);
        }
        if (s.ready) s.result.status = Status::Ok;
    }

    static double seconds_since(std::chrono::steady_clock::time_point t0) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }

    // The stopping rule for benchmark i (set up already): the user's, tightened under --budget
    // so that the wall time left, less the set-up time the benchmarks after it are expected
    // to need (the mean so far), is shared evenly by the sampling of i and those after it.
    // At its share a benchmark stops if its median has settled (StoppingRule::settle_s), else
    // it may go on to kSettleShares shares, but to no more than half the sampling time left:
    // later shares shrink to pay for it, and the last benchmarks still get theirs.
    StoppingRule planned_rule(std::size_t i) const {
        StoppingRule r = opt_.rule;
        if (opt_.budget_s <= 0) return r;
        const double after = double(cases_.size() - i - 1);
        // The first set-up opened a device, calibrated it and compiled a program: a cost the
        // others mostly share, so it is left out of the mean (the first benchmark plans with
        // none rather than with its own, which left it two samples).
        const double mean_setup =
            setups_ > 1 ? (setup_seconds_ - first_setup_seconds_) / double(setups_ - 1) : 0.0;
        const double left = opt_.budget_s - seconds_since(started_) - mean_setup * after;
        const double sampling = std::max(0.0, left) / (after + 1) * kSamplingShare;
        const double settle_limit = std::max(sampling, std::max(0.0, left) * kSamplingShare / 2);
        r.timeout_s = std::min(r.timeout_s, std::min(kSettleShares * sampling, settle_limit));
        r.min_time_s = std::min(r.min_time_s, sampling);
        r.settle_s = sampling;
        // Cheap rows still get a median of a few samples: a 2-sample median is one of two runs,
        // and those compare poorly. A floor of wall time keeps one slow row from overrunning.
        r.floor_samples = std::min(kBudgetFloorSamples, std::max<std::size_t>(2, r.min_samples));
        r.floor_s = kFloorSeconds;
        return r;
    }

    // One timed run; the L2 flush and the placement scatter, when asked for, happen outside
    // the timed region.
    double sample() {
        if (opt_.l2_flush) flush_.before_sample(*current_device_);
        if (opt_.scatter && current_device_->timing_mode() == TimingMode::Gated) scatter_.before_sample(*current_device_);
        RunMonitor::Step step(monitor_.get(), states_[current_index_].result.name + ": a sample");
        const double ms = timed_run(*current_device_, *current_, states_[current_index_].result);
        ++states_[current_index_].sample_clocks[current_device_->timing_clock()];
        return ms;
    }

    // The clock of most samples; samples read by another clock (CUDA: a region CUPTI gave no
    // span for, docs/measurement.md) are said in the note, as they shift the median.
    static void record_clocks(State& s) {
        std::size_t most = 0, all = 0;
        for (const auto& [clock, n] : s.sample_clocks) {
            all += n;
            if (n > most) {
                most = n;
                s.result.timing_clock = clock;
            }
        }
        if (s.sample_clocks.size() < 2) return;
        std::string note = "clocks of the samples:";
        for (const auto& [clock, n] : s.sample_clocks) note += " " + std::to_string(n) + " of " + std::to_string(all) + " " + clock;
        s.result.timing_note += (s.result.timing_note.empty() ? "" : "; ") + note;
    }

    bool stop_for_interrupt(State& s, benchmark::State& st) {
        if (!interrupted()) return false;
        st.SkipWithError("interrupted");
        fail(s, Status::Skipped, "interrupted during timing");
        s.ready = false;
        return true;
    }

    // Each Google Benchmark repetition is one iteration whose samples run until the
    // stopping rule is satisfied; its reported time is their mean.
    void measure_until_stable(std::size_t i, benchmark::State& st) {
        State& s = states_[i];
        const StoppingRule rule = planned_rule(i);
        for (auto _ : st) {
            std::vector<double> run;
            const auto t0 = std::chrono::steady_clock::now();
            for (;;) {
                run.push_back(sample());
                clock_.observe(*current_device_, s.result, run.size() == 1);
                if (stop_for_interrupt(s, st)) break;
                if (rule.done(run, seconds_since(t0))) {
                    clock_.observe(*current_device_, s.result, true);
                    break;
                }
            }
            if (!s.ready) break;
            double sum = 0;
            for (double x : run) sum += x;
            st.SetIterationTime(sum / double(run.size()) * 1e-3);
            s.result.noisy = s.result.noisy || opt_.rule.noisy(run);
            const bool tightened = rule.timeout_s < opt_.rule.timeout_s || rule.min_time_s < opt_.rule.min_time_s;
            if (tightened && !opt_.rule.met(run)) s.result.budget_cut = true;
            s.result.samples_ms.insert(s.result.samples_ms.end(), run.begin(), run.end());
        }
    }

    // --benchmark_min_time given: Google Benchmark calls this several times (estimation,
    // then the measured run, once per repetition); the estimation calls' samples are
    // dropped, repetitions append.
    void measure_gb_iterations(std::size_t i, benchmark::State& st) {
        State& s = states_[i];
        if (st.max_iterations > last_iterations_[i]) s.result.samples_ms.clear();
        last_iterations_[i] = std::max<std::int64_t>(last_iterations_[i], st.max_iterations);
        for (auto _ : st) {
            const double ms = sample();
            clock_.observe(*current_device_, s.result);
            st.SetIterationTime(ms * 1e-3);
            s.result.samples_ms.push_back(ms);
            if (stop_for_interrupt(s, st)) break;
        }
    }

    // Every benchmark started and not yet settled has finished: into the journal with it
    // (a benchmark stopped by a signal is not: a resumed run measures it).
    void settle_started() {
        for (std::size_t i = 0; i < cases_.size(); ++i) {
            State& s = states_[i];
            if (!s.started || s.settled) continue;
            s.settled = true;
            if (s.result.status == Status::Skipped) continue;
            park_if_hung();
            BenchmarkResult done = s.result;
            finish(done);
            if (opt_.journal) opt_.journal->add_benchmark(done);
            monitor_->benchmark_done();
            if (opt_.progress)
                std::fprintf(stderr, "[%zu/%zu] %s done: %s\n", i + 1, cases_.size(), done.name.c_str(),
                             to_string(done.status));
        }
    }

    // The monitor's thread, a step of the current benchmark having hung: the measuring
    // thread is stuck in the driver, so the failure is journaled from here.
    void on_hang(const std::string& step, double limit_s, bool set_up) {
        BenchmarkResult failed;
        {
            std::lock_guard<std::mutex> lock(identity_mutex_);
            failed = identity_;
        }
        if (opt_.on_hang) hung_.store(true);  // it replaces or ends the process
        failed.status = Status::Error;
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", limit_s);
        const std::string prefix = failed.name + ": ";
        const std::string what = step.rfind(prefix, 0) == 0 ? step.substr(prefix.size()) : step;
        failed.error = what + " did not finish within " + limit +
                       (set_up ? " s (the least a set-up step gets, whatever --kernel-timeout): a driver or compiler "
                                 "that never ends?"
                               : " s (--kernel-timeout): a kernel that never ends?");
        std::fprintf(stderr, "tribench: %s: %s\n", failed.name.empty() ? step.c_str() : failed.name.c_str(),
                     failed.error.c_str());
        std::fflush(stderr);
        if (opt_.journal) opt_.journal->add_benchmark(failed);
        if (opt_.on_hang) opt_.on_hang(failed);
    }

    void report_progress(std::size_t i) {
        if (!opt_.progress) return;
        const State& s = states_[i];
        std::fprintf(stderr, "[%zu/%zu] %s %s\n", i + 1, cases_.size(), cases_[i].name.c_str(),
                     s.ready ? (opt_.validate_only ? "validated" : "validated, timing") : to_string(s.result.status));
    }

    void finish(BenchmarkResult& r) {
        if (r.status != Status::Ok) {
            r.samples_ms.clear();  // a timing is only reported for a validated result
            return;
        }
        r.summary = summarize(r.samples_ms);
        const double sec = r.summary.median * 1e-3;
        if (sec > 0) {
            r.throughput.gbps = r.work.bytes / sec * 1e-9;
            r.throughput.gflops = r.work.flops / sec * 1e-9;
            r.throughput.items_per_s = r.work.items / sec;
        }
    }

    std::vector<BackendSlot>& slots_;
    const std::vector<Case>& cases_;
    const RunnerOptions& opt_;
    std::vector<State> states_;
    std::map<std::size_t, std::int64_t> last_iterations_;
    DevicePool own_pool_;  // used when opt.pool is null
    std::map<DevicePool::DeviceKey, std::unique_ptr<Device>>& devices_;
    std::map<DevicePool::ModuleKey, CompiledModule>& modules_;
    std::map<std::string, Calibration> calibrations_;
    std::unique_ptr<Instance> current_;
    Device* current_device_ = nullptr;
    L2Flush flush_;
    PlacementScatter scatter_;
    ClockWatch clock_;
    std::size_t current_index_ = SIZE_MAX;
    bool stop_ = false;
    std::unique_ptr<RunMonitor> monitor_;
    std::map<std::string, int> journaled_devices_;
    std::mutex identity_mutex_;
    std::atomic<bool> hung_{false};  // on_hang ran: see park_if_hung
    BenchmarkResult identity_;  // the benchmark being set up or measured: its name and keys
    std::chrono::steady_clock::time_point started_;

    // Samples, batches and clock readings take wall time beyond the device time they measure.
    static constexpr double kSamplingShare = 0.7;
    // How many shares a benchmark whose median has not settled may take (planned_rule).
    static constexpr double kSettleShares = 3.0;
    // Wall time past which a budgeted benchmark stops short of its floor of samples: five
    // samples of up to 10 ms fit, a row of slower ones keeps its two.
    static constexpr double kFloorSeconds = 0.05;
    double setup_seconds_ = 0;  // summed over the benchmarks set up so far
    double first_setup_seconds_ = 0;
    std::size_t setups_ = 0;

public:
    ~Session() {
        monitor_.reset();
        // Instances and modules hold device resources: release them before the devices.
        current_.reset();
        flush_.release(nullptr);
        scatter_.release(nullptr);
        own_pool_.modules.clear();
    }
};

}  // namespace

void apply_calibrations(Results& r) {
    for (auto& b : r.benchmarks) {
        if (b.status != Status::Ok || !r.calibration.contains(b.device)) continue;
        const auto& cal = r.calibration[b.device];
        const double copy = cal.value("copy_gbps", 0.0), fp32 = cal.value("fp32_gflops", 0.0);
        if (copy > 0) b.throughput.bw_fraction = b.throughput.gbps / copy;
        if (fp32 > 0) b.throughput.flop_fraction = b.throughput.gflops / fp32;
    }
}

Results run_cases(std::vector<BackendSlot>& slots, const std::vector<Case>& cases, const RunnerOptions& opt) {
    Session session(slots, cases, opt);
    session.register_all();
    SilentReporter quiet;
    benchmark::RunSpecifiedBenchmarks(&quiet);
    benchmark::ClearRegisteredBenchmarks();
    return session.collect();
}

}  // namespace tb
