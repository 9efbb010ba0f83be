#include "compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "backend.hpp"
#include "stats/mann_whitney.hpp"

namespace tb {

const char* to_string(Verdict v) {
    switch (v) {
        case Verdict::Unchanged: return "unchanged";
        case Verdict::Faster: return "faster";
        case Verdict::Slower: return "slower";
        case Verdict::Regression: return "regression";
        case Verdict::Broken: return "broken";
        case Verdict::Fixed: return "fixed";
        case Verdict::NotCompared: return "not compared";
        case Verdict::OnlyOld: return "only in OLD";
        case Verdict::OnlyNew: return "only in NEW";
    }
    return "?";
}

bool is_failure(Verdict v) { return v == Verdict::Regression || v == Verdict::Broken; }

std::size_t Comparison::count(Verdict v) const {
    return std::size_t(std::count_if(benchmarks.begin(), benchmarks.end(),
                                     [v](const ComparedBenchmark& b) { return b.verdict == v; }));
}

bool Comparison::has_failure() const {
    return std::any_of(benchmarks.begin(), benchmarks.end(), [](const ComparedBenchmark& b) { return b.regression; });
}

const DeviceRecord* find_device(const Results& r, const std::string& id) {
    for (const auto& d : r.devices)
        if (d.id == id) return &d;
    return nullptr;
}

std::string describe_device(const Results& r, const std::string& id) {
    const DeviceRecord* d = find_device(r, id);
    if (!d) return "";
    std::string s = d->info.name;
    if (d->info.cc_major > 0) s += " (cc " + std::to_string(d->info.cc_major) + "." + std::to_string(d->info.cc_minor) + ")";
    return s;
}

namespace {

std::map<std::string, const BenchmarkResult*> index_by_name(const Results& r, const char* side) {
    std::map<std::string, const BenchmarkResult*> m;
    for (const auto& b : r.benchmarks)
        if (!m.emplace(b.name, &b).second)
            throw Error(std::string(side) + " lists benchmark '" + b.name + "' twice");
    return m;
}

// How a benchmark's samples were read, for the warning about OLD and NEW reading them
// differently: "by cupti", "by events", "plainly by events" (a plain bracket includes launch
// latency and the host's launch loop: docs/measurement.md).
std::string clock_of(const BenchmarkResult& b) {
    return (b.timing == "plain" ? "plainly by " : "by ") + b.timing_clock;
}

// Fills speedup, p-value and verdict of a benchmark that is ok on both sides.
void judge_timings(ComparedBenchmark& c, const BenchmarkResult& o, const BenchmarkResult& n, const CompareOptions& opt) {
    if (c.old_median_ms > 0 && c.new_median_ms > 0) {
        c.speedup = c.old_median_ms / c.new_median_ms;
        c.change_pct = (c.new_median_ms / c.old_median_ms - 1) * 100;
    }
    const MannWhitney mw = mann_whitney_u(o.samples_ms, n.samples_ms);
    c.p_value = mw.p_value;
    c.exact = mw.exact;
    c.testable = mann_whitney_min_p(o.samples_ms.size(), n.samples_ms.size()) < opt.alpha;
    // The test says whether the samples differ at all; the medians say in which direction.
    // Equal medians with a significant test (a change in spread) is not a speed change.
    c.significant = mw.p_value < opt.alpha && c.speedup > 0 && c.new_median_ms != c.old_median_ms &&
                    std::abs(c.change_pct) >= opt.min_change_pct;
    if (!c.significant) c.verdict = Verdict::Unchanged;
    else if (c.new_median_ms < c.old_median_ms) c.verdict = Verdict::Faster;
    else if (c.change_pct > c.threshold_pct) c.verdict = Verdict::Regression;
    else c.verdict = Verdict::Slower;
}

}  // namespace

Comparison compare_results(const Results& old_r, const Results& new_r, const CompareOptions& opt) {
    Comparison cmp;
    cmp.options = opt;
    const auto olds = index_by_name(old_r, "OLD");
    const auto news = index_by_name(new_r, "NEW");

    auto fill_side = [](ComparedBenchmark& c, const Results& r, const BenchmarkResult& b, bool is_old) {
        const DeviceRecord* d = find_device(r, b.device);
        (is_old ? c.in_old : c.in_new) = true;
        (is_old ? c.old_status : c.new_status) = b.status;
        (is_old ? c.old_error : c.new_error) = b.error;
        (is_old ? c.old_device : c.new_device) = d ? d->info.name : "";
        (is_old ? c.old_count : c.new_count) = b.samples_ms.size();
        (is_old ? c.old_median_ms : c.new_median_ms) = b.status == Status::Ok ? b.summary.median : 0;
    };

    for (const auto& o : old_r.benchmarks) {
        ComparedBenchmark c;
        c.name = o.name;
        fill_side(c, old_r, o, true);
        const auto it = news.find(o.name);
        if (it == news.end()) {
            c.verdict = Verdict::OnlyOld;
            cmp.benchmarks.push_back(c);
            continue;
        }
        const BenchmarkResult& n = *it->second;
        fill_side(c, new_r, n, false);
        const std::string od = describe_device(old_r, o.device), nd = describe_device(new_r, n.device);
        if (od != nd) {
            const std::string what = "benchmark " + o.name + " ran on " + (od.empty() ? o.device : od) + " in OLD and on " +
                                     (nd.empty() ? n.device : nd) + " in NEW";
            if (!opt.force) throw Error("results are from different devices (" + what + "); use --force to compare anyway");
            cmp.device_mismatches.push_back(what);
        }
        const bool old_ok = o.status == Status::Ok, new_ok = n.status == Status::Ok;
        c.threshold_pct = opt.threshold_pct;
        if (opt.threshold_of) {
            const double t = opt.threshold_of(c.new_device, c.name);
            c.noise_threshold = t >= 0;
            if (c.noise_threshold) c.threshold_pct = t;
        }
        if (old_ok && new_ok && (o.timing_clock != n.timing_clock || o.timing != n.timing))
            cmp.clock_mismatches.push_back(o.name + ": timed " + clock_of(o) + " in OLD and " + clock_of(n) + " in NEW");
        // Files written before configurations were recorded say nothing either way.
        if (!o.config_source.empty() && !n.config_source.empty() && o.config != n.config)
            cmp.config_mismatches.push_back(o.name + ": configuration " + to_string(o.config) + " (" + o.config_source +
                                            ") in OLD and " + to_string(n.config) + " (" + n.config_source + ") in NEW");
        if (old_ok && new_ok) judge_timings(c, o, n, opt);
        else if (old_ok && (n.status == Status::ValidationFailed || n.status == Status::Error)) c.verdict = Verdict::Broken;
        else if (!old_ok && new_ok) c.verdict = Verdict::Fixed;
        else c.verdict = Verdict::NotCompared;
        c.regression = is_failure(c.verdict);
        cmp.benchmarks.push_back(c);
    }
    for (const auto& n : new_r.benchmarks) {
        if (olds.count(n.name)) continue;
        ComparedBenchmark c;
        c.name = n.name;
        fill_side(c, new_r, n, false);
        c.verdict = Verdict::OnlyNew;
        cmp.benchmarks.push_back(c);
    }
    return cmp;
}

// --- backend matrix -------------------------------------------------------------------

namespace {

// "a, b, c, d, e and 3 more": the first five items of a note's list.
std::string first_five(const std::vector<std::string>& items) {
    std::string list;
    for (std::size_t i = 0; i < items.size() && i < 5; ++i) list += (i ? ", " : "") + items[i];
    if (items.size() > 5) list += " and " + std::to_string(items.size() - 5) + " more";
    return list;
}

// "opencl@1" -> "opencl": the backend part of a column id.
std::string column_backend(const std::string& column) { return column.substr(0, column.find('@')); }

std::string column_of(const BenchmarkResult& b) {
    const auto at = b.name.rfind('@');
    return at == std::string::npos ? b.backend : b.backend + b.name.substr(at);
}

// program/dataset[/variant]/launch. The variant appears when the benchmark's name shows it
// (programs with several variants), so rows read like the names.
std::string row_key(const BenchmarkResult& b) {
    const std::string prefix = b.program + "/" + b.dataset + "/";
    std::string rest = b.name.substr(0, b.name.rfind('@'));
    bool variant_in_name = !b.variant.empty() && b.variant != "default";
    if (rest.rfind(prefix, 0) == 0) {
        rest = rest.substr(prefix.size());
        variant_in_name = rest.rfind(b.variant + "/" + b.backend, 0) == 0;
    }
    return prefix + (variant_in_name ? b.variant + "/" : "") + b.launch;
}

// cuda-native, cuda-prelude, opencl, vendor, then anything else by name; "@N" after the bare id.
std::vector<std::string> order_columns(const std::set<std::string>& cols) {
    std::vector<std::string> order = backend_ids();
    order.push_back(kVendorId);
    auto rank = [&](const std::string& c) {
        const auto it = std::find(order.begin(), order.end(), column_backend(c));
        return std::size_t(it - order.begin());
    };
    std::vector<std::string> out(cols.begin(), cols.end());
    std::stable_sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
        const auto ra = rank(a), rb = rank(b);
        return ra != rb ? ra < rb : a < b;
    });
    return out;
}

}  // namespace

BackendMatrix backend_matrix(const Results& r, const std::string& baseline, double alpha) {
    BackendMatrix m;
    m.baseline = baseline;
    m.alpha = alpha;
    std::set<std::string> cols, backends;
    for (const auto& b : r.benchmarks) {
        cols.insert(column_of(b));
        backends.insert(b.backend);
    }
    if (!backends.count(baseline)) {
        std::string present;
        for (const auto& b : backends) present += (present.empty() ? "" : ", ") + b;
        throw Error("baseline backend '" + baseline + "' has no benchmarks in these results (present: " +
                    (present.empty() ? "none" : present) + ")");
    }
    m.columns = order_columns(cols);

    std::map<std::string, std::size_t> row_of;
    std::vector<std::vector<const BenchmarkResult*>> by_cell;
    for (const auto& b : r.benchmarks) {
        const std::string key = row_key(b);
        auto [it, fresh] = row_of.emplace(key, m.rows.size());
        if (fresh) {
            MatrixRow row;
            row.key = key;
            row.program = b.program;
            row.dataset = b.dataset;
            row.variant = b.variant;
            row.launch = b.launch;
            row.cells.resize(m.columns.size());
            m.rows.push_back(row);
            by_cell.emplace_back(m.columns.size(), nullptr);
        }
        const std::size_t ci = std::size_t(std::find(m.columns.begin(), m.columns.end(), column_of(b)) - m.columns.begin());
        by_cell[it->second][ci] = &b;
    }
    for (std::size_t ri = 0; ri < m.rows.size(); ++ri) {
        std::vector<std::string> picks;
        for (const BenchmarkResult* b : by_cell[ri])
            if (b && !b->picked.empty() && std::find(picks.begin(), picks.end(), b->picked) == picks.end())
                picks.push_back(b->picked);
        for (const auto& p : picks) m.rows[ri].picked += (m.rows[ri].picked.empty() ? "" : ",") + p;
    }

    // Columns that read CUPTI somewhere can read either clock; opencl reads its events always,
    // so a difference there is the backend's, not an accident of sampling.
    std::set<std::string> reads_cupti;
    for (std::size_t ri = 0; ri < m.rows.size(); ++ri)
        for (std::size_t ci = 0; ci < m.columns.size(); ++ci)
            if (const BenchmarkResult* b = by_cell[ri][ci]; b && b->status == Status::Ok && b->timing_clock == "cupti")
                reads_cupti.insert(m.columns[ci]);
    std::vector<std::string> clock_cells;
    std::set<std::string> device_names;
    for (std::size_t ri = 0; ri < m.rows.size(); ++ri) {
        MatrixRow& row = m.rows[ri];
        // With several devices of the baseline backend, the first one that is ok.
        const BenchmarkResult* base = nullptr;
        bool base_reads_cupti = false;
        for (std::size_t ci = 0; ci < m.columns.size() && !base; ++ci) {
            const BenchmarkResult* b = by_cell[ri][ci];
            if (b && column_backend(m.columns[ci]) == baseline && b->status == Status::Ok) {
                base = b;
                base_reads_cupti = reads_cupti.count(m.columns[ci]) > 0;
            }
        }
        for (std::size_t ci = 0; ci < m.columns.size(); ++ci) {
            const BenchmarkResult* b = by_cell[ri][ci];
            if (!b) continue;
            MatrixCell& cell = row.cells[ci];
            cell.present = true;
            cell.status = b->status;
            cell.error = b->error;
            const DeviceRecord* d = find_device(r, b->device);
            cell.device = d ? d->info.name : b->device;
            cell.config = b->config.empty() ? "" : to_string(b->config);
            cell.config_source = b->config_source;
            if (b->status != Status::Ok) continue;
            device_names.insert(cell.device);
            cell.count = b->samples_ms.size();
            cell.median_ms = b->summary.median;
            cell.rsd = b->summary.rsd;
            cell.clock = b->timing_clock;
            if (!base || base->summary.median <= 0 || cell.median_ms <= 0) continue;
            cell.speedup = base->summary.median / cell.median_ms;
            if (b == base) continue;
            cell.clock_differs =
                base_reads_cupti && reads_cupti.count(m.columns[ci]) && b->timing_clock != base->timing_clock;
            if (cell.clock_differs)
                clock_cells.push_back(row.key + " " + m.columns[ci] + " (" + b->timing_clock + " against " +
                                      base->timing_clock + ")");
            cell.p_value = mann_whitney_u(base->samples_ms, b->samples_ms).p_value;
            cell.significant = cell.p_value < alpha && cell.median_ms != base->summary.median;
        }
    }
    if (!clock_cells.empty()) {
        const std::string list = first_five(clock_cells);
        m.notes.push_back(std::to_string(clock_cells.size()) + " cell" + (clock_cells.size() == 1 ? " was" : "s were") +
                          " timed by another clock than the baseline's, where both backends read either: " + list +
                          "; CUDA events read about 2-3 us a region more than CUPTI's kernel timestamps");
    }
    if (device_names.size() > 1) {
        std::string list;
        for (const auto& n : device_names) list += (list.empty() ? "" : ", ") + n;
        m.notes.push_back("the benchmarks ran on " + std::to_string(device_names.size()) +
                          " different devices (" + list + "): speedups across devices compare hardware too");
    }
    return m;
}

void add_best_view(BackendMatrix& same, const BackendMatrix& best) {
    if (same.baseline != best.baseline)
        throw Error("the two views need one baseline, got " + same.baseline + " and " + best.baseline);
    same.has_best = true;
    std::map<std::string, const MatrixRow*> best_rows;
    for (const auto& r : best.rows) best_rows.emplace(r.key, &r);
    std::vector<std::string> mixed;
    for (auto& row : same.rows) {
        std::set<std::string> configs;
        for (const auto& c : row.cells)
            if (c.present && !c.config.empty()) configs.insert(c.config);
        if (configs.size() > 1) mixed.push_back(row.key);
        const auto it = best_rows.find(row.key);
        if (it == best_rows.end()) continue;
        for (std::size_t ci = 0; ci < same.columns.size(); ++ci) {
            const auto col = std::find(best.columns.begin(), best.columns.end(), same.columns[ci]);
            if (col == best.columns.end()) continue;
            const MatrixCell& b = it->second->cells[std::size_t(col - best.columns.begin())];
            if (!b.present) continue;
            row.cells[ci].best = std::make_shared<const MatrixCell>(b);
        }
    }
    if (!mixed.empty()) {
        const std::string list = first_five(mixed);
        same.notes.push_back("the same-configuration run used different configurations across backends in " +
                             std::to_string(mixed.size()) + " row" + (mixed.size() == 1 ? "" : "s") + " (" + list +
                             "): there its speedups mix configuration and backend (run --tuning-backend " +
                             same.baseline + " shares one)");
    }
}

}  // namespace tb
