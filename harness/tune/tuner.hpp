// `tribench tune`'s search for one tuning key: each configuration of the plan is compiled,
// validated and timed through run_cases (the runner and clock of `run`); one that fails to
// compile or validate is recorded with its reason and never picked (docs/tuning.md).
#pragma once

#include <iosfwd>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "measure/runner.hpp"
#include "tune/search.hpp"
#include "tune/tuning_file.hpp"

namespace tb {

struct Trial {
    TuningConfig config;
    bool ok = false;
    double ms = 0;       // the group's medians, summed (ok only)
    std::string reason;  // why not ok: the first failing benchmark's error
    std::vector<double> medians;  // each benchmark's median, in the group's order (ok only)
};

// How much slower than under the device default one benchmark of a key may run under the
// configuration picked for the key. `run` gives every variant of a key one configuration, and
// the score is their sum: without this bound a configuration that speeds up the slowest
// variant could be picked though it slows another (nbody's `classic` dominates the sum).
inline constexpr double kTuneMaxSlowdown = 0.02;

// Whether `t` may be picked: ok, and where the start configuration ran ok, none of its
// benchmarks more than kTuneMaxSlowdown slower than under it.
bool pickable(const Trial& t, const std::optional<Trial>& start);

// What a configuration must gain over the device default, the two timed again back to back
// after the search, to replace it: a tie keeps the default, so a tuning file changes only
// what measurably helps.
inline constexpr double kTuneMinGain = 0.01;

// Why the re-timed `best` may not replace the re-timed `start`, in words; "" where it may:
// both ok, best pickable against start, and its sum at least kTuneMinGain below start's.
std::string confirmation_refusal(const Trial& best, const Trial& start);

// A median as tune's lines print it: four significant digits and the unit ("0.5123 ms").
std::string tune_ms_text(double ms);

struct TuneOutcome {
    TuningKey key;
    SearchPlan plan;
    std::vector<Trial> trials;  // in the order run (an interrupt or the budget may end it early)
    std::optional<Trial> best;  // the fastest ok trial
    std::optional<Trial> start; // the trial of the start configuration (the device default)
    // The best and the start timed again back to back once the search found a better one
    // (their trials in the search ran seconds apart); empty when it found none or stopped.
    std::vector<Trial> confirmation;
    TuningEntry entry() const;  // best as a tuning file entry (best must be set)
};

// The planned cases grouped by tuning key (device, backend, program, dataset), each backend's
// keys in plan order and the backends taking turns; vendor rows are left out. A group's
// variants and launch modes all run under each configuration, which is scored by the sum of
// their medians.
std::vector<std::vector<Case>> tuning_groups(const std::vector<Case>& cases, const std::vector<BackendSlot>& slots);

// A key's share of `tune --budget B` (budget_s 0: none, and 0 is returned): the time left
// shared evenly by the keys left, and once B is spent the smallest positive share, so that
// each key left tries its device default only (0 would mean no limit at all).
double key_budget_share(double budget_s, double spent_s, std::size_t keys_left);
inline constexpr double kBudgetSpentShare = std::numeric_limits<double>::min();

// The trials a search keeps room for beyond its next configuration: the confirmation pair.
inline constexpr std::size_t kConfirmationTrials = 2;

// Whether a key's search may draw another configuration under its share of --budget
// (share_s 0: no budget), having run `trials` configurations in spent_s: the share must hold
// the next one and the confirmation pair after it, each at the mean time of the trials so far.
// Counting only what had run, a tune overran its budget by about a configuration and a
// confirmation a key (H100, 2026-12-07: `--budget 250` of the default selection had run 288 s
// at key 146 of 207, all of them still to try their default).
bool budget_allows_another(double share_s, double spent_s, std::size_t trials);

// Searches one group's space. budget_s > 0 ends the search, exhaustive or sampled, once it
// holds no further configuration (budget_allows_another; the start configuration is always
// tried); an interrupt (tb::interrupted()) ends any.
// A best other than the start is then timed again with the start right after it, and kept only
// where confirmation_refusal() finds no reason against it (else the start is the best). One
// progress line per configuration goes to `progress`.
TuneOutcome tune_group(std::vector<BackendSlot>& slots, const std::vector<Case>& group, const RunnerOptions& ro,
                       const SearchSettings& search, double budget_s, std::ostream& progress);

}  // namespace tb
