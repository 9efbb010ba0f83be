// The subcommands of `tribench`. Each returns the process exit status:
// 0 success, 1 a benchmark failed (validation or error), 2 bad usage or input.
#pragma once

#include <cstddef>
#include <cstdint>
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
    std::size_t repeat = 1;         // run the whole selection this many times in one process (soak tests)
    std::vector<std::string> argv;  // for the results' environment
};
int cmd_run(const RunOptions& o);

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
    std::vector<std::string> files;
    bool backends = false;               // one run's backend speedup matrix
    std::string baseline = "cuda-native";
    double alpha = 0.05;
    double threshold_pct = 5;
    double min_change_pct = 1;
    bool force = false;                  // compare results from different devices
    bool markdown = false, json = false;
    std::string color = "auto";          // auto, always, never
    std::string out;                     // write here (atomically) instead of stdout
};
int cmd_compare(const CompareCmdOptions& o);

// `tribench report RESULTS.json... --out DIR`: REPORT.md and PNG plots (scripts/report.py).
struct ReportCmdOptions {
    std::vector<std::string> files;
    std::string out;
    std::string baseline = "cuda-native";
    double alpha = 0.05;
    double peak_gbps = 0, peak_gflops = 0;  // roofline ceilings where no calibration ran
    bool no_plots = false;
};
int cmd_report(const ReportCmdOptions& o);

// `tribench export --futhark RESULTS.json OUT.json`: the layout of `futhark bench --json`.
struct ExportCmdOptions {
    bool futhark = false;
    std::string input, output;
    std::string backend;  // only this backend, keyed without it
};
int cmd_export(const ExportCmdOptions& o);

}  // namespace tb
