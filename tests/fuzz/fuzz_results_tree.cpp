// Fuzzes results_from_json() on parsed JSON: random JSON bytes rarely get past the schema
// check, so this target starts from a valid results document (written by to_json) and lets
// the fuzzer's bytes pick nodes and replace them with values of other types, odd numbers
// (negative, NaN, infinite, huge), strings, empty containers, or remove them. Same
// contract as fuzz_results_load: one tb::Error, or a document that round-trips.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include <fuzzer/FuzzedDataProvider.h>

#include "results_roundtrip.hpp"

namespace {

using nlohmann::json;

const json& valid_document() {
    static const json doc = [] {
        tb::Results r;
        r.environment = {{"tribench", {{"version", "0.1.0"}, {"commit", "0123456789ab"}}},
                         {"options", {{"seed", 42}, {"math", "default"}}}};
        r.calibration["cuda-native:0"] = {{"copy_gbps", 3000.0}, {"fp32_gflops", 60000.0}};
        for (int d = 0; d < 2; ++d) {
            tb::DeviceRecord rec;
            rec.id = d == 0 ? "cuda-native:0" : "opencl:0";
            rec.info.backend = d == 0 ? "cuda-native" : "opencl";
            rec.info.name = d == 0 ? "NVIDIA H100" : "pthread-cpu";
            rec.info.cc_major = 9;
            rec.info.global_mem_bytes = std::uint64_t(80) << 30;
            rec.info.is_gpu = d == 0;
            r.devices.push_back(rec);
        }
        const char* statuses[3] = {"ok", "validation_failed", "skipped"};
        for (int i = 0; i < 3; ++i) {
            tb::BenchmarkResult b;
            b.program = "mandelbrot";
            b.dataset = "1024x1024";
            b.backend = i == 1 ? "opencl" : "cuda-native";
            b.name = b.program + "/" + b.dataset + "/" + b.backend + std::to_string(i);
            b.device = i == 1 ? "opencl:0" : "cuda-native:0";
            b.status = tb::status_from_string(statuses[i]);
            b.error = i ? "why" : "";
            b.validation.ok = i == 0;
            b.validation.checked = 1000;
            b.compile_ms = 12.5;
            if (i == 0) b.samples_ms = {0.8, 0.81, 0.79, 0.8};
            b.work.bytes = 4e6;
            b.work.item_name = "pixels";
            b.ptx_hash["mandelbrot"] = "00ff00ff00ff00ff";
            r.benchmarks.push_back(b);
        }
        return tb::to_json(r);
    }();
    return doc;
}

json odd_value(FuzzedDataProvider& in) {
    switch (in.ConsumeIntegralInRange(0, 12)) {
        case 0: return nullptr;
        case 1: return in.ConsumeBool();
        case 2: return in.ConsumeIntegral<std::int64_t>();
        case 3: return in.ConsumeIntegral<std::uint64_t>();
        case 4: return in.ConsumeFloatingPoint<double>();
        case 5: return std::numeric_limits<double>::quiet_NaN();
        case 6: return in.ConsumeBool() ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
        case 7: return in.ConsumeRandomLengthString(64);
        case 8: return json::array();
        case 9: return json::object();
        case 10: return json::array({in.ConsumeFloatingPoint<double>(), in.ConsumeRandomLengthString(8)});
        case 11: return json{{in.ConsumeRandomLengthString(16), in.ConsumeIntegral<std::int32_t>()}};
        default: return -in.ConsumeFloatingPointInRange<double>(1e-300, 1e300);
    }
}

// Walks from the root to a node chosen by the input and changes it.
void mutate(json& doc, FuzzedDataProvider& in) {
    json* parent = nullptr;
    json* node = &doc;
    std::string key;  // node's key in parent, when parent is an object
    std::size_t index = 0;
    while ((node->is_object() || node->is_array()) && !node->empty() && in.ConsumeBool()) {
        parent = node;
        index = in.ConsumeIntegralInRange<std::size_t>(0, node->size() - 1);
        if (node->is_object()) {
            auto it = node->begin();
            std::advance(it, static_cast<std::ptrdiff_t>(index));
            key = it.key();
            node = &it.value();
        } else {
            node = &(*node)[index];
        }
    }
    const int action = in.ConsumeIntegralInRange(0, 3);
    if (action == 0 && parent) {  // remove
        if (parent->is_object()) parent->erase(key);
        else parent->erase(index);
    } else if (action == 1 && node->is_array() && !node->empty()) {  // duplicate an element
        node->push_back((*node)[in.ConsumeIntegralInRange<std::size_t>(0, node->size() - 1)]);
    } else if (action == 2 && node->is_object()) {  // add a key
        (*node)[in.ConsumeRandomLengthString(16)] = odd_value(in);
    } else {
        *node = odd_value(in);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    json doc = valid_document();
    for (int i = 0; i < 8 && in.remaining_bytes() > 0; ++i) mutate(doc, in);
    tb::Results r;
    if (tb::fuzz::accepts("results_from_json", [&] { r = tb::results_from_json(doc); })) tb::fuzz::check_roundtrip(r);
    return 0;
}
