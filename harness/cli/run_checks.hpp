// What `tribench run` can check before it opens a device (docs/robustness.md): each bad
// input is refused with one tb::Error line (exit 2) instead of failing a benchmark, or the
// whole run, minutes later.
#pragma once

#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "measure/runner.hpp"

namespace tb {

// Option combinations, TRIBENCH_KERNEL_DIR and --matrix files, in that order. The output
// paths are checked apart (check_output_paths), once the --save-outputs folder exists: --out
// may name a file inside it.
void check_run_inputs(const RunOptions& o);

// Options given together of which one would be silently ignored, or that cannot work together.
void check_option_combinations(const RunOptions& o);

// --validate-only with an option that needs timings or a results file: --out,
// --benchmark_out, --resume of a results file (a journal, as a cut-short validate-only run
// names, may be resumed), --resume-anyway, --parallel-devices, --dry-run, --profile,
// --repeat above 1. Called first: nothing has been opened.
void check_validate_only(const RunOptions& o);

// TRIBENCH_KERNEL_DIR, when set: a folder holding programs/<p>/kernels.cl or kernels.cu for
// at least one program (a folder without any is a mistake: nothing would be read from it).
void check_kernel_dir();

// Every --matrix file read in full now, as the benchmark would read it: a malformed file is
// "FILE:LINE: problem" before any device is opened, not a failed benchmark after the others.
void check_matrix_files(const std::vector<std::string>& files);

// --out and Google Benchmark's --benchmark_out=FILE: writable as atomic_file.hpp writes.
void check_output_paths(const RunOptions& o);

// The stopping rule, math mode, seed, timing mode and hung-kernel limit of `run` and `tune`,
// checked: a non-positive or infinite --min-time, --max-noise or --timeout, too few samples,
// or a negative or infinite --kernel-timeout, is a one-line error. The caller sets what else
// its command needs.
RunnerOptions sampling_runner_options(const RunOptions& o);

// True when argv holds the option `name`, as "name" or "name=value".
bool option_given(const std::vector<std::string>& argv, const std::string& name);

}  // namespace tb
