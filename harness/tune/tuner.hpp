// `tribench tune`'s search for one tuning key: each configuration of the plan is compiled,
// validated and timed through run_cases (the runner and clock of `run`); one that fails to
// compile or validate is recorded with its reason and never picked (docs/tuning.md).
#pragma once

#include <iosfwd>
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
    double search_s = 0;  // wall time of `trials`
    TuningEntry entry() const;  // best as a tuning file entry (best must be set)
};

// The planned cases grouped by tuning key (device, backend, program, dataset), each backend's
// keys in plan order and the backends taking turns; vendor rows are left out. A group's
// variants and launch modes all run under each configuration, which is scored by the sum of
// their medians.
std::vector<std::vector<Case>> tuning_groups(const std::vector<Case>& cases, const std::vector<BackendSlot>& slots);

// What one key's search costs, known once its first trial (the device default) has run.
struct KeySearchCost {
    double trial_s = 0;              // the first trial's wall time
    std::size_t configurations = 0;  // the plan's configurations after the first
};

// Seconds of `tune --budget` beyond each key's first trial, for keys whose first trials have
// all run (left_s: the budget that is left). The shares let every key try the same number of
// further configurations, each at its first trial's time, and the confirmation pair after
// them, up to the configurations it has: equal seconds would let the cheap keys search whole
// spaces while the dear ones, the largest datasets, kept their default (on the H100 nbody
// n1m was never searched, 2026-12-06 and -07). What the common number leaves is shared
// evenly by the keys it does not exhaust (by all where it exhausts every key).
std::vector<double> search_shares(double left_s, const std::vector<KeySearchCost>& keys);

// The trials a search keeps room for beyond its next configuration: the confirmation pair.
inline constexpr std::size_t kConfirmationTrials = 2;

// Whether a key's search may draw another configuration under its share of --budget
// (share_s 0: no budget; the share counts the key's first trial too), having run `trials`
// configurations in spent_s: the share must hold the next one and the confirmation pair
// after it, each at the mean time of the trials so far.
// Counting only what had run, a tune overran its budget by about a configuration and a
// confirmation a key (H100, 2026-12-07: `--budget 250` of the default selection had run 288 s
// at key 146 of 207, all of them still to try their default).
bool budget_allows_another(double share_s, double spent_s, std::size_t trials);

// A search in two steps, so that a tune can time every key's first configuration before it
// shares the budget (search_shares): start_search plans the group's space and runs the plan's
// first point, the device default where the space allows it; continue_search runs the rest
// while budget_s > 0 holds another configuration (budget_allows_another; budget_s counts the
// first trial's time) and no interrupt (tb::interrupted()) came. A best other than the start is
// then timed again with the start right after it, and kept only where confirmation_refusal()
// finds no reason against it (else the start is the best). One progress line per
// configuration goes to `progress`.
TuneOutcome start_search(std::vector<BackendSlot>& slots, const std::vector<Case>& group, const RunnerOptions& ro,
                         const SearchSettings& search, std::ostream& progress);
void continue_search(std::vector<BackendSlot>& slots, const std::vector<Case>& group, const RunnerOptions& ro,
                     double budget_s, TuneOutcome& out, std::ostream& progress);

// Both steps for one group: budget_s is its whole share (0: no budget).
TuneOutcome tune_group(std::vector<BackendSlot>& slots, const std::vector<Case>& group, const RunnerOptions& ro,
                       const SearchSettings& search, double budget_s, std::ostream& progress);

}  // namespace tb
