#include "ptx/sass_listing.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

namespace tb::ptx {

std::map<std::string, std::vector<std::string>> sass_functions(const std::string& text) {
    static const std::regex function_line(R"(^\s*Function\s*:\s*(\S+)\s*$)");
    // "/*0090*/   IMAD.WIDE R8, R13, 0x4, R2 ;   /* 0x000000040d087825 */"
    static const std::regex instruction_line(R"(^\s*/\*[0-9a-fA-F]+\*/\s+([^;]*\S)\s*;)");
    std::map<std::string, std::vector<std::string>> out;
    std::vector<std::string>* current = nullptr;
    std::istringstream in(text);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_match(line, m, function_line)) {
            current = &out[m[1].str()];
            current->clear();  // a name printed twice (two modules): the last listing
        } else if (current && std::regex_search(line, m, instruction_line)) {
            std::string ins;
            bool space = false;
            for (char c : m[1].str()) {  // runs of blanks become one space
                const bool blank = c == ' ' || c == '\t';
                if (blank) {
                    space = !ins.empty();
                    continue;
                }
                if (space) ins += ' ';
                space = false;
                ins += c;
            }
            current->push_back(ins);
        }
    }
    return out;
}

std::map<std::string, int> sass_opcode_counts(const std::vector<std::string>& listing) {
    std::map<std::string, int> counts;
    for (const auto& ins : listing) {
        std::istringstream words(ins);
        std::string op;
        words >> op;
        if (!op.empty() && op[0] == '@') words >> op;  // the predicate guards the next word
        op = op.substr(0, op.find('.'));
        if (!op.empty()) ++counts[op];
    }
    return counts;
}

std::size_t common_order(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    // Two rows of the classic table: O(|a| |b|) time, O(|b|) memory (a few thousand squared
    // for the largest kernels here).
    std::vector<std::size_t> prev(b.size() + 1, 0), row(b.size() + 1, 0);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j)
            row[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], row[j - 1]);
        std::swap(prev, row);
    }
    return prev[b.size()];
}

}  // namespace tb::ptx
