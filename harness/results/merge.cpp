#include "results/merge.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace tb {

using nlohmann::json;

std::string name_list(const std::vector<std::string>& names, std::size_t shown) {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < shown; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > shown) s += " and " + std::to_string(names.size() - shown) + " more";
    return s;
}

namespace {

std::string base(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::string env_string(const Results& r, const char* key) {
    if (!r.environment.is_object() || !r.environment.contains(key) || !r.environment[key].is_string()) return "unknown";
    return r.environment[key].get<std::string>();
}

json run_options(const Results& r) {
    if (!r.environment.is_object() || !r.environment.contains("options") || !r.environment["options"].is_object())
        return json::object();
    return r.environment["options"];
}

std::string math_mode(const Results& r) {
    const json o = run_options(r);
    if (o.contains("math") && o["math"].is_string()) return o["math"].get<std::string>();
    return r.benchmarks.empty() ? "unknown" : r.benchmarks.front().math;
}

std::string device_kind(const DeviceInfo& i) {
    return i.name + " (cc " + std::to_string(i.cc_major) + "." + std::to_string(i.cc_minor) + ", " + i.platform + ")";
}

std::string shard_text(const ShardRecord& s) {
    return s.count ? "shard " + std::to_string(s.index) + "/" + std::to_string(s.count) : "unsharded";
}

// Collects refusals: a waived one becomes a warning, the others throw at once.
struct Checker {
    MergeOutcome& out;
    void check(bool ok, bool waived, const std::string& flag, const std::string& what) {
        if (ok) return;
        if (!waived) throw Error(what + "; " + flag);
        out.warnings.push_back("warning: " + what);
    }
};

// The same value in every file, else "a.json: x, b.json: y" over the distinct values.
template <class F>
bool same_everywhere(const std::vector<ShardFile>& files, F value, std::string* listing) {
    std::map<std::string, std::string> first_file;
    std::string text;
    for (const auto& f : files) {
        const std::string v = value(f.results);
        if (first_file.emplace(v, f.path).second) text += (text.empty() ? "" : ", ") + base(f.path) + ": " + v;
    }
    *listing = text;
    return first_file.size() <= 1;
}

void check_options(const std::vector<ShardFile>& files, Checker& c, const MergeOptions& opt) {
    json first = run_options(files.front().results);
    first.erase("math");
    for (const auto& f : files) {
        json o = run_options(f.results);
        o.erase("math");
        if (o == first) continue;
        std::set<std::string> keys;
        for (auto it = first.begin(); it != first.end(); ++it) keys.insert(it.key());
        for (auto it = o.begin(); it != o.end(); ++it) keys.insert(it.key());
        for (const auto& k : keys) {
            const json a = first.value(k, json()), b = o.value(k, json());
            if (a == b) continue;
            c.check(false, opt.ignore_options, "--ignore-options merges them anyway",
                    "shards ran with different options (" + k + ": " + a.dump() + " in " + base(files.front().path) +
                        ", " + b.dump() + " in " + base(f.path) + ")");
            return;
        }
    }
}

void check_selection(const std::vector<ShardFile>& files, Checker& c, const MergeOptions& opt) {
    for (const auto& f : files)
        c.check(!f.results.selection.empty(), opt.ignore_selection,
                "--ignore-selection merges the benchmarks the files hold",
                base(f.path) + " records no selection (written by an older tribench, or not by `tribench run`)");
    std::string listing;
    const bool same_split = same_everywhere(
        files,
        [](const Results& r) {
            return r.shard.count ? "N=" + std::to_string(r.shard.count) + " plan " + r.shard.plan : std::string("unsharded");
        },
        &listing);
    c.check(same_split, opt.ignore_selection, "--ignore-selection merges them anyway",
            "shards come from different splits (" + listing +
                "): give every shard the same selection, --shard count and --cost-from");
    const std::set<std::string> first(files.front().results.selection.begin(), files.front().results.selection.end());
    for (const auto& f : files) {
        const std::set<std::string> mine(f.results.selection.begin(), f.results.selection.end());
        if (mine == first) continue;
        std::string example;
        for (const auto& n : first)
            if (!mine.count(n)) example = n + " only in " + base(files.front().path);
        for (const auto& n : mine)
            if (example.empty() && !first.count(n)) example = n + " only in " + base(f.path);
        c.check(false, opt.ignore_selection, "--ignore-selection merges the union",
                "shards have different selections (" + base(files.front().path) + ": " + std::to_string(first.size()) +
                    " benchmarks, " + base(f.path) + ": " + std::to_string(mine.size()) + "; " + example + ")");
        return;
    }
}

json merged_from_entry(const ShardFile& f) {
    const Results& r = f.results;
    double wall_ms = 0;
    for (const auto& b : r.benchmarks) wall_ms += b.wall_ms;
    json e = {{"file", f.path},
              {"shard", r.shard.count ? shard_json(r.shard) : json()},
              {"hostname", env_string(r, "hostname")},
              {"cpu_affinity", env_string(r, "cpu_affinity")},
              {"created_utc", env_string(r, "created_utc")},
              {"tribench_commit", env_string(r, "tribench_commit")},
              {"benchmarks", r.benchmarks.size()},
              {"benchmarks_wall_s", wall_ms * 1e-3},
              {"calibration", r.calibration}};
    return e;
}

}  // namespace

MergeOutcome merge_shards(const std::vector<ShardFile>& given, const MergeOptions& opt) {
    if (given.empty()) throw Error("merge needs at least one results file");
    // Shard order, so that the output does not depend on how the shell sorted the names.
    std::vector<ShardFile> files = given;
    std::stable_sort(files.begin(), files.end(),
                     [](const ShardFile& a, const ShardFile& b) { return a.results.shard.index < b.results.shard.index; });

    MergeOutcome out;
    Checker c{out};
    std::string listing;  // filled before the message is built from it
    bool same = same_everywhere(files, [](const Results& r) { return env_string(r, "tribench_commit"); }, &listing);
    c.check(same, opt.ignore_commit, "--ignore-commit merges them anyway", "shards are from different commits (" + listing + ")");
    same = same_everywhere(files, math_mode, &listing);
    c.check(same, opt.ignore_math, "--ignore-math merges them anyway", "shards used different math modes (" + listing + ")");
    check_options(files, c, opt);

    // Device kinds: an id must name the same kind of device in every file. Waived, a
    // differing device keeps its own record under "<id>@<shard>".
    Results& m = out.merged;
    std::map<std::string, std::pair<std::string, std::string>> kind_of;  // id -> kind, file
    std::vector<std::map<std::string, std::string>> renamed(files.size());
    for (std::size_t fi = 0; fi < files.size(); ++fi) {
        for (const auto& d : files[fi].results.devices) {
            const std::string kind = device_kind(d.info);
            auto [it, fresh] = kind_of.emplace(d.id, std::make_pair(kind, files[fi].path));
            if (fresh) {
                m.devices.push_back(d);
                continue;
            }
            if (it->second.first == kind) continue;
            c.check(false, opt.ignore_devices, "--ignore-devices merges them anyway",
                    "shards ran on different device kinds (" + d.id + " is " + it->second.first + " in " +
                        base(it->second.second) + ", " + kind + " in " + base(files[fi].path) + ")");
            DeviceRecord own = d;
            own.id = d.id + "@" + std::to_string(fi + 1);
            renamed[fi][d.id] = own.id;
            m.devices.push_back(own);
        }
    }

    check_selection(files, c, opt);

    // Expected benchmarks: the (common) selection, or the union of all selections.
    std::vector<std::string> expected;
    std::map<std::string, std::size_t> position;
    for (const auto& f : files)
        for (const auto& n : f.results.selection)
            if (position.emplace(n, expected.size()).second) expected.push_back(n);
    m.selection = expected;

    // Benchmarks, each once; the first file (in shard order) wins a duplicate.
    std::map<std::string, std::vector<std::string>> holders;
    for (std::size_t fi = 0; fi < files.size(); ++fi) {
        const Results& r = files[fi].results;
        for (const auto& b : r.benchmarks) {
            auto& h = holders[b.name];
            h.push_back(base(files[fi].path));
            if (h.size() > 1) continue;
            BenchmarkResult copy = b;
            copy.merged_from = int(fi);
            if (auto it = renamed[fi].find(b.device); it != renamed[fi].end()) copy.device = it->second;
            m.benchmarks.push_back(std::move(copy));
        }
        for (auto it = r.calibration.begin(); it != r.calibration.end(); ++it) {
            const auto rn = renamed[fi].find(it.key());
            const std::string id = rn != renamed[fi].end() ? rn->second : it.key();
            if (!m.calibration.contains(id)) m.calibration[id] = it.value();
        }
        m.merged_from.push_back(merged_from_entry(files[fi]));
    }
    std::string dup_detail;
    for (const auto& [name, h] : holders) {
        if (h.size() < 2) continue;
        out.duplicated.push_back(name);
        if (dup_detail.empty()) {
            dup_detail = name + " in ";
            for (std::size_t i = 0; i < h.size(); ++i) dup_detail += (i ? ", " : "") + h[i];
        }
    }
    if (!out.duplicated.empty()) {
        std::string same_shard;
        std::map<int, std::string> index_file;
        for (const auto& f : files) {
            const ShardRecord& s = f.results.shard;
            if (!s.count) continue;
            auto [it, fresh] = index_file.emplace(s.index, f.path);
            if (!fresh && same_shard.empty())
                same_shard = ": " + base(it->second) + " and " + base(f.path) + " are both " + shard_text(s);
        }
        c.check(false, opt.allow_duplicates, "--allow-duplicates keeps the first file's",
                std::to_string(out.duplicated.size()) + " benchmark" + (out.duplicated.size() == 1 ? " is" : "s are") +
                    " in more than one file (" + dup_detail + ")" + same_shard);
    }

    // Missing: selected but absent. Name the absent shards where the files say which.
    for (const auto& n : expected)
        if (!holders.count(n)) out.missing.push_back(n);
    if (!out.missing.empty()) {
        std::string shards;
        const int count = files.front().results.shard.count;
        std::set<int> present;
        for (const auto& f : files)
            if (f.results.shard.count == count) present.insert(f.results.shard.index);
        for (int k = 1; count > 0 && k <= count; ++k)
            if (!present.count(k)) shards += (shards.empty() ? "" : ", ") + std::to_string(k);
        if (!shards.empty()) shards = "; no file holds shard " + shards + " of " + std::to_string(count);
        c.check(false, opt.allow_missing, "--allow-missing writes the merge and lists them under \"missing\"",
                std::to_string(out.missing.size()) + " of " + std::to_string(expected.size()) +
                    " selected benchmarks are missing (" + name_list(out.missing) + shards + ")");
        m.missing = out.missing;
    }

    std::stable_sort(m.benchmarks.begin(), m.benchmarks.end(), [&](const BenchmarkResult& a, const BenchmarkResult& b) {
        const auto pa = position.find(a.name), pb = position.find(b.name);
        const std::size_t ia = pa == position.end() ? expected.size() : pa->second;
        const std::size_t ib = pb == position.end() ? expected.size() : pb->second;
        return ia < ib;
    });
    m.environment = files.front().results.environment;
    return out;
}

}  // namespace tb
