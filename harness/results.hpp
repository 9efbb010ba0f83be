// The results file: one run's environment and every benchmark's samples, validation and
// derived numbers. Schema documented in docs/results-json.md; bump kResultsVersion on any
// incompatible change.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "program.hpp"
#include "stats.hpp"

namespace tb {

inline constexpr int kResultsVersion = 1;
inline constexpr const char* kResultsSchema = "tribench-results";

enum class Status { Ok, ValidationFailed, Error, Skipped };
const char* to_string(Status s);
Status status_from_string(const std::string& s);

struct Throughput {
    double gbps = 0;          // work.bytes / median time
    double gflops = 0;        // work.flops / median time
    double items_per_s = 0;   // work.items / median time
    double bw_fraction = 0;   // gbps / calibrated copy bandwidth (0 if not calibrated)
    double flop_fraction = 0; // gflops / calibrated FP32 peak (0 if not calibrated)
};

struct BenchmarkResult {
    std::string name;  // program/dataset/backend[/variant][/launch]
    std::string program, dataset, variant, backend, launch, device, math;
    std::string picked;  // the variant a self-choosing variant ran (spmv's auto); empty otherwise
    Status status = Status::Error;
    std::string error;  // why status is not Ok
    Validation validation;
    double compile_ms = 0;         // the compile that produced the module used
    bool compile_cached = false;   // ... came from the on-disk kernel cache
    double compile_cold_ms = 0;    // a compile bypassing tribench's kernel cache (0: not measured)
    double compile_cached_ms = 0;  // a compile served by the cache (0: not measured)
    bool noisy = false;            // sampling stopped before the noise target was met
    double graph_capture_ms = 0;
    double upload_ms = 0;    // host-to-device transfer of the inputs
    double download_ms = 0;  // device-to-host transfer of the outputs
    std::vector<double> samples_ms;
    Summary summary;
    WorkModel work;
    Throughput throughput;
    std::map<std::string, std::string> ptx_hash;  // kernel name -> FNV-1a 64 of its PTX
};

struct DeviceRecord {
    std::string id;  // "<backend>:<index>"
    DeviceInfo info;
};

struct Results {
    nlohmann::json environment;  // host, tribench version, options (see docs)
    std::vector<DeviceRecord> devices;
    std::vector<BenchmarkResult> benchmarks;
    nlohmann::json calibration = nlohmann::json::object();  // device id -> {copy_gbps, fp32_gflops}
};

nlohmann::json to_json(const Results& r);
// Throws tb::Error naming the problem ("not a tribench results file", "results version 7
// is not supported (this tribench reads 1)", "benchmarks[3]: missing field 'name'").
Results results_from_json(const nlohmann::json& j);
Results load_results(const std::string& path);
void save_results(const std::string& path, const Results& r);

}  // namespace tb
