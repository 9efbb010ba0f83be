// The noise model: per benchmark and device, how much a run's median moves from one run to
// the next when nothing changed, and the slowdown threshold that follows from it. Learned
// by `tribench history --learn-noise FILE` from repeated runs of one commit (A/A pairs) and
// from consecutive runs with no step between them; read by `compare --noise FILE` and
// `history --noise FILE` in place of the one global --threshold. File format: schema
// "tribench-noise", docs/history.md.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

inline constexpr const char* kNoiseSchema = "tribench-noise";
inline constexpr int kNoiseVersion = 1;

struct NoiseEntry {
    double sigma = 0;          // run-to-run standard deviation of ln(median): ~ relative spread
    std::size_t pairs = 0;     // consecutive-run pairs it was learned from
    double threshold_pct = 0;  // slowdown beyond noise: max(floor, 100 (exp(z sqrt2 sigma) - 1))
};

struct NoiseModel {
    double z = 3;           // standard deviations of a two-run difference that count as beyond noise
    double floor_pct = 1;   // no threshold below this (tribench compare's --min-change default)
    std::size_t min_pairs = 3;
    std::string created_utc;
    std::string source;     // what it was learned from, for people
    // device name -> benchmark name -> entry
    std::map<std::string, std::map<std::string, NoiseEntry>> devices;

    const NoiseEntry* find(const std::string& device, const std::string& benchmark) const;
    std::size_t size() const;
};

// The threshold that a spread implies: a change between two runs larger than z standard
// deviations of their difference (sqrt 2 sigma), as a percentage slowdown, at least floor_pct.
double noise_threshold_pct(double sigma, double z, double floor_pct);

// Robust sigma from run-to-run log ratios: the mean of the smallest 80% of |r| (the largest
// fifth dropped: an outlying run, a change too small to be found), scaled so that normal
// noise of standard deviation sigma gives sigma back (ratios of two runs: sqrt 2 sigma).
// Scatters less than the median of |r| on the few dozen pairs a history has.
double sigma_from_log_ratios(std::vector<double> log_ratios);

struct NoiseLearnOptions {
    double z = 3;
    double floor_pct = 1;
    std::size_t min_pairs = 3;  // benchmarks with fewer pairs are left out (the global threshold applies)
    std::string created_utc;
    std::string source;
};
// (device, benchmark) -> ln(median[i+1] / median[i]) of consecutive runs without a step between.
using NoisePairs = std::map<std::pair<std::string, std::string>, std::vector<double>>;
NoiseModel learn_noise_model(const NoisePairs& pairs, const NoiseLearnOptions& o);

nlohmann::ordered_json to_json(const NoiseModel& m);
// Throws tb::Error naming the problem ("not a tribench noise file", "noise version 9 is not
// supported", "devices.X.Y: threshold_pct must be a positive number").
NoiseModel noise_model_from_json(const nlohmann::json& j);
NoiseModel load_noise_model(const std::string& path);
void save_noise_model(const std::string& path, const NoiseModel& m);

}  // namespace tb
