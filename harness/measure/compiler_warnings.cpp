#include "measure/compiler_warnings.hpp"

#include <map>
#include <ostream>
#include <regex>
#include <sstream>

namespace tb {

std::vector<CompilerWarning> distinct_warnings(const std::string& log) {
    // "warning:" as clang and PoCL write it, "warning #177-D:" as NVRTC does, "warning :" as
    // ptxas does; not "<warning-number>" or "warnings" in a remark.
    static const std::regex word(R"(\bwarning( #[0-9A-Za-z-]+)? ?:)", std::regex::icase);
    std::vector<CompilerWarning> out;
    std::map<std::string, std::size_t> index;
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!std::regex_search(line, word)) continue;
        const auto [it, fresh] = index.emplace(line, out.size());
        if (fresh) out.push_back({line, 0});
        ++out[it->second].count;
    }
    return out;
}

void print_compiler_warnings(std::ostream& os, const std::string& where, const std::string& log, std::size_t most) {
    const std::vector<CompilerWarning> warnings = distinct_warnings(log);
    if (warnings.empty()) return;
    int total = 0;
    for (const auto& w : warnings) total += w.count;
    os << "tribench: " << where << ": " << total << " compiler warning" << (total == 1 ? "" : "s");
    if (warnings.size() != std::size_t(total)) os << ", " << warnings.size() << " distinct";
    os << ":\n";
    for (std::size_t i = 0; i < warnings.size() && i < most; ++i) {
        os << "  " << warnings[i].text;
        if (warnings[i].count > 1) os << " (x" << warnings[i].count << ")";
        os << "\n";
    }
    if (warnings.size() > most) os << "  and " << warnings.size() - most << " more\n";
}

}  // namespace tb
