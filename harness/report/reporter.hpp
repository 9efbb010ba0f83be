// Every output format behind one interface, as Google Benchmark's reporters are: a format is
// a Reporter registered under a name ("console", "markdown", "json", "junit", "futhark",
// "github-benchmark"), and commands look it up by that name. Adding a format is one file,
// report/formats/<name>.cpp, and its entry in report/reporter_registry.cpp (docs/DEVELOPING.md).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "report/text_format.hpp"
#include "results/results.hpp"

namespace tb {

// What a report is about.
enum class ReportSubject {
    Run,            // one results file (`run`, `export`)
    Comparison,     // two runs, benchmark by benchmark (`compare OLD NEW`)
    BackendMatrix,  // one run's backends against a baseline (`compare --backends`)
};
// "a run", "a comparison", "a backend matrix".
const char* to_string(ReportSubject s);

// The subject (the pointer that `subject` names is set; the data must outlive the write)
// and the options of the formats that have any: a format reads only its own.
struct ReportInput {
    ReportSubject subject = ReportSubject::Run;
    const Results* run = nullptr;
    const Comparison* comparison = nullptr;
    const BackendMatrix* matrix = nullptr;
    RunLabels labels;                 // Comparison: describe_run of OLD and NEW
    std::string run_label;            // BackendMatrix: describe_run of the run
    bool color = false;               // console: ANSI colors
    std::size_t markdown_limit = 0;   // markdown, Comparison: at most this many bytes (0: no limit)
    std::string timestamp;            // junit: the <testsuite> time, ISO 8601 without a zone ("": none)
    std::string backend;              // futhark: only this backend's benchmarks, keyed without it ("": all)
};
ReportInput run_report(const Results& r);
ReportInput comparison_report(const Comparison& c, const RunLabels& labels);
ReportInput matrix_report(const BackendMatrix& m, const std::string& run_label);

class Reporter {
public:
    virtual ~Reporter() = default;
    virtual bool supports(ReportSubject s) const = 0;
    // Writes in's subject, which supports() accepts, in this format. Throws tb::Error when
    // the subject holds nothing the format can write (e.g. no validated benchmark).
    virtual void write(const ReportInput& in, std::ostream& out) const = 0;
};

struct OutputFormat {
    std::string name;         // what commands look the format up by
    std::string description;  // one line
    std::unique_ptr<Reporter> reporter;
};

// Every registered format, in registry order.
const std::vector<OutputFormat>& output_formats();
// Throws tb::Error("unknown output format 'x' (known: console, ...)").
const OutputFormat& find_output_format(const std::string& name);
// The named format's rendering of in. Throws tb::Error when the format does not exist or
// cannot write in's subject ("junit cannot write a run"), and what the reporter throws.
std::string render_report(const std::string& format, const ReportInput& in);

}  // namespace tb
