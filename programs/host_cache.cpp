#include "host_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "device.hpp"

namespace tb {
namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;
constexpr std::size_t kDefaultCeiling = std::size_t(16) << 30;

std::size_t default_capacity() {
    if (const char* env = std::getenv("TRIBENCH_HOST_CACHE_MB")) {
        char* end = nullptr;
        errno = 0;
        const unsigned long long mb = std::strtoull(env, &end, 10);
        if (end == env || *end != '\0' || errno == ERANGE || mb > (std::uint64_t(1) << 40))
            throw Error("TRIBENCH_HOST_CACHE_MB='" + std::string(env) + "' is not a size in MiB (0 turns the cache off)");
        return std::size_t(mb) * kMiB;
    }
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 1024 * kMiB;
    return std::min(kDefaultCeiling, std::size_t(pages) * std::size_t(page) / 4);
}

}  // namespace

HostCache& HostCache::global() {
    static HostCache cache(default_capacity());
    return cache;
}

std::shared_ptr<const void> HostCache::find(const std::string& key, std::type_index type) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(key);
    if (it == entries_.end()) {
        ++stats_.misses;
        return nullptr;
    }
    if (it->second.type != type) throw InternalError("host cache: key '" + key + "' holds another type");
    lru_.splice(lru_.begin(), lru_, it->second.age);
    ++stats_.hits;
    return it->second.value;
}

std::shared_ptr<const void> HostCache::insert(const std::string& key, std::type_index type,
                                              std::shared_ptr<const void> value, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = entries_.find(key); it != entries_.end()) {
        if (it->second.type != type) throw InternalError("host cache: key '" + key + "' holds another type");
        return it->second.value;  // another thread made it first: keep one copy
    }
    if (bytes > capacity_) return value;
    while (stats_.bytes + bytes > capacity_) {
        const auto victim = entries_.find(lru_.back());
        stats_.bytes -= victim->second.bytes;
        entries_.erase(victim);
        lru_.pop_back();
        ++stats_.evictions;
    }
    lru_.push_front(key);
    entries_.emplace(key, Entry{value, type, bytes, lru_.begin()});
    stats_.bytes += bytes;
    return value;
}

HostCache::Stats HostCache::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    Stats s = stats_;
    s.entries = entries_.size();
    return s;
}

void HostCache::clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
    lru_.clear();
    stats_.bytes = 0;
}

std::string dataset_key(const Dataset& d) {
    std::string key = d.name;
    for (const auto& [name, value] : d.params) key += "/" + name + "=" + std::to_string(value);
    if (!d.file.empty()) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(d.file, ec);
        const auto mtime = std::filesystem::last_write_time(d.file, ec);
        key += "/file=" + d.file + "/" + std::to_string(ec ? 0 : size) + "/" +
               std::to_string(ec ? 0 : mtime.time_since_epoch().count());
    }
    return key;
}

}  // namespace tb
