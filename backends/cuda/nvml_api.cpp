#include "nvml_api.hpp"

#include <map>
#include <mutex>

#include "dynlib.hpp"

namespace tb::cuda {
namespace {

// The few NVML types and entry points used, declared here: the toolkit does not always ship
// nvml.h, and these signatures have been stable for a decade.
using nvmlReturn = int;
using nvmlDevice = struct nvmlDevice_st*;
constexpr nvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

struct NvmlApi {
    DynLib lib;
    nvmlReturn (*init)() = nullptr;
    nvmlReturn (*handle_by_pci)(const char*, nvmlDevice*) = nullptr;
    nvmlReturn (*clock_info)(nvmlDevice, int, unsigned int*) = nullptr;
    nvmlReturn (*max_clock_info)(nvmlDevice, int, unsigned int*) = nullptr;
    nvmlReturn (*reasons)(nvmlDevice, unsigned long long*) = nullptr;
    std::string unavailable;  // why NVML cannot be used, empty when it can
    std::map<std::string, nvmlDevice> devices;
};

NvmlApi& nvml() {
    static NvmlApi api = [] {
        NvmlApi a;
        try {
            a.lib = DynLib::open({"libnvidia-ml.so.1", "libnvidia-ml.so"});
            a.init = reinterpret_cast<decltype(a.init)>(a.lib.require("nvmlInit_v2"));
            a.handle_by_pci = reinterpret_cast<decltype(a.handle_by_pci)>(a.lib.require("nvmlDeviceGetHandleByPciBusId_v2"));
            a.clock_info = reinterpret_cast<decltype(a.clock_info)>(a.lib.require("nvmlDeviceGetClockInfo"));
            a.max_clock_info = reinterpret_cast<decltype(a.max_clock_info)>(a.lib.require("nvmlDeviceGetMaxClockInfo"));
            // Renamed "clocks event reasons" in NVML 12.2; the old name still resolves.
            void* r = a.lib.find("nvmlDeviceGetCurrentClocksEventReasons");
            if (!r) r = a.lib.require("nvmlDeviceGetCurrentClocksThrottleReasons");
            a.reasons = reinterpret_cast<decltype(a.reasons)>(r);
            if (nvmlReturn rc = a.init(); rc != kNvmlSuccess)
                a.unavailable = "nvmlInit failed with NVML error " + std::to_string(rc);
        } catch (const Error& e) {
            a.unavailable = e.what();
        }
        return a;
    }();
    return api;
}

std::mutex& nvml_mutex() {
    static std::mutex m;
    return m;
}

}  // namespace

std::optional<ClockSample> read_gpu_clock(const std::string& pci_bus_id) {
    std::lock_guard<std::mutex> lock(nvml_mutex());
    NvmlApi& a = nvml();
    if (!a.unavailable.empty()) return std::nullopt;
    auto it = a.devices.find(pci_bus_id);
    if (it == a.devices.end()) {
        nvmlDevice d = nullptr;
        if (a.handle_by_pci(pci_bus_id.c_str(), &d) != kNvmlSuccess) d = nullptr;
        it = a.devices.emplace(pci_bus_id, d).first;
    }
    if (!it->second) return std::nullopt;
    unsigned int sm = 0, max_sm = 0;
    unsigned long long reasons = 0;
    if (a.clock_info(it->second, kNvmlClockSm, &sm) != kNvmlSuccess ||
        a.max_clock_info(it->second, kNvmlClockSm, &max_sm) != kNvmlSuccess ||
        a.reasons(it->second, &reasons) != kNvmlSuccess)
        return std::nullopt;
    return ClockSample{static_cast<int>(sm), static_cast<int>(max_sm), reasons};
}

std::string clock_unavailable_reason() {
    std::lock_guard<std::mutex> lock(nvml_mutex());
    return nvml().unavailable;
}

}  // namespace tb::cuda
