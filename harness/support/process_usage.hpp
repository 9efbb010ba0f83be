// What this process holds right now, for soak tests (`tribench run --repeat N`,
// scripts/soak.sh): resident memory and open file descriptors, from /proc (Linux). A field
// that cannot be read is -1.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace tb {

struct ProcessUsage {
    std::int64_t rss_kib = -1;
    std::int64_t open_fds = -1;
};

inline ProcessUsage process_usage() {
    ProcessUsage u;
    std::ifstream statm("/proc/self/statm");  // pages: size resident shared ...
    std::int64_t size = 0, resident = 0;
    if (statm >> size >> resident) u.rss_kib = resident * (sysconf(_SC_PAGESIZE) / 1024);
    std::error_code ec;
    std::int64_t n = 0;
    for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++n;
    // The iterator's own descriptor is counted among them: leave it out.
    if (!ec) u.open_fds = n - 1;
    return u;
}

}  // namespace tb
