#include "device.hpp"

#include <cstdio>
#include <mutex>
#include <set>

namespace tb {

void note_given_ptx(const std::string& given_ptx_file, const std::string& source_file, const std::string& compiler) {
    static std::mutex m;
    static std::set<std::string> told;
    const std::lock_guard<std::mutex> lock(m);
    if (told.insert(given_ptx_file).second)
        std::fprintf(stderr, "tribench: note: %s replaces the PTX compiled from %s (%s not run)\n",
                     given_ptx_file.c_str(), source_file.c_str(), compiler.c_str());
}

const char* to_string(MathMode m) {
    switch (m) {
        case MathMode::Default: return "default";
        case MathMode::Precise: return "precise";
        case MathMode::Fast: return "fast";
    }
    return "?";
}

MathMode math_mode_from_string(const std::string& s) {
    if (s == "default") return MathMode::Default;
    if (s == "precise") return MathMode::Precise;
    if (s == "fast") return MathMode::Fast;
    throw Error("unknown math mode '" + s + "' (known: default, precise, fast)");
}

const char* to_string(TimingMode m) { return m == TimingMode::Gated ? "gated" : "plain"; }

TimingMode timing_mode_from_string(const std::string& s) {
    if (s == "gated") return TimingMode::Gated;
    if (s == "plain") return TimingMode::Plain;
    throw Error("unknown timing mode '" + s + "' (known: gated, plain)");
}

std::unique_ptr<Graph> Device::capture(const std::function<void()>&) {
    throw Error(info().backend + ": graph launch is not supported by this backend");
}

}  // namespace tb
