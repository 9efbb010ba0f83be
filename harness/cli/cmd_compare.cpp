// `tribench compare`: two runs benchmark by benchmark, or one run's backends.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <unistd.h>

#include "support/atomic_file.hpp"
#include "cli/commands.hpp"
#include "results/metric.hpp"
#include "compare/compare.hpp"
#include "report/reporter.hpp"
#include "compare/history.hpp"
#include "compare/noise_model.hpp"

namespace tb {
namespace {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void check_options(const CompareCmdOptions& o) {
    if (!(o.alpha > 0 && o.alpha < 1)) throw Error("--alpha must lie between 0 and 1, got " + num(o.alpha));
    if (!(o.min_change_pct >= 0)) throw Error("--min-change must be a percentage >= 0, got " + num(o.min_change_pct));
    if (!(o.threshold_pct >= 0)) throw Error("--threshold must be a percentage >= 0, got " + num(o.threshold_pct));
    if (o.markdown && o.json) throw Error("--markdown and --json exclude each other");
    if (o.color != "auto" && o.color != "always" && o.color != "never")
        throw Error("--color must be auto, always or never, got '" + o.color + "'");
    if (o.backends && o.files.size() != 1)
        throw Error("compare --backends takes one results file, got " + std::to_string(o.files.size()));
    if (!o.backends && o.files.size() != 2)
        throw Error("compare takes two results files (OLD.json NEW.json), got " + std::to_string(o.files.size()));
    if (!o.backends && !o.best.empty()) throw Error("--best applies to compare --backends");
    if (o.backends && (!o.noise.empty() || !o.junit.empty()))
        throw Error("--noise and --junit apply to compare OLD.json NEW.json, not to --backends");
    if (o.markdown_limit < 1000)
        throw Error("--markdown-limit must be at least 1000 bytes, got " + std::to_string(o.markdown_limit));
}

bool use_color(const CompareCmdOptions& o) {
    if (o.markdown || o.json || !o.out.empty() || o.color == "never") return false;
    if (o.color == "always") return true;
    const char* no_color = std::getenv("NO_COLOR");  // https://no-color.org
    return isatty(STDOUT_FILENO) && !(no_color && *no_color);
}

// The reporter (report/reporter.hpp) of the output the flags ask for.
std::string output_format(const CompareCmdOptions& o) { return o.json ? "json" : o.markdown ? "markdown" : "console"; }

void emit(const CompareCmdOptions& o, const std::string& text) {
    if (o.out.empty()) std::cout << text << std::flush;
    else write_file_atomically(o.out, text);
}

}  // namespace

int cmd_compare(const CompareCmdOptions& o) {
    check_options(o);
    const bool color = use_color(o);
    if (o.backends) {
        const Results r = load_results_as(o.files[0], o.metric);
        BackendMatrix m = backend_matrix(r, o.baseline, o.alpha);
        std::string label = describe_run(r, o.files[0]);
        if (!o.best.empty()) {
            const Results best = load_results_as(o.best, o.metric);
            add_best_view(m, backend_matrix(best, o.baseline, o.alpha));
            label += "; each at its own best: " + describe_run(best, o.best);
        }
        ReportInput in = matrix_report(m, label);
        in.color = color;
        emit(o, render_report(output_format(o), in));
        return 0;
    }
    NoiseModel noise;
    if (!o.noise.empty()) noise = load_noise_model(o.noise);
    const Results old_r = load_results_as(o.files[0], o.metric);
    const Results new_r = load_results_as(o.files[1], o.metric);
    CompareOptions co;
    co.alpha = o.alpha;
    co.threshold_pct = o.threshold_pct;
    co.min_change_pct = o.min_change_pct;
    co.force = o.force;
    if (!o.noise.empty())
        co.threshold_of = [&noise](const std::string& device, const std::string& name) {
            const NoiseEntry* e = noise.find(device, name);
            return e ? e->threshold_pct : -1.0;
        };
    const Comparison c = compare_results(old_r, new_r, co);
    const RunLabels labels{describe_run(old_r, o.files[0]), describe_run(new_r, o.files[1])};
    if (!o.junit.empty()) {
        const std::string created = new_r.environment.is_object() && new_r.environment.contains("created_utc") &&
                                            new_r.environment["created_utc"].is_string()
                                        ? new_r.environment["created_utc"].get<std::string>()
                                        : "";
        ReportInput junit = comparison_report(c, labels);
        // JUnit's timestamp has no zone designator (xs:dateTime without "Z" in its schema).
        junit.timestamp = parse_utc(created) >= 0 ? created.substr(0, 19) : "";
        write_file_atomically(o.junit, render_report("junit", junit));
    }
    ReportInput in = comparison_report(c, labels);
    in.color = color;
    in.markdown_limit = o.markdown_limit;
    emit(o, render_report(output_format(o), in));
    return c.exit_code();
}

}  // namespace tb
