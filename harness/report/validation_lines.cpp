#include "report/validation_lines.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

namespace tb {
namespace {

// A failed validation's status already says it failed: its detail says how.
std::string detail_of(const BenchmarkResult& b) {
    if (b.status == Status::Ok || b.status == Status::ValidationFailed) return b.validation.detail;
    return b.error;
}

const char* color_of(Status s) {
    if (s == Status::Ok) return "\033[32m";
    if (s == Status::ValidationFailed || s == Status::Error) return "\033[31m";
    return nullptr;
}

}  // namespace

std::string format_validation_lines(const Results& r, bool color) {
    std::size_t status_w = 0, name_w = 0, validated = 0;
    std::vector<std::string> names;
    for (const auto& b : r.benchmarks) {
        names.push_back(b.picked.empty() ? b.name : b.name + " -> " + b.picked);
        status_w = std::max(status_w, std::string(to_string(b.status)).size());
        name_w = std::max(name_w, names.back().size());
        validated += b.status == Status::Ok;
    }
    std::ostringstream out;
    for (std::size_t i = 0; i < r.benchmarks.size(); ++i) {
        const BenchmarkResult& b = r.benchmarks[i];
        const std::string status = to_string(b.status);
        const std::string pad(status_w - status.size(), ' ');
        const char* on = color ? color_of(b.status) : nullptr;
        out << (on ? on + status + "\033[0m" : status) << pad << "  " << names[i];
        const std::string detail = detail_of(b);
        if (!detail.empty()) out << std::string(name_w - names[i].size(), ' ') << "  " << detail;
        out << "\n";
    }
    out << "tribench: " << validated << " of " << r.benchmarks.size()
        << " benchmarks validated; nothing timed (--validate-only)\n";
    return out.str();
}

}  // namespace tb
