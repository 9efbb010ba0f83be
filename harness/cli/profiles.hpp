// Named run profiles (`tribench run --profile NAME`): a fixed selection and sampling plan,
// so that a CI job's runs are comparable from commit to commit (docs/measurement.md).
#pragma once

#include <string>
#include <vector>

namespace tb {

struct RunProfile {
    std::string name;
    std::string description;
    std::vector<std::string> datasets;  // one mid-size dataset per program
    std::vector<std::string> launches;  // launch modes of iterative programs
    double min_time_s = 0;              // stopping rule (used unless the user gives the option)
    double timeout_s = 0;
    std::size_t min_samples = 0;
    double budget_s = 0;                // --budget (0: none)
};

const std::vector<RunProfile>& all_profiles();
// Throws tb::Error("unknown profile 'x' (known: ci)").
const RunProfile& find_profile(const std::string& name);

}  // namespace tb
