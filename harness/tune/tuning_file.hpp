// The tuning file: the best configuration `tribench tune` found per device, driver, backend,
// program and dataset, read by `tribench run` (docs/tuning.md, "The tuning file").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuning_space.hpp"

namespace tb {

inline constexpr const char* kTuningSchema = "tribench-tuning";
inline constexpr int kTuningVersion = 1;

// What a tuned configuration is for. A driver update changes code generation, so it is
// part of the key: a file tuned under another driver is another device's.
struct TuningKey {
    std::string device, driver, backend, program, dataset;
    bool operator==(const TuningKey&) const = default;
    bool same_device(const TuningKey& o) const { return device == o.device && driver == o.driver; }
};
TuningKey tuning_key(const DeviceInfo& dev, const std::string& backend, const std::string& program,
                     const std::string& dataset);
// "mandelbrot/128x128/opencl on <device> (driver <driver>)"
std::string describe(const TuningKey& k);

struct TuningEntry {
    TuningKey key;
    TuningConfig config;
    double median_ms = 0;          // the key's benchmarks' medians, summed, under config
    double default_median_ms = 0;  // the same under the device default (0: it did not validate)
    std::size_t tried = 0;         // configurations compiled, validated and timed
    std::size_t failed = 0;        // ... of which failed to compile or validate
    std::size_t refused = 0;       // configurations the space's constraints refused on the device
    std::string strategy;          // "exhaustive" or "random (seed S, N of M)"
    std::string tuned_utc;         // when it was tuned, ISO 8601
};

struct TuningFile {
    std::vector<TuningEntry> entries;
    const TuningEntry* find(const TuningKey& k) const;
    void put(const TuningEntry& e);  // replaces the entry of the same key
};

nlohmann::json to_json(const TuningFile& f);
// Throws tb::Error naming the first problem ("not a tribench tuning file", "tuning file
// version 7 is not supported (this tribench reads 1)", "entries[2]: missing field 'program'").
TuningFile tuning_file_from_json(const nlohmann::json& j);
// As above, the message prefixed with the path; a file that is not JSON is refused too.
TuningFile load_tuning_file(const std::string& path);
// Writes atomically (support/atomic_file.hpp), creating the folder if needed.
void save_tuning_file(const std::string& path, const TuningFile& f);

// Where `run` and `tune` look when no file is named: $XDG_CACHE_HOME/tribench/tuning.json,
// else $HOME/.cache/tribench/tuning.json; "" when neither variable is set.
std::string default_tuning_path();

}  // namespace tb
