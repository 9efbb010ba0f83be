// Comparing results (no I/O): two runs benchmark by benchmark, with a significance test so
// that noise is not reported as change, and one run's backends against a baseline backend.
// Presenting comparisons is report/'s job (report/reporter.hpp); the statistics are in
// stats/mann_whitney.hpp.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "results/results.hpp"

namespace tb {

struct CompareOptions {
    double alpha = 0.05;         // significance level of the two-sided Mann-Whitney U test
    double threshold_pct = 5;    // a significant slowdown above this is a regression
    // Median changes smaller than this are "unchanged" however small the p-value: timing
    // samples of one run are correlated (clocks, temperature), so the test alone would call
    // run-to-run drift of a few tenths of a percent significant.
    double min_change_pct = 1;
    bool force = false;          // compare results from different devices anyway
    // Per-benchmark thresholds (a noise model, docs/history.md): the threshold in percent of
    // a benchmark on a device (its name in NEW), or a negative value for threshold_pct.
    std::function<double(const std::string& device, const std::string& benchmark)> threshold_of;
};

enum class Verdict {
    Unchanged,    // both ok, difference not significant
    Faster,       // both ok, significantly faster
    Slower,       // both ok, significantly slower but within the threshold
    Regression,   // both ok, significantly slower by more than the threshold
    Broken,       // ok in OLD, validation_failed or error in NEW
    Fixed,        // not ok in OLD, ok in NEW
    NotCompared,  // neither side ok, or ok in OLD and skipped in NEW
    OnlyOld,
    OnlyNew,
};
const char* to_string(Verdict v);
// Regression and Broken make `tribench compare` exit 1.
bool is_failure(Verdict v);

struct ComparedBenchmark {
    std::string name;
    bool in_old = false, in_new = false;
    Status old_status = Status::Error, new_status = Status::Error;
    std::string old_error, new_error;
    std::string old_device, new_device;  // device names ("" when unknown)
    std::size_t old_count = 0, new_count = 0;
    double old_median_ms = 0, new_median_ms = 0;
    double speedup = 0;      // old median / new median; 0 when not both ok and positive
    double change_pct = 0;   // (new / old - 1) * 100: positive is slower
    double p_value = 1;      // two-sided Mann-Whitney U on the samples
    bool exact = false;      // p from the exact distribution
    bool testable = false;   // enough samples to reach p < alpha at all
    bool significant = false;
    bool regression = false; // Verdict Regression or Broken
    double threshold_pct = 0;      // the slowdown that counted as a regression for this benchmark
    bool noise_threshold = false;  // ... taken from the noise model rather than threshold_pct
    Verdict verdict = Verdict::NotCompared;
};

struct Comparison {
    CompareOptions options;
    std::vector<ComparedBenchmark> benchmarks;  // OLD's order, then those only in NEW
    std::vector<std::string> device_mismatches; // with --force: what differed
    // Benchmarks timed by different clocks in OLD and NEW (say cupti, then events): their
    // medians differ by the clocks' offset, not only by the kernel (docs/measurement.md).
    std::vector<std::string> clock_mismatches;
    // Benchmarks whose kernels ran under different tuning configurations in OLD and NEW
    // (docs/tuning.md): a change may be the configuration's, not the code's.
    std::vector<std::string> config_mismatches;
    std::size_t count(Verdict v) const;
    bool has_failure() const;
    int exit_code() const { return has_failure() ? 1 : 0; }
};

// Matches benchmarks by name. Throws tb::Error when a matched benchmark ran on devices of
// different names or compute capabilities (unless options.force), or when a name occurs
// twice in one file.
Comparison compare_results(const Results& old_r, const Results& new_r, const CompareOptions& o);

// Name and compute capability of the device a benchmark ran on ("NVIDIA H100 (cc 9.0)"
// style via describe_device); empty name when the file lists no such device.
const DeviceRecord* find_device(const Results& r, const std::string& id);
std::string describe_device(const Results& r, const std::string& id);

// --- one run's backends against a baseline backend ---------------------------------

struct MatrixCell {
    bool present = false;
    Status status = Status::Error;
    std::string error;
    std::string device;       // device name
    std::size_t count = 0;
    double median_ms = 0;
    double rsd = 0;
    double speedup = 0;       // baseline median / this median; 0 when either is not ok
    double p_value = 1;       // Mann-Whitney U against the baseline's samples
    bool significant = false;
    std::string clock;        // what most samples read: "cupti" or "events" (timing.clock)
    // Read by another clock than the baseline cell where both backends read either clock
    // (CUDA's): the ratio then carries the events' 2-3 us a region (docs/measurement.md).
    bool clock_differs = false;
    std::string config;         // to_string of the tuning configuration ("" for vendor rows)
    std::string config_source;  // "tuned", "device-default", "tuned for cuda-native", ...
    // The each-at-its-own-best view (add_best_view): this cell in a run where every backend
    // ran the configuration tuned for it, against the baseline's cell of that run; null where
    // that run lacks it.
    std::shared_ptr<const MatrixCell> best;
};

struct MatrixRow {
    std::string key;  // program/dataset[/variant]/launch
    std::string program, dataset, variant, launch;
    std::string picked;  // what a self-choosing variant ran, per column in order when they differ ("merge", "merge,vector")
    std::vector<MatrixCell> cells;  // one per column
    std::string label() const { return picked.empty() ? key : key + " -> " + picked; }
};

struct BackendMatrix {
    std::string baseline;              // the baseline column's id
    std::vector<std::string> columns;  // backend ids (+ "@N" when one backend had several devices)
    std::vector<MatrixRow> rows;       // in the order benchmarks first appear
    std::vector<std::string> notes;    // e.g. backends that ran on different devices
    double alpha = 0.05;
    bool has_best = false;             // cells carry the each-at-its-own-best view
};

// Throws tb::Error when no benchmark has the baseline backend.
BackendMatrix backend_matrix(const Results& r, const std::string& baseline, double alpha = 0.05);

// Two cross-backend views (docs/tuning.md): `same` from a run where the backends shared each
// configuration, `best` from a run where each backend ran its own tuned one (both with the
// same baseline). Fills same's cells' `best` from best's cells of the same row and column,
// and notes the rows where `same` ran different configurations across backends (then its
// speedups mix configuration and backend too).
void add_best_view(BackendMatrix& same, const BackendMatrix& best);

}  // namespace tb
