// Expected wall time of each selected benchmark, to balance shards (shard.hpp). Either from a
// previous results file (`run --cost-from FILE`: what each benchmark took last time) or from
// a rough model of the dataset's size; docs/scale-out.md states both.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "results/results.hpp"
#include "plan/selection.hpp"
#include "plan/shard.hpp"
#include "stats/stopping.hpp"

namespace tb {

// Seconds per benchmark name and per compile group, taken from a results file.
struct CostTable {
    std::string source = "model";                  // recorded as ShardRecord::cost_source
    std::map<std::string, double> case_s;          // benchmark name -> wall time beyond the compile
    std::map<std::string, double> group_s;         // compile group -> cold + cached compile
};

// The compile group of a benchmark: "<program>/<backend>"; "" for vendor rows (no compile).
std::string compile_group(const std::string& program, const std::string& backend);

// wall_ms where recorded (files from 2026-11-25 on), else the timed samples plus transfers
// plus kModelCaseOverheadS; benchmarks that did not validate have no timing and are left to
// the model.
CostTable cost_table_from_results(const Results& r, const std::string& source);

inline constexpr double kModelCaseOverheadS = 0.05;   // generate inputs, reference, launch overheads
inline constexpr double kModelSecondsPerByte = 1e-9;  // inputs made, uploaded and checked at ~1 GB/s
inline constexpr double kModelCompileS = 0.5;         // one program's compile on one device

// One PlanItem per case, in order: the table's figure where it has the benchmark, else the
// model: overhead + the stopping rule's minimum time + device bytes at kModelSecondsPerByte.
std::vector<PlanItem> estimate_costs(const std::vector<Case>& cases, const std::vector<BackendSlot>& slots,
                                     const CostTable& table, const StoppingRule& rule);

}  // namespace tb
