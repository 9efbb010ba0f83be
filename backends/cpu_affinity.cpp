#include "cpu_affinity.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include <sched.h>

#include "device.hpp"

namespace tb {

std::vector<int> allowed_cpus() {
    // A mask sized for many CPUs: hosts with more than CPU_SETSIZE (1024) exist.
    const int max_cpus = 8192;
    cpu_set_t* set = CPU_ALLOC(max_cpus);
    if (!set) return {};
    const std::size_t bytes = CPU_ALLOC_SIZE(max_cpus);
    std::vector<int> cpus;
    if (sched_getaffinity(0, bytes, set) == 0)
        for (int c = 0; c < max_cpus; ++c)
            if (CPU_ISSET_S(c, bytes, set)) cpus.push_back(c);
    CPU_FREE(set);
    return cpus;
}

unsigned usable_cpu_count() {
    const std::size_t n = allowed_cpus().size();
    if (n > 0) return unsigned(n);
    return std::max(1u, std::thread::hardware_concurrency());
}

std::vector<std::vector<int>> split_cpus(const std::vector<int>& cpus, int parts) {
    if (parts <= 0 || cpus.size() < std::size_t(parts)) return {};
    std::vector<std::vector<int>> slices(static_cast<std::size_t>(parts));
    const std::size_t base = cpus.size() / std::size_t(parts), extra = cpus.size() % std::size_t(parts);
    std::size_t at = 0;
    for (std::size_t k = 0; k < slices.size(); ++k) {
        const std::size_t n = base + (k < extra ? 1 : 0);
        slices[k].assign(cpus.begin() + std::ptrdiff_t(at), cpus.begin() + std::ptrdiff_t(at + n));
        at += n;
    }
    return slices;
}

void set_cpu_affinity(const std::vector<int>& cpus) {
    if (cpus.empty()) throw Error("cannot bind to CPUs: no CPU given");
    const int max_cpus = std::max(8192, *std::max_element(cpus.begin(), cpus.end()) + 1);
    cpu_set_t* set = CPU_ALLOC(max_cpus);
    if (!set) throw Error("cannot bind to CPUs " + cpu_list_text(cpus) + ": out of memory");
    const std::size_t bytes = CPU_ALLOC_SIZE(max_cpus);
    CPU_ZERO_S(bytes, set);
    for (int c : cpus) CPU_SET_S(c, bytes, set);
    const int rc = sched_setaffinity(0, bytes, set);
    const int err = errno;
    CPU_FREE(set);
    if (rc != 0) throw Error("cannot bind to CPUs " + cpu_list_text(cpus) + ": " + std::strerror(err));
}

std::string cpu_list_text(const std::vector<int>& cpus) {
    std::string text;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        if (!text.empty()) text += ',';
        text += std::to_string(cpus[i]);
        if (j > i) text += '-' + std::to_string(cpus[j]);
        i = j + 1;
    }
    return text;
}

}  // namespace tb
