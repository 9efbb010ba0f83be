// What this process holds right now, for soak tests (`tribench run --repeat N`,
// scripts/soak.sh): resident memory and open file descriptors, from /proc (Linux), and the
// heap memory in use. A field that cannot be read is -1.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>

#include <malloc.h>
#include <unistd.h>

namespace tb {

struct ProcessUsage {
    std::int64_t rss_kib = -1;
    std::int64_t open_fds = -1;
    // Bytes malloc has handed out and not had back, in every arena (glibc 2.33+). Unlike RSS
    // it leaves out what the allocator keeps after free(), which makes RSS jump by megabytes
    // from round to round: a leak of malloc'd memory shows here as a steady rise.
    std::int64_t heap_kib = -1;
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
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 m = mallinfo2();
    u.heap_kib = std::int64_t((m.uordblks + m.hblkhd) / 1024);  // in use in arenas + large mmap'd blocks
#endif
    return u;
}

}  // namespace tb
