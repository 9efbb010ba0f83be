#include "pocl_affinity.hpp"

#include <cstdlib>

#include <unistd.h>

#include "cpu_affinity.hpp"

namespace tb::cl {

bool pocl_pinning_is_safe(const std::vector<int>& allowed, long online_cpus, bool pool_resized) {
    if (pool_resized || online_cpus <= 0 || allowed.size() != std::size_t(online_cpus)) return false;
    for (std::size_t i = 0; i < allowed.size(); ++i)
        if (allowed[i] != int(i)) return false;
    return true;
}

void prepare_pocl_affinity() {
    const bool ours = std::getenv(kPoclAffinityMarker) != nullptr;
    if (std::getenv("POCL_AFFINITY") && !ours) return;  // the user's choice
    // PoCL sizes its pool by these; a pool larger than the CPUs would pin past them.
    const bool resized = std::getenv("POCL_CPU_MAX_CU_COUNT") || std::getenv("POCL_MAX_PTHREAD_COUNT");
    if (pocl_pinning_is_safe(allowed_cpus(), sysconf(_SC_NPROCESSORS_ONLN), resized)) {
        setenv("POCL_AFFINITY", "1", 1);
        setenv(kPoclAffinityMarker, "1", 1);
    } else if (ours) {
        unsetenv("POCL_AFFINITY");
        unsetenv(kPoclAffinityMarker);
    }
}

std::string pocl_affinity_state() {
    const char* value = std::getenv("POCL_AFFINITY");
    if (!value) return "unpinned";
    if (std::getenv(kPoclAffinityMarker)) return "pinned by tribench";
    return std::string("POCL_AFFINITY=") + value + " (user)";
}

}  // namespace tb::cl
