// `tribench merge`: one results file from the files of a sharded run (docs/scale-out.md).
// Shards must be parts of one measurement: same commit, math mode, options, device kinds and
// selection. Each check can be waived; missing and duplicated benchmarks are refused unless
// allowed, and then named in the output.
#pragma once

#include <string>
#include <vector>

#include "results/results.hpp"

namespace tb {

struct ShardFile {
    std::string path;
    Results results;
};

struct MergeOptions {
    bool ignore_commit = false;     // tribench_commit may differ
    bool ignore_math = false;       // options.math may differ
    bool ignore_options = false;    // the other run options (seed, stopping rule...) may differ
    bool ignore_devices = false;    // a device id may name different device kinds
    bool ignore_selection = false;  // selections and splits may differ: expect their union
    bool allow_missing = false;     // write the merge although selected benchmarks are absent
    bool allow_duplicates = false;  // keep the first file's copy of a benchmark found twice
    void force() { ignore_commit = ignore_math = ignore_options = ignore_devices = ignore_selection =
                       allow_missing = allow_duplicates = true; }
};

struct MergeOutcome {
    Results merged;
    std::vector<std::string> warnings;    // each waived problem, one line
    std::vector<std::string> missing;     // selected, in no file
    std::vector<std::string> duplicated;  // in more than one file
};

// Throws tb::Error with one line naming the first refused problem and the flag that waives it.
MergeOutcome merge_shards(const std::vector<ShardFile>& files, const MergeOptions& opt);

// "a, b, c and 4 more": names for a one-line message.
std::string name_list(const std::vector<std::string>& names, std::size_t shown = 5);

}  // namespace tb
