// CLI11 checks for unsigned integer options (--seed, --min-samples, ...). CLI11 2.1 converts
// with strtoull(text, nullptr, 0): "010" would be octal 8, "0x10" hexadecimal, "-5" would wrap
// to 2^64-5 and 99999999999999999999999 would become 2^64-1 without a word. This check runs
// on the text before the conversion: decimal digits only, no larger than `max`; leading
// zeros are dropped so that the conversion reads the number as decimal.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace tb {

inline CLI::Validator unsigned_integer(std::uint64_t min, std::uint64_t max) {
    const std::string range = std::to_string(min) + ".." + std::to_string(max);
    return CLI::Validator(
        [min, max, range](std::string& text) -> std::string {
            std::uint64_t v = 0;
            const char* end = text.data() + text.size();
            const auto r = std::from_chars(text.data(), end, v);
            const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
            if (!digits || r.ec != std::errc() || r.ptr != end || v < min || v > max)
                return "'" + text + "' is not a whole number in " + range;
            text = std::to_string(v);
            return "";
        },
        "UINT in " + range);
}

}  // namespace tb
