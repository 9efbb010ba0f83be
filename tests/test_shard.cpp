// Scale-out (docs/scale-out.md): the shard split, the cost estimates it uses, merging shard
// files, the new results fields, and the pieces of `run --parallel-devices` that need no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "plan/cost_model.hpp"
#include "results/merge.hpp"
#include "cli/parallel_devices.hpp"
#include "results/results.hpp"
#include "scoped_env.hpp"
#include "plan/shard.hpp"

using namespace tb;

namespace {

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::vector<PlanItem> items_with_costs(const std::vector<std::int64_t>& costs) {
    std::vector<PlanItem> v;
    for (std::size_t i = 0; i < costs.size(); ++i) v.push_back(PlanItem{"b" + std::to_string(i), "", costs[i], 0});
    return v;
}

std::map<std::string, int> assignment(const std::vector<PlanItem>& items, const ShardPlan& p) {
    std::map<std::string, int> m;
    for (std::size_t i = 0; i < items.size(); ++i) m[items[i].name] = p.shard_of[i];
    return m;
}

}  // namespace

TEST(ShardSpec, ParsesKOfN) {
    const ShardSpec s = parse_shard("2/5");
    EXPECT_EQ(s.index, 2);
    EXPECT_EQ(s.count, 5);
    EXPECT_EQ(parse_shard("1/1").count, 1);
    for (const char* bad : {"0/2", "3/2", "2", "a/b", "2/0", "-1/2", "1/2/3", " 1/2", "1/2x", "/2", "1/", "+1/2"})
        EXPECT_EQ(error_of([&] { parse_shard(bad); }), std::string("--shard takes K/N with 1 <= K <= N (got '") + bad + "')")
            << bad;
}

TEST(ShardPlan, EveryItemInExactlyOneShard) {
    std::vector<std::int64_t> costs;
    for (int i = 0; i < 53; ++i) costs.push_back((i * 37) % 101 + 1);
    const auto items = items_with_costs(costs);
    for (int n = 1; n <= 8; ++n) {
        const ShardPlan p = plan_shards(items, n);
        ASSERT_EQ(p.shard_of.size(), items.size());
        ASSERT_EQ(p.load_ms.size(), std::size_t(n));
        std::vector<std::int64_t> load(std::size_t(n), 0);
        for (std::size_t i = 0; i < items.size(); ++i) {
            ASSERT_GE(p.shard_of[i], 1);
            ASSERT_LE(p.shard_of[i], n);
            load[std::size_t(p.shard_of[i] - 1)] += items[i].cost_ms;
        }
        EXPECT_EQ(load, p.load_ms) << n << " shards";
    }
}

TEST(ShardPlan, CutsTheLeastLargestRun) {
    // Runs in name order b0..b5: {3, 7, 2} and {5, 3, 4}: 12 and 12, the best possible.
    auto p = plan_shards(items_with_costs({3, 7, 2, 5, 3, 4}), 2);
    EXPECT_EQ(p.load_ms, (std::vector<std::int64_t>{12, 12}));
    EXPECT_EQ(p.shard_of, (std::vector<int>{1, 1, 1, 2, 2, 2}));
    // Not equal counts: the long item alone, the nine short ones together.
    p = plan_shards(items_with_costs({9, 1, 1, 1, 1, 1, 1, 1, 1, 1}), 2);
    EXPECT_EQ(p.load_ms, (std::vector<std::int64_t>{9, 9}));
    EXPECT_EQ(p.shard_of[0], 1);
    EXPECT_EQ(p.shard_of[1], 2);
    // Three shards of 100 one-millisecond items: 34, 33, 33 at worst.
    p = plan_shards(items_with_costs(std::vector<std::int64_t>(100, 1)), 3);
    EXPECT_EQ(*std::max_element(p.load_ms.begin(), p.load_ms.end()), 34);
}

TEST(ShardPlan, EqualCostsSplitInNameOrder) {
    const auto items = items_with_costs({1, 1, 1, 1});  // b0..b3
    const ShardPlan p = plan_shards(items, 2);
    EXPECT_EQ(p.shard_of, (std::vector<int>{1, 1, 2, 2}));
}

TEST(ShardPlan, IndependentOfTheItemsOrder) {
    std::vector<std::int64_t> costs;
    for (int i = 0; i < 30; ++i) costs.push_back((i * 13) % 7 + 1);  // many ties
    auto items = items_with_costs(costs);
    for (std::size_t i = 0; i < items.size(); ++i) items[i].group = "g" + std::to_string(i % 4), items[i].group_cost_ms = 5;
    const ShardPlan a = plan_shards(items, 3);
    auto shuffled = items;
    std::reverse(shuffled.begin(), shuffled.end());
    std::rotate(shuffled.begin(), shuffled.begin() + 11, shuffled.end());
    const ShardPlan b = plan_shards(shuffled, 3);
    EXPECT_EQ(assignment(items, a), assignment(shuffled, b));
    EXPECT_EQ(a.load_ms, b.load_ms);
    EXPECT_EQ(a.digest, b.digest);
}

TEST(ShardPlan, ACompileThatDominatesKeepsItsGroupTogether) {
    std::vector<PlanItem> items;
    for (const char* g : {"spmv/opencl", "fft/opencl"})
        for (int i = 0; i < 3; ++i) items.push_back(PlanItem{std::string(g) + "/" + std::to_string(i), g, 1, 10});
    const ShardPlan p = plan_shards(items, 2);
    // fft sorts first: its three items and one compile make shard 1, spmv's shard 2.
    EXPECT_EQ(p.shard_of, (std::vector<int>{2, 2, 2, 1, 1, 1}));
    EXPECT_EQ(p.load_ms, (std::vector<std::int64_t>{13, 13}));
}

TEST(ShardPlan, ABigGroupIsSplitAndEachPartPaysItsCompile) {
    std::vector<PlanItem> items;
    for (int i = 0; i < 4; ++i) items.push_back(PlanItem{"nbody/" + std::to_string(i), "nbody/cuda-native", 10, 2});
    const ShardPlan p = plan_shards(items, 2);
    EXPECT_EQ(p.shard_of, (std::vector<int>{1, 1, 2, 2}));
    EXPECT_EQ(p.load_ms, (std::vector<std::int64_t>{22, 22}));
}

TEST(ShardPlan, MoreShardsThanItemsLeavesSomeEmpty) {
    const auto items = items_with_costs({4, 9});
    const ShardPlan p = plan_shards(items, 5);
    EXPECT_EQ(p.shard_of, (std::vector<int>{1, 2}));
    EXPECT_EQ(p.load_ms, (std::vector<std::int64_t>{4, 9, 0, 0, 0}));
    EXPECT_EQ(plan_shards({}, 3).load_ms, (std::vector<std::int64_t>{0, 0, 0}));
}

TEST(ShardPlan, DigestNamesTheAssignment) {
    const auto items = items_with_costs({5, 4, 3, 2, 1});
    EXPECT_EQ(plan_shards(items, 2).digest, plan_shards(items, 2).digest);
    EXPECT_NE(plan_shards(items, 2).digest, plan_shards(items, 3).digest);
    auto other = items;
    other[4].cost_ms = 20;  // another balance, another assignment
    EXPECT_NE(plan_shards(items, 2).digest, plan_shards(other, 2).digest);
    EXPECT_THROW(plan_shards(items, 0), Error);
}

namespace {

BenchmarkResult bench(const std::string& name, const std::string& program = "mandelbrot",
                      const std::string& backend = "opencl") {
    BenchmarkResult b;
    b.name = name;
    b.program = program;
    b.dataset = "d";
    b.variant = "default";
    b.backend = backend;
    b.launch = "stream";
    b.device = "opencl:0";
    b.status = Status::Ok;
    b.samples_ms = {1.0, 2.0};
    b.summary = summarize(b.samples_ms);
    return b;
}

}  // namespace

TEST(CostTable, PrefersWallTimeElseSamplesAndTransfers) {
    Results r;
    BenchmarkResult a = bench("a");
    a.wall_ms = 2500;
    a.compile_cold_ms = 300;
    a.compile_cached_ms = 100;
    BenchmarkResult b = bench("b");  // an older file: no wall_ms
    b.samples_ms = {100, 200};
    b.upload_ms = 50;
    b.download_ms = 50;
    b.compile_ms = 700;  // the only compile figure
    b.program = "fft";
    BenchmarkResult failed = bench("c");
    failed.status = Status::ValidationFailed;
    failed.wall_ms = 9000;
    BenchmarkResult vendor = bench("v", "fft", kVendorId);
    r.benchmarks = {a, b, failed, vendor};
    const CostTable t = cost_table_from_results(r, "results x.json");
    EXPECT_EQ(t.source, "results x.json");
    EXPECT_DOUBLE_EQ(t.case_s.at("a"), 2.5);
    EXPECT_DOUBLE_EQ(t.case_s.at("b"), 0.4 + kModelCaseOverheadS);
    EXPECT_FALSE(t.case_s.count("c"));  // no timing to learn from: left to the model
    EXPECT_DOUBLE_EQ(t.group_s.at("mandelbrot/opencl"), 0.4);
    EXPECT_DOUBLE_EQ(t.group_s.at("fft/opencl"), 0.7);
    EXPECT_FALSE(t.group_s.count(""));  // vendor rows compile nothing
    EXPECT_EQ(compile_group("fft", kVendorId), "");
}

TEST(CostModel, UsesTheTableElseTheDatasetSize) {
    // Any program will do (builds may hold a subset, TRIBENCH_PROGRAMS); datasets grow in size.
    const Program& p = *all_programs().front();
    const std::string v = p.variants().front();
    std::vector<BackendSlot> slots(1);
    slots[0].id = "opencl";
    std::vector<Case> cases;
    for (const auto& d : p.datasets())
        cases.push_back(Case{&p, d, v, LaunchMode::Stream, 0, 0, p.name() + "/" + d.name + "/opencl"});
    ASSERT_GE(cases.size(), 2u);
    CostTable t;
    t.case_s[cases[0].name] = 1.2344;
    t.group_s[p.name() + "/opencl"] = 2.0;
    StoppingRule rule;
    rule.min_time_s = 0.25;
    rule.timeout_s = 5;
    const auto items = estimate_costs(cases, slots, t, rule);
    ASSERT_EQ(items.size(), cases.size());
    EXPECT_EQ(items[0].cost_ms, 1234);
    EXPECT_EQ(items[0].group, p.name() + "/opencl");
    EXPECT_EQ(items[0].group_cost_ms, 2000);
    const double bytes = double(p.device_bytes(cases[1].dataset, v));
    EXPECT_EQ(items[1].cost_ms, std::llround((kModelCaseOverheadS + 0.25 + bytes * kModelSecondsPerByte) * 1e3));
    // Bigger datasets are expected to cost more.
    EXPECT_GT(items.back().cost_ms, items[1].cost_ms);
    const auto model_only = estimate_costs(cases, slots, CostTable{}, rule);
    EXPECT_EQ(model_only[0].group_cost_ms, std::llround(kModelCompileS * 1e3));
}

// ---------------------------------------------------------------------------------------
// merge

namespace {

const std::vector<std::string> kSelection = {"p/a/opencl", "p/b/opencl", "p/c/opencl", "p/d/opencl", "p/e/opencl"};

// Shard K of N holding the named benchmarks of kSelection.
ShardFile shard_file(int index, int count, const std::vector<std::string>& names, const std::string& path) {
    Results r;
    r.environment = {{"tribench_commit", "abc123"},
                     {"hostname", "node" + std::to_string(index)},
                     {"created_utc", "2026-11-25T00:00:00Z"},
                     {"options", {{"math", "default"}, {"seed", 42}, {"min_time_s", 0.25}}}};
    DeviceRecord d;
    d.id = "opencl:0";
    d.info.name = "cpu model x";
    d.info.platform = "Portable Computing Language";
    r.devices.push_back(d);
    r.calibration["opencl:0"] = {{"copy_gbps", 10.0 * index}};
    for (const auto& n : names) {
        BenchmarkResult b = bench(n, "p");
        b.wall_ms = 100;
        r.benchmarks.push_back(b);
    }
    r.selection = kSelection;
    r.shard.index = index;
    r.shard.count = count;
    r.shard.plan = "plan" + std::to_string(count);
    r.shard.visible_devices = std::to_string(index - 1);
    return ShardFile{path, r};
}

std::vector<ShardFile> three_shards() {
    return {shard_file(2, 3, {"p/b/opencl", "p/e/opencl"}, "dir/shard-2-of-3.json"),
            shard_file(1, 3, {"p/d/opencl", "p/a/opencl"}, "dir/shard-1-of-3.json"),
            shard_file(3, 3, {"p/c/opencl"}, "dir/shard-3-of-3.json")};
}

std::vector<std::string> names(const Results& r) {
    std::vector<std::string> v;
    for (const auto& b : r.benchmarks) v.push_back(b.name);
    return v;
}

}  // namespace

TEST(Merge, JoinsShardsInSelectionOrder) {
    const MergeOutcome m = merge_shards(three_shards(), MergeOptions{});
    EXPECT_TRUE(m.warnings.empty());
    EXPECT_TRUE(m.missing.empty());
    EXPECT_EQ(names(m.merged), kSelection);
    EXPECT_EQ(m.merged.selection, kSelection);
    EXPECT_EQ(m.merged.shard.count, 0);  // whole again
    ASSERT_EQ(m.merged.merged_from.size(), 3u);
    // merged_from in shard order; each benchmark points at its shard's entry.
    EXPECT_EQ(m.merged.merged_from[0]["file"], "dir/shard-1-of-3.json");
    EXPECT_EQ(m.merged.merged_from[2]["shard"]["index"], 3);
    EXPECT_EQ(m.merged.merged_from[1]["hostname"], "node2");
    EXPECT_EQ(m.merged.merged_from[1]["benchmarks"], 2);
    EXPECT_DOUBLE_EQ(m.merged.merged_from[1]["benchmarks_wall_s"].get<double>(), 0.2);
    EXPECT_EQ(m.merged.merged_from[1]["calibration"]["opencl:0"]["copy_gbps"], 20.0);
    EXPECT_EQ(m.merged.benchmarks[0].merged_from, 0);  // p/a in shard 1
    EXPECT_EQ(m.merged.benchmarks[1].merged_from, 1);  // p/b in shard 2
    EXPECT_EQ(m.merged.benchmarks[2].merged_from, 2);  // p/c in shard 3
    ASSERT_EQ(m.merged.devices.size(), 1u);
    EXPECT_EQ(m.merged.calibration["opencl:0"]["copy_gbps"], 10.0);  // shard 1's
    EXPECT_EQ(m.merged.environment["hostname"], "node1");
    // The merged file is a results file like any other.
    const Results back = results_from_json(to_json(m.merged));
    EXPECT_EQ(names(back), kSelection);
    EXPECT_EQ(to_json(back), to_json(m.merged));
    // The order the files were given in does not matter.
    auto reversed = three_shards();
    std::reverse(reversed.begin(), reversed.end());
    EXPECT_EQ(to_json(merge_shards(reversed, MergeOptions{}).merged), to_json(m.merged));
}

TEST(Merge, RefusesShardsOfDifferentCommits) {
    auto files = three_shards();
    files[2].results.environment["tribench_commit"] = "def456";
    EXPECT_EQ(error_of([&] { merge_shards(files, MergeOptions{}); }),
              "shards are from different commits (shard-1-of-3.json: abc123, shard-3-of-3.json: def456); "
              "--ignore-commit merges them anyway");
    MergeOptions o;
    o.ignore_commit = true;
    const MergeOutcome m = merge_shards(files, o);
    ASSERT_EQ(m.warnings.size(), 1u);
    EXPECT_NE(m.warnings[0].find("different commits"), std::string::npos);
    EXPECT_EQ(m.merged.benchmarks.size(), kSelection.size());
}

TEST(Merge, RefusesDifferentMathModesAndOptions) {
    auto files = three_shards();
    files[0].results.environment["options"]["math"] = "fast";  // shard 2's
    EXPECT_EQ(error_of([&] { merge_shards(files, MergeOptions{}); }),
              "shards used different math modes (shard-1-of-3.json: default, shard-2-of-3.json: fast); "
              "--ignore-math merges them anyway");
    MergeOptions o;
    o.ignore_math = true;
    EXPECT_NO_THROW(merge_shards(files, o));

    files = three_shards();
    files[0].results.environment["options"]["seed"] = 7;
    EXPECT_EQ(error_of([&] { merge_shards(files, MergeOptions{}); }),
              "shards ran with different options (seed: 42 in shard-1-of-3.json, 7 in shard-2-of-3.json); "
              "--ignore-options merges them anyway");
    o.ignore_options = true;
    EXPECT_NO_THROW(merge_shards(files, o));
}

TEST(Merge, RefusesDifferentDeviceKindsAndKeepsBothWhenTold) {
    auto files = three_shards();
    files[2].results.devices[0].info.name = "another cpu";
    EXPECT_EQ(error_of([&] { merge_shards(files, MergeOptions{}); }),
              "shards ran on different device kinds (opencl:0 is cpu model x (cc 0.0, Portable Computing Language) in "
              "shard-1-of-3.json, another cpu (cc 0.0, Portable Computing Language) in shard-3-of-3.json); "
              "--ignore-devices merges them anyway");
    MergeOptions o;
    o.ignore_devices = true;
    const MergeOutcome m = merge_shards(files, o);
    ASSERT_EQ(m.merged.devices.size(), 2u);
    EXPECT_EQ(m.merged.devices[1].id, "opencl:0@3");
    EXPECT_EQ(m.merged.devices[1].info.name, "another cpu");
    EXPECT_EQ(m.merged.benchmarks[2].name, "p/c/opencl");
    EXPECT_EQ(m.merged.benchmarks[2].device, "opencl:0@3");
    EXPECT_EQ(m.merged.benchmarks[0].device, "opencl:0");
    EXPECT_EQ(m.merged.calibration["opencl:0@3"]["copy_gbps"], 30.0);
}

TEST(Merge, RefusesDifferentSelectionsAndSplits) {
    auto files = three_shards();
    files[0].results.selection.pop_back();  // shard 2's
    EXPECT_EQ(error_of([&] { merge_shards(files, MergeOptions{}); }),
              "shards have different selections (shard-1-of-3.json: 5 benchmarks, shard-2-of-3.json: 4; p/e/opencl only "
              "in shard-1-of-3.json); --ignore-selection merges the union");

    files = three_shards();
    files[0].results.shard.plan = "otherplan";
    EXPECT_NE(error_of([&] { merge_shards(files, MergeOptions{}); }).find("shards come from different splits"),
              std::string::npos);
    files = three_shards();
    files[0].results.shard.count = 4;
    EXPECT_NE(error_of([&] { merge_shards(files, MergeOptions{}); }).find("--ignore-selection merges them anyway"),
              std::string::npos);

    files = three_shards();
    files[0].results.selection.clear();  // a file from before selections were recorded
    EXPECT_EQ(error_of([&] { merge_shards(files, MergeOptions{}); }),
              "shard-2-of-3.json records no selection (written by an older tribench, or not by `tribench run`); "
              "--ignore-selection merges the benchmarks the files hold");
    MergeOptions o;
    o.ignore_selection = true;
    EXPECT_EQ(merge_shards(files, o).merged.benchmarks.size(), kSelection.size());
}

TEST(Merge, SaysWhichBenchmarksAreMissing) {
    auto files = three_shards();
    files.erase(files.begin());  // shard 2: p/b and p/e
    EXPECT_EQ(error_of([&] { merge_shards(files, MergeOptions{}); }),
              "2 of 5 selected benchmarks are missing (p/b/opencl, p/e/opencl; no file holds shard 2 of 3); "
              "--allow-missing writes the merge and lists them under \"missing\"");
    MergeOptions o;
    o.allow_missing = true;
    const MergeOutcome m = merge_shards(files, o);
    EXPECT_EQ(m.missing, (std::vector<std::string>{"p/b/opencl", "p/e/opencl"}));
    EXPECT_EQ(m.merged.missing, m.missing);
    EXPECT_EQ(names(m.merged), (std::vector<std::string>{"p/a/opencl", "p/c/opencl", "p/d/opencl"}));
    EXPECT_EQ(results_from_json(to_json(m.merged)).missing, m.missing);
}

TEST(Merge, SaysWhichBenchmarksAreDuplicated) {
    auto files = three_shards();
    files.push_back(files[2]);  // shard 3 given twice
    files.back().path = "elsewhere/shard-3-of-3.json";
    files.back().results.benchmarks[0].samples_ms = {9, 9};
    EXPECT_EQ(error_of([&] { merge_shards(files, MergeOptions{}); }),
              "1 benchmark is in more than one file (p/c/opencl in shard-3-of-3.json, shard-3-of-3.json): "
              "shard-3-of-3.json and shard-3-of-3.json are both shard 3/3; --allow-duplicates keeps the first file's");
    MergeOptions o;
    o.allow_duplicates = true;
    const MergeOutcome m = merge_shards(files, o);
    EXPECT_EQ(m.duplicated, (std::vector<std::string>{"p/c/opencl"}));
    EXPECT_EQ(names(m.merged), kSelection);
    EXPECT_EQ(m.merged.benchmarks[2].samples_ms, (std::vector<double>{1.0, 2.0}));  // the first file's copy
}

TEST(Merge, ForceWaivesEveryCheck) {
    auto files = three_shards();
    files[0].results.environment["tribench_commit"] = "zzz";
    files[0].results.environment["options"]["math"] = "fast";
    files[2].results.devices[0].info.name = "another cpu";
    files.erase(files.begin() + 1);  // shard 1
    MergeOptions o;
    o.force();
    const MergeOutcome m = merge_shards(files, o);
    EXPECT_EQ(m.warnings.size(), 4u);  // commit, math, devices, missing
    EXPECT_FALSE(m.missing.empty());
    EXPECT_THROW(merge_shards({}, o), Error);
}

// ---------------------------------------------------------------------------------------
// results fields

TEST(ResultsShardFields, RoundTripAndOldFilesStillLoad) {
    Results r = shard_file(2, 4, {"p/a/opencl"}, "x").results;
    r.shard.cost_source = "model";
    r.shard.estimated_s = 12.5;
    r.shard.batch_job = "77_2";
    const nlohmann::json j = to_json(r);
    EXPECT_EQ(j["shard"]["index"], 2);
    EXPECT_EQ(j["shard"]["count"], 4);
    EXPECT_EQ(j["benchmarks"][0]["wall_ms"], 100.0);
    EXPECT_FALSE(j["benchmarks"][0].contains("merged_from"));
    const Results back = results_from_json(j);
    EXPECT_EQ(back.selection, kSelection);
    EXPECT_EQ(back.shard.index, 2);
    EXPECT_EQ(back.shard.plan, "plan4");
    EXPECT_EQ(back.shard.visible_devices, "1");
    EXPECT_EQ(back.shard.batch_job, "77_2");
    EXPECT_DOUBLE_EQ(back.benchmarks[0].wall_ms, 100);
    EXPECT_EQ(to_json(back), j);

    nlohmann::json old = j;  // as written before scale-out existed
    old.erase("selection");
    old.erase("shard");
    old["benchmarks"][0].erase("wall_ms");
    const Results o = results_from_json(old);
    EXPECT_TRUE(o.selection.empty());
    EXPECT_EQ(o.shard.count, 0);
    EXPECT_EQ(o.benchmarks[0].wall_ms, 0);
    EXPECT_FALSE(to_json(o).contains("shard"));
}

TEST(ResultsShardFields, RejectsBadShardsAndDanglingMergeIndices) {
    nlohmann::json j = to_json(shard_file(2, 4, {"p/a/opencl"}, "x").results);
    j["shard"]["index"] = 5;
    EXPECT_EQ(error_of([&] { results_from_json(j); }), "results file: shard 5/4 is not K/N with 1 <= K <= N");
    j["shard"]["index"] = "two";
    EXPECT_THROW(results_from_json(j), Error);
    j = to_json(shard_file(2, 4, {"p/a/opencl"}, "x").results);
    j["selection"] = {1, 2};
    EXPECT_THROW(results_from_json(j), Error);
    j = to_json(shard_file(2, 4, {"p/a/opencl"}, "x").results);
    j["benchmarks"][0]["merged_from"] = 0;  // but no "merged_from" entries
    EXPECT_EQ(error_of([&] { results_from_json(j); }),
              "benchmarks[0]: merged_from 0 names no entry of \"merged_from\"");
}

// ---------------------------------------------------------------------------------------
// run --parallel-devices

TEST(ParallelDevices, ShardCommandReplacesOutputAndParallelFlags) {
    const std::vector<std::string> parent = {"tribench", "run", "-p", "fft", "--out", "r.json", "--parallel-devices",
                                             "--min-time", "0.1", "-o", "x.json", "--out=y.json", "-oz.json",
                                             "--pin-cpus", "--benchmark_repetitions=2", "--parallel-devices=true",
                                             "--pin-cpus=true"};
    EXPECT_EQ(shard_command(parent, "/bin/tb", 2, 4, "d/shard-2-of-4.json"),
              (std::vector<std::string>{"/bin/tb", "run", "-p", "fft", "--min-time", "0.1", "--benchmark_repetitions=2",
                                        "--shard", "2/4", "--out", "d/shard-2-of-4.json", "--progress"}));
}

TEST(ParallelDevices, ShardCommandResumesFromTheShardsOwnJournal) {
    const std::vector<std::string> parent = {"tribench", "run", "--resume", "r.json", "--parallel-devices",
                                             "--resume-anyway", "--seed", "3"};
    EXPECT_EQ(shard_command(parent, "/bin/tb", 1, 2, "r.json.shards/shard-1-of-2.json"),
              (std::vector<std::string>{"/bin/tb", "run", "--seed", "3", "--shard", "1/2", "--out",
                                        "r.json.shards/shard-1-of-2.json", "--progress", "--resume",
                                        "r.json.shards/shard-1-of-2.json", "--resume-anyway"}));
    const std::vector<std::string> eq = {"tribench", "run", "--resume=r.json", "--parallel-devices"};
    EXPECT_EQ(shard_command(eq, "/bin/tb", 2, 2, "s.json"),
              (std::vector<std::string>{"/bin/tb", "run", "--shard", "2/2", "--out", "s.json", "--progress",
                                        "--resume", "s.json"}));
}

TEST(ParallelDevices, DeviceListComesFromCudaVisibleDevices) {
    {
        test::ScopedEnv env("CUDA_VISIBLE_DEVICES", "2,3,GPU-8f1c");
        EXPECT_EQ(parallel_device_list(), (std::vector<std::string>{"2", "3", "GPU-8f1c"}));
    }
    {
        test::ScopedEnv env("CUDA_VISIBLE_DEVICES", "");
        EXPECT_EQ(error_of([] { parallel_device_list(); }),
                  "--parallel-devices: CUDA_VISIBLE_DEVICES is set but names no device");
    }
}

TEST(ParallelDevices, SplitsLinesAndReadsProgress) {
    LineSplitter s;
    EXPECT_TRUE(s.feed("[1/4] a val", 11).empty());
    const auto lines = s.feed("idated\n[2/4] b\nhalf", 19);
    EXPECT_EQ(lines, (std::vector<std::string>{"[1/4] a validated", "[2/4] b"}));
    EXPECT_EQ(s.rest(), "half");
    EXPECT_EQ(s.rest(), "");
    std::size_t d = 0, t = 0;
    EXPECT_TRUE(parse_progress("[12/40] fft/x/opencl validated, timing", &d, &t));
    EXPECT_EQ(d, 12u);
    EXPECT_EQ(t, 40u);
    EXPECT_FALSE(parse_progress("calibrated cuda-native:0: copy 3000 GB/s", &d, &t));
    EXPECT_FALSE(parse_progress("[x/40] nope", &d, &t));
}
