// The results file: one run's environment and every benchmark's samples, validation and
// derived numbers. Schema documented in docs/results-json.md; bump kResultsVersion on any
// incompatible change.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "program.hpp"
#include "stats/stats.hpp"

namespace tb {

inline constexpr int kResultsVersion = 1;
inline constexpr const char* kResultsSchema = "tribench-results";
// The pseudo-backend id of vendor-library rows (cuFFT, cuSPARSE); accepted by `run --backend`.
inline constexpr const char* kVendorId = "vendor";

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

// The SM clock seen while a benchmark was sampled (NVML; all zero when unknown).
struct ClockRecord {
    int sm_mhz_min = 0, sm_mhz_max = 0;  // over the readings taken after each sample
    int max_sm_mhz = 0;                  // the GPU's highest SM clock
    std::vector<std::string> reasons;    // union of the clock-event reasons seen ("sw_power_cap", ...)
    bool known() const { return max_sm_mhz > 0; }
};

struct BenchmarkResult {
    std::string name;  // program/dataset/backend[/variant][/launch]
    std::string program, dataset, variant, backend, launch, device, math;
    std::string picked;  // the variant a self-choosing variant ran (spmv's auto); empty otherwise
    // The tuning configuration the kernels ran with and where it came from: "tuned" (a tuning
    // file) or "device-default" (docs/tuning.md). Empty for vendor rows and older files.
    TuningConfig config;
    std::string config_source;
    double pick_cost_ms = 0;  // wall time of a choice made by timing candidates (spmv's auto); 0: none
    std::map<std::string, double> pick_candidates_ms;  // each candidate's time per run, ms, as that choice measured it
    Status status = Status::Error;
    std::string error;  // why status is not Ok
    Validation validation;
    double compile_ms = 0;         // the compile that produced the module used
    bool compile_cached = false;   // ... came from the on-disk kernel cache
    double compile_cold_ms = 0;    // a compile bypassing tribench's kernel cache (0: not measured)
    double compile_cached_ms = 0;  // a compile served by the cache (0: not measured)
    bool noisy = false;            // sampling stopped before the noise target was met
    std::string timing = "plain";  // how samples were bracketed: "gated" or "plain"
    std::string timing_note;       // why gated timing fell back to plain for this benchmark
    std::string timing_clock = "events";  // "events" or "cupti" (Device::timing_clock)
    double batch_ms = 0;           // batch timing: one run's share of back-to-back runs (0: not measured)
    std::int64_t batch_runs = 0;   // runs per batch
    std::vector<double> batch_samples_ms;  // one run's share in each batch; batch_ms is their median
    ClockRecord clock;
    bool throttled = false;        // the SM clock dropped below 75% of its maximum, or a slowdown reason
    bool budget_cut = false;       // --budget ended sampling before the stopping rule was met
    double graph_capture_ms = 0;
    std::int64_t launches = 0;  // launches one run makes (a graph replay counts one); 0: not counted
    double upload_ms = 0;    // host-to-device transfer of the inputs
    double download_ms = 0;  // device-to-host transfer of the outputs
    std::vector<double> samples_ms;
    Summary summary;
    WorkModel work;
    Throughput throughput;
    std::map<std::string, std::string> ptx_hash;  // kernel name -> FNV-1a 64 of its PTX
    double wall_ms = 0;    // host wall time of inputs, validation and timing (0: not measured)
    int merged_from = -1;  // merged files: index into Results::merged_from of its shard
};

struct DeviceRecord {
    std::string id;  // "<backend>:<index>"
    DeviceInfo info;
};

// Which part of the selection a sharded run measured (docs/scale-out.md).
struct ShardRecord {
    int index = 0, count = 0;     // shard K of N, 1-based; count 0: not sharded
    std::string plan;             // digest of the whole split, equal in every shard of one split
    std::string cost_source;      // "model" or "results <file name>" (--cost-from)
    double estimated_s = 0;       // the split's cost estimate of this shard
    std::string visible_devices;  // CUDA_VISIBLE_DEVICES as the shard saw it (empty: unset)
    std::string batch_job;        // Slurm job (ARRAYJOB_TASK or JOB), empty outside Slurm
};

struct Results {
    nlohmann::json environment;  // host, tribench version, options (see docs)
    std::vector<DeviceRecord> devices;
    std::vector<BenchmarkResult> benchmarks;
    nlohmann::json calibration = nlohmann::json::object();  // device id -> {copy_gbps, fp32_gflops}
    std::vector<std::string> selection;  // every benchmark the options selected, over all shards
    ShardRecord shard;
    nlohmann::json merged_from = nlohmann::json::array();  // `tribench merge`: one entry per input file
    std::vector<std::string> missing;    // `tribench merge --allow-missing`: selected but in no input
};

nlohmann::json shard_json(const ShardRecord& s);

nlohmann::json to_json(const Results& r);
// Throws tb::Error naming the problem ("not a tribench results file", "results version 7
// is not supported (this tribench reads 1)", "benchmarks[3]: missing field 'name'").
Results results_from_json(const nlohmann::json& j);
Results load_results(const std::string& path);
// The text of a results file: to_json(r) indented by one space, with a final newline.
std::string results_file_text(const Results& r);
// Writes results_file_text(r) to path atomically (support/atomic_file.hpp).
void save_results(const std::string& path, const Results& r);

}  // namespace tb
