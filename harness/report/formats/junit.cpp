#include "report/formats/junit.hpp"

#include <cstdio>
#include <ostream>
#include <sstream>

#include "report/reporter.hpp"

namespace tb {
namespace {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

bool skipped(Verdict v) { return v == Verdict::NotCompared || v == Verdict::OnlyOld || v == Verdict::OnlyNew; }

// "stencil/128x128x64-i10/cuda-native/stream" -> "tribench.stencil": dashboards group test
// cases by class name, so a program's benchmarks sit together.
std::string class_name(const ComparedBenchmark& b) { return "tribench." + b.name.substr(0, b.name.find('/')); }

std::string change_words(const ComparedBenchmark& b) {
    return fmt("%+.1f%%", b.change_pct) + " (" + format_ms(b.old_median_ms) + " ms -> " + format_ms(b.new_median_ms) +
           " ms, p " + format_p(b.p_value) + ")";
}

// The one-line message of a failure or skip, and the line printed for a passing case.
std::string message(const ComparedBenchmark& b) {
    switch (b.verdict) {
        case Verdict::Regression:
            return "regression: " + change_words(b) + ", more than the " + fmt("%g", b.threshold_pct) + "% threshold" +
                   (b.noise_threshold ? " of the noise model" : "");
        case Verdict::Broken: return "broken: ok in OLD, " + std::string(to_string(b.new_status)) + " in NEW: " + b.new_error;
        case Verdict::NotCompared:
            return "not compared: " + std::string(to_string(b.old_status)) + " in OLD, " + to_string(b.new_status) + " in NEW";
        case Verdict::OnlyOld: return "only in OLD";
        case Verdict::OnlyNew: return "only in NEW";
        case Verdict::Fixed: return "fixed: " + std::string(to_string(b.old_status)) + " in OLD, ok in NEW";
        default: return std::string(to_string(b.verdict)) + ": " + change_words(b);
    }
}

}  // namespace

std::string xml_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (unsigned char ch : s) {
        switch (ch) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r' ? '?' : char(ch);
        }
    }
    return out;
}

std::string comparison_junit(const Comparison& c, const RunLabels& l, const std::string& timestamp) {
    std::size_t failures = 0, skips = 0;
    double total_s = 0;
    for (const auto& b : c.benchmarks) {
        failures += is_failure(b.verdict) ? 1 : 0;
        skips += skipped(b.verdict) ? 1 : 0;
        if (b.in_new && b.new_status == Status::Ok) total_s += b.new_median_ms * 1e-3;
    }
    const std::string counts = " tests=\"" + std::to_string(c.benchmarks.size()) + "\" failures=\"" +
                               std::to_string(failures) + "\" errors=\"0\" skipped=\"" + std::to_string(skips) + "\"";
    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<testsuites name=\"tribench compare\"" << counts << " time=\"" << fmt("%.6f", total_s) << "\">\n";
    out << "  <testsuite name=\"tribench compare\"" << counts << " time=\"" << fmt("%.6f", total_s) << "\"";
    if (!timestamp.empty()) out << " timestamp=\"" << xml_escape(timestamp) << "\"";
    out << ">\n    <properties>\n";
    const std::pair<const char*, std::string> props[] = {
        {"old", l.old_run},
        {"new", l.new_run},
        {"test", "two-sided Mann-Whitney U"},
        {"alpha", fmt("%g", c.options.alpha)},
        {"threshold_pct", fmt("%g", c.options.threshold_pct)},
        {"min_change_pct", fmt("%g", c.options.min_change_pct)},
    };
    for (const auto& [k, v] : props) out << "      <property name=\"" << k << "\" value=\"" << xml_escape(v) << "\"/>\n";
    out << "    </properties>\n";
    for (const auto& b : c.benchmarks) {
        // time: the benchmark's NEW median in seconds (what a dashboard plots per test case).
        const double t = b.in_new && b.new_status == Status::Ok ? b.new_median_ms * 1e-3 : 0;
        out << "    <testcase classname=\"" << xml_escape(class_name(b)) << "\" name=\"" << xml_escape(b.name)
            << "\" time=\"" << fmt("%.9f", t) << "\"";
        const std::string msg = xml_escape(message(b));
        if (is_failure(b.verdict)) {
            out << ">\n      <failure type=\"" << to_string(b.verdict) << "\" message=\"" << msg << "\">" << msg
                << "</failure>\n    </testcase>\n";
        } else if (skipped(b.verdict)) {
            out << ">\n      <skipped message=\"" << msg << "\"/>\n    </testcase>\n";
        } else {
            out << ">\n      <system-out>" << msg << "</system-out>\n    </testcase>\n";
        }
    }
    out << "  </testsuite>\n</testsuites>\n";
    return out.str();
}

namespace {

class JunitReporter : public Reporter {
public:
    bool supports(ReportSubject s) const override { return s == ReportSubject::Comparison; }
    void write(const ReportInput& in, std::ostream& out) const override {
        out << comparison_junit(*in.comparison, in.labels, in.timestamp);
    }
};

}  // namespace

std::unique_ptr<Reporter> make_junit_reporter() { return std::make_unique<JunitReporter>(); }

}  // namespace tb
