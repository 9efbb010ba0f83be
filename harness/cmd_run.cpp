#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "environment.hpp"
#include "printable.hpp"
#include "process_usage.hpp"
#include "run_checks.hpp"
#include "runner.hpp"
#include "table.hpp"
#ifdef TRIBENCH_HAVE_CUDA
#include "cuda/kernel_cache.hpp"
#endif

namespace tb {

namespace {

std::vector<LaunchMode> parse_launches(const std::vector<std::string>& names) {
    std::vector<LaunchMode> out;
    for (const auto& n : split_list(names)) {
        if (n == "stream") out.push_back(LaunchMode::Stream);
        else if (n == "graph") out.push_back(LaunchMode::Graph);
        else if (n == "all") out = {LaunchMode::Stream, LaunchMode::Graph};
        else throw Error("unknown launch mode '" + n + "' (known: stream, graph, all)");
    }
    return out;
}

int count_failed(const Results& r) {
    int failed = 0;
    for (const auto& b : r.benchmarks) failed += b.status == Status::ValidationFailed || b.status == Status::Error;
    return failed;
}

// --repeat: one line per round with what a soak test watches (scripts/soak.sh): the
// process's resident memory and open descriptors once the round's devices are closed.
void report_round(std::size_t round, std::size_t rounds, const Results& r, int failed) {
    const ProcessUsage u = process_usage();
    std::cerr << "tribench: round " << round << " of " << rounds << ": " << r.benchmarks.size() - std::size_t(failed)
              << " of " << r.benchmarks.size() << " benchmarks ok; rss_kib " << u.rss_kib << " fds " << u.open_fds
              << "\n";
}

}  // namespace

int cmd_run(const RunOptions& o) {
    RunnerOptions ro;
    ro.compile.math = math_mode_from_string(o.math);
    ro.seed = o.seed;
    ro.rule.min_time_s = o.min_time_s;
    ro.rule.max_noise = o.max_noise;
    ro.rule.timeout_s = o.timeout_s;
    ro.rule.min_samples = o.min_samples;
    ro.rule.max_samples = o.max_samples;
    ro.gb_picks_iterations = o.min_time_from_flags;
    ro.calibrate = !o.no_calibrate;
    ro.l2_flush = o.l2_flush;
    ro.compile_twice = !o.no_cache;
    ro.keep_going = o.keep_going;
    ro.save_outputs_dir = o.save_outputs;
    ro.progress = isatty(STDERR_FILENO);
#ifdef TRIBENCH_HAVE_CUDA
    if (o.no_cache) cuda::set_kernel_cache_enabled(false);
#endif
    // NaN fails every comparison; infinity would make the stopping rule unreachable.
    const auto positive = [](double v) { return v > 0 && std::isfinite(v); };
    if (!positive(o.min_time_s)) throw Error("--min-time must be a positive number of seconds");
    if (!positive(o.max_noise)) throw Error("--max-noise must be a positive number");
    if (!positive(o.timeout_s)) throw Error("--timeout must be a positive number of seconds");
    if (o.min_samples < 2) throw Error("--min-samples must be at least 2");
    if (o.max_samples < o.min_samples) throw Error("--max-samples must be at least --min-samples");

    SelectionRequest req;
    req.programs = split_list(o.programs);
    req.datasets = split_list(o.datasets);
    req.variants = split_list(o.variants);
    req.devices = split_list(o.devices);
    req.launches = parse_launches(o.launches);
    req.all_datasets = o.all_datasets;
    req.small_only = o.small_only;
    if (o.small_only && o.all_datasets) throw Error("--small and --all-datasets contradict each other");

    req.matrix_files = o.matrix_files;
    // Option combinations, TRIBENCH_KERNEL_DIR, --matrix files, a --save-outputs folder that
    // cannot be made and output paths: refused now, before any device is opened, not after
    // an hour of measuring (run_checks.hpp).
    check_run_inputs(o);
    if (std::error_code ec; !o.save_outputs.empty() && !std::filesystem::create_directories(o.save_outputs, ec) && ec)
        throw Error("cannot create " + printable_path(o.save_outputs) + ": " + ec.message());
    check_output_paths(o);

    auto slots = probe_requested(split_list(o.backends), &req.vendor);
    const auto cases = plan_cases(req, slots);  // bad names fail here, before any output
    std::size_t available = 0;
    for (const auto& s : slots) {
        if (s.unavailable.empty()) ++available;
        else if (s.run_kernels) std::cerr << s.id << ": unavailable: " << s.unavailable << "\n";
    }
    if (available == 0) throw Error("no backend is available");
    if (cases.empty()) throw Error("nothing to run: the selection matches no benchmark");

    install_interrupt_handler();
    Results r;
    int failed_rounds = 0;
    for (std::size_t round = 1; round <= o.repeat; ++round) {
        r = run_cases(slots, cases, ro);
        const int failed = count_failed(r);
        failed_rounds += failed > 0;
        if (o.repeat > 1) report_round(round, o.repeat, r, failed);
        if (interrupted()) break;
    }
    r.environment = host_environment(o.argv);
    r.environment["options"] = {{"math", o.math},
                                {"seed", o.seed},
                                {"min_time_s", o.min_time_s},
                                {"max_noise", o.max_noise},
                                {"timeout_s", o.timeout_s},
                                {"min_samples", o.min_samples},
                                {"max_samples", o.max_samples},
                                {"sampling", o.min_time_from_flags ? "google-benchmark" : "stdrel"},
                                {"l2_flush", o.l2_flush},
                                {"kernel_cache", !o.no_cache},
                                {"keep_going", o.keep_going}};
    // With --out - the results file is standard output: the table goes to stderr.
    const bool json_on_stdout = !o.out.empty() && is_standard_output(o.out);
    (json_on_stdout ? std::cerr : std::cout) << format_results_table(r, isatty(json_on_stdout ? STDERR_FILENO : STDOUT_FILENO));
    if (!o.out.empty()) {
        save_results(o.out, r);
        if (!json_on_stdout) std::cout << "results written to " << o.out << "\n";
    }
    const int failed = count_failed(r);
    int skipped = 0;
    for (const auto& b : r.benchmarks) skipped += b.status == Status::Skipped;
    if (failed || skipped) {
        std::cerr << "tribench: " << failed << " of " << r.benchmarks.size() << " benchmarks failed";
        if (skipped) std::cerr << ", " << skipped << " not run";
        std::cerr << "\n";
        for (const auto& b : r.benchmarks)
            if (b.status == Status::ValidationFailed || b.status == Status::Error)
                std::cerr << "  " << b.name << ": " << b.error << "\n";
    }
    if (failed_rounds && !failed) std::cerr << "tribench: " << failed_rounds << " of " << o.repeat << " rounds had failures\n";
    if (interrupted()) return 130;
    return failed || skipped || failed_rounds ? 1 : 0;
}

}  // namespace tb
