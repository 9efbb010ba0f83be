// FNV-1a 64: the one fingerprint used for kernel-cache keys and per-kernel PTX hashes. Not
// cryptographic; callers that must rule out collisions compare the full text as well.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace tb {

inline std::uint64_t fnv1a64(std::string_view text) {
    std::uint64_t h = 0xcbf29ce484222325ull;  // FNV offset basis
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ull;  // FNV prime
    }
    return h;
}

inline std::string hex64(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

inline std::string fnv1a64_hex(std::string_view text) { return hex64(fnv1a64(text)); }

}  // namespace tb
