#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include <malloc.h>
#include <unistd.h>

#include "support/atomic_file.hpp"
#include "cli/commands.hpp"
#include "results/environment.hpp"
#include "printable.hpp"
#include "support/process_usage.hpp"
#include "cli/profiles.hpp"
#include "cli/run_checks.hpp"
#include "cli/run_journal.hpp"
#include "measure/interrupt.hpp"
#include "measure/runner.hpp"
#include "stats/stopping.hpp"
#include "plan/shard_run.hpp"
#include "tune/apply_tuning.hpp"
#include "report/reporter.hpp"
#include "report/validation_lines.hpp"
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

// What --budget cost: which benchmarks were sampled less than the stopping rule asks.
void report_budget(const Results& r, double budget_s, double wall_s, bool given) {
    if (budget_s <= 0) return;
    // A median of fewer samples than the budget's floor is one or two runs: on the H100
    // (2026-12-06) the default budget had left 2 samples to half of the suite's benchmarks.
    std::size_t cut = 0, few = 0;
    for (const auto& b : r.benchmarks) {
        cut += b.budget_cut;
        few += b.status == Status::Ok && b.samples_ms.size() < kBudgetFloorSamples;
    }
    if (!given && cut == 0 && wall_s <= budget_s) return;  // the default budget, and it cost nothing
    std::cerr << "budget: " << r.benchmarks.size() << " benchmarks in " << static_cast<int>(wall_s + 0.5) << " s of "
              << budget_s << " s; " << cut << " sampled less than the stopping rule asks (marked 'b' in the table)\n";
    if (few)
        std::cerr << "budget: " << few << " have fewer than " << kBudgetFloorSamples
                  << " samples, medians that compare poorly: a larger --budget (0: none) samples them as the stopping "
                     "rule asks\n";
    if (wall_s > budget_s)
        std::cerr << "budget: exceeded by " << static_cast<int>(wall_s - budget_s + 0.5)
                  << " s: set-up (compiles, inputs, CPU references, validation) is never cut, only samples\n";
}

bool gb_flag_given(const RunOptions& o, const char* flag) {
    for (const auto& a : o.argv)
        if (a.rfind(flag, 0) == 0) return true;
    return false;
}

// --shard, --cost-from, --dry-run and --parallel-devices: combinations that cannot work.
void check_scale_out_options(const RunOptions& o) {
    const bool gb_filter = gb_flag_given(o, "--benchmark_filter");
    const bool split = !o.shard.empty() || o.parallel_devices;
    if (o.parallel_devices && gb_flag_given(o, "--benchmark_out"))
        throw Error("--parallel-devices cannot take --benchmark_out (every shard would write that one file)");
    if (gb_filter && split)
        throw Error("--shard and --parallel-devices cannot take --benchmark_filter (a shard must know the whole "
                    "selection); select with --program, --dataset, --backend, --variant");
    if (!o.cost_from.empty() && !split && !o.dry_run)
        throw Error("--cost-from balances shards: it needs --shard, --parallel-devices or --dry-run");
    if (o.parallel_devices && !o.shard.empty())
        throw Error("--parallel-devices makes one shard per GPU itself: drop --shard");
    // Each process sees its one GPU as device 0: an index would mean something else in each.
    for (const auto& d : split_list(o.devices))
        if (o.parallel_devices && d.find_first_not_of("0123456789") == std::string::npos)
            throw Error("--parallel-devices pins one GPU per process through CUDA_VISIBLE_DEVICES: choose the GPUs "
                        "there, not with --device " + d);
    if (o.pin_cpus && !o.parallel_devices) throw Error("--pin-cpus is an option of --parallel-devices");
    if (o.parallel_devices && o.dry_run)
        throw Error("--parallel-devices runs the shards: see a split with --dry-run --shard K/N");
}

int count_failed(const Results& r) {
    int failed = 0;
    for (const auto& b : r.benchmarks) failed += b.status == Status::ValidationFailed || b.status == Status::Error;
    return failed;
}

// --repeat: one line per round with what a soak test watches (scripts/soak.sh): the
// process's resident memory, open descriptors and heap in use once the round's devices are
// closed. Free heap memory goes back to the system first: glibc keeps what a round freed
// (hundreds of MiB on PoCL, in the arenas of its threads), which made RSS jump by up to
// 150 MiB between rounds with nothing leaked.
void report_round(std::size_t round, std::size_t rounds, const Results& r, int failed) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    const ProcessUsage u = process_usage();
    std::cerr << "tribench: round " << round << " of " << rounds << ": " << r.benchmarks.size() - std::size_t(failed)
              << " of " << r.benchmarks.size() << " benchmarks ok; rss_kib " << u.rss_kib << " fds " << u.open_fds
              << " heap_kib " << u.heap_kib << "\n";
}

}  // namespace

void apply_profile(RunOptions& o, const std::function<bool(const std::string&)>& given) {
    const RunProfile& p = find_profile(o.profile);
    if (!o.datasets.empty())
        throw Error("--profile " + p.name + " chooses the datasets; drop --dataset (or drop --profile)");
    // -p narrows the profile: keep the datasets of the selected programs only.
    const auto programs = split_list(o.programs);
    for (const auto& d : p.datasets) {
        bool wanted = programs.empty();
        for (const auto& name : programs) {
            const auto sets = find_program(name).datasets();
            wanted = wanted || std::any_of(sets.begin(), sets.end(), [&](const Dataset& s) { return s.name == d; });
        }
        if (wanted) o.datasets.push_back(d);
    }
    if (o.launches.empty()) o.launches = p.launches;
    if (!given("--min-time")) o.min_time_s = p.min_time_s;
    if (!given("--timeout")) o.timeout_s = p.timeout_s;
    if (!given("--min-samples")) o.min_samples = p.min_samples;
    if (!given("--budget")) o.budget_s = p.budget_s;
}

int cmd_run(const RunOptions& o) {
    check_validate_only(o);
    RunnerOptions ro = sampling_runner_options(o);
    ro.gb_picks_iterations = o.min_time_from_flags;
    ro.calibrate = !o.no_calibrate;
    ro.l2_flush = o.l2_flush;
    ro.compile_twice = !o.no_cache;
    ro.keep_going = o.keep_going;
    ro.save_outputs_dir = o.save_outputs;
    ro.progress = o.progress || isatty(STDERR_FILENO);
    ro.batch = !o.no_batch;
    ro.scatter = !o.no_scatter;
    ro.budget_s = o.budget_s;
    ro.validate_only = o.validate_only;
    if (o.budget_s < 0 || !(o.budget_s == o.budget_s)) throw Error("--budget must be a positive number of seconds");
    if (o.heartbeat_s < 0 || !std::isfinite(o.heartbeat_s))
        throw Error("--heartbeat must be a positive number of seconds, or 0 for none");
    if (o.resume_anyway && o.resume.empty()) throw Error("--resume-anyway is an option of --resume");
    if (!o.resume.empty() && o.repeat > 1) throw Error("--repeat runs cannot be resumed: drop --resume");
    if (!o.resume.empty() && o.dry_run) throw Error("--resume cannot take --dry-run");
    ro.heartbeat_s = isatty(STDERR_FILENO) ? 0 : o.heartbeat_s;
#ifdef TRIBENCH_HAVE_CUDA
    if (o.no_cache) cuda::set_kernel_cache_enabled(false);
#endif
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
    check_scale_out_options(o);
    if (o.parallel_devices) return run_parallel_devices(o);
    // Option combinations, TRIBENCH_KERNEL_DIR, --matrix files, a --save-outputs folder that
    // cannot be made and output paths: refused now, before any device is opened, not after
    // an hour of measuring (run_checks.hpp).
    check_run_inputs(o);
    if (std::error_code ec; !o.save_outputs.empty() && !std::filesystem::create_directories(o.save_outputs, ec) && ec)
        throw Error("cannot create " + printable_path(o.save_outputs) + ": " + ec.message());
    check_output_paths(o);
    // --tuning: a malformed tuning file is refused before any device opens (docs/tuning.md).
    const std::string tuning_path = tuning_file_for(o.tuning);
    const TuningFile tuning = tuning_path.empty() ? TuningFile{} : load_tuning_file(tuning_path);

    auto slots = probe_requested(split_list(o.backends), &req.vendor);
    auto all_cases = plan_cases(req, slots);  // bad names fail here, before any output
    const TuningBorrow borrow{o.tuning_backend, o.tuning_device};
    if (borrow.any() && tuning_path.empty())
        throw Error(std::string(o.tuning_backend.empty() ? "--tuning-device" : "--tuning-backend") +
                    " needs a tuning file (--tuning FILE, or the default one: tribench tune)");
    if (const auto& ids = backend_ids();
        !o.tuning_backend.empty() && std::find(ids.begin(), ids.end(), o.tuning_backend) == ids.end())
        throw Error("--tuning-backend: " + unknown_backend(o.tuning_backend));
    apply_tuning(tuning, tuning_path, all_cases, slots, /*named=*/!o.tuning.empty(), borrow);
    std::size_t available = 0;
    for (const auto& s : slots) {
        if (s.unavailable.empty()) ++available;
        else if (s.run_kernels) std::cerr << s.id << ": unavailable: " << s.unavailable << "\n";
    }
    if (available == 0) throw Error("no backend is available");
    if (all_cases.empty()) throw Error("nothing to run: the selection matches no benchmark");
    const ShardedSelection part = shard_selection(all_cases, slots, o.shard, o.cost_from, ro.rule);
    if (o.dry_run) {
        std::cout << format_plan(part);
        return 0;
    }
    const std::vector<Case>& cases = part.cases;

    // The journal: every finished benchmark on disk as it finishes (run_journal.hpp).
    const RunFiles files = resolve_run_files(o);
    if (!files.resuming && !o.resume.empty() && !files.out.empty() && std::filesystem::exists(files.out)) {
        // Its journal is gone because it completed (a requeued Slurm shard that had finished).
        const Results finished = load_results(files.out);
        std::cerr << "tribench: " << printable_path(files.out) << " holds a finished run (no journal): nothing to resume\n";
        return count_failed(finished) ? 1 : 0;
    }
    const nlohmann::json fingerprint = run_fingerprint(o, cases, slots, files.out);
    JournalContents journaled;
    std::unique_ptr<Journal> journal;
    if (files.resuming) {
        journaled = read_journal(files.journal);
        check_resumable(files.journal, journaled.run, fingerprint, o.resume_anyway);
        journal = Journal::append_to(files.journal);
    } else if (!files.journal.empty()) {
        journal = Journal::create(files.journal, fingerprint);
    }
    std::vector<Case> todo;
    std::map<std::string, bool> done;
    bool journaled_failure = false;
    for (const auto& b : journaled.benchmarks) {
        done[b.name] = true;
        journaled_failure = journaled_failure || b.status == Status::ValidationFailed || b.status == Status::Error;
    }
    for (const auto& c : cases)
        if (!done.count(c.name)) todo.push_back(c);
    if (files.resuming)
        std::cerr << "tribench: resuming " << printable_path(files.journal) << ": " << cases.size() - todo.size()
                  << " of " << cases.size() << " benchmarks finished before, " << todo.size() << " to run\n";
    else if (!o.resume.empty())
        std::cerr << "tribench: nothing to resume at " << printable_path(files.journal) << ": starting the run\n";
    ro.journal = journal.get();
    ro.start_stopped = journaled_failure && !o.keep_going;
    std::string note;
    if (journal) {
        // A journal of its own (no --out, or --out a device such as /dev/stdout) is resumed by
        // its own name: --resume /dev/stdout would look for /dev/stdout.journal.
        note = "finished benchmarks are in " + printable_path(files.journal) + "; carry on with --resume " +
               printable_path(files.temporary_journal || files.out.empty() ? files.journal : files.out);
        set_interrupt_note(note.c_str());
    }

    install_interrupt_handler();
    // A shard may get nothing (more shards than benchmarks): it still writes its file.
    const auto started = std::chrono::steady_clock::now();
    if (journal) {
        const std::string journal_path = files.journal;
        ro.on_hang = [&o, journal_path, started](const BenchmarkResult&) {
            const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            restart_after_hang(o.argv, journal_path, o.budget_s > 0 && !o.validate_only ? o.budget_s - used : 0);
        };
    } else {
        ro.on_hang = [](const BenchmarkResult&) {
            std::cerr << "tribench: --repeat runs keep no journal: ending the run\n";
            std::_Exit(1);
        };
    }
    Results fresh;
    int failed_rounds = 0;
    for (std::size_t round = 1; round <= o.repeat; ++round) {
        fresh = todo.empty() ? Results{} : run_cases(slots, todo, ro);
        const int failed = count_failed(fresh);
        failed_rounds += failed > 0;
        if (o.repeat > 1) report_round(round, o.repeat, fresh, failed);
        if (interrupted()) break;
    }
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    Results r = assemble_results(cases, journaled, fresh);
    apply_calibrations(r);
    // Google Benchmark's filter drops cases after planning: the selection would list them.
    if (!gb_flag_given(o, "--benchmark_filter")) r.selection = part.selection;
    r.shard = part.record;
    r.environment = host_environment(o.argv);
    if (files.resuming) r.environment["resumed"] = true;
    nlohmann::json options = measured_options(o);
    options.update({{"kernel_cache", !o.no_cache},
                    {"keep_going", o.keep_going},
                    {"budget_s", o.budget_s},
                    {"kernel_timeout_s", o.kernel_timeout_s},
                    {"profile", o.profile},
                    {"tuning", tuning_path.empty() ? "none" : tuning_path}});
    r.environment["options"] = options;
    // With --out - the results file is standard output: the table goes to stderr.
    const bool json_on_stdout = !files.out.empty() && is_standard_output(files.out);
    const bool color = isatty(json_on_stdout ? STDERR_FILENO : STDOUT_FILENO);
    if (o.validate_only) {
        std::cout << format_validation_lines(r, color);
    } else {
        ReportInput table = run_report(r);
        table.color = color;
        (json_on_stdout ? std::cerr : std::cout) << render_report("console", table);
    }
    if (!files.out.empty()) {
        try {
            save_results(files.out, r);
        } catch (const Error& e) {
            // The journal stays: say where, so that what was measured is not lost with the file.
            if (journal) throw Error(std::string(e.what()) + " (" + note + ")");
            throw;
        }
        if (!json_on_stdout) std::cout << "results written to " << files.out << "\n";
    }
    const int failed = count_failed(r);
    int skipped = 0;
    for (const auto& b : r.benchmarks) skipped += b.status == Status::Skipped;
    // Complete: every benchmark of the selection ran (ok or failed). The journal goes; an
    // interrupted run keeps it for --resume.
    const bool complete = !interrupted() && skipped == 0 && r.benchmarks.size() == cases.size();
    if (journal && (complete || (files.temporary_journal && !interrupted()))) journal->remove();
    if (failed || skipped) {
        std::cerr << "tribench: " << failed << " of " << r.benchmarks.size() << " benchmarks failed";
        if (skipped) std::cerr << ", " << skipped << " not run";
        std::cerr << "\n";
        for (const auto& b : r.benchmarks)
            if (b.status == Status::ValidationFailed || b.status == Status::Error)
                std::cerr << "  " << b.name << ": " << b.error << "\n";
    }
    // A resumed process's own wall time is not the run's: its budget line would mislead.
    if (!o.validate_only)
        report_budget(r, o.budget_s, wall_s, (option_given(o.argv, "--budget") || !o.profile.empty()) && !files.resuming);
    if (failed_rounds && !failed) std::cerr << "tribench: " << failed_rounds << " of " << o.repeat << " rounds had failures\n";
    if (interrupted()) {
        std::cerr << "tribench: stopped by " << signal_name(stop_signal());
        if (journal) std::cerr << "; " << note;
        std::cerr << "\n";
        return stop_exit_status();
    }
    return failed || skipped || failed_rounds ? 1 : 0;
}

}  // namespace tb
