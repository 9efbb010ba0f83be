// Host data derived from a dataset (generated inputs, CPU references), shared by the
// benchmarks of one process. A suite prepares each dataset for every backend, variant and
// launch mode; without this each of them regenerated the inputs and recomputed the
// reference (on the H100 suite, 5 of every 6 seconds of stencil 1024x1024x64 went there).
// Values are immutable and keyed by everything they depend on, so a hit is exactly what a
// recomputation would give. The cache holds at most a byte budget, least recently used
// out first (docs/measurement.md, "Set-up").
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <typeindex>
#include <unordered_map>
#include <utility>

#include "internal_error.hpp"
#include "program.hpp"

namespace tb {

class HostCache {
public:
    struct Stats {
        std::size_t hits = 0, misses = 0, evictions = 0, entries = 0, bytes = 0;
    };

    explicit HostCache(std::size_t capacity_bytes) : capacity_(capacity_bytes) {}

    // The process-wide cache. Its budget: TRIBENCH_HOST_CACHE_MB if set (0 turns caching
    // off), else a quarter of physical memory, at most 16 GiB.
    static HostCache& global();

    // The value for `key`, made by `make()` (returning T) when absent. `bytes(value)` is its
    // host footprint; a value larger than the whole budget is returned but not kept. `make`
    // runs outside the lock, so threads may fill different keys at once.
    template <class T, class Make, class Bytes>
    std::shared_ptr<const T> get(const std::string& key, Make&& make, Bytes&& bytes) {
        if (auto hit = find(key, typeid(T))) return std::static_pointer_cast<const T>(hit);
        auto value = std::make_shared<const T>(make());
        const std::size_t size = bytes(*value);
        return std::static_pointer_cast<const T>(insert(key, typeid(T), value, size));
    }

    Stats stats() const;
    std::size_t capacity() const { return capacity_; }
    void clear();

private:
    struct Entry {
        std::shared_ptr<const void> value;
        std::type_index type;
        std::size_t bytes;
        std::list<std::string>::iterator age;  // position in lru_ (front: most recent)
    };

    std::shared_ptr<const void> find(const std::string& key, std::type_index type);
    std::shared_ptr<const void> insert(const std::string& key, std::type_index type,
                                       std::shared_ptr<const void> value, std::size_t bytes);

    const std::size_t capacity_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Entry> entries_;
    std::list<std::string> lru_;
    Stats stats_;
};

// A key naming everything a dataset's generated data depends on: its name, every parameter,
// and for a file its path, size and modification time (a file rewritten between two
// benchmarks of one process is read again).
std::string dataset_key(const Dataset& d);

}  // namespace tb
