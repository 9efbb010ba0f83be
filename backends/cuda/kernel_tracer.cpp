#include "kernel_tracer.hpp"

#include <algorithm>
#include <limits>

namespace tb::cuda {

std::uint64_t region_span_ns(const std::vector<TracedSpan>& records) {
    // A record without timestamps (serial tracing leaves graph kernels so, CUDA 13.0) would
    // make the span wrong, so there is none.
    for (const TracedSpan& r : records)
        if (r.start == 0 || r.end < r.start) return 0;
    auto gate = records.end();
    for (auto r = records.begin(); r != records.end(); ++r)
        if (r->single_thread_kernel && (gate == records.end() || r->start < gate->start)) gate = r;
    if (gate == records.end()) return 0;
    std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
    for (auto r = records.begin(); r != records.end(); ++r) {
        if (r == gate) continue;
        if (r->end <= gate->start) continue;  // enqueued before the region (the placement scatter)
        if (r->start < gate->start) return 0;  // overlaps the gate: not the stream's order
        first = std::min(first, r->start);
        last = std::max(last, r->end);
    }
    return last > first ? last - first : 0;
}

}  // namespace tb::cuda

#ifdef TRIBENCH_HAVE_CUPTI
#include <cupti.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "dynlib.hpp"

namespace tb::cuda {
namespace {

struct CuptiApi {
    DynLib lib;
    decltype(&::cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
    decltype(&::cuptiActivityEnable) enable = nullptr;
    decltype(&::cuptiActivityDisable) disable = nullptr;
    decltype(&::cuptiActivityFlushAll) flush_all = nullptr;
    decltype(&::cuptiActivityGetNextRecord) next_record = nullptr;
    decltype(&::cuptiGetResultString) result_string = nullptr;
    decltype(&::cuptiActivitySetAttribute) set_attribute = nullptr;
};

CuptiApi& api() {
    static CuptiApi a;
    return a;
}

std::string result_text(CUptiResult r) {
    const char* s = nullptr;
    if (api().result_string && api().result_string(r, &s) == CUPTI_SUCCESS && s) return s;
    return "CUPTI error " + std::to_string(static_cast<int>(r));
}

// Filled by the buffer callback, read by span_ns.
std::mutex g_mutex;
std::vector<TracedSpan> g_spans;

constexpr std::size_t kBufferBytes = 1 << 20;

void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    // CUPTI wants 8-byte aligned buffers; aligned_alloc's 64 covers it.
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(64, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI on_buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
    std::lock_guard<std::mutex> lock(g_mutex);
    CUpti_Activity* record = nullptr;
    while (api().next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
        switch (record->kind) {
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            case CUPTI_ACTIVITY_KIND_KERNEL: {
                const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
                const bool single = k->gridX == 1 && k->gridY == 1 && k->gridZ == 1 && k->blockX == 1 &&
                                    k->blockY == 1 && k->blockZ == 1;
                g_spans.push_back({k->start, k->end, single});
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMSET: {
                const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
                g_spans.push_back({m->start, m->end, false});
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMCPY: {
                const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
                g_spans.push_back({m->start, m->end, false});
                break;
            }
            default: break;
        }
    }
    std::free(buffer);
}

// CONCURRENT_KERNEL, not KIND_KERNEL. Both were measured on the H100 (2026-11-26, docs/
// measurement.md). Serial tracing (KIND_KERNEL) matched ncu within 1.3% on single kernels
// but put ~3 us of idle GPU time between the kernels of a region (kmeans 200k-d2-k5 full,
// 30 launches: 0.179 ms against 0.097) and left kernels launched from graphs untimed.
// Concurrent tracing adds no gaps; it slows kernels of very many blocks by up to ~1.3%
// (mandelbrot 8000x8000, 250,000 blocks: 1.2494 ms against 1.2331 without CUPTI).
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
                                         CUPTI_ACTIVITY_KIND_MEMCPY};

}  // namespace

KernelTracer& KernelTracer::instance() {
    static KernelTracer t;
    return t;
}

KernelTracer::KernelTracer() {
    if (const char* off = std::getenv("TRIBENCH_NO_CUPTI"); off && *off && std::strcmp(off, "0") != 0) {
        why_ = "TRIBENCH_NO_CUPTI is set";
        return;
    }
    CuptiApi& a = api();
    try {
        std::vector<std::string> names = {"libcupti.so", "libcupti.so.13", "libcupti.so.12"};
#ifdef TRIBENCH_CUDA_LIB_DIR
        names.push_back(std::string(TRIBENCH_CUDA_LIB_DIR) + "/libcupti.so");
        names.push_back(std::string(TRIBENCH_CUDA_LIB_DIR) + "/../extras/CUPTI/lib64/libcupti.so");
#endif
        a.lib = DynLib::open(names);
        a.register_callbacks = reinterpret_cast<decltype(a.register_callbacks)>(a.lib.require("cuptiActivityRegisterCallbacks"));
        a.enable = reinterpret_cast<decltype(a.enable)>(a.lib.require("cuptiActivityEnable"));
        a.disable = reinterpret_cast<decltype(a.disable)>(a.lib.require("cuptiActivityDisable"));
        a.flush_all = reinterpret_cast<decltype(a.flush_all)>(a.lib.require("cuptiActivityFlushAll"));
        a.next_record = reinterpret_cast<decltype(a.next_record)>(a.lib.require("cuptiActivityGetNextRecord"));
        a.result_string = reinterpret_cast<decltype(a.result_string)>(a.lib.find("cuptiGetResultString"));
        a.set_attribute = reinterpret_cast<decltype(a.set_attribute)>(a.lib.find("cuptiActivitySetAttribute"));
    } catch (const std::exception& e) {
        why_ = e.what();
        return;
    }
    // One set of activity buffers for the process, not one per thread: with CUPTI 13's
    // default per-thread buffers the heap grew by ~86 bytes for every gated sample (H100,
    // 2026-11-26: +179 KiB a round of the ci profile's cuda-native rows, +5 KiB with this;
    // docs/robustness.md, "Soak test"). An older CUPTI that does not know the attribute
    // (CUPTI_ERROR_INVALID_PARAMETER) has no per-thread buffers either.
    if (a.set_attribute) {
        std::uint8_t per_thread = 0;
        std::size_t size = sizeof per_thread;
        const CUptiResult r = a.set_attribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &per_thread);
        if (r != CUPTI_SUCCESS && r != CUPTI_ERROR_INVALID_PARAMETER) {
            why_ = "cuptiActivitySetAttribute(PER_THREAD_ACTIVITY_BUFFER) failed: " + result_text(r);
            return;
        }
    }
    if (CUptiResult r = a.register_callbacks(on_buffer_requested, on_buffer_completed); r != CUPTI_SUCCESS)
        why_ = "cuptiActivityRegisterCallbacks failed: " + result_text(r);
}

void KernelTracer::enable() {
    if (!available() || enabled_) return;
    for (CUpti_ActivityKind k : kKinds) {
        if (CUptiResult r = api().enable(k); r != CUPTI_SUCCESS) {
            why_ = "cuptiActivityEnable failed: " + result_text(r) + " (is a profiler attached?)";
            for (CUpti_ActivityKind d : kKinds) api().disable(d);
            return;
        }
    }
    enabled_ = true;
}

void KernelTracer::disable() {
    if (!enabled_) return;
    api().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind k : kKinds) api().disable(k);
    enabled_ = false;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_spans.clear();
}

void KernelTracer::discard() {
    if (!enabled_) return;
    api().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(g_mutex);
    g_spans.clear();
}

std::uint64_t KernelTracer::span_ns() {
    if (!enabled_) return 0;
    api().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(g_mutex);
    const std::uint64_t ns = region_span_ns(g_spans);
    g_spans.clear();
    return ns;
}

}  // namespace tb::cuda

#else  // built without CUPTI's headers: events only

namespace tb::cuda {

KernelTracer& KernelTracer::instance() {
    static KernelTracer t;
    return t;
}
KernelTracer::KernelTracer() : why_("tribench was built without CUPTI's headers (cupti.h)") {}
void KernelTracer::enable() {}
void KernelTracer::disable() {}
void KernelTracer::discard() {}
std::uint64_t KernelTracer::span_ns() { return 0; }

}  // namespace tb::cuda
#endif
