// A history of results files (one per run, several runs per commit allowed): the runs in
// time order, one series per benchmark, device and math mode, and the steps found in each
// series (change_points.hpp) with their size against the benchmark's noise threshold.
// Pure: cmd_history.cpp reads the files, asks git for commit times and writes the outputs
// (report/history_format.hpp).
// docs/history.md describes the method and the outputs.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/noise_model.hpp"
#include "results/results.hpp"

namespace tb {

struct HistoryRun {
    std::string path;
    Results results;
    std::string commit;          // environment.tribench_commit; "unknown" when absent
    std::string created_utc;     // environment.created_utc
    std::int64_t created_s = 0;  // created_utc as seconds since the epoch
    std::int64_t commit_s = -1;  // the commit's committer time (from git), -1 when unknown
};

// Reads commit and time from a results file's environment. Throws tb::Error when the run
// time is missing or malformed (the run could not be placed in time).
HistoryRun make_history_run(const std::string& path, Results r);

// "2026-11-23T08:49:37Z" -> seconds since the epoch; -1 when not of that form.
std::int64_t parse_utc(const std::string& s);
std::string format_utc(std::int64_t s);  // the inverse

struct SeriesPoint {
    std::size_t run = 0;  // index into History::runs
    Status status = Status::Error;
    std::string error;
    std::size_t count = 0;
    double median_ms = 0, low_ms = 0, high_ms = 0;  // median and its 95% confidence interval
};

struct Step {
    std::size_t point = 0;  // index into Series::points of the first run after the step
    std::size_t run = 0;    // that run's index into History::runs
    double before_ms = 0, after_ms = 0;  // median of the run medians of the segments either side
    double change_pct = 0;  // (after / before - 1) * 100: positive is slower
    double p_value = 1, t = 0;
    bool beyond_noise = false;  // |change_pct| above the series' threshold: a step to report
    bool regression = false;    // beyond noise and slower
};

struct Series {
    std::string device, math, name;  // the key
    std::string program, dataset, variant, backend, launch;
    std::vector<SeriesPoint> points;  // one per run that has the benchmark (not skipped), in run order
    double threshold_pct = 0;
    std::string threshold_source;     // "noise model" or "--threshold"
    std::vector<Step> steps;          // every significant change point, oldest first
    bool broken = false;              // ok in an earlier run, validation_failed or error in its newest

    // The newest step beyond noise, or null.
    const Step* newest_step() const;
};

struct HistoryOptions {
    double alpha = 0.05;
    double threshold_pct = 5;           // where the noise model has no entry
    std::size_t permutations = 999;
    std::size_t min_runs = 2;           // runs on each side of a step
    const NoiseModel* noise = nullptr;  // per-benchmark thresholds
};

struct History {
    HistoryOptions options;
    std::vector<HistoryRun> runs;  // in time order
    std::vector<Series> series;    // by device, math, then first appearance
    std::vector<std::string> notes;

    // Series whose newest step is a regression, and broken series: what makes exit 1.
    std::vector<const Series*> failing() const;
    int exit_code() const { return failing().empty() ? 0 : 1; }
    std::size_t commit_count() const;
};

// Orders the runs (by commit time where git knew the commit, else by the commit's first run
// time; runs of one commit together, by run time), builds the series and finds their steps.
History build_history(std::vector<HistoryRun> runs, const HistoryOptions& o);

// Run-to-run log ratios of consecutive ok runs with no significant change point between
// them, per (device, benchmark): the input of learn_noise_model.
NoisePairs noise_pairs(const History& h);

}  // namespace tb
