// On-disk cache of NVRTC output. The key text holds everything that changes the PTX (the
// full NVRTC input, the options, the architecture, the NVRTC version); an entry stores the
// key text itself, so a hash collision reads as a miss. Entries are written atomically and
// an unreadable or corrupt entry is a miss, never an error: the cache only saves time.
//
// Location: $TRIBENCH_CACHE_DIR, else $XDG_CACHE_HOME/tribench, else ~/.cache/tribench,
// with NVRTC entries in its nvrtc/ folder. Bypassed when TRIBENCH_NO_CACHE=1 or after
// set_kernel_cache_enabled(false) (the harness's --no-cache).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "fnv1a.hpp"

namespace tb::cuda {

struct CachedPtx {
    std::string ptx;
    std::string log;
};

void set_kernel_cache_enabled(bool enabled);
// False after set_kernel_cache_enabled(false), with TRIBENCH_NO_CACHE=1, or with no
// usable location (no TRIBENCH_CACHE_DIR, XDG_CACHE_HOME or HOME).
bool kernel_cache_enabled();

// The folder entries go to (may not exist yet); empty when no location can be found.
std::filesystem::path kernel_cache_dir();

// Entry names are tb::fnv1a64_hex of the key (backends/fnv1a.hpp).
using tb::fnv1a64_hex;

// Where the entry for `key` lives.
std::filesystem::path kernel_cache_entry_path(const std::string& key);

// The entry for `key`, if the cache is enabled and holds a sound entry with exactly that key.
std::optional<CachedPtx> kernel_cache_load(const std::string& key);

// Writes the entry (temporary file + rename). Returns false, and warns once on stderr,
// when it cannot be written; callers carry on without the cache.
bool kernel_cache_store(const std::string& key, const CachedPtx& entry);

}  // namespace tb::cuda
