#include "compare/noise_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "support/atomic_file.hpp"
#include "read_file.hpp"
#include "device.hpp"

namespace tb {

using ojson = nlohmann::ordered_json;

namespace {

// Mean of |N(0, 1)| over its smallest 80%: sqrt(2/pi) (1 - exp(-q^2/2)) / 0.8, q = 1.28155
// (the 90% quantile of N(0, 1), i.e. the 80% quantile of |N(0, 1)|).
constexpr double kTrimmedMeanAbsNormal = 0.5586098711723646;
constexpr double kKeptFraction = 0.8;

bool positive_number(const nlohmann::json& j) { return j.is_number() && std::isfinite(j.get<double>()) && j.get<double>() > 0; }

double number_field(const nlohmann::json& j, const char* key, const std::string& where, double fallback, bool positive) {
    if (!j.contains(key)) return fallback;
    const nlohmann::json& v = j.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || (positive && v.get<double>() == 0))
        throw Error(where + ": " + key + " must be a " + (positive ? "positive" : "non-negative") + " number");
    return v.get<double>();
}

// An optional count: a non-negative integer (a float would be an undefined conversion when
// it is out of range).
std::size_t count_field(const nlohmann::json& j, const char* key, const std::string& where, std::size_t fallback) {
    if (!j.contains(key)) return fallback;
    const nlohmann::json& v = j.at(key);
    const bool whole = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
    if (!whole || v.get<std::uint64_t>() > std::numeric_limits<std::size_t>::max())
        throw Error(where + ": " + key + " must be a non-negative integer");
    return std::size_t(v.get<std::uint64_t>());
}

}  // namespace

const NoiseEntry* NoiseModel::find(const std::string& device, const std::string& benchmark) const {
    const auto d = devices.find(device);
    if (d == devices.end()) return nullptr;
    const auto b = d->second.find(benchmark);
    return b == d->second.end() ? nullptr : &b->second;
}

std::size_t NoiseModel::size() const {
    std::size_t n = 0;
    for (const auto& [_, m] : devices) n += m.size();
    return n;
}

double noise_threshold_pct(double sigma, double z, double floor_pct) {
    return std::max(floor_pct, 100 * (std::exp(z * std::sqrt(2.0) * sigma) - 1));
}

double sigma_from_log_ratios(std::vector<double> r) {
    if (r.empty()) return 0;
    for (double& x : r) x = std::abs(x);
    std::sort(r.begin(), r.end());
    const std::size_t keep = std::max<std::size_t>(1, std::size_t(std::ceil(kKeptFraction * double(r.size()))));
    double sum = 0;
    for (std::size_t i = 0; i < keep; ++i) sum += r[i];
    return sum / double(keep) / (kTrimmedMeanAbsNormal * std::sqrt(2.0));
}

NoiseModel learn_noise_model(const NoisePairs& pairs, const NoiseLearnOptions& o) {
    NoiseModel m;
    m.z = o.z;
    m.floor_pct = o.floor_pct;
    m.min_pairs = o.min_pairs;
    m.created_utc = o.created_utc;
    m.source = o.source;
    for (const auto& [key, ratios] : pairs) {
        if (ratios.size() < std::max<std::size_t>(o.min_pairs, 1)) continue;
        NoiseEntry e;
        e.sigma = sigma_from_log_ratios(ratios);
        e.pairs = ratios.size();
        e.threshold_pct = noise_threshold_pct(e.sigma, o.z, o.floor_pct);
        m.devices[key.first][key.second] = e;
    }
    return m;
}

ojson to_json(const NoiseModel& m) {
    ojson j = {{"schema", kNoiseSchema},
               {"version", kNoiseVersion},
               {"created_utc", m.created_utc},
               {"source", m.source},
               {"method", "sigma = mean of the smallest 80% of |ln(median[i+1] / median[i])| / (0.5586 sqrt 2) "
                          "over consecutive runs with no change point between them; threshold_pct = max(floor_pct, "
                          "100 (exp(z sqrt 2 sigma) - 1))"},
               {"z", m.z},
               {"floor_pct", m.floor_pct},
               {"min_pairs", m.min_pairs},
               {"devices", ojson::object()}};
    for (const auto& [device, entries] : m.devices) {
        ojson d = ojson::object();
        for (const auto& [name, e] : entries) {
            // Rounded so that the file stays small and diffs of a re-learned model stay readable.
            auto round_to = [](double v, double per_unit) { return std::round(v * per_unit) / per_unit; };
            d[name] = {{"sigma", round_to(e.sigma, 1e6)}, {"pairs", e.pairs}, {"threshold_pct", round_to(e.threshold_pct, 1e3)}};
        }
        j["devices"][device] = d;
    }
    return j;
}

NoiseModel noise_model_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string() || j["schema"].get<std::string>() != kNoiseSchema)
        throw Error(std::string("not a tribench noise file (no \"schema\": \"") + kNoiseSchema + "\")");
    if (!j.contains("version") || !j["version"].is_number_integer()) throw Error("noise file has no integer \"version\"");
    const std::int64_t v = j["version"].get<std::int64_t>();  // compared whole: an int would wrap
    if (v != kNoiseVersion)
        throw Error("noise version " + std::to_string(v) + " is not supported (this tribench reads " +
                    std::to_string(kNoiseVersion) + ")");
    NoiseModel m;
    m.z = number_field(j, "z", "noise file", m.z, true);
    m.floor_pct = number_field(j, "floor_pct", "noise file", m.floor_pct, false);
    m.min_pairs = count_field(j, "min_pairs", "noise file", m.min_pairs);
    if (j.contains("created_utc") && j["created_utc"].is_string()) m.created_utc = j["created_utc"].get<std::string>();
    if (j.contains("source") && j["source"].is_string()) m.source = j["source"].get<std::string>();
    if (!j.contains("devices") || !j["devices"].is_object()) throw Error("noise file has no \"devices\" object");
    for (const auto& [device, entries] : j["devices"].items()) {
        if (!entries.is_object()) throw Error("devices." + device + " is not an object");
        for (const auto& [name, e] : entries.items()) {
            const std::string where = "devices." + device + "." + name;
            if (!e.is_object()) throw Error(where + " is not an object");
            if (!e.contains("threshold_pct") || !positive_number(e["threshold_pct"]))
                throw Error(where + ": threshold_pct must be a positive number");
            NoiseEntry ne;
            ne.threshold_pct = e["threshold_pct"].get<double>();
            ne.sigma = number_field(e, "sigma", where, 0, false);
            ne.pairs = count_field(e, "pairs", where, 0);
            m.devices[device][name] = ne;
        }
    }
    return m;
}

NoiseModel load_noise_model(const std::string& path) {
    const std::string text = read_file(path);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
        throw Error(path + ": malformed JSON");
    }
    try {
        return noise_model_from_json(j);
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
}

void save_noise_model(const std::string& path, const NoiseModel& m) { write_file_atomically(path, to_json(m).dump(1) + "\n"); }

}  // namespace tb
