#include "report/text_format.hpp"

#include <cstdio>
#include <string_view>
#include <vector>

namespace tb {

std::string format_number(const char* printf_format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, printf_format, v);
    return buf;
}

std::string format_ms(double ms) {
    if (ms >= 1000) return format_number("%.0f", ms);
    if (ms >= 100) return format_number("%.1f", ms);
    if (ms >= 10) return format_number("%.2f", ms);
    if (ms >= 1) return format_number("%.3f", ms);
    return format_number("%#.3g", ms);  // keeps trailing zeros: 0.300, 0.0420
}

std::string format_p(double p) { return p < 0.001 ? "<0.001" : format_number("%.3f", p); }

std::string format_speedup(double s) { return format_number(s >= 100 ? "%.0fx" : "%.2fx", s); }

std::string markdown_escape(const std::string& s) {
    std::string out;
    for (char ch : s) {
        if (std::string_view("|*_`<>~[]").find(ch) != std::string_view::npos) out += '\\';
        out += ch == '\n' ? ' ' : ch;
    }
    return out;
}

std::string describe_run(const Results& r, const std::string& path) {
    std::string d = path;
    std::vector<std::string> parts;
    const nlohmann::json& env = r.environment;
    if (env.is_object()) {
        if (env.contains("tribench_version") && env["tribench_version"].is_string())
            parts.push_back("tribench " + env["tribench_version"].get<std::string>() +
                            (env.contains("tribench_commit") && env["tribench_commit"].is_string()
                                 ? " " + env["tribench_commit"].get<std::string>()
                                 : ""));
        if (env.contains("created_utc") && env["created_utc"].is_string()) parts.push_back(env["created_utc"].get<std::string>());
    }
    for (std::size_t i = 0; i < parts.size(); ++i) d += (i == 0 ? " (" : ", ") + parts[i];
    return parts.empty() ? d : d + ")";
}

}  // namespace tb
