// Text taken from input (a file's bytes, a JSON string, a command-line word) made safe to
// echo inside a one-line error message: the message stays one line, prints nothing a
// terminal would act on, and stays short however long the input was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tb {

// How much of an echoed input value a message shows (paths are shown whole: see below).
inline constexpr std::size_t kEchoMaxBytes = 64;

namespace detail {

// Length of the valid UTF-8 sequence starting at s[i] (1..4), or 0 when the bytes there are
// not valid UTF-8 (stray continuation byte, overlong form, surrogate, beyond U+10FFFF, cut short).
inline std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80) return 1;
    std::size_t n;
    std::uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1fu;
    else if (c >= 0xe0 && c <= 0xef) n = 3, cp = c & 0x0fu;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, cp = c & 0x07u;
    else return 0;
    if (i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3fu);
    }
    const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (overlong || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
    return n;
}

inline void append_hex_escape(std::string& out, unsigned char c) {
    static const char digits[] = "0123456789abcdef";
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 15];
}

}  // namespace detail

// True when s is valid UTF-8 without control characters: what printable() returns.
inline bool is_printable(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = detail::utf8_length(s, i);
        if (n == 0 || c < 0x20 || c == 0x7f || (n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0))
            return false;
        i += n;
    }
    return true;
}

// `s` with every byte a terminal could act on escaped as \xNN: C0 controls (newline and
// tab included), DEL, the C1 controls U+0080..U+009F, and bytes that are not valid UTF-8.
// A backslash becomes "\\", so an escape in the output always means an escaped byte.
// Printable UTF-8 passes unchanged. At most `max_bytes` of `s` are shown (never cutting a
// character in two), followed by "...(N more bytes)".
inline std::string printable(std::string_view s, std::size_t max_bytes = kEchoMaxBytes) {
    std::string out;
    out.reserve(s.size() < max_bytes ? s.size() : max_bytes);
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = detail::utf8_length(s, i);
        const std::size_t take = n ? n : 1;
        if (i + take > max_bytes) break;
        const bool c1_control = n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0;
        if (c == '\\') {
            out += "\\\\";
        } else if (n == 0 || c < 0x20 || c == 0x7f || c1_control) {
            for (std::size_t k = 0; k < take; ++k) detail::append_hex_escape(out, static_cast<unsigned char>(s[i + k]));
        } else {
            out.append(s.substr(i, n));
        }
        i += take;
    }
    if (i < s.size()) out += "...(" + std::to_string(s.size() - i) + " more bytes)";
    return out;
}

// A file path in a message: escaped like any input, but never shortened (the user must be
// able to tell which file is meant).
inline std::string printable_path(std::string_view path) { return printable(path, std::string_view::npos); }

}  // namespace tb
