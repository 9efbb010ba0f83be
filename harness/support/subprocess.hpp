// Running a helper program (the plotting script) without a shell, so that paths with
// spaces or quotes need no escaping, and collecting what it prints.
#pragma once

#include <string>
#include <vector>

namespace tb {

struct ProcessResult {
    int exit_code = 0;   // the exit status; 128 + signal number when killed by a signal
    std::string output;  // stdout and stderr, interleaved as written
};

// Runs argv[0] (looked up on PATH) with the arguments. Throws tb::Error
// "<argv[0]> not found on PATH" when it cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv);

// A plotting script: $<env_var> when set, else scripts/<name> of the source tree built from.
// Throws tb::Error naming the path, the variable and --no-plots when it is not a file.
std::string plotting_script(const char* env_var, const char* name);

// Runs a plotting script (plotting_script) as `python3 SCRIPT DATA --out DIR` and returns
// the lines it printed for its plots, those starting "plot<TAB>"; every other line goes on to
// stderr after "<name>: ". Throws tb::Error, in one line, when python3 or one of the modules
// the script imports is missing (its exit status 3) or the script fails.
std::vector<std::string> run_plotting_script(const char* env_var, const char* name, const std::string& data_path,
                                             const std::string& dir);

// The last non-blank line of a program's output ("(no output)" if none), for one-line errors.
std::string last_output_line(const std::string& text);

}  // namespace tb
