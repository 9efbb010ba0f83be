#include "cli/run_checks.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "support/atomic_file.hpp"
#include "cli/run_journal.hpp"
#include "matrix_market.hpp"
#include "printable.hpp"
#include "program.hpp"

namespace tb {
namespace {

// The value of "--name=value" in argv ("" when absent or given without '=', as a bare flag).
std::string option_value(const std::vector<std::string>& argv, const std::string& name) {
    for (const auto& a : argv)
        if (a.rfind(name + "=", 0) == 0) return a.substr(name.size() + 1);
    return "";
}

bool flag_true(const std::string& value) {
    return value != "false" && value != "0" && value != "no" && value != "off" && value != "f" && value != "n";
}

}  // namespace

bool option_given(const std::vector<std::string>& argv, const std::string& name) {
    for (std::size_t i = 1; i < argv.size(); ++i)
        if (argv[i] == name || argv[i].rfind(name + "=", 0) == 0) return true;
    return false;
}

void check_option_combinations(const RunOptions& o) {
    // --benchmark_min_time hands the iteration count to Google Benchmark: tribench's own
    // stopping rule, and every option that tunes it, would be ignored without a word.
    if (o.min_time_from_flags)
        for (const char* ours : {"--min-time", "--max-noise", "--timeout", "--min-samples", "--max-samples"})
            if (option_given(o.argv, ours))
                throw Error(std::string(ours) +
                            " and --benchmark_min_time contradict each other (with --benchmark_min_time, "
                            "Google Benchmark picks the iterations and tribench's stopping rule is off)");
    // Only one dataset lives on the device at a time, so benchmarks cannot interleave.
    const std::string interleave = "--benchmark_enable_random_interleaving";
    if (option_given(o.argv, interleave) && flag_true(option_value(o.argv, interleave)))
        throw Error(interleave + " is not supported (one dataset lives on the device at a time)");
    if (o.repeat < 1) throw Error("--repeat must be at least 1");
}

void check_validate_only(const RunOptions& o) {
    if (!o.validate_only) return;
    const auto refuse = [](const std::string& option, const std::string& why) {
        throw Error("--validate-only cannot take " + option + ": " + why);
    };
    // Results without timings would read as a run whose every benchmark failed to time.
    if (!o.out.empty()) refuse("--out", "it writes no results file (results without timings would mislead compare and report)");
    if (option_given(o.argv, "--benchmark_out")) refuse("--benchmark_out", "Google Benchmark's file would hold no timings");
    // The journal a validate-only run names after a signal, and the one a hung kernel's
    // fresh process resumes, end in .journal; any other FILE is a results file it never wrote.
    if (!o.resume.empty() && !names_a_journal(o.resume))
        refuse("--resume " + printable_path(o.resume), "it writes no results file (resume the journal it named instead)");
    if (o.resume_anyway) refuse("--resume-anyway", "a journal of a timed run must not be mixed with a validate-only one");
    if (o.parallel_devices) refuse("--parallel-devices", "it merges timed shards (validate each GPU with --device)");
    if (o.dry_run) refuse("--dry-run", "one runs nothing, the other runs each benchmark once");
    if (!o.profile.empty()) refuse("--profile", "a profile is a sampling plan (select with --program, --dataset, --small)");
    if (o.repeat > 1) refuse("--repeat", "repeated rounds are soak tests of timed runs");
}

void check_kernel_dir() {
    const char* dir = std::getenv("TRIBENCH_KERNEL_DIR");
    if (!dir || !*dir) return;
    const std::string shown = "TRIBENCH_KERNEL_DIR=" + printable_path(dir);
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) throw Error(shown + " is not a directory");
    for (const Program* p : all_programs())
        for (const char* file : {"kernels.cl", "kernels.cu", "kernels.cl.ptx", "kernels.cu.ptx", "kernels.cl.opencl.ptx"})
            if (std::filesystem::exists(std::filesystem::path(dir) / "programs" / p->name() / file, ec)) return;
    throw Error(shown + " holds no programs/<program>/kernels.cl, kernels.cu or their .ptx (it should be laid out like a checkout)");
}

void check_matrix_files(const std::vector<std::string>& files) {
    for (const auto& f : files)
        if (check_matrix_market_file(f).entries == 0)
            throw Error(printable_path(f) + ": the matrix has no entries (nothing to multiply)");
}

void check_output_paths(const RunOptions& o) {
    if (!o.out.empty()) check_output_path(o.out);
    const std::string gb_out = option_value(o.argv, "--benchmark_out");
    if (!gb_out.empty()) {
        check_output_path(gb_out);
        if (gb_out == o.out) throw Error("--out and --benchmark_out name the same file " + printable_path(gb_out));
    }
}

void check_run_inputs(const RunOptions& o) {
    check_option_combinations(o);
    check_kernel_dir();
    check_matrix_files(o.matrix_files);
}

RunnerOptions sampling_runner_options(const RunOptions& o) {
    // NaN fails every comparison; infinity would make the stopping rule unreachable.
    const auto positive = [](double v) { return v > 0 && std::isfinite(v); };
    if (!positive(o.min_time_s)) throw Error("--min-time must be a positive number of seconds");
    if (!positive(o.max_noise)) throw Error("--max-noise must be a positive number");
    if (!positive(o.timeout_s)) throw Error("--timeout must be a positive number of seconds");
    if (o.min_samples < 2) throw Error("--min-samples must be at least 2");
    if (o.max_samples < o.min_samples) throw Error("--max-samples must be at least --min-samples");
    if (o.kernel_timeout_s < 0 || !std::isfinite(o.kernel_timeout_s))
        throw Error("--kernel-timeout must be a positive number of seconds, or 0 for no limit");
    RunnerOptions ro;
    ro.compile.math = math_mode_from_string(o.math);
    ro.seed = o.seed;
    ro.rule.min_time_s = o.min_time_s;
    ro.rule.max_noise = o.max_noise;
    ro.rule.timeout_s = o.timeout_s;
    ro.rule.min_samples = o.min_samples;
    ro.rule.max_samples = o.max_samples;
    ro.timing = timing_mode_from_string(o.timing);
    ro.kernel_timeout_s = o.kernel_timeout_s;
    return ro;
}

}  // namespace tb
