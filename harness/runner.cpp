#include "runner.hpp"

#include <atomic>
#include <cstdint>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include <benchmark/benchmark.h>

#include "npy.hpp"
#include "ptx_hash.hpp"

namespace tb {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
    if (g_interrupted.exchange(true)) std::_Exit(130);  // a second Ctrl-C ends at once
}

std::string mib(std::uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

// Google Benchmark prints nothing of its own: tribench prints its table instead, and
// --benchmark_out still writes Google Benchmark's file.
class SilentReporter : public benchmark::BenchmarkReporter {
public:
    bool ReportContext(const Context&) override { return true; }
    void ReportRuns(const std::vector<Run>&) override {}
};

struct CompiledModule {
    std::unique_ptr<Module> module;
    std::string error;
};

class Session {
public:
    Session(std::vector<BackendSlot>& slots, const std::vector<Case>& cases, const RunnerOptions& opt)
        : slots_(slots), cases_(cases), opt_(opt), states_(cases.size()) {}

    void register_all() {
        for (std::size_t i = 0; i < cases_.size(); ++i) {
            auto* b = benchmark::RegisterBenchmark(cases_[i].name.c_str(),
                                                   [this, i](benchmark::State& st) { this->measure(i, st); });
            b->UseManualTime()->Unit(benchmark::kMillisecond);
            if (!opt_.min_time_from_flags) b->MinTime(opt_.min_time_s);
        }
    }

    Results collect() {
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
        return r;
    }

private:
    struct State {
        bool started = false;
        bool ready = false;  // validated; timing may proceed
        BenchmarkResult result;
    };

    std::string device_id(const Case& c) const { return slots_[c.slot].id + ":" + std::to_string(c.device); }

    Device* device_for(const Case& c) {
        auto& d = devices_[{c.slot, c.device}];
        if (!d) d = slots_[c.slot].backend->open(c.device);
        return d.get();
    }

    CompiledModule& module_for(const Case& c, Device& dev) {
        auto key = std::make_tuple(c.slot, c.device, c.program->name());
        auto it = modules_.find(key);
        if (it != modules_.end()) return it->second;
        CompiledModule& m = modules_[key];
        CompileOptions co = opt_.compile;
        const auto defs = c.program->defines();
        co.defines.insert(co.defines.end(), defs.begin(), defs.end());
        try {
            m.module = dev.compile(program_source(*c.program, dev.dialect()), co);
        } catch (const Error& e) {
            const std::string msg = e.what();
            const auto nl = msg.find('\n');
            m.error = msg.substr(0, nl);
            std::cerr << "tribench: " << slots_[c.slot].id << ": " << m.error << "\n";
            if (nl != std::string::npos) std::cerr << msg.substr(nl + 1) << "\n";
        }
        return m;
    }

    void fail(State& s, Status st, const std::string& why) {
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
        if (interrupted()) return fail(s, Status::Skipped, "not run: interrupted");
        if (stop_) return fail(s, Status::Skipped, "not run: stopped after a failure (use --keep-going)");

        current_.reset();  // one live dataset at a time
        try {
            Device* dev = device_for(c);
            CompiledModule* m = nullptr;
            if (!c.vendor) {
                m = &module_for(c, *dev);
                if (!m->module) return fail(s, Status::Error, m->error);
                r.compile_ms = m->module->compile_ms;
                r.compile_cached = m->module->from_cache;
                r.ptx_hash = ptx_hashes(m->module->ptx);
            }

            const DeviceInfo& info = dev->info();
            const std::uint64_t need = c.program->device_bytes(c.dataset, c.variant);
            const std::uint64_t have = info.free_mem_bytes ? info.free_mem_bytes : info.global_mem_bytes;
            if (have && need > have)
                return fail(s, Status::Error, "dataset " + c.dataset.name + " needs " + mib(need) + " but " + r.device +
                                                  " has " + mib(have) + (info.free_mem_bytes ? " free" : ""));

            RunConfig cfg{c.variant, c.launch, opt_.seed};
            current_ = c.vendor ? c.program->prepare_vendor(*dev, c.dataset, cfg)
                                : c.program->prepare(*dev, *m->module, c.dataset, cfg);
            if (c.launch == LaunchMode::Graph) r.graph_capture_ms = current_->prepare_graph();
            current_->poison();
            current_->run();
            dev->synchronize();
            r.validation = current_->validate();
            r.work = current_->work();
            if (!opt_.save_outputs_dir.empty()) save_outputs(c, r);
            if (!r.validation.ok) return fail(s, Status::ValidationFailed, "validation failed: " + r.validation.detail);
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
        State& s = states_[i];
        if (!s.started) {
            setup(i);
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
        // Google Benchmark calls this several times (iteration-count estimation, then the
        // measured run, once per repetition); the samples of the last call are kept, and
        // repetitions append so that every measured sample is recorded.
        if (st.max_iterations > last_iterations_[i]) s.result.samples_ms.clear();
        last_iterations_[i] = std::max<std::int64_t>(last_iterations_[i], st.max_iterations);
        for (auto _ : st) {
            const double ms = current_device_->time_ms([this] { current_->run(); });
            st.SetIterationTime(ms * 1e-3);
            s.result.samples_ms.push_back(ms);
            if (interrupted()) {
                st.SkipWithError("interrupted");
                fail(s, Status::Skipped, "interrupted during timing");
                s.ready = false;
                break;
            }
        }
        if (s.ready) s.result.status = Status::Ok;
    }

    void report_progress(std::size_t i) {
        if (!opt_.progress) return;
        const State& s = states_[i];
        std::fprintf(stderr, "[%zu/%zu] %s %s\n", i + 1, cases_.size(), cases_[i].name.c_str(),
                     s.ready ? "validated, timing" : to_string(s.result.status));
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
    std::map<std::pair<std::size_t, std::size_t>, std::unique_ptr<Device>> devices_;
    std::map<std::tuple<std::size_t, std::size_t, std::string>, CompiledModule> modules_;
    std::unique_ptr<Instance> current_;
    Device* current_device_ = nullptr;
    std::size_t current_index_ = SIZE_MAX;
    bool stop_ = false;

public:
    ~Session() {
        // Instances and modules hold device resources: release them before the devices.
        current_.reset();
        modules_.clear();
    }
};

}  // namespace

void install_interrupt_handler() { std::signal(SIGINT, on_sigint); }
bool interrupted() { return g_interrupted.load(); }

Results run_cases(std::vector<BackendSlot>& slots, const std::vector<Case>& cases, const RunnerOptions& opt) {
    Session session(slots, cases, opt);
    session.register_all();
    SilentReporter quiet;
    benchmark::RunSpecifiedBenchmarks(&quiet);
    benchmark::ClearRegisteredBenchmarks();
    return session.collect();
}

}  // namespace tb
