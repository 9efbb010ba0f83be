// HISTORY.md, the terminal summary and the plot script's input for `tribench history`.
#include "report/history_format.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "report/text_format.hpp"

namespace tb {

using ojson = nlohmann::ordered_json;

namespace {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string short_commit(const std::string& c) { return c == "unknown" ? c : c.substr(0, 12); }

// "abc123def456 (2026-11-23 08:49)": a run's commit and when it ran.
std::string run_label(const HistoryRun& r) {
    return short_commit(r.commit) + " (" + r.created_utc.substr(0, 10) + " " + r.created_utc.substr(11, 5) + ")";
}

std::string change_text(double pct) { return fmt("%+.1f%%", pct); }

std::string p_text(double p) { return p < 0.001 ? "<0.001" : fmt("%.3f", p); }

struct StepRef {
    const Series* series;
    const Step* step;
};

// Steps beyond noise, newest first (by run, then largest change).
std::vector<StepRef> reported_steps(const History& h) {
    std::vector<StepRef> out;
    for (const auto& s : h.series)
        for (const auto& st : s.steps)
            if (st.beyond_noise) out.push_back({&s, &st});
    std::stable_sort(out.begin(), out.end(), [](const StepRef& a, const StepRef& b) {
        if (a.step->run != b.step->run) return a.step->run > b.step->run;
        return std::abs(a.step->change_pct) > std::abs(b.step->change_pct);
    });
    return out;
}

std::size_t within_noise_count(const History& h) {
    std::size_t n = 0;
    for (const auto& s : h.series)
        for (const auto& st : s.steps) n += st.beyond_noise ? 0 : 1;
    return n;
}

std::string step_verdict(const Series& s, const Step& st) {
    const bool newest = s.newest_step() == &st;
    return std::string(st.regression ? "regression" : "improvement") + (newest && st.regression ? " (newest step)" : "");
}

std::string method_line(const History& h) {
    const HistoryOptions& o = h.options;
    return "A step is a change point in a benchmark's run medians (binary segmentation with a permutation-tested "
           "max-t scan, p < " + fmt("%g", o.alpha) + ", " + std::to_string(o.permutations) +
           " permutations, at least " + std::to_string(o.min_runs) +
           " runs either side, never inside one commit) whose size exceeds the benchmark's noise threshold (" +
           (o.noise ? "from the noise model, else " : "") + fmt("%g", o.threshold_pct) + "%).";
}

}  // namespace

ojson history_plot_data(const History& h) {
    ojson j = {{"schema", "tribench-history-data"}, {"version", 1}, {"runs", ojson::array()}, {"series", ojson::array()}};
    for (std::size_t i = 0; i < h.runs.size(); ++i) {
        const HistoryRun& r = h.runs[i];
        j["runs"].push_back({{"index", i},
                             {"commit", r.commit},
                             {"created_utc", r.created_utc},
                             {"commit_utc", r.commit_s >= 0 ? ojson(format_utc(r.commit_s)) : ojson(nullptr)},
                             {"path", r.path},
                             {"label", run_label(r)}});
    }
    for (const auto& s : h.series) {
        ojson e = {{"device", s.device},   {"math", s.math},         {"name", s.name},
                   {"program", s.program}, {"dataset", s.dataset},   {"variant", s.variant},
                   {"backend", s.backend}, {"launch", s.launch},     {"threshold_pct", s.threshold_pct},
                   {"threshold_source", s.threshold_source},         {"broken", s.broken},
                   {"points", ojson::array()}, {"steps", ojson::array()}};
        for (const auto& p : s.points) {
            ojson pj = {{"run", p.run}, {"status", to_string(p.status)}};
            if (p.status == Status::Ok) {
                pj["median_ms"] = p.median_ms;
                pj["low_ms"] = p.low_ms;
                pj["high_ms"] = p.high_ms;
                pj["count"] = p.count;
            }
            e["points"].push_back(pj);
        }
        for (const auto& st : s.steps)
            e["steps"].push_back({{"run", st.run},
                                  {"commit", h.runs[st.run].commit},
                                  {"before_ms", st.before_ms},
                                  {"after_ms", st.after_ms},
                                  {"change_pct", st.change_pct},
                                  {"p_value", st.p_value},
                                  {"beyond_noise", st.beyond_noise},
                                  {"regression", st.regression},
                                  {"newest", s.newest_step() == &st}});
        j["series"].push_back(e);
    }
    return j;
}

std::string history_summary(const History& h) {
    std::ostringstream out;
    const auto steps = reported_steps(h);
    out << "history: " << h.runs.size() << " run" << (h.runs.size() == 1 ? "" : "s") << " of " << h.commit_count()
        << " commit" << (h.commit_count() == 1 ? "" : "s") << ", " << h.series.size() << " series, " << steps.size()
        << " step" << (steps.size() == 1 ? "" : "s") << " beyond noise\n";
    for (const auto& n : h.notes) out << "note: " << n << "\n";
    for (const auto& r : steps) {
        const HistoryRun& run = h.runs[r.step->run];
        out << "  " << step_verdict(*r.series, *r.step) << ": " << r.series->name << " [" << r.series->device << ", "
            << r.series->math << "] " << change_text(r.step->change_pct) << " (" << format_ms(r.step->before_ms) << " -> "
            << format_ms(r.step->after_ms) << " ms, p " << p_text(r.step->p_value) << ") first at " << run_label(run)
            << "\n";
    }
    for (const Series* s : h.failing())
        if (s->broken)
            out << "  broken: " << s->name << " [" << s->device << ", " << s->math
                << "]: " << to_string(s->points.back().status) << " in its newest run: " << s->points.back().error << "\n";
    const auto failing = h.failing();
    out << (failing.empty() ? "no benchmark's newest step is a regression"
                            : std::to_string(failing.size()) + " benchmark" + (failing.size() == 1 ? "" : "s") +
                                  " failing (newest step a regression, or broken)")
        << "\n";
    return out.str();
}

std::string history_markdown(const History& h, const std::vector<HistoryPlot>& plots) {
    std::ostringstream out;
    out << "# tribench history\n\n";
    if (h.runs.empty()) return out.str() + "No runs.\n";
    out << h.runs.size() << " runs of " << h.commit_count() << " commits, from " << markdown_escape(run_label(h.runs.front()))
        << " to " << markdown_escape(run_label(h.runs.back())) << "; " << h.series.size()
        << " series (benchmark, device, math mode).\n\n";
    out << markdown_escape(method_line(h)) << " Method and outputs: docs/history.md.\n\n";
    for (const auto& n : h.notes) out << "> note: " << markdown_escape(n) << "\n\n";

    const auto failing = h.failing();
    out << "## Verdict\n\n";
    if (failing.empty()) {
        out << "No benchmark's newest step is a regression and none is broken: exit status 0.\n\n";
    } else {
        out << "**" << failing.size() << " benchmark" << (failing.size() == 1 ? "" : "s")
            << " failing** (exit status 1):\n\n";
        for (const Series* s : failing) {
            out << "- `" << s->name << "` (" << markdown_escape(s->device) << ", " << s->math << "): ";
            if (s->broken) {
                out << to_string(s->points.back().status) << " in its newest run";
            } else {
                const Step* st = s->newest_step();
                out << change_text(st->change_pct) << " (" << format_ms(st->before_ms) << " → " << format_ms(st->after_ms)
                    << " ms) from `" << short_commit(h.runs[st->run].commit) << "` on";
            }
            out << "\n";
        }
        out << "\n";
    }

    const auto steps = reported_steps(h);
    out << "## Steps, newest first\n\n";
    if (steps.empty()) {
        out << "No step beyond noise.\n";
    } else {
        out << "| first commit after | run | benchmark | device | math | before ms | after ms | change | threshold | p | "
               "verdict |\n|:--|:--|:--|:--|:--|--:|--:|--:|--:|--:|:--|\n";
        for (const auto& r : steps) {
            const HistoryRun& run = h.runs[r.step->run];
            const std::string verdict = step_verdict(*r.series, *r.step);
            out << "| `" << short_commit(run.commit) << "` | " << run.created_utc << " | " << markdown_escape(r.series->name)
                << " | " << markdown_escape(r.series->device) << " | " << r.series->math << " | "
                << format_ms(r.step->before_ms) << " | " << format_ms(r.step->after_ms) << " | "
                << change_text(r.step->change_pct) << " | " << fmt("%.3g%%", r.series->threshold_pct) << " | "
                << markdown_escape(p_text(r.step->p_value)) << " | "
                << (r.step->regression ? "**" + verdict + "**" : verdict) << " |\n";
        }
    }
    // A blank line first: a line right after a table would be read as one of its rows.
    if (const std::size_t n = within_noise_count(h))
        out << "\n" << n << " further significant change point" << (n == 1 ? "" : "s")
            << " smaller than the threshold " << (n == 1 ? "is" : "are") << " not reported as steps (history-data.json lists "
            << (n == 1 ? "it" : "them") << ").\n";
    out << "\n";

    if (!plots.empty()) {
        out << "## Trends\n\nMedian of each run with its 95% confidence interval (band), one line per backend; "
               "dotted vertical lines mark steps (red: slower, green: faster).\n\n";
        std::string last_heading;
        for (const auto& p : plots) {
            const std::string heading = p.device + " · math " + p.math;
            if (heading != last_heading) {
                out << "### " << markdown_escape(heading) << "\n\n";
                last_heading = heading;
            }
            out << "![" << markdown_escape(p.title) << "](" << p.file << ")\n\n";
        }
    }

    out << "## Runs\n\n| # | commit | commit time | run time | file | benchmarks |\n|--:|:--|:--|:--|:--|--:|\n";
    for (std::size_t i = 0; i < h.runs.size(); ++i) {
        const HistoryRun& r = h.runs[i];
        out << "| " << i + 1 << " | `" << short_commit(r.commit) << "` | "
            << (r.commit_s >= 0 ? format_utc(r.commit_s) : std::string("")) << " | " << r.created_utc << " | "
            << markdown_escape(r.path) << " | " << r.results.benchmarks.size() << " |\n";
    }
    return out.str();
}

}  // namespace tb
