// The output formats behind report/reporter.hpp: the registry names every format, each
// writes what it supports and refuses the rest, and writing through the registry gives the
// same bytes as the format's own function (what the commands printed before the registry).
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compare/compare.hpp"
#include "report/formats/console.hpp"
#include "report/formats/futhark.hpp"
#include "report/formats/github_benchmark.hpp"
#include "report/formats/json.hpp"
#include "report/formats/junit.hpp"
#include "report/formats/markdown.hpp"
#include "report/reporter.hpp"
#include "results/results.hpp"

using namespace tb;

namespace {

BenchmarkResult bench(const std::string& backend, double median_ms) {
    BenchmarkResult b;
    b.program = "mandelbrot";
    b.dataset = "256x256";
    b.variant = "default";
    b.backend = backend;
    b.launch = "stream";
    b.name = b.program + "/" + b.dataset + "/" + backend;
    b.device = backend + ":0";
    b.status = Status::Ok;
    for (int i = 0; i < 12; ++i) b.samples_ms.push_back(median_ms * (1 + 0.001 * (i % 5)));
    b.summary = summarize(b.samples_ms);
    return b;
}

// A small run: one program on two backends of one GPU.
Results small_run(double scale) {
    Results r;
    r.environment = {{"tribench_version", "0.1.0"}, {"tribench_commit", "abc"}, {"created_utc", "2026-01-01T00:00:00Z"}};
    for (const char* backend : {"cuda-native", "opencl"}) {
        DeviceRecord d;
        d.id = std::string(backend) + ":0";
        d.info.name = "NVIDIA H100 80GB HBM3";
        d.info.cc_major = 9;
        r.devices.push_back(d);
    }
    r.benchmarks = {bench("cuda-native", 1.0 * scale), bench("opencl", 1.2 * scale)};
    return r;
}

struct Subjects {
    Results old_run = small_run(1.0), new_run = small_run(1.3);
    Comparison comparison = compare_results(old_run, new_run, CompareOptions{});
    BackendMatrix matrix = backend_matrix(new_run, "cuda-native");
    RunLabels labels{"old.json", "new.json"};

    ReportInput of(ReportSubject s) const {
        switch (s) {
            case ReportSubject::Run: return run_report(new_run);
            case ReportSubject::Comparison: return comparison_report(comparison, labels);
            case ReportSubject::BackendMatrix: return matrix_report(matrix, "new.json");
        }
        return {};
    }
};

const ReportSubject kSubjects[] = {ReportSubject::Run, ReportSubject::Comparison, ReportSubject::BackendMatrix};

}  // namespace

TEST(Reporters, RegistryListsEveryFormatOnce) {
    std::vector<std::string> names;
    for (const auto& f : output_formats()) {
        names.push_back(f.name);
        EXPECT_FALSE(f.description.empty()) << f.name;
        ASSERT_NE(f.reporter, nullptr) << f.name;
    }
    EXPECT_EQ(names, (std::vector<std::string>{"console", "markdown", "json", "junit", "futhark", "github-benchmark"}));
}

TEST(Reporters, EachFormatSupportsItsSubjects) {
    const std::set<std::string> all = {"a run", "a comparison", "a backend matrix"};
    const std::map<std::string, std::set<std::string>> expected = {
        {"console", all},
        {"markdown", {"a comparison", "a backend matrix"}},
        {"json", all},
        {"junit", {"a comparison"}},
        {"futhark", {"a run"}},
        {"github-benchmark", {"a run"}},
    };
    for (const auto& f : output_formats()) {
        std::set<std::string> got;
        for (ReportSubject s : kSubjects)
            if (f.reporter->supports(s)) got.insert(to_string(s));
        EXPECT_EQ(got, expected.at(f.name)) << f.name;
    }
}

TEST(Reporters, EveryFormatWritesWhatItSupportsAndRefusesTheRest) {
    const Subjects subjects;
    for (const auto& f : output_formats()) {
        for (ReportSubject s : kSubjects) {
            const ReportInput in = subjects.of(s);
            if (f.reporter->supports(s)) {
                const std::string text = render_report(f.name, in);
                EXPECT_GT(text.size(), 40u) << f.name << " on " << to_string(s);
                EXPECT_NE(text.find("mandelbrot"), std::string::npos) << f.name << " on " << to_string(s);
            } else {
                try {
                    render_report(f.name, in);
                    ADD_FAILURE() << f.name << " wrote " << to_string(s);
                } catch (const Error& e) {
                    EXPECT_EQ(std::string(e.what()), f.name + " cannot write " + to_string(s));
                }
            }
        }
    }
}

TEST(Reporters, WritingThroughTheRegistryGivesTheFormatsOwnBytes) {
    const Subjects x;
    ReportInput run = x.of(ReportSubject::Run);
    run.color = true;
    EXPECT_EQ(render_report("console", run), format_results_table(x.new_run, true));
    EXPECT_EQ(render_report("json", run), results_file_text(x.new_run));
    EXPECT_EQ(render_report("github-benchmark", run), github_benchmark_json(x.new_run).dump(1) + "\n");
    run.backend = "opencl";
    EXPECT_EQ(render_report("futhark", run), futhark_bench_json(x.new_run, FutharkExportOptions{"opencl"}).dump(1) + "\n");

    ReportInput cmp = x.of(ReportSubject::Comparison);
    cmp.markdown_limit = 1000;
    cmp.timestamp = "2026-01-01T00:00:00";
    EXPECT_EQ(render_report("console", cmp), comparison_terminal(x.comparison, x.labels, false));
    EXPECT_EQ(render_report("markdown", cmp), comparison_markdown(x.comparison, x.labels, 1000));
    EXPECT_EQ(render_report("json", cmp), comparison_json(x.comparison, x.labels).dump(2) + "\n");
    EXPECT_EQ(render_report("junit", cmp), comparison_junit(x.comparison, x.labels, "2026-01-01T00:00:00"));

    ReportInput m = x.of(ReportSubject::BackendMatrix);
    EXPECT_EQ(render_report("console", m), matrix_terminal(x.matrix, "new.json", false));
    EXPECT_EQ(render_report("markdown", m), matrix_markdown(x.matrix, "new.json"));
    EXPECT_EQ(render_report("json", m), matrix_json(x.matrix, "new.json").dump(2) + "\n");
}

TEST(Reporters, JsonOfARunIsAResultsFileThatLoadsBack) {
    const Results r = small_run(1.0);
    const Results back = results_from_json(nlohmann::json::parse(render_report("json", run_report(r))));
    ASSERT_EQ(back.benchmarks.size(), 2u);
    EXPECT_EQ(back.benchmarks[1].name, "mandelbrot/256x256/opencl");
    EXPECT_EQ(back.benchmarks[1].samples_ms, r.benchmarks[1].samples_ms);
}

TEST(Reporters, UnknownFormatIsRefusedNamingTheKnownOnes) {
    const Results r = small_run(1.0);
    try {
        render_report("csv", run_report(r));
        FAIL() << "csv was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "unknown output format 'csv' (known: console, markdown, json, junit, futhark, github-benchmark)");
    }
}

TEST(Reporters, FormatErrorsReachTheCaller) {
    // github-action-benchmark refuses an empty list: a run with nothing validated is an error.
    Results r = small_run(1.0);
    for (auto& b : r.benchmarks) b.status = Status::Error;
    EXPECT_THROW(render_report("github-benchmark", run_report(r)), Error);
    ReportInput in = run_report(r);
    in.backend = "vendor";  // selects nothing
    EXPECT_THROW(render_report("futhark", in), Error);
}
