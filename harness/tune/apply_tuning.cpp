#include "tune/apply_tuning.hpp"

#include <filesystem>

namespace tb {

std::string tuning_file_for(const std::string& option) {
    if (option == "none") return "";
    if (!option.empty()) return option;
    const std::string path = default_tuning_path();
    std::error_code ec;
    return !path.empty() && std::filesystem::exists(path, ec) ? path : "";
}

namespace {

// The newest entry for `key` with its backend and device replaced as `borrow` says; any driver
// where the device is borrowed or the backend is another (CUDA and OpenCL name one GPU's
// driver differently).
const TuningEntry* borrowed_entry(const TuningFile& file, TuningKey key, const TuningBorrow& borrow) {
    if (!borrow.backend.empty()) key.backend = borrow.backend;
    if (!borrow.device.empty()) key.device = borrow.device;
    const TuningEntry* found = nullptr;
    for (const auto& e : file.entries)
        if (e.key.device == key.device && e.key.backend == key.backend && e.key.program == key.program &&
            e.key.dataset == key.dataset && (!found || e.tuned_utc > found->tuned_utc))
            found = &e;
    return found;
}

std::string borrowed_source(const TuningBorrow& borrow) {
    std::string s = kTunedSource;
    if (!borrow.backend.empty()) s += " for " + borrow.backend;
    if (!borrow.device.empty()) s += " on " + borrow.device;
    return s;
}

}  // namespace

std::size_t apply_tuning(const TuningFile& file, const std::string& path, std::vector<Case>& cases,
                         const std::vector<BackendSlot>& slots, bool named, const TuningBorrow& borrow) {
    if (borrow.any()) {
        std::size_t tuned = 0;
        for (auto& c : cases) {
            if (c.vendor) continue;
            const DeviceInfo& dev = slots[c.slot].devices[c.device];
            const TuningEntry* e =
                borrowed_entry(file, tuning_key(dev, slots[c.slot].id, c.program->name(), c.dataset.name), borrow);
            if (!e) continue;
            c.config = e->config;
            c.config_source = borrowed_source(borrow);
            ++tuned;
        }
        if (tuned == 0)
            throw Error(path + ": no configuration tuned" + (borrow.backend.empty() ? "" : " for " + borrow.backend) +
                        (borrow.device.empty() ? "" : " on " + borrow.device) +
                        " matches a benchmark of this run (tribench tune, or check the names: "
                        "tribench list shows devices)");
        return tuned;
    }
    if (file.entries.empty()) return 0;
    bool device_known = false;
    std::string run_device;
    std::size_t tuned = 0;
    for (auto& c : cases) {
        if (c.vendor) continue;
        const DeviceInfo& dev = slots[c.slot].devices[c.device];
        const TuningKey key = tuning_key(dev, slots[c.slot].id, c.program->name(), c.dataset.name);
        if (run_device.empty()) run_device = key.device + " (driver " + key.driver + ")";
        for (const auto& e : file.entries) device_known = device_known || e.key.same_device(key);
        const TuningEntry* e = file.find(key);
        if (!e) continue;
        if (const std::string why = c.program->tuning_space().refusal(e->config, dev); !why.empty())
            throw Error(path + ": the configuration tuned for " + describe(key) + " is refused: " + why +
                        " (tune again: tribench tune)");
        c.config = e->config;
        c.config_source = kTunedSource;
        ++tuned;
    }
    if (named && !device_known && !run_device.empty()) {
        const TuningKey& k = file.entries.front().key;
        throw Error(path + ": tuned for " + k.device + " (driver " + k.driver + "), not for " + run_device +
                    ": tune this device (tribench tune) or pass --tuning none");
    }
    return tuned;
}

}  // namespace tb
