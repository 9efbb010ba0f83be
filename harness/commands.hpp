// The subcommands of `tribench`. Each returns the process exit status:
// 0 success, 1 a benchmark failed (validation or error), 2 bad usage or input.
#pragma once

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
    bool min_time_from_flags = false;
    bool keep_going = false;
    bool no_cache = false;
    bool all_datasets = false;
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

}  // namespace tb
