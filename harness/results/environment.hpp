// What a results file records about the machine and the run, so two files can be
// compared knowingly.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tb {

std::string tribench_version();  // "0.1.0"
std::string tribench_commit();   // git commit the binary was built from, or "unknown"
std::string utc_now();           // "2026-12-05T21:40:00Z", as created_utc
// Host, OS, compiler, tribench version/commit, time, and the command line.
nlohmann::json host_environment(const std::vector<std::string>& argv);

}  // namespace tb
