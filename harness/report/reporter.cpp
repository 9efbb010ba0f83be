#include "report/reporter.hpp"

#include <sstream>

namespace tb {

const char* to_string(ReportSubject s) {
    switch (s) {
        case ReportSubject::Run: return "a run";
        case ReportSubject::Comparison: return "a comparison";
        case ReportSubject::BackendMatrix: return "a backend matrix";
    }
    return "?";
}

ReportInput run_report(const Results& r) {
    ReportInput in;
    in.subject = ReportSubject::Run;
    in.run = &r;
    return in;
}

ReportInput comparison_report(const Comparison& c, const RunLabels& labels) {
    ReportInput in;
    in.subject = ReportSubject::Comparison;
    in.comparison = &c;
    in.labels = labels;
    return in;
}

ReportInput matrix_report(const BackendMatrix& m, const std::string& run_label) {
    ReportInput in;
    in.subject = ReportSubject::BackendMatrix;
    in.matrix = &m;
    in.run_label = run_label;
    return in;
}

const OutputFormat& find_output_format(const std::string& name) {
    std::string known;
    for (const auto& f : output_formats()) {
        if (f.name == name) return f;
        known += (known.empty() ? "" : ", ") + f.name;
    }
    throw Error("unknown output format '" + name + "' (known: " + known + ")");
}

std::string render_report(const std::string& format, const ReportInput& in) {
    const OutputFormat& f = find_output_format(format);
    const bool has_data = in.subject == ReportSubject::Run          ? in.run != nullptr
                          : in.subject == ReportSubject::Comparison ? in.comparison != nullptr
                                                                    : in.matrix != nullptr;
    if (!has_data) throw Error(std::string("no data given for ") + to_string(in.subject));
    if (!f.reporter->supports(in.subject)) throw Error(f.name + " cannot write " + to_string(in.subject));
    std::ostringstream out;
    f.reporter->write(in, out);
    return out.str();
}

}  // namespace tb
