#include "tuning_space.hpp"

#include <algorithm>
#include <cctype>

namespace tb {

std::string to_string(const TuningConfig& c) {
    std::string s;
    for (const auto& [name, value] : c) s += (s.empty() ? "" : ",") + name + "=" + std::to_string(value);
    return s;
}

TuningConfig parse_tuning_config(const std::string& text) {
    TuningConfig c;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t end = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, end - pos);
        pos = end + 1;
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0) throw Error("tuning configuration item '" + item + "' is not NAME=VALUE");
        const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
        std::size_t used = 0;
        std::int64_t v = 0;
        try {
            v = std::stoll(value, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (value.empty() || used != value.size())
            throw Error("tuning configuration item '" + item + "': '" + value + "' is not an integer");
        if (!c.emplace(name, v).second) throw Error("tuning configuration names '" + name + "' twice");
    }
    return c;
}

TuningSpace& TuningSpace::param(std::string name, std::vector<std::int64_t> values, std::string doc, bool nvrtc_only) {
    params_.push_back(TuningParam{std::move(name), std::move(values), std::move(doc), nvrtc_only});
    return *this;
}

TuningSpace& TuningSpace::require(std::string rule, std::function<bool(const TuningConfig&, const DeviceInfo&)> holds) {
    const std::string r = rule;
    return require_explained(std::move(rule), [r, holds](const TuningConfig& c, const DeviceInfo& d) {
        return holds(c, d) ? std::string() : r + " does not hold for " + to_string(c);
    });
}

TuningSpace& TuningSpace::require_explained(std::string rule,
                                            std::function<std::string(const TuningConfig&, const DeviceInfo&)> check) {
    constraints_.push_back(TuningConstraint{std::move(rule), std::move(check)});
    return *this;
}

const std::vector<std::int64_t>& TuningSpace::values(const std::string& name) const {
    for (const auto& p : params_)
        if (p.name == name) return p.values;
    throw Error("the tuning space has no parameter " + name);
}

std::string TuningSpace::refusal(const TuningConfig& c, const DeviceInfo& dev) const {
    for (const auto& p : params_) {
        auto it = c.find(p.name);
        if (it == c.end()) return "parameter " + p.name + " has no value";
        if (std::find(p.values.begin(), p.values.end(), it->second) == p.values.end()) {
            std::string allowed;
            for (auto v : p.values) allowed += (allowed.empty() ? "" : ", ") + std::to_string(v);
            return p.name + "=" + std::to_string(it->second) + " is not one of its values (" + allowed + ")";
        }
    }
    for (const auto& item : c) {
        const bool known =
            std::any_of(params_.begin(), params_.end(), [&](const TuningParam& p) { return p.name == item.first; });
        if (!known) return "unknown parameter " + item.first;
    }
    for (const auto& k : constraints_)
        if (std::string why = k.check(c, dev); !why.empty()) return why;
    return "";
}

std::uint64_t TuningSpace::grid_size() const {
    std::uint64_t n = 1;
    for (const auto& p : params_) n *= p.values.size();
    return n;
}

TuningConfig TuningSpace::point(std::uint64_t i) const {
    TuningConfig c;
    for (auto p = params_.rbegin(); p != params_.rend(); ++p) {
        c[p->name] = p->values[i % p->values.size()];
        i /= p->values.size();
    }
    return c;
}

std::int64_t largest_at_most(const std::vector<std::int64_t>& values, std::int64_t limit) {
    std::int64_t best = 0;
    bool found = false;
    for (auto v : values)
        if (v <= limit && (!found || v > best)) best = v, found = true;
    return found ? best : *std::min_element(values.begin(), values.end());
}

}  // namespace tb
