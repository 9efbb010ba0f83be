#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "plan/selection.hpp"

namespace tb {

int cmd_list(const ListOptions& o) {
    auto slots = probe_backends(backend_ids());
    if (o.json) {
        nlohmann::json j;
        for (const Program* p : all_programs()) {
            nlohmann::json pj = {{"name", p->name()}, {"description", p->description()},
                                 {"variants", p->variants()}, {"iterative", p->iterative()}};
            for (const auto& d : p->datasets())
                pj["datasets"].push_back({{"name", d.name}, {"description", d.description}, {"small", d.small}});
            j["programs"].push_back(pj);
        }
        for (const auto& s : slots) {
            nlohmann::json bj = {{"id", s.id}, {"available", s.unavailable.empty()}, {"reason", s.unavailable}};
            bj["devices"] = nlohmann::json::array();
            for (std::size_t i = 0; i < s.devices.size(); ++i)
                bj["devices"].push_back({{"index", i}, {"name", s.devices[i].name},
                                         {"platform", s.devices[i].platform}, {"gpu", s.devices[i].is_gpu}});
            j["backends"].push_back(bj);
        }
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "programs:\n";
    for (const Program* p : all_programs()) {
        std::cout << "  " << p->name() << ": " << p->description() << "\n    datasets:";
        for (const auto& d : p->datasets()) std::cout << " " << d.name << (d.small ? "*" : "");
        std::cout << "\n";
        if (p->variants().size() > 1) {
            std::cout << "    variants:";
            for (const auto& v : p->variants()) std::cout << " " << v;
            std::cout << "\n";
        }
        if (p->iterative()) std::cout << "    launch modes: stream graph (graph on CUDA backends)\n";
    }
    std::cout << "  (* = small, run by default on CPU devices)\n\nbackends:\n";
    for (const auto& s : slots) {
        if (!s.unavailable.empty()) {
            std::cout << "  " << s.id << ": unavailable: " << s.unavailable << "\n";
            continue;
        }
        std::cout << "  " << s.id << ":\n";
        for (std::size_t i = 0; i < s.devices.size(); ++i) {
            const DeviceInfo& d = s.devices[i];
            std::cout << "    " << i << ": " << d.name << " (" << d.platform << ", " << (d.is_gpu ? "gpu" : "cpu");
            if (d.cc_major) std::cout << ", sm_" << d.cc_major << d.cc_minor;
            std::cout << ", " << (d.global_mem_bytes >> 20) << " MiB)\n";
        }
    }
    return 0;
}

}  // namespace tb
