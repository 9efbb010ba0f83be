#include "compare/history.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <tuple>

#include "stats/change_points.hpp"
#include "compare/compare.hpp"

namespace tb {

std::int64_t parse_utc(const std::string& s) {
    int y, mo, d, h, mi, sec;
    char tail = 0;
    if (s.size() != 20 || std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &sec, &tail) != 7 ||
        tail != 'Z')
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || h < 0 || mi < 0 || sec < 0) return -1;
    std::tm tm{};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    return std::int64_t(timegm(&tm));
}

std::string format_utc(std::int64_t s) {
    const std::time_t t = std::time_t(s);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

HistoryRun make_history_run(const std::string& path, Results r) {
    HistoryRun run;
    run.path = path;
    const nlohmann::json& env = r.environment;
    auto text = [&](const char* key) {
        return env.is_object() && env.contains(key) && env[key].is_string() ? env[key].get<std::string>() : std::string();
    };
    run.commit = text("tribench_commit");
    if (run.commit.empty()) run.commit = "unknown";
    run.created_utc = text("created_utc");
    run.created_s = parse_utc(run.created_utc);
    if (run.created_s < 0)
        throw Error(path + ": environment.created_utc is " +
                    (run.created_utc.empty() ? std::string("missing") : "'" + run.created_utc + "', not YYYY-MM-DDTHH:MM:SSZ") +
                    ": cannot place the run in time");
    run.results = std::move(r);
    return run;
}

const Step* Series::newest_step() const {
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
        if (it->beyond_noise) return &*it;
    return nullptr;
}

std::vector<const Series*> History::failing() const {
    std::vector<const Series*> out;
    for (const auto& s : series) {
        const Step* st = s.newest_step();
        if (s.broken || (st && st->regression)) out.push_back(&s);
    }
    return out;
}

std::size_t History::commit_count() const {
    std::size_t n = 0;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (i == 0 || runs[i].commit != runs[i - 1].commit || runs[i].commit == "unknown") ++n;
    return n;
}

namespace {

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs of one commit form a group that a step never splits. A run whose commit is unknown
// is a group of its own: nothing says it shares a commit with its neighbour.
std::vector<std::size_t> commit_groups(const std::vector<HistoryRun>& runs) {
    std::vector<std::size_t> g(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i)
        g[i] = i > 0 && runs[i].commit == runs[i - 1].commit && runs[i].commit != "unknown" ? g[i - 1] : i;
    return g;
}

// Same-named, differently seeded series get different permutations, and the answer for a
// series does not depend on which other files are in the history.
std::uint64_t seed_of(const Series& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (const std::string* part : {&s.device, &s.math, &s.name})
        for (unsigned char ch : *part + "|") h = (h ^ ch) * 1099511628211ull;
    return h;
}

void find_steps(Series& s, const std::vector<std::size_t>& run_group, const HistoryOptions& o) {
    std::vector<std::size_t> ok;  // indices into s.points
    std::vector<double> values;
    std::vector<std::size_t> groups;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const SeriesPoint& p = s.points[i];
        if (p.status != Status::Ok || !(p.median_ms > 0)) continue;
        ok.push_back(i);
        values.push_back(std::log(p.median_ms));
        groups.push_back(run_group[p.run]);
    }
    ChangePointOptions co;
    co.alpha = o.alpha;
    co.permutations = o.permutations;
    co.min_runs = o.min_runs;
    co.seed = seed_of(s);
    const std::vector<ChangePoint> cps = find_change_points(values, groups, co);
    std::vector<std::size_t> bounds = {0};
    for (const auto& cp : cps) bounds.push_back(cp.index);
    bounds.push_back(values.size());
    auto segment_median = [&](std::size_t a, std::size_t b) {
        std::vector<double> m;
        for (std::size_t k = a; k < b; ++k) m.push_back(s.points[ok[k]].median_ms);
        return median_of(m);
    };
    for (std::size_t c = 0; c < cps.size(); ++c) {
        Step st;
        st.point = ok[cps[c].index];
        st.run = s.points[st.point].run;
        st.before_ms = segment_median(bounds[c], bounds[c + 1]);
        st.after_ms = segment_median(bounds[c + 1], bounds[c + 2]);
        st.change_pct = (st.after_ms / st.before_ms - 1) * 100;
        st.p_value = cps[c].p_value;
        st.t = cps[c].t;
        st.beyond_noise = std::abs(st.change_pct) > s.threshold_pct;
        st.regression = st.beyond_noise && st.change_pct > 0;
        s.steps.push_back(st);
    }
}

bool failed(Status st) { return st == Status::ValidationFailed || st == Status::Error; }

}  // namespace

History build_history(std::vector<HistoryRun> runs, const HistoryOptions& o) {
    History h;
    h.options = o;
    // Runs of one commit stay together: a commit git does not date is placed by its first run.
    std::map<std::string, std::int64_t> first_run;
    for (const auto& r : runs) {
        auto [it, fresh] = first_run.emplace(r.commit, r.created_s);
        if (!fresh) it->second = std::min(it->second, r.created_s);
    }
    auto key = [&first_run](const HistoryRun& r) {
        const std::int64_t when = r.commit_s >= 0 ? r.commit_s : r.commit == "unknown" ? r.created_s : first_run.at(r.commit);
        return std::make_tuple(when, r.commit == "unknown" ? std::string() : r.commit, r.created_s, r.path);
    };
    std::stable_sort(runs.begin(), runs.end(), [&key](const HistoryRun& a, const HistoryRun& b) { return key(a) < key(b); });
    h.runs = std::move(runs);
    const std::vector<std::size_t> groups = commit_groups(h.runs);

    // Series keyed by device, math and name; the first appearance fixes the order within a
    // device and math mode.
    std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
    std::size_t duplicates = 0;
    for (std::size_t ri = 0; ri < h.runs.size(); ++ri) {
        const Results& r = h.runs[ri].results;
        std::map<std::string, bool> seen;
        for (const auto& b : r.benchmarks) {
            if (b.status == Status::Skipped) continue;
            if (seen[b.name]) {
                ++duplicates;
                continue;
            }
            seen[b.name] = true;
            const DeviceRecord* d = find_device(r, b.device);
            const std::string device = d ? d->info.name : b.device;
            const auto key = std::make_tuple(device, b.math, b.name);
            auto [it, fresh] = index.emplace(key, h.series.size());
            if (fresh) {
                Series s;
                s.device = device;
                s.math = b.math;
                s.name = b.name;
                s.program = b.program;
                s.dataset = b.dataset;
                s.variant = b.variant;
                s.backend = b.backend;
                s.launch = b.launch;
                h.series.push_back(s);
            }
            SeriesPoint p;
            p.run = ri;
            p.status = b.status;
            p.error = b.error;
            if (b.status == Status::Ok) {
                const MedianCi ci = median_ci95(b.samples_ms);
                p.count = b.samples_ms.size();
                p.median_ms = ci.median;
                p.low_ms = ci.low;
                p.high_ms = ci.high;
            }
            h.series[it->second].points.push_back(p);
        }
    }
    if (duplicates)
        h.notes.push_back(std::to_string(duplicates) + " benchmark" + (duplicates == 1 ? " was" : "s were") +
                          " listed twice in one file; the first of each was used");

    std::stable_sort(h.series.begin(), h.series.end(), [](const Series& a, const Series& b) {
        return std::tie(a.device, a.math) < std::tie(b.device, b.math);
    });
    for (Series& s : h.series) {
        const NoiseEntry* e = o.noise ? o.noise->find(s.device, s.name) : nullptr;
        s.threshold_pct = e ? e->threshold_pct : o.threshold_pct;
        s.threshold_source = e ? "noise model" : "--threshold";
        find_steps(s, groups, o);
        bool was_ok = false;
        for (std::size_t i = 0; i + 1 < s.points.size(); ++i) was_ok = was_ok || s.points[i].status == Status::Ok;
        s.broken = !s.points.empty() && was_ok && failed(s.points.back().status);
    }
    return h;
}

NoisePairs noise_pairs(const History& h) {
    NoisePairs pairs;
    for (const Series& s : h.series) {
        auto& out = pairs[{s.device, s.name}];
        std::size_t next_step = 0;
        const SeriesPoint* prev = nullptr;
        std::size_t prev_index = 0;
        for (std::size_t i = 0; i < s.points.size(); ++i) {
            const SeriesPoint& p = s.points[i];
            if (p.status != Status::Ok || !(p.median_ms > 0)) continue;
            // A significant change point between the two runs (even one within noise) means
            // the pair saw a change, not noise.
            bool step_between = false;
            while (next_step < s.steps.size() && s.steps[next_step].point <= i) {
                step_between = step_between || (prev && s.steps[next_step].point > prev_index);
                ++next_step;
            }
            if (prev && !step_between) out.push_back(std::log(p.median_ms / prev->median_ms));
            prev = &p;
            prev_index = i;
        }
        if (out.empty()) pairs.erase({s.device, s.name});
    }
    return pairs;
}

}  // namespace tb
