// `tribench tune`: the selection of `run`, each tuning key's space searched (harness/tune/).
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/run_checks.hpp"
#include "printable.hpp"
#include "measure/interrupt.hpp"
#include "support/atomic_file.hpp"
#include "tune/tuner.hpp"

namespace tb {

namespace {

RunnerOptions tune_runner_options(const RunOptions& o) {
    RunnerOptions ro = sampling_runner_options(o);
    // One configuration is compared with the next on the same device: no calibration, no
    // cold/cached compile pair, no batch timing; a failure ends that configuration's trial.
    ro.calibrate = false;
    ro.compile_twice = false;
    ro.batch = false;
    ro.keep_going = false;
    ro.budget_s = 0;
    // Configurations are ranked by their medians: once a median's 95% confidence interval is
    // within 1% of it (after 50 ms of sampling), more samples would not change the ranking, and
    // a short kernel rarely meets the noise target itself (it timed out at --timeout).
    ro.rule.settle_s = 0.05;
    ro.rule.max_median_spread = 0.01;
    ro.rule.settle_min_samples = ro.rule.min_samples;  // --min-samples holds (up to --timeout)
    return ro;
}

}  // namespace

int cmd_tune(const TuneOptions& o) {
    const RunOptions& r = o.run;
    RunnerOptions ro = tune_runner_options(r);
    if (o.budget_s < 0 || !std::isfinite(o.budget_s)) throw Error("--budget must be a positive number of seconds");
    if (o.max_points < 1) throw Error("--max-points must be at least 1");
    if (r.small_only && r.all_datasets) throw Error("--small and --all-datasets contradict each other");
    for (const auto& l : split_list(r.launches))
        if (l != "stream") throw Error("tune times stream launches only (--launch " + l + "): a graph replays the same kernels");

    const std::string out = o.out.empty() ? default_tuning_path() : o.out;
    if (out.empty()) throw Error("no tuning file to write: give --out FILE (or set XDG_CACHE_HOME or HOME)");
    std::error_code ec;
    TuningFile file;
    if (std::filesystem::exists(out, ec)) file = load_tuning_file(out);  // keeps other keys' entries
    else if (const auto parent = std::filesystem::path(out).parent_path(); !parent.empty())
        std::filesystem::create_directories(parent, ec);
    check_output_path(out);

    SelectionRequest req;
    req.programs = split_list(r.programs);
    req.datasets = split_list(r.datasets);
    req.variants = split_list(r.variants);
    req.devices = split_list(r.devices);
    req.launches = {LaunchMode::Stream};
    req.all_datasets = r.all_datasets;
    req.small_only = r.small_only;
    bool vendor = false;
    auto slots = probe_requested(split_list(r.backends), &vendor);
    for (const auto& s : slots)
        if (!s.unavailable.empty() && s.run_kernels) std::cerr << s.id << ": unavailable: " << s.unavailable << "\n";
    const auto groups = tuning_groups(plan_cases(req, slots), slots);
    if (groups.empty()) throw Error("nothing to tune: the selection matches no benchmark");

    // A configuration that hangs leaves the device unusable to this process: tune ends there.
    // Every key tuned before it is in the file already (saved after each key).
    ro.on_hang = [&out](const BenchmarkResult& hung) {
        std::cerr << "tune: configuration " << to_string(hung.config) << " of " << hung.name
                  << " hung: tune ends here; the keys tuned before it are in " << printable_path(out) << "\n";
        std::cerr.flush();
        std::_Exit(1);
    };
    install_interrupt_handler();
    // One device open and one module per configuration for the whole tune, not per trial.
    DevicePool pool;
    ro.pool = &pool;
    SearchSettings search;
    search.exhaustive_limit = o.exhaustive_limit;
    search.max_points = o.max_points;
    search.seed = o.search_seed;
    const auto t0 = std::chrono::steady_clock::now();
    const auto seconds_in = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    // First every key's device default, which every key tries whatever the budget: their
    // times are what the budget is shared by (search_shares). Each one timed goes into the
    // file at once, so that an interrupt or a hang later keeps it.
    std::vector<TuneOutcome> started;
    std::size_t timed = 0;  // keys in the file after their first trial
    for (std::size_t g = 0; g < groups.size() && !interrupted(); ++g) {
        std::cerr << "tune: device default " << g + 1 << " of " << groups.size() << ", " << std::lround(seconds_in()) << " s in\n";
        started.push_back(start_search(slots, groups[g], ro, search, std::cerr));
        if (started.back().best) {
            TuningEntry first = started.back().entry();
            first.strategy += ", its search not run yet";
            file.put(first);
            save_tuning_file(out, file);
            ++timed;
        }
    }
    std::size_t found = 0, none = 0, searched = 0, changed = 0, configurations = 0;
    for (std::size_t g = 0; g < started.size() && !interrupted(); ++g) {
        // What is left of the budget, shared by the keys left so that each can try as many
        // configurations as the others (search_shares); recomputed for each key, so that what
        // one key leaves goes to the keys after it.
        TuneOutcome& result = started[g];
        double share = 0;
        if (o.budget_s > 0) {
            std::vector<KeySearchCost> left;
            for (std::size_t k = g; k < started.size(); ++k) {
                const std::size_t points = started[k].plan.points.size();
                left.push_back({started[k].search_s, points > 0 ? points - 1 : 0});  // beyond the first
            }
            share = result.search_s + search_shares(o.budget_s - seconds_in(), left).front();
        }
        std::cerr << "tune: key " << g + 1 << " of " << started.size() << ", " << std::lround(seconds_in()) << " s in"
                  << (o.budget_s > 0 ? ", a share of " + std::to_string(std::lround(share)) + " s" : "") << "\n";
        continue_search(slots, groups[g], ro, share, result, std::cerr);
        configurations += result.trials.size();
        searched += result.trials.size() > 1;
        if (!result.best) {
            ++none;
            if (!interrupted())
                std::cerr << "tune: " << describe(result.key) << ": no configuration validated; nothing written for it\n";
            continue;
        }
        ++found;
        changed += result.start && result.best->config != result.start->config;
        file.put(result.entry());
        save_tuning_file(out, file);  // after every key: an interrupt keeps what was found
        const TuningEntry& e = *file.find(result.key);
        std::cout << describe(e.key) << ": " << to_string(e.config) << " " << tune_ms_text(e.median_ms)
                  << (e.default_median_ms > 0 ? " (device default " + tune_ms_text(e.default_median_ms) + ")" : "") << "; "
                  << e.tried << " tried, " << e.failed << " failed, " << e.refused << " refused\n";
    }
    if (!interrupted())
        std::cout << "tune: " << started.size() << " keys in " << std::lround(seconds_in()) << " s: " << searched
                  << " searched beyond their device default (" << configurations << " configurations in all), " << changed
                  << " changed it, " << none << " with none validated\n";
    if (found || timed) std::cout << "tuning written to " << out << "\n";
    if (interrupted()) {
        std::cerr << "tribench: tune stopped by " << signal_name(stop_signal()) << "; "
                  << (found || timed ? "the keys tuned before it are in " + printable_path(out) : std::string("no key was tuned"))
                  << "\n";
        return stop_exit_status();
    }
    return none ? 1 : 0;
}

}  // namespace tb
