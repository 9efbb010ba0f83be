// The `tribench` command: list, run, tune, ptx, compare, history, report, export, merge.
#include <algorithm>
#include <cstring>
#include <iostream>

#include <CLI/CLI.hpp>
#include <benchmark/benchmark.h>

#include "cli/cli_numbers.hpp"
#include "cli/commands.hpp"
#include "device.hpp"
#include "opencl/pocl_affinity.hpp"
#include "results/environment.hpp"

namespace {

// Google Benchmark's own flags (--benchmark_*) go to it; everything else to CLI11. It only
// sees its flags, so `tribench --help` stays tribench's.
std::vector<std::string> take_benchmark_flags(int argc, char** argv, std::vector<std::string>& rest) {
    std::vector<std::string> gb = {argv[0]};
    for (int i = 0; i < argc; ++i) {
        if (i > 0 && std::strncmp(argv[i], "--benchmark_", 12) == 0) gb.emplace_back(argv[i]);
        else rest.emplace_back(argv[i]);
    }
    return gb;
}

std::vector<std::string> command_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
    return names;
}

// A command-line error as one line pointing at the help of the subcommand it is about; an
// unknown or missing subcommand lists the known ones (CLI11 alone says "A subcommand is
// required").
std::string parse_error_line(const CLI::App& app, const std::vector<std::string>& args, const CLI::ParseError& e) {
    const std::vector<std::string> names = command_names(app);
    std::string known;
    for (const auto& n : names) known += (known.empty() ? " (known: " : ", ") + n;
    known += ")";
    if (args.empty()) return "no command given" + known;
    if (args.front().rfind("-", 0) != 0 && std::find(names.begin(), names.end(), args.front()) == names.end())
        return "unknown command '" + args.front() + "'" + known;
    const auto parsed = app.get_subcommands();
    if (!parsed.empty()) {
        const std::string& name = parsed.front()->get_name();
        return std::string(e.what()) + " (tribench " + name + " --help)";
    }
    return "unknown option '" + args.front() + "' before the command (tribench --help)";
}

}  // namespace

int main(int argc, char** argv) {
    tb::cl::prepare_pocl_affinity();  // before any OpenCL call: PoCL reads it as it starts its threads
    std::vector<std::string> rest;
    std::vector<std::string> gb_args = take_benchmark_flags(argc, argv, rest);
    bool gb_min_time = false;
    for (const auto& a : gb_args) gb_min_time = gb_min_time || a.rfind("--benchmark_min_time", 0) == 0;
    std::vector<char*> gb_argv;
    for (auto& a : gb_args) gb_argv.push_back(a.data());
    int gb_argc = int(gb_argv.size());
    benchmark::Initialize(&gb_argc, gb_argv.data());
    if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) return 2;

    CLI::App app{"tribench: the same GPU programs through cuda-native, cuda-prelude and opencl, validated and compared",
                 "tribench"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "tribench " + tb::tribench_version() + " (commit " + tb::tribench_commit() + ")");

    tb::ListOptions list_opt;
    auto* list = app.add_subcommand("list", "programs, datasets, backends and devices with availability");
    list->add_flag("--json", list_opt.json, "machine-readable output");

    tb::RunOptions run_opt;
    run_opt.argv.assign(argv, argv + argc);
    run_opt.min_time_from_flags = gb_min_time;
    auto* run = app.add_subcommand("run", "validate and time benchmarks; Google Benchmark's --benchmark_* flags apply");
    run->add_option("-p,--program", run_opt.programs, "program(s), repeatable or comma-separated (default: all)");
    run->add_option("-d,--dataset", run_opt.datasets, "dataset(s) (default: all on GPUs, small ones on CPUs)");
    run->add_option("-b,--backend", run_opt.backends, "cuda-native, cuda-prelude, opencl, vendor (default: all)");
    run->add_option("--device", run_opt.devices, "device index or name substring (default: GPUs, else all)");
    run->add_option("--matrix", run_opt.matrix_files, "Matrix Market file(s) as spmv datasets (docs/matrix-market.md)")
        ->check(CLI::ExistingFile);
    run->add_option("--variant", run_opt.variants, "program variant(s) (default: all)");
    run->add_option("--launch", run_opt.launches, "stream, graph or all, for iterative programs (default: all)");
    run->add_option("--math", run_opt.math, "default, precise or fast (docs/math-modes.md)");
    run->add_option("--seed", run_opt.seed, "seed of the dataset generators")
        ->check(tb::unsigned_integer(0, UINT64_MAX));
    run->add_option("-o,--out", run_opt.out, "write the results JSON here (docs/results-json.md); a name ending in .gz is written gzip-compressed");
    run->add_option("--save-outputs", run_opt.save_outputs, "write inputs and outputs as .npy into this folder");
    run->add_option("--min-time", run_opt.min_time_s, "minimum device time of a benchmark's samples, seconds");
    run->add_option("--max-noise", run_opt.max_noise, "stop sampling once the relative stddev is below this (0.005 = 0.5%)");
    run->add_option("--timeout", run_opt.timeout_s, "give up reaching --max-noise after this many seconds (flagged noisy)");
    run->add_option("--min-samples", run_opt.min_samples, "at least this many samples per benchmark")
        ->check(tb::unsigned_integer(0, SIZE_MAX));
    run->add_option("--max-samples", run_opt.max_samples, "at most this many samples per benchmark and repetition")
        ->check(tb::unsigned_integer(0, SIZE_MAX));
    run->add_flag("--l2-flush", run_opt.l2_flush, "overwrite 256 MiB before each sample so L2 starts cold");
    run->add_flag("--no-calibrate", run_opt.no_calibrate, "skip measuring the GPU's copy bandwidth and FP32 peak");
    run->add_flag("--keep-going", run_opt.keep_going, "carry on after a failing benchmark");
    run->add_flag("--no-cache", run_opt.no_cache, "bypass the on-disk kernel cache");
    run->add_flag("--all-datasets", run_opt.all_datasets, "on CPU devices, run the large datasets too");
    run->add_flag("--small", run_opt.small_only, "only the small (CI-sized) datasets, on every device");
    run->add_option("--timing", run_opt.timing,
                    "gated (default: the device is held while a sample is enqueued, so events see only GPU "
                    "execution) or plain (events around the enqueue); docs/measurement.md");
    run->add_flag("--no-batch", run_opt.no_batch, "skip batch timing (back-to-back runs between one pair of events)");
    run->add_flag("--no-scatter", run_opt.no_scatter,
                  "no empty grid of pseudo-random size before each gated sample on the CUDA backends (docs/measurement.md, \"Where a work-group runs\")");
    run->add_option("--budget", run_opt.budget_s,
                    "plan sampling so the whole run ends within this many seconds; says what it had to cut "
                    "(default: 240; 0: no budget)");
    run->add_option("--resume", run_opt.resume,
                    "FILE: carry on the run that was writing results FILE and was cut short (its FILE.journal); "
                    "starts it if there is none (docs/robustness.md)");
    run->add_flag("--resume-anyway", run_opt.resume_anyway,
                  "--resume although the selection, devices, commit or options differ");
    run->add_option("--kernel-timeout", run_opt.kernel_timeout_s,
                    "a device step (a validation run, a sample) longer than this many seconds is a hung kernel: "
                    "its benchmark fails and the run goes on in a fresh process (default: 300; 0: no limit; "
                    "opening a device and compiling get at least 300)");
    run->add_option("--heartbeat", run_opt.heartbeat_s,
                    "when stderr is not a terminal, a progress line this often, seconds (default: 30; 0: none)");
    run->add_option("--profile", run_opt.profile, "a named selection and sampling plan: ci (docs/measurement.md)");
    run->add_option("--shard", run_opt.shard, "K/N: run part K of N of the selection, balanced by expected time "
                                              "(docs/scale-out.md)");
    run->add_option("--cost-from", run_opt.cost_from, "balance --shard by the times in this results file")
        ->check(CLI::ExistingFile);
    run->add_flag("--dry-run", run_opt.dry_run, "print the selection (this shard's with --shard) and estimated "
                                                "seconds; run nothing");
    run->add_flag("--validate-only", run_opt.validate_only,
                  "set up, run once and validate each benchmark against the CPU reference; time nothing "
                  "(no samples, batch, calibration or budget: the sampling options are ignored). Prints one line "
                  "per benchmark; refuses --out, --benchmark_out, --resume of a results file, --parallel-devices, "
                  "--dry-run, --profile, --repeat (docs/measurement.md)");
    run->add_flag("--progress", run_opt.progress, "progress lines on stderr even when it is not a terminal");
    run->add_flag("--parallel-devices", run_opt.parallel_devices,
                  "one process per GPU (CUDA_VISIBLE_DEVICES, default: all), each a --shard, then merge");
    run->add_flag("--pin-cpus", run_opt.pin_cpus,
                  "with --parallel-devices: bind each shard to its own consecutive share of the CPUs");
    run->add_option("--repeat", run_opt.repeat, "run the whole selection N times in one process (soak tests; "
                                                "the table and --out report the last round)")
        ->check(tb::unsigned_integer(1, 1000000));

    run->add_option("--tuning", run_opt.tuning,
                    "FILE: the tuned configurations to run with, or none: the device defaults (default: "
                    "$XDG_CACHE_HOME/tribench/tuning.json or ~/.cache/tribench/tuning.json if it exists; docs/tuning.md)");
    run->add_option("--tuning-backend", run_opt.tuning_backend,
                    "every backend runs the configuration tuned for this backend: the same-configuration view "
                    "of compare --backends --best (docs/tuning.md)");
    run->add_option("--tuning-device", run_opt.tuning_device,
                    "run the configurations tuned on the device of this name (the portability table; "
                    "docs/tuning.md)");

    tb::TuneOptions tune_opt;
    tune_opt.run.min_time_s = 0.1;  // configurations are compared, not reported: shorter sampling
    tune_opt.run.timeout_s = 1;
    tune_opt.run.argv.assign(argv, argv + argc);
    auto* tune = app.add_subcommand("tune", "search each program's tuning space per device, backend and dataset; "
                                            "write the best to a tuning file (docs/tuning.md)");
    tune->add_option("-p,--program", tune_opt.run.programs, "program(s) (default: all)");
    tune->add_option("-d,--dataset", tune_opt.run.datasets, "dataset(s) (default: all on GPUs, small ones on CPUs)");
    tune->add_option("-b,--backend", tune_opt.run.backends, "cuda-native, cuda-prelude, opencl (default: all)");
    tune->add_option("--device", tune_opt.run.devices, "device index or name substring (default: GPUs, else all)");
    tune->add_option("--variant", tune_opt.run.variants, "program variant(s) timed under each configuration (default: all)");
    tune->add_flag("--small", tune_opt.run.small_only, "only the small (CI-sized) datasets, on every device");
    tune->add_flag("--all-datasets", tune_opt.run.all_datasets, "on CPU devices, the large datasets too");
    tune->add_option("--math", tune_opt.run.math, "default, precise or fast (docs/math-modes.md)");
    tune->add_option("--seed", tune_opt.run.seed, "seed of the dataset generators")->check(tb::unsigned_integer(0, UINT64_MAX));
    tune->add_option("--min-time", tune_opt.run.min_time_s, "minimum device time of each configuration's samples (default: 0.1)");
    tune->add_option("--timeout", tune_opt.run.timeout_s, "stop sampling a configuration after this many seconds (default: 1)");
    tune->add_option("--min-samples", tune_opt.run.min_samples, "at least this many samples per configuration")
        ->check(tb::unsigned_integer(0, SIZE_MAX));
    tune->add_option("--timing", tune_opt.run.timing, "gated (default) or plain, as for run");
    tune->add_option("--kernel-timeout", tune_opt.run.kernel_timeout_s,
                     "a device step (a validation run, a sample) longer than this many seconds is a hung kernel: "
                     "tune ends, naming the configuration, and keeps the keys tuned before it (default: 300; 0: "
                     "no limit; opening a device and compiling get at least 300)");
    tune->add_option("-o,--out", tune_opt.out, "the tuning file to write (default: $XDG_CACHE_HOME/tribench/tuning.json "
                                               "or ~/.cache/tribench/tuning.json); other keys' entries are kept; a name "
                                               "ending in .gz is written gzip-compressed");
    tune->add_option("--budget", tune_opt.budget_s, "seconds for the whole search, shared by the keys; each key's default is always tried "
                                                       "(default: none)");
    tune->add_option("--exhaustive", tune_opt.exhaustive_limit, "try every configuration of a space with at most this "
                                                                "many allowed points (default: 64)")
        ->check(tb::unsigned_integer(0, SIZE_MAX));
    tune->add_option("--max-points", tune_opt.max_points, "larger spaces: at most this many seeded random "
                                                          "configurations per key (default: 32)")
        ->check(tb::unsigned_integer(1, SIZE_MAX));
    tune->add_option("--search-seed", tune_opt.search_seed, "seed of the random sampling (default: 1)")
        ->check(tb::unsigned_integer(0, UINT64_MAX));

    tb::PtxOptions ptx_opt;
    auto* ptx = app.add_subcommand("ptx", "write the PTX, ptxas resources and SASS of programs' kernels per backend "
                                          "(no GPU needed for CUDA)");
    ptx->add_option("-p,--program", ptx_opt.programs, "program(s) (default: all)");
    ptx->add_option("-b,--backend", ptx_opt.backends, "backend(s) (default: all that can produce PTX)");
    ptx->add_option("--arch", ptx_opt.arch, "sm_XX (default: the GPU's, else sm_90)");
    ptx->add_option("--math", ptx_opt.math, "default, precise or fast");
    ptx->add_option("-o,--out", ptx_opt.out, "output folder (default: ptx)");

    tb::PtxDiffOptions pd_opt;
    auto* pd = app.add_subcommand("ptxdiff", "A B: compare two backends' PTX per kernel: instruction classes, ptxas "
                                             "resources, normalized diff (docs/ptx-tools.md)");
    pd->add_option("-p,--program", pd_opt.program, "program, or all")->required();
    pd->add_option("operands", pd_opt.operands, "BACKEND, BACKEND:MATH or DIR:BACKEND (a `tribench ptx` folder)")
        ->required()->expected(2);
    pd->add_option("--arch", pd_opt.arch, "sm_XX of compiled operands (default: the GPU's, else sm_90)");
    pd->add_option("--math", pd_opt.math, "math mode of operands without :MATH (default: default)");
    pd->add_option("--top", pd_opt.top, "rows of each histogram table (default: 10)");
    pd->add_flag("--full", pd_opt.full, "also print the normalized diff");
    pd->add_option("-o,--out", pd_opt.out, "write the normalized diff to this file");

    tb::CompareCmdOptions cmp_opt;
    auto* cmp = app.add_subcommand("compare", "OLD.json NEW.json: speedups with a significance test, exit 1 on a "
                                              "regression; --backends RESULTS.json: backends vs a baseline");
    cmp->add_option("files", cmp_opt.files, "results files: OLD NEW, or one with --backends")->required();
    cmp->add_flag("--backends", cmp_opt.backends, "one run's speedup matrix: backends against --baseline");
    cmp->add_option("--baseline", cmp_opt.baseline, "baseline backend of --backends (default: cuda-native)");
    cmp->add_option("--best", cmp_opt.best, "with --backends: a run where each backend ran its own tuned configuration; "
                                            "adds the each-at-its-own-best view beside the file's (docs/tuning.md)");
    cmp->add_option("--alpha", cmp_opt.alpha, "significance level of the Mann-Whitney U test (default: 0.05)");
    cmp->add_option("--threshold", cmp_opt.threshold_pct, "percent slowdown that is a regression (default: 5)");
    cmp->add_option("--min-change", cmp_opt.min_change_pct,
                    "percent change below which a benchmark counts as unchanged (default: 1)");
    cmp->add_option("--metric", cmp_opt.metric, "samples (gated medians, default) or batch (back-to-back runs)");
    cmp->add_flag("--force", cmp_opt.force, "compare results from different devices");
    cmp->add_flag("--markdown", cmp_opt.markdown, "a Markdown table (pull-request comment)");
    cmp->add_flag("--json", cmp_opt.json, "machine-readable output");
    cmp->add_option("--color", cmp_opt.color, "auto, always or never (default: auto)");
    cmp->add_option("-o,--out", cmp_opt.out, "write the output to this file instead of stdout");
    cmp->add_option("--noise", cmp_opt.noise, "per-benchmark thresholds from this noise model (tribench history "
                                               "--learn-noise) instead of --threshold where it has an entry");
    cmp->add_option("--junit", cmp_opt.junit, "also write JUnit XML here (one test case per benchmark)");
    cmp->add_option("--markdown-limit", cmp_opt.markdown_limit,
                    "--markdown: at most this many bytes, rows beyond left out (default: 60000)");

    tb::HistoryCmdOptions his_opt;
    auto* his = app.add_subcommand("history", "FILES...|DIR --out DIR: runs in commit order, trend plots, steps; "
                                              "exit 1 when a benchmark's newest step is a regression");
    his->add_option("inputs", his_opt.inputs, "results files, or folders searched for them")->required();
    his->add_option("-o,--out", his_opt.out, "output folder: HISTORY.md, history-data.json, PNG plots")->required();
    his->add_option("--alpha", his_opt.alpha, "significance level of a step (default: 0.05)");
    his->add_option("--threshold", his_opt.threshold_pct,
                    "percent change that counts as a step where the noise model has no entry (default: 5)");
    his->add_option("--noise", his_opt.noise, "per-benchmark thresholds from this noise model");
    his->add_option("--learn-noise", his_opt.learn_noise, "write the noise model learned from this history here");
    his->add_option("--noise-z", his_opt.noise_z, "--learn-noise: standard deviations that count as beyond noise (default: 3)");
    his->add_option("--permutations", his_opt.permutations, "random orderings per step test (default: 999)");
    his->add_option("--min-runs", his_opt.min_runs, "runs on each side of a step, at least (default: 2)");
    his->add_option("--git", his_opt.git, "repository to read commit times from (default: the current folder's)");
    his->add_flag("--no-git", his_opt.no_git, "order runs by their run time only");
    his->add_flag("--no-plots", his_opt.no_plots, "write HISTORY.md without plots (no python3 needed)");

    tb::ReportCmdOptions rep_opt;
    auto* rep = app.add_subcommand("report", "REPORT.md and PNG plots (python3 + matplotlib) from results files");
    rep->add_option("files", rep_opt.files, "results file(s)")->required();
    rep->add_option("-o,--out", rep_opt.out, "output folder")->required();
    rep->add_option("--best", rep_opt.best, "results file(s) of a run where each backend ran its own tuned "
                                            "configuration: the tables add the each-at-its-own-best view (docs/tuning.md)");
    rep->add_option("--baseline", rep_opt.baseline, "baseline backend of speedups (default: cuda-native)");
    rep->add_option("--alpha", rep_opt.alpha, "significance level (default: 0.05)");
    rep->add_option("--peak-gbps", rep_opt.peak_gbps, "roofline bandwidth ceiling, GB/s, where no calibration ran");
    rep->add_option("--peak-gflops", rep_opt.peak_gflops, "roofline FP32 ceiling, GFLOP/s, where no calibration ran");
    rep->add_option("--metric", rep_opt.metric, "samples (gated medians, default) or batch (back-to-back runs)");
    rep->add_flag("--no-plots", rep_opt.no_plots, "write REPORT.md only (no python3 needed)");

    tb::ExportCmdOptions exp_opt;
    auto* exp = app.add_subcommand("export", "results in another tool's format");
    exp->add_flag("--futhark", exp_opt.futhark, "the layout of `futhark bench --json` (for cmp-bench-json.py)");
    exp->add_flag("--github-benchmark", exp_opt.github_benchmark,
                  "github-action-benchmark's customSmallerIsBetter JSON (median ms per benchmark)");
    exp->add_option("input", exp_opt.input, "results file")->required();
    exp->add_option("output", exp_opt.output, "file to write")->required();
    exp->add_option("-b,--backend", exp_opt.backend, "only this backend, left out of the program names");

    tb::MergeCmdOptions merge_opt;
    auto* mrg = app.add_subcommand("merge", "FILES... -o OUT: one results file from the shards of a run "
                                            "(docs/scale-out.md)");
    mrg->add_option("files", merge_opt.files, "results files of the shards")->required();
    mrg->add_option("-o,--out", merge_opt.out, "write the merged results here (a name ending in .gz: gzip-compressed)")->required();
    mrg->add_flag("--force", merge_opt.force, "all of the flags below");
    mrg->add_flag("--ignore-commit", merge_opt.ignore_commit, "merge shards of different tribench commits");
    mrg->add_flag("--ignore-math", merge_opt.ignore_math, "merge shards of different math modes");
    mrg->add_flag("--ignore-options", merge_opt.ignore_options, "merge shards run with different options");
    mrg->add_flag("--ignore-devices", merge_opt.ignore_devices, "merge shards that ran on different device kinds");
    mrg->add_flag("--ignore-selection", merge_opt.ignore_selection,
                  "merge shards of different selections or splits (expects their union)");
    mrg->add_flag("--allow-missing", merge_opt.allow_missing, "write the merge although benchmarks are missing");
    mrg->add_flag("--allow-duplicates", merge_opt.allow_duplicates, "keep the first file's copy of a duplicate");

    const std::vector<std::string> given(rest.begin() + 1, rest.end());
    try {
        std::vector<std::string> args(given.rbegin(), given.rend());  // CLI11 takes a reversed vector
        app.parse(args);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);
        std::cerr << "tribench: error: " << parse_error_line(app, given, e) << "\n";
        return 2;
    }

    try {
        if (*list) return tb::cmd_list(list_opt);
        if (*run) {
            if (!run_opt.profile.empty())
                tb::apply_profile(run_opt, [&](const std::string& flag) { return run->count(flag) > 0; });
            return tb::cmd_run(run_opt);
        }
        if (*tune) return tb::cmd_tune(tune_opt);
        if (*ptx) return tb::cmd_ptx(ptx_opt);
        if (*pd) return tb::cmd_ptxdiff(pd_opt);
        if (*cmp) return tb::cmd_compare(cmp_opt);
        if (*his) return tb::cmd_history(his_opt);
        if (*rep) return tb::cmd_report(rep_opt);
        if (*exp) return tb::cmd_export(exp_opt);
        if (*mrg) return tb::cmd_merge(merge_opt);
    } catch (const tb::Error& e) {
        const std::string msg = e.what();
        std::cerr << "tribench: error: " << msg << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "tribench: internal error: " << e.what() << "\n";
        return 3;
    }
    return 0;
}
