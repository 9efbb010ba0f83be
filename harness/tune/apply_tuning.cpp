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

std::size_t apply_tuning(const TuningFile& file, const std::string& path, std::vector<Case>& cases,
                         const std::vector<BackendSlot>& slots, bool named) {
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
