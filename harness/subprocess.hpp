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

}  // namespace tb
