// `tribench history FILES...|DIR --out DIR`: the runs in commit order, a trend plot per
// program, HISTORY.md and the steps found; exit 1 when a benchmark's newest step is a
// regression (docs/history.md).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "support/atomic_file.hpp"
#include "support/gzip_text.hpp"
#include "cli/commands.hpp"
#include "compare/history.hpp"
#include "report/history_format.hpp"
#include "support/subprocess.hpp"

#ifndef TRIBENCH_SOURCE_DIR
#define TRIBENCH_SOURCE_DIR "."
#endif

namespace tb {
namespace {

namespace fs = std::filesystem;

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void check_options(const HistoryCmdOptions& o) {
    if (o.inputs.empty()) throw Error("history needs results files or folders");
    if (!(o.alpha > 0 && o.alpha < 1)) throw Error("--alpha must lie between 0 and 1, got " + num(o.alpha));
    if (!(o.threshold_pct >= 0)) throw Error("--threshold must be a percentage >= 0, got " + num(o.threshold_pct));
    // The smallest p a permutation test can give is 1 / (permutations + 1).
    if (o.permutations > 1000000 || double(o.permutations + 1) * o.alpha <= 1)
        throw Error("--permutations must let p fall below --alpha (more than " + num(1 / o.alpha - 1) +
                    ") and be at most 1000000, got " + std::to_string(o.permutations));
    if (o.min_runs < 1) throw Error("--min-runs must be at least 1");
    if (!o.git.empty() && o.no_git) throw Error("--git and --no-git exclude each other");
    if (!(o.noise_z > 0)) throw Error("--noise-z must be positive, got " + num(o.noise_z));
}

// *.json, or *.json.gz as `run --out` writes for a name ending in .gz.
bool has_results_name(const fs::path& p) {
    const std::string name = p.filename().string();
    return name.ends_with(".json") || name.ends_with(".json.gz");
}

bool is_results_file(const fs::path& p) {
    try {
        const nlohmann::json j = nlohmann::json::parse(read_text_maybe_gzip(p.string()));
        return j.is_object() && j.contains("schema") && j["schema"] == kResultsSchema;
    } catch (const std::exception&) {
        return false;
    }
}

// Files are read as given (a bad one is an error); folders are searched recursively for
// *.json and *.json.gz files whose schema is tribench-results, other JSON (plots' data,
// reports) skipped.
std::vector<HistoryRun> load_runs(const std::vector<std::string>& inputs) {
    std::vector<std::string> files;
    for (const auto& in : inputs) {
        std::error_code ec;
        if (fs::is_directory(in, ec)) {
            std::vector<std::string> found;
            for (auto it = fs::recursive_directory_iterator(in, ec); !ec && it != fs::recursive_directory_iterator();
                 it.increment(ec))
                if (it->is_regular_file() && has_results_name(it->path()) && is_results_file(it->path()))
                    found.push_back(it->path().string());
            if (ec) throw Error("cannot read folder " + in + ": " + ec.message());
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else {
            files.push_back(in);
        }
    }
    if (files.empty()) throw Error("no results files found in " + inputs.front() + (inputs.size() > 1 ? " and the rest" : ""));
    std::vector<HistoryRun> runs;
    for (const auto& f : files) runs.push_back(make_history_run(f, load_results(f)));
    return runs;
}

// The repository whose commits the runs name: --git, else the current folder when it is
// inside a git work tree. Empty: order by run time only.
std::string git_repo(const HistoryCmdOptions& o) {
    if (o.no_git) return "";
    const std::string dir = o.git.empty() ? "." : o.git;
    ProcessResult r;
    try {
        r = run_process({"git", "-C", dir, "rev-parse", "--is-inside-work-tree"});
    } catch (const Error&) {
        if (!o.git.empty()) throw Error("--git " + o.git + ": git not found on PATH");
        return "";
    }
    if (r.exit_code != 0 || r.output.rfind("true", 0) != 0) {
        if (!o.git.empty()) throw Error("--git " + o.git + ": not a git work tree");
        return "";
    }
    return dir;
}

// Commit times from git; a commit git does not know (or "unknown") keeps -1 and its runs
// are placed by their run time. Returns how many distinct commits were not found.
std::size_t resolve_commit_times(std::vector<HistoryRun>& runs, const std::string& repo) {
    std::map<std::string, std::int64_t> time_of;
    std::size_t missing = 0;
    for (auto& r : runs) {
        if (r.commit == "unknown") continue;
        auto it = time_of.find(r.commit);
        if (it == time_of.end()) {
            std::int64_t t = -1;
            // The commit is a hex prefix written by tribench; refuse anything else before it reaches git.
            const bool hex = r.commit.find_first_not_of("0123456789abcdef") == std::string::npos && r.commit.size() >= 4;
            if (!repo.empty() && hex) {
                const ProcessResult pr = run_process({"git", "-C", repo, "show", "-s", "--format=%ct", r.commit + "^{commit}", "--"});
                if (pr.exit_code == 0) {
                    char* end = nullptr;
                    const long long v = std::strtoll(pr.output.c_str(), &end, 10);
                    if (end != pr.output.c_str() && v > 0) t = v;
                }
            }
            if (t < 0) ++missing;
            it = time_of.emplace(r.commit, t).first;
        }
        r.commit_s = it->second;
    }
    return missing;
}

// The script prints "plot\t<file>\t<device>\t<math>\t<program>\t<title>" per PNG.
std::vector<HistoryPlot> draw_plots(const std::string& data_path, const std::string& dir) {
    std::vector<HistoryPlot> plots;
    for (const auto& line : run_plotting_script("TRIBENCH_HISTORY_SCRIPT", "history.py", data_path, dir)) {
        std::vector<std::string> f;
        std::string part;
        std::istringstream fields(line.substr(5));
        while (std::getline(fields, part, '\t')) f.push_back(part);
        if (f.size() == 5) plots.push_back({f[0], f[1], f[2], f[3], f[4]});
    }
    return plots;
}

std::string now_utc() {
    return format_utc(std::int64_t(std::time(nullptr)));
}

}  // namespace

int cmd_history(const HistoryCmdOptions& o) {
    check_options(o);
    NoiseModel noise;
    if (!o.noise.empty()) noise = load_noise_model(o.noise);
    const std::string repo = git_repo(o);
    std::vector<HistoryRun> runs = load_runs(o.inputs);

    std::size_t unresolved = 0;
    if (!repo.empty()) unresolved = resolve_commit_times(runs, repo);

    HistoryOptions ho;
    ho.alpha = o.alpha;
    ho.threshold_pct = o.threshold_pct;
    ho.permutations = o.permutations;
    ho.min_runs = o.min_runs;
    ho.noise = o.noise.empty() ? nullptr : &noise;
    History h = build_history(std::move(runs), ho);
    if (repo.empty())
        h.notes.push_back("commits ordered by the run time of their first run (environment.created_utc): no git "
                          "repository to read commit times from");
    else if (unresolved)
        h.notes.push_back(std::to_string(unresolved) + " commit" + (unresolved == 1 ? "" : "s") + " not found in " + repo +
                          ": placed by the run time of their first run");
    std::size_t unknown = 0;
    for (const auto& r : h.runs) unknown += r.commit == "unknown" ? 1 : 0;
    if (unknown)
        h.notes.push_back(std::to_string(unknown) + " run" + (unknown == 1 ? " names" : "s name") +
                          " no commit (tribench_commit \"unknown\"): placed by " + (unknown == 1 ? "its" : "their") +
                          " run time, each on its own");

    std::error_code ec;
    fs::create_directories(o.out, ec);
    if (ec || !fs::is_directory(o.out)) throw Error("cannot create folder " + o.out + ": " + (ec ? ec.message() : "not a folder"));
    const std::string data_path = (fs::path(o.out) / "history-data.json").string();
    write_file_atomically(data_path, history_plot_data(h).dump(1) + "\n");
    std::vector<HistoryPlot> plots;
    if (!o.no_plots) plots = draw_plots(data_path, o.out);
    const std::string md_path = (fs::path(o.out) / "HISTORY.md").string();
    write_file_atomically(md_path, history_markdown(h, plots));

    if (!o.learn_noise.empty()) {
        NoiseLearnOptions lo;
        lo.z = o.noise_z;
        lo.created_utc = now_utc();
        lo.source = std::to_string(h.runs.size()) + " runs of " + std::to_string(h.commit_count()) + " commits, " +
                    h.runs.front().created_utc + " to " + h.runs.back().created_utc;
        const NoiseModel learned = learn_noise_model(noise_pairs(h), lo);
        save_noise_model(o.learn_noise, learned);
        std::cout << "wrote " << o.learn_noise << ": noise thresholds of " << learned.size() << " benchmarks\n";
    }
    std::cout << history_summary(h) << "wrote " << md_path << " and " << plots.size() << " plot"
              << (plots.size() == 1 ? "" : "s") << "\n";
    return h.exit_code();
}

}  // namespace tb
