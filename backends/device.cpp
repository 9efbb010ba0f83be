#include "device.hpp"

namespace tb {

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
