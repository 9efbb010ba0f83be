// Shared by the fuzz targets: what counts as a finding. Each reader promises to reject bad
// input with one tb::Error; anything else escaping it (a JSON library exception, a standard
// library exception, a broken invariant) is a bug, reported by abort() so libFuzzer saves
// the input. Sanitizer reports (ASan, UBSan) abort on their own.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "device.hpp"

namespace tb::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
    std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

inline void check(bool ok, const std::string& what) {
    if (!ok) finding("invariant broken: " + what);
}

// Runs f; returns true if it completed, false if it threw tb::Error (the documented way to
// reject input). Any other exception is a finding.
template <class F>
bool accepts(const char* who, F&& f) {
    try {
        f();
        return true;
    } catch (const tb::Error& e) {
        const std::string msg = e.what();
        if (msg.find("internal error") != std::string::npos) finding(std::string(who) + ": " + msg);
        return false;
    } catch (const std::exception& e) {
        finding(std::string(who) + " threw a non-tb::Error exception: " + e.what());
    } catch (...) {
        finding(std::string(who) + " threw a non-standard exception");
    }
}

}  // namespace tb::fuzz
