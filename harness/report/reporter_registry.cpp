// The registry of output formats: the one place that names them. Each factory is defined
// in its format's file, report/formats/<name>.cpp.
#include "report/reporter.hpp"

namespace tb {

std::unique_ptr<Reporter> make_console_reporter();
std::unique_ptr<Reporter> make_markdown_reporter();
std::unique_ptr<Reporter> make_json_reporter();
std::unique_ptr<Reporter> make_junit_reporter();
std::unique_ptr<Reporter> make_futhark_reporter();
std::unique_ptr<Reporter> make_github_benchmark_reporter();

const std::vector<OutputFormat>& output_formats() {
    static const std::vector<OutputFormat> formats = [] {
        std::vector<OutputFormat> v;
        v.push_back({"console", "tables for a terminal, optionally colored", make_console_reporter()});
        v.push_back({"markdown", "Markdown for a pull-request comment", make_markdown_reporter()});
        v.push_back({"json", "JSON for machines (a run: the results file)", make_json_reporter()});
        v.push_back({"junit", "JUnit XML for CI test dashboards", make_junit_reporter()});
        v.push_back({"futhark", "the layout of `futhark bench --json`", make_futhark_reporter()});
        v.push_back({"github-benchmark", "github-action-benchmark's customSmallerIsBetter JSON",
                     make_github_benchmark_reporter()});
        return v;
    }();
    return formats;
}

}  // namespace tb
