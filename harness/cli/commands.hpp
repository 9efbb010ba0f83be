// The subcommands of `tribench`. Each returns the process exit status:
// 0 success, 1 a benchmark failed (validation or error), 2 bad usage or input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tb {

struct ListOptions {
    bool json = false;
};
int cmd_list(const ListOptions& o);

struct RunOptions {
    std::vector<std::string> programs, datasets, backends, devices, variants, launches;
    std::vector<std::string> matrix_files;
    std::string math = "default";
    std::uint64_t seed = 42;
    std::string out;
    std::string save_outputs;
    double min_time_s = 0.25;
    double max_noise = 0.005;
    double timeout_s = 5.0;
    std::size_t min_samples = 10;
    std::size_t max_samples = 2000;
    bool min_time_from_flags = false;
    bool no_calibrate = false;
    bool l2_flush = false;
    bool keep_going = false;
    bool no_cache = false;
    bool all_datasets = false;
    bool small_only = false;
    std::string timing = "gated";   // gated | plain (docs/measurement.md)
    bool no_batch = false;          // skip batch timing
    bool no_scatter = false;        // no placement scatter before gated samples
    double budget_s = 240;          // plan sampling to end within this many seconds (0: none); docs/measurement.md
    std::string profile;            // a named profile (harness/profiles.hpp), applied by apply_profile
    // Scale-out (docs/scale-out.md).
    std::string shard;               // "K/N": run part K of N of the selection
    std::string cost_from;           // balance the shards by this results file's times
    bool dry_run = false;            // print the selection (and split) with estimates; run nothing
    bool validate_only = false;      // set up, run once and validate each benchmark; time nothing
    bool progress = false;           // progress lines on stderr even when it is not a terminal
    bool parallel_devices = false;   // one shard per GPU, each in its own process, then merge
    bool pin_cpus = false;           // --parallel-devices: each shard on its own share of the CPUs
    std::size_t repeat = 1;         // run the whole selection this many times in one process (soak tests)
    std::string tuning;              // --tuning FILE|none; empty: the default tuning file if it exists (docs/tuning.md)
    std::string tuning_backend;      // --tuning-backend B: every backend runs the configuration tuned for B
    std::string tuning_device;       // --tuning-device NAME: the configurations tuned on another device
    // A run that loses nothing (docs/robustness.md): --resume FILE carries on a run that was
    // cut short, from FILE's journal; --resume-anyway even if the command line differs.
    std::string resume;
    bool resume_anyway = false;
    double kernel_timeout_s = 300;  // a device step longer than this is a hung kernel (0: none)
    double heartbeat_s = 30;        // a progress line this often when stderr is not a terminal (0: none)
    std::vector<std::string> argv;   // for the results' environment
};
int cmd_run(const RunOptions& o);
// Fills o from the profile o.profile names; `given(flag)` says whether the user set an
// option on the command line, which then wins over the profile. Throws tb::Error on an
// unknown profile or on --dataset given with a profile.
void apply_profile(RunOptions& o, const std::function<bool(const std::string&)>& given);
// `run --parallel-devices` (parallel_devices.cpp).
int run_parallel_devices(const RunOptions& o);

// `tribench tune` (docs/tuning.md): searches each selected program's tuning space per device,
// backend and dataset and writes the best configurations to a tuning file. Exit 0 when every
// key found one, 1 when some found none that validated, 2 for bad input, 128 + N on signal N.
struct TuneOptions {
    RunOptions run;                     // the selection and the sampling of each configuration
    std::string out;                    // the tuning file (default: default_tuning_path())
    double budget_s = 0;                // sampled spaces: seconds for the whole search (0: none)
    std::size_t exhaustive_limit = 64;  // spaces with at most this many allowed points: all tried
    std::size_t max_points = 32;        // larger spaces: at most this many configurations per key
    std::uint64_t search_seed = 1;      // of the random sampling
};
int cmd_tune(const TuneOptions& o);

// `tribench merge FILES... -o OUT` (docs/scale-out.md): exit 0 merged, 2 refused or bad input.
struct MergeCmdOptions {
    std::vector<std::string> files;
    std::string out;
    bool force = false;  // every flag below
    bool ignore_commit = false, ignore_math = false, ignore_options = false, ignore_devices = false,
         ignore_selection = false, allow_missing = false, allow_duplicates = false;
};
int cmd_merge(const MergeCmdOptions& o);

struct PtxOptions {
    std::vector<std::string> programs, backends;
    std::string arch;  // empty: the CUDA device's, else sm_90
    std::string math = "default";
    std::string out = "ptx";
};
int cmd_ptx(const PtxOptions& o);

// Shared by `ptx` and `ptxdiff` (cmd_ptx.cpp). The GPU's architecture, else sm_90:
std::string default_ptx_arch();
// Throws tb::Error (a usage error) unless arch is sm_XX or compute_XX with XX a compute
// capability NVRTC supports (only the form is checked where NVRTC cannot be loaded).
void check_ptx_arch(const std::string& arch);
// One program's PTX for one backend; throws tb::Error (unknown names, compile errors, or no
// NVIDIA OpenCL platform for opencl).
std::string program_ptx(const std::string& program, const std::string& backend, const std::string& math,
                        const std::string& arch);
// The first NVIDIA OpenCL device, opened once per process; throws tb::Error saying why
// there is none (only NVIDIA's platform yields PTX).
class Device;
Device& nvidia_opencl_device();

// `tribench ptxdiff --program P A B` (docs/ptx-tools.md): A and B are a backend id,
// BACKEND:MATH, or DIR:BACKEND (a folder written by `tribench ptx`). Exit 0 when compared
// (differences are not errors), 1 when a program could not be compiled, 2 for bad input.
struct PtxDiffOptions {
    std::string program;                // a program name, or "all"
    std::vector<std::string> operands;  // A B
    std::string arch;                   // target of compiled operands (default as for `ptx`)
    std::string math = "default";       // math mode of backend operands without :MATH
    std::size_t top = 10;               // rows of each histogram table
    bool full = false;                  // print the normalized diff
    std::string out;                    // write the normalized diff to this file
};
int cmd_ptxdiff(const PtxDiffOptions& o);

// `tribench compare OLD.json NEW.json` and `tribench compare --backends RESULTS.json`
// (docs/compare.md). Exit 1 when a significant regression exceeds the threshold or a
// benchmark ok in OLD fails in NEW; 2 for bad input.
struct CompareCmdOptions {
    std::string metric = "samples";  // samples | batch (harness/metric.hpp)
    std::vector<std::string> files;
    bool backends = false;               // one run's backend speedup matrix
    std::string best;                    // --backends: the each-at-its-own-best run (docs/tuning.md)
    std::string baseline = "cuda-native";
    double alpha = 0.05;
    double threshold_pct = 5;
    double min_change_pct = 1;
    bool force = false;                  // compare results from different devices
    bool markdown = false, json = false;
    std::string color = "auto";          // auto, always, never
    std::string out;                     // write here (atomically) instead of stdout
    std::string noise;                   // per-benchmark thresholds from this noise model (docs/history.md)
    std::string junit;                   // also write JUnit XML here
    std::size_t markdown_limit = 60000;  // --markdown: at most this many bytes (a GitHub comment takes 65536)
};
int cmd_compare(const CompareCmdOptions& o);

// `tribench history FILES...|DIR --out DIR` (docs/history.md): runs in commit order, trend
// plots, HISTORY.md and the steps found. Exit 1 when a benchmark's newest step is a
// regression or a benchmark that validated before fails in its newest run; 2 for bad input.
struct HistoryCmdOptions {
    std::vector<std::string> inputs;  // results files and folders
    std::string out;
    double alpha = 0.05;
    double threshold_pct = 5;         // where the noise model has no entry
    std::size_t permutations = 999;
    std::size_t min_runs = 2;
    std::string noise;                // read per-benchmark thresholds from this file
    std::string learn_noise;          // write the noise model learned from this history here
    double noise_z = 3;
    std::string git;                  // repository for commit times (default: the current folder's)
    bool no_git = false;
    bool no_plots = false;
};
int cmd_history(const HistoryCmdOptions& o);

// `tribench report RESULTS.json... --out DIR`: REPORT.md and PNG plots (scripts/report.py).
struct ReportCmdOptions {
    std::string metric = "samples";  // samples | batch (harness/metric.hpp)
    std::vector<std::string> files;
    std::string out;
    std::vector<std::string> best;  // runs of each backend's own tuned configuration (docs/tuning.md)
    std::string baseline = "cuda-native";
    double alpha = 0.05;
    double peak_gbps = 0, peak_gflops = 0;  // roofline ceilings where no calibration ran
    bool no_plots = false;
};
int cmd_report(const ReportCmdOptions& o);

// `tribench export --futhark RESULTS.json OUT.json`: the layout of `futhark bench --json`;
// `--github-benchmark`: github-action-benchmark's customSmallerIsBetter JSON.
struct ExportCmdOptions {
    bool futhark = false;
    bool github_benchmark = false;  // github-action-benchmark's customSmallerIsBetter (docs/compare.md)
    std::string input, output;
    std::string backend;  // only this backend, keyed without it
};
int cmd_export(const ExportCmdOptions& o);

}  // namespace tb
