// The cuda-native and cuda-prelude backends: NVRTC output loaded and launched through the
// driver API on one non-blocking stream of the device's primary context.
#include "cuda_device.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <mutex>
#include <type_traits>
#include <unordered_map>

#include "cuda_api.hpp"
#include "cuda_device_impl.hpp"
#include "kernel_tracer.hpp"
#include "nvml_api.hpp"
#include "nvrtc_api.hpp"
#include "stream_gate.hpp"

namespace tb::cuda {
namespace {

std::size_t align_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }

const char* arg_kind(const Arg& a) {
    static const char* const kinds[] = {"a buffer", "an int32", "a uint32", "an int64", "a float", "a double", "LocalMem"};
    static_assert(std::variant_size_v<Arg> == std::size(kinds), "one name per Arg alternative");
    return kinds[a.index()];
}

// Destructors cannot throw: a failed release is reported and the rest still released.
void warn_if_failed(CUresult r, const char* call) {
    if (r != CUDA_SUCCESS) std::fprintf(stderr, "tribench: warning: %s failed: %s\n", call, describe(r).c_str());
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string mib(std::uint64_t bytes, bool round_up) {
    const std::uint64_t m = 1ull << 20;
    return std::to_string(round_up ? (bytes + m - 1) / m : bytes / m);
}

}  // namespace

void pack_args(const Args& args, const KernelMeta& k, PackedArgs& out) {
    const auto& v = args.values();
    const auto where = [&] { return "kernel '" + k.name + "' (" + k.file + ")"; };
    if (k.has_signature) {
        if (static_cast<int>(v.size()) != k.signature.param_count)
            throw Error(where() + " takes " + std::to_string(k.signature.param_count) + " arguments but the host passed " +
                        std::to_string(v.size()));
        const auto& locals = k.signature.local_params;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const bool local_param = std::find(locals.begin(), locals.end(), static_cast<int>(i)) != locals.end();
            const bool local_arg = std::holds_alternative<LocalMem>(v[i]);
            if (local_param && !local_arg)
                throw Error(where() + ": argument " + std::to_string(i) + " is a __local pointer but the host passed " +
                            arg_kind(v[i]));
            if (!local_param && local_arg)
                throw Error(where() + ": argument " + std::to_string(i) +
                            " is LocalMem but that parameter is not a __local pointer");
        }
    }

    out.slots.clear();
    out.sizes.clear();
    out.pointers.clear();
    std::size_t shared = 0;
    const bool pass_offsets = k.dialect == Dialect::OpenCL;
    for (const Arg& a : v) {
        std::uint64_t slot = 0;
        std::size_t size = 0;
        if (const auto* l = std::get_if<LocalMem>(&a)) {
            const std::size_t offset = align_up(shared, kLocalAlign);
            shared = offset + l->bytes;
            if (!pass_offsets) continue;
            const std::size_t index = out.slots.size();
            if (k.has_param_sizes && index < k.param_sizes.size() && k.param_sizes[index] == 8) {
                // NVIDIA OpenCL's convention: the block's address in the shared window.
                if (k.static_shared > 0)
                    throw Error(where() + ": argument " + std::to_string(index) +
                                " is a 64-bit __local address, but the kernel also has " +
                                std::to_string(k.static_shared) +
                                " bytes of static shared memory, after which the address of its dynamic "
                                "shared memory is not known");
                out.slots.push_back(k.dynamic_shared_address + offset);
                out.sizes.push_back(8);
                continue;
            }
            if (offset > std::numeric_limits<unsigned int>::max())
                throw Error(where() + ": local memory offset " + std::to_string(offset) + " does not fit in 32 bits");
            const auto off = static_cast<unsigned int>(offset);
            std::memcpy(&slot, &off, sizeof off);
            size = sizeof off;
        } else {
            std::visit(
                [&](const auto& x) {
                    using T = std::decay_t<decltype(x)>;
                    if constexpr (std::is_same_v<T, BufferRef>) {
                        const CUdeviceptr p = x.handle;
                        std::memcpy(&slot, &p, sizeof p);
                        size = sizeof p;
                    } else if constexpr (!std::is_same_v<T, LocalMem>) {
                        std::memcpy(&slot, &x, sizeof x);  // little-endian: the value sits in the low bytes
                        size = sizeof x;
                    }
                },
                a);
        }
        out.slots.push_back(slot);
        out.sizes.push_back(size);
    }
    out.shared_bytes = shared;

    if (k.has_param_sizes) {
        if (out.sizes.size() != k.param_sizes.size())
            throw Error(where() + " has " + std::to_string(k.param_sizes.size()) + " parameters but the host passed " +
                        std::to_string(out.sizes.size()) + " values" +
                        (pass_offsets ? "" : " (LocalMem arguments are not parameters of CUDA kernels)"));
        for (std::size_t i = 0; i < out.sizes.size(); ++i)
            if (out.sizes[i] != k.param_sizes[i])
                throw Error(where() + ": parameter " + std::to_string(i) + " is " + std::to_string(k.param_sizes[i]) +
                            " bytes but the host passed " + std::to_string(out.sizes[i]) + " bytes");
    }
    for (auto& s : out.slots) out.pointers.push_back(&s);
}

namespace {

class CudaDevice;

class CudaModule final : public Module {
public:
    CudaModule(CudaDevice* dev, CUmodule mod, std::string file, Dialect dialect, std::vector<KernelSignature> sigs);
    ~CudaModule() override;
    Kernel kernel(const std::string& name) override;

private:
    CudaDevice* dev_;
    CUmodule mod_;
    std::string file_;
    Dialect dialect_;
    std::vector<KernelSignature> sigs_;
    std::vector<CUfunction> registered_;
};

class CudaGraph final : public Graph {
public:
    CudaGraph(CudaDevice* dev, CUgraph graph, CUgraphExec exec);
    ~CudaGraph() override;
    void launch() override;

private:
    CudaDevice* dev_;
    CUgraph graph_;
    CUgraphExec exec_;
};

// Names, attributes and memory of one device; free memory needs a context and is left 0.
DeviceInfo describe_device(CUdevice d, const std::string& backend_id) {
    const auto& api = driver();
    DeviceInfo info;
    info.backend = backend_id;
    char name[256] = {};
    TB_CU(cuDeviceGetName, name, static_cast<int>(sizeof name - 1), d);
    info.name = name;
    info.vendor = "NVIDIA";
    info.platform = "CUDA";
    info.driver_version = version_string(api.driver_version);
    info.runtime_version = version_string(api.api_version);
    try {
        info.compiler_version = "NVRTC " + nvrtc_version();
    } catch (const Error&) {
        info.compiler_version = "NVRTC not found";  // listing works without it; compiling says why
    }
    auto attr = [&](CUdevice_attribute a) {
        int v = 0;
        TB_CU(cuDeviceGetAttribute, &v, a, d);
        return v;
    };
    // Clocks are informational and some drivers stop reporting them: 0 means unknown.
    auto attr_or_zero = [&](CUdevice_attribute a) {
        int v = 0;
        return api.cuDeviceGetAttribute(&v, a, d) == CUDA_SUCCESS ? v : 0;
    };
    info.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    info.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    info.compute_units = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    std::size_t total = 0;
    TB_CU(cuDeviceTotalMem, &total, d);
    info.global_mem_bytes = total;
    info.max_alloc_bytes = total;  // CUDA has no per-allocation limit below the memory size
    // Opt-in shared memory: launches above 48 KiB raise the kernel's limit up to this.
    info.max_local_mem_bytes = static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
    info.max_work_group_size = static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    info.simd_width = attr_or_zero(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    info.clock_mhz = attr_or_zero(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;  // kHz
    info.mem_clock_mhz = attr_or_zero(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000;
    info.mem_bus_width_bits = attr_or_zero(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    info.is_gpu = true;
    info.is_nvidia = true;
    return info;
}

// Every CUDA context created while CUPTI's activity API is loaded costs host memory that
// outlives the context, cuptiFinalize or not: with the primary context destroyed and made
// again at each device open, the heap grew 14 MB a round of the ci profile on cuda-native
// (H100, 2026-11-25; docs/robustness.md, "Soak test"). So the first open of a GPU keeps one
// reference to its primary context, and later opens reuse that context.
//
// The same holds for the stream: every device object of the process on one GPU (cuda-native,
// cuda-prelude, vendor through cuda-native, each round of --repeat) enqueues on one kept
// stream. With a stream of its own per device object, the device that came second ran short
// kernels slower: stencil 64x64x64 unfused graph 7.79 ms on the first device's stream, 8.61
// on the second's; kmeans 200k-d2-k5 full graph 0.0652 against 0.0715; the same for a second
// round of --repeat, whose devices are opened again (H200, 2026-11-26; streams created but
// never used changed nothing, so it is the stream that had run work before). The suite runs
// cuda-prelude after cuda-native, so that cost showed as a gap of the prelude
// (docs/measurement.md, "One stream per GPU"). Device objects are used one at a time, so
// sharing the stream serialises nothing that ran concurrently before.
//
// The references and streams are dropped when the process exits normally, so that the context
// is destroyed then: tools such as compute-sanitizer's leak check report at context destruction.
class KeptContexts {
public:
    // The kept stream of `dev`, made on the first call (its primary context is current).
    CUstream keep(CUdevice dev) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const Kept& k : kept_)
            if (k.dev == dev) return k.stream;
        Kept k{dev, nullptr, nullptr};
        TB_CU(cuDevicePrimaryCtxRetain, &k.ctx, dev);
        if (CUresult r = driver().cuStreamCreate(&k.stream, CU_STREAM_NON_BLOCKING); r != CUDA_SUCCESS) {
            warn_if_failed(driver().cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease");
            check(r, "cuStreamCreate");
        }
        kept_.push_back(k);
        return k.stream;
    }
    ~KeptContexts() {
        const auto& api = driver();
        for (const Kept& k : kept_) {
            warn_if_failed(api.cuCtxSetCurrent(k.ctx), "cuCtxSetCurrent");
            warn_if_failed(api.cuStreamDestroy(k.stream), "cuStreamDestroy");
            warn_if_failed(api.cuCtxSetCurrent(nullptr), "cuCtxSetCurrent");
            warn_if_failed(api.cuDevicePrimaryCtxRelease(k.dev), "cuDevicePrimaryCtxRelease");
        }
    }

private:
    struct Kept {
        CUdevice dev;
        CUcontext ctx;
        CUstream stream;
    };
    std::mutex mutex_;
    std::vector<Kept> kept_;
};

// Keeps `dev`'s primary context (current on this thread) and returns the GPU's stream.
CUstream kept_stream(CUdevice dev) {
    static KeptContexts kept;  // constructed after driver()'s table, so destroyed before it
    return kept.keep(dev);
}

class CudaDevice final : public Device {
public:
    CudaDevice(const std::string& backend_id, Dialect dialect, int ordinal) : dialect_(dialect) {
        try {
            TB_CU(cuDeviceGet, &dev_, ordinal);
            info_ = describe_device(dev_, backend_id);
            TB_CU(cuDevicePrimaryCtxRetain, &ctx_, dev_);
            TB_CU(cuCtxSetCurrent, ctx_);
            stream_ = kept_stream(dev_);
            TB_CU(cuEventCreate, &start_, CU_EVENT_DEFAULT);
            TB_CU(cuEventCreate, &stop_, CU_EVENT_DEFAULT);
            std::size_t free_bytes = 0, total_bytes = 0;
            TB_CU(cuMemGetInfo, &free_bytes, &total_bytes);
            info_.free_mem_bytes = free_bytes;
            TB_CU(cuDeviceGetAttribute, &reserved_shared_, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, dev_);
        } catch (...) {
            release();
            throw;
        }
    }

    ~CudaDevice() override {
        if (live_buffers_ || live_modules_ || live_graphs_)
            std::fprintf(stderr,
                         "tribench: warning: %zu buffers, %zu modules and %zu graphs outlive their CUDA device "
                         "(destroy them first)\n",
                         live_buffers_, live_modules_, live_graphs_);
        release();
    }

    const DeviceInfo& info() const override { return info_; }
    Dialect dialect() const override { return dialect_; }

    void upload(const Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) override {
        check_range("upload", dst, bytes, offset);
        if (bytes == 0) return;
        bind();
        open_gate_early();
        TB_CU(cuStreamSynchronize, stream_);  // time the copy alone, not earlier work
        auto timer = time_upload(bytes);
        TB_CU(cuMemcpyHtoDAsync, dst.handle() + offset, src, bytes, stream_);
        TB_CU(cuStreamSynchronize, stream_);
    }

    void download(void* dst, const Buffer& src, std::size_t bytes, std::size_t offset) override {
        check_range("download", src, bytes, offset);
        if (bytes == 0) return;
        bind();
        open_gate_early();
        TB_CU(cuStreamSynchronize, stream_);  // time the copy alone, not earlier work
        auto timer = time_download(bytes);
        TB_CU(cuMemcpyDtoHAsync, dst, src.handle() + offset, bytes, stream_);
        TB_CU(cuStreamSynchronize, stream_);
    }

    // Stream-ordered (no host wait): later launches and downloads see the result, and it
    // can be part of timed work or of a captured graph.
    void copy(const Buffer& dst, const Buffer& src, std::size_t bytes) override {
        check_range("copy to", dst, bytes, 0);
        check_range("copy from", src, bytes, 0);
        if (bytes == 0) return;
        bind();
        TB_CU(cuMemcpyDtoDAsync, dst.handle(), src.handle(), bytes, stream_);
        count_command();
    }

    void fill_u32(const Buffer& dst, std::uint32_t pattern) override {
        if (!dst) throw Error("fill_u32: empty buffer");
        if (dst.bytes() < 4) return;
        bind();
        TB_CU(cuMemsetD32Async, dst.handle(), pattern, dst.bytes() / 4, stream_);
        count_command();
    }

    std::unique_ptr<Module> compile(const Source& src, const CompileOptions& opt) override {
        const auto t0 = std::chrono::steady_clock::now();
        PtxBuild b = compile_to_ptx(src, opt, opt.arch.empty() ? own_arch() : opt.arch);
        bind();
        char error_log[16384] = {};
        char info_log[16384] = {};
        CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                               CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
        void* values[] = {error_log, reinterpret_cast<void*>(std::uintptr_t{sizeof error_log - 1}), info_log,
                          reinterpret_cast<void*>(std::uintptr_t{sizeof info_log - 1})};
        CUmodule mod = nullptr;
        CUresult r = driver().cuModuleLoadDataEx(&mod, b.ptx.c_str(), 4, keys, values);
        if (r != CUDA_SUCCESS) {
            std::string hint;
            if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
                hint = " [NVRTC " + nvrtc_version() + " is newer than this driver (CUDA " + info_.driver_version +
                       "): update the driver or use an older NVRTC]";
            throw Error(src.file_name + ": cuModuleLoadDataEx failed: " + describe(r) + hint +
                        (error_log[0] ? "\n" + std::string(error_log) : ""));
        }
        auto m = std::make_unique<CudaModule>(this, mod, src.file_name, src.dialect, std::move(b.kernels));
        m->ptx = std::move(b.ptx);
        m->log = std::move(b.log);
        if (info_log[0]) m->log += (m->log.empty() ? "" : "\n") + std::string(info_log);
        m->from_cache = b.from_cache;
        m->compile_ms = ms_since(t0);  // NVRTC (or the cache) plus the driver's PTX load
        return m;
    }

    void launch(const Kernel& k, Dim3 grid, Dim3 block, const Args& args) override {
        ++launches_;
        auto fn = static_cast<CUfunction>(k.handle);
        auto it = kernels_.find(fn);
        if (it == kernels_.end())
            throw Error("launch of kernel '" + k.name + "': not a kernel of a live module of this device");
        KernelMeta& meta = it->second;
        pack_args(args, meta, scratch_);
        bind();
        const std::size_t shared = scratch_.shared_bytes;
        if (shared > static_cast<std::size_t>(meta.max_dynamic_shared)) raise_shared_limit(fn, meta, shared);
        CUresult r = driver().cuLaunchKernel(fn, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                             static_cast<unsigned int>(shared), stream_,
                                             scratch_.pointers.empty() ? nullptr : scratch_.pointers.data(), nullptr);
        if (r != CUDA_SUCCESS)
            throw Error("cuLaunchKernel failed: " + describe(r) + " (kernel '" + meta.name + "' of " + meta.file +
                        ", grid " + dims(grid) + ", block " + dims(block) + ", " + std::to_string(shared) +
                        " bytes of local memory)");
        count_command();
    }

    void synchronize() override {
        bind();
        open_gate_early();
        TB_CU(cuStreamSynchronize, stream_);
    }

    void* native_queue() const override { return stream_; }

    std::size_t max_group_size(const Kernel& k) override {
        bind();
        int n = 0;
        TB_CU(cuFuncGetAttribute, &n, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, static_cast<CUfunction>(k.handle));
        return std::size_t(n);
    }

    double time_ms(const std::function<void()>& work) override {
        bind();
        KernelTracer& tracer = KernelTracer::instance();
        last_segments_ = 1;
        if (timing_mode() == TimingMode::Plain) {
            tracer.disable();  // tracing costs host time per launch: only while gated
            TB_CU(cuEventRecord, start_, stream_);
            work();
            TB_CU(cuEventRecord, stop_, stream_);
            TB_CU(cuEventSynchronize, stop_);
            float ms = 0;
            TB_CU(cuEventElapsedTime, &ms, start_, stop_);
            last_clock_ = "events";
            return ms;
        }
        if (trace_next_region_)
            tracer.enable();
        else
            tracer.disable();
        region_ = GatedRegion{};
        gate_opened_early_ = false;
        try {
            open_segment();
            work();
            if (segment_commands_ > 0 || region_.segments == 0)
                close_segment();
            else
                drop_segment();  // the work filled its last segment exactly
        } catch (...) {
            release_gate();
            throw;
        }
        last_segments_ = region_.segments;
        const double events_ms = region_.events_ms;
        if (in_series_) {
            series_fastest_ms_ = std::min(series_fastest_ms_, events_ms);
            trace_next_region_ = series_fastest_ms_ < kUntracedFromMs;
        } else {
            trace_next_region_ = events_ms < (trace_next_region_ ? kUntracedFromMs : kTracedBelowMs);
        }
        if (tracer.enabled() && region_.cupti_trusted) {
            last_clock_ = "cupti";
            return double(region_.cupti_ns) / 1e6;  // correctly rounded: 74272 ns prints as 0.074272 ms
        }
        last_clock_ = "events";
        return events_ms;
    }

    bool supports_gated_timing() const override { return true; }
    bool needs_warmup_sample() const override { return timing_mode() == TimingMode::Gated; }
    bool scatters_placement() const override { return true; }
    void start_timing_series() override {
        trace_next_region_ = true;
        in_series_ = true;
        series_fastest_ms_ = std::numeric_limits<double>::infinity();
    }
    std::string timing_clock() const override { return last_clock_; }

    std::optional<ClockSample> clock_sample() override {
        if (pci_bus_id_.empty()) {
            char id[64] = {};
            TB_CU(cuDeviceGetPCIBusId, id, static_cast<int>(sizeof id - 1), dev_);
            pci_bus_id_ = id;
        }
        return read_gpu_clock(pci_bus_id_);
    }

    bool supports_graphs() const override { return true; }

    std::unique_ptr<Graph> capture(const std::function<void()>& work) override {
        bind();
        // Thread-local: other threads' unsafe calls do not break this capture.
        TB_CU(cuStreamBeginCapture, stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
        try {
            work();
        } catch (...) {
            CUgraph partial = nullptr;  // end the capture so the stream is usable again
            if (driver().cuStreamEndCapture(stream_, &partial) == CUDA_SUCCESS && partial)
                warn_if_failed(driver().cuGraphDestroy(partial), "cuGraphDestroy");
            throw;
        }
        CUgraph graph = nullptr;
        TB_CU(cuStreamEndCapture, stream_, &graph);
        CUgraphExec exec = nullptr;
        CUresult r = driver().cuGraphInstantiateWithFlags(&exec, graph, 0);
        if (r != CUDA_SUCCESS) {
            warn_if_failed(driver().cuGraphDestroy(graph), "cuGraphDestroy");
            check(r, "cuGraphInstantiate");
        }
        return std::make_unique<CudaGraph>(this, graph, exec);
    }

    // Makes the device's context current on the calling thread (a no-op when it already is).
    void bind() const {
        CUcontext current = nullptr;
        TB_CU(cuCtxGetCurrent, &current);
        if (current != ctx_) TB_CU(cuCtxSetCurrent, ctx_);
    }
    CUstream stream() const { return stream_; }
    void register_kernel(CUfunction fn, KernelMeta meta) { kernels_[fn] = std::move(meta); }
    std::uint64_t reserved_shared_per_block() const { return static_cast<std::uint64_t>(reserved_shared_); }
    void forget_kernel(CUfunction fn) { kernels_.erase(fn); }
    void count_module(int delta) { live_modules_ += static_cast<std::size_t>(delta); }
    void count_graph(int delta) { live_graphs_ += static_cast<std::size_t>(delta); }
    void count_graph_launch() { ++launches_; }
    void graph_launched() { count_command(); }

protected:
    std::uint64_t raw_alloc(std::size_t bytes) override {
        bind();
        std::size_t free_bytes = 0, total_bytes = 0;
        TB_CU(cuMemGetInfo, &free_bytes, &total_bytes);
        if (bytes > free_bytes)
            throw Error("dataset needs " + mib(bytes, true) + " MiB but the device has " + mib(free_bytes, false) +
                        " MiB free");
        CUdeviceptr p = 0;
        TB_CU(cuMemAlloc, &p, std::max<std::size_t>(bytes, 1));  // an empty buffer still needs a handle
        ++live_buffers_;
        return p;
    }

    void raw_free(std::uint64_t handle) noexcept override {
        try {
            bind();
        } catch (const Error& e) {
            std::fprintf(stderr, "tribench: warning: %s\n", e.what());
        }
        warn_if_failed(driver().cuMemFree(static_cast<CUdeviceptr>(handle)), "cuMemFree");
        --live_buffers_;
    }

private:
    static std::string dims(Dim3 d) {
        return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
    }

    static void check_range(const char* what, const Buffer& b, std::size_t bytes, std::size_t offset) {
        if (!b) throw Error(std::string(what) + " an empty buffer");
        if (offset > b.bytes() || bytes > b.bytes() - offset)
            throw Error(std::string(what) + " buffer: " + std::to_string(bytes) + " bytes at offset " +
                        std::to_string(offset) + " overrun its " + std::to_string(b.bytes()) + " bytes");
    }

    // The PTX target: the device's compute capability, or the newest NVRTC knows if the
    // device is newer (the driver JIT-compiles PTX forward).
    std::string own_arch() {
        if (arch_.empty()) {
            const int cc = info_.cc_major * 10 + info_.cc_minor;
            int pick = cc;
            const auto archs = nvrtc_supported_archs();
            if (!archs.empty() && std::find(archs.begin(), archs.end(), cc) == archs.end()) {
                int best = 0;
                for (int a : archs)
                    if (a <= cc) best = std::max(best, a);
                if (best > 0) pick = best;
            }
            arch_ = "sm_" + std::to_string(pick);
        }
        return arch_;
    }

    // Dynamic shared memory beyond the default limit (48 KiB less the kernel's static
    // shared memory) must be opted into per kernel.
    void raise_shared_limit(CUfunction fn, KernelMeta& meta, std::size_t shared) {
        const auto static_shared = static_cast<std::size_t>(meta.static_shared);
        if (shared + static_shared > info_.max_local_mem_bytes)
            throw Error("kernel '" + meta.name + "' (" + meta.file + ") needs " + std::to_string(shared) +
                        " bytes of local memory plus " + std::to_string(static_shared) +
                        " bytes of static shared memory, but the device allows " +
                        std::to_string(info_.max_local_mem_bytes) + " per block");
        TB_CU(cuFuncSetAttribute, fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(shared));
        meta.max_dynamic_shared = static_cast<int>(shared);
    }

    // The gate's spinning kernel, compiled on first use (a device only listed never needs it).
    StreamGate& stream_gate() {
        if (!gate_) {
            const Source src{"tribench/gate.cu", gate_kernel_source(), Dialect::Cuda};
            const PtxBuild b = compile_to_ptx(src, CompileOptions{}, own_arch());
            bind();
            gate_ = std::make_unique<StreamGate>(b.ptx);
        }
        return *gate_;
    }

    void release() noexcept {
        if (!ctx_) return;
        const auto& api = driver();
        warn_if_failed(api.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
        if (stream_) warn_if_failed(api.cuStreamSynchronize(stream_), "cuStreamSynchronize");  // kept, not destroyed
        gate_.reset();
        if (start_) warn_if_failed(api.cuEventDestroy(start_), "cuEventDestroy");
        if (stop_) warn_if_failed(api.cuEventDestroy(stop_), "cuEventDestroy");
        // The thread must not keep a context that the release may destroy.
        warn_if_failed(api.cuCtxSetCurrent(nullptr), "cuCtxSetCurrent");
        warn_if_failed(api.cuDevicePrimaryCtxRelease(dev_), "cuDevicePrimaryCtxRelease");
        ctx_ = nullptr;
    }

    DeviceInfo info_;
    Dialect dialect_;
    CUdevice dev_ = 0;
    int reserved_shared_ = 0;  // CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK
    CUcontext ctx_ = nullptr;
    CUstream stream_ = nullptr;
    CUevent start_ = nullptr, stop_ = nullptr;
    // Enqueuing one sample takes microseconds to milliseconds; a second means the host is
    // blocked behind the held stream and never will release it.
    static constexpr std::uint64_t kGateTimeoutNs = 1000000000;
    // CUPTI's concurrent kernel tracing slows kernels of very many blocks by up to ~2%
    // (docs/measurement.md, "Which clock"); the events' own excess over CUPTI, 2.3-2.9 us, is
    // under 1% from 0.25 ms on. So after a gated region of 0.25 ms or more the next is
    // timed by the events, untraced, until one takes less than 0.2 ms. Within a series
    // (start_timing_series: a benchmark's samples) the series' fastest region decides: traced
    // once one took under 0.25 ms. One slow sample had switched a 0.24 ms benchmark to the
    // events, and so had a slow first run after the host's validation (the GPU idle meanwhile).
    static constexpr double kUntracedFromMs = 0.25, kTracedBelowMs = 0.2;
    bool trace_next_region_ = true;
    bool in_series_ = false;
    double series_fastest_ms_ = 0;
    std::unique_ptr<StreamGate> gate_;
    bool gate_held_ = false;  // a gated time_ms region is being enqueued
    bool gate_opened_early_ = false;
    // The segments of a gated region so far (Device::kGatedSegmentCommands): the events' sum,
    // and CUPTI's while every segment's span was trusted.
    struct GatedRegion {
        double events_ms = 0;
        std::uint64_t cupti_ns = 0;
        bool cupti_trusted = true;
        std::size_t segments = 0;
    } region_;
    std::size_t segment_commands_ = 0;
    std::string pci_bus_id_;
    std::string last_clock_ = "events";

    // A segment of a gated region: the gate held, then the start event.
    void open_segment() {
        KernelTracer& tracer = KernelTracer::instance();
        if (tracer.enabled()) tracer.discard();
        stream_gate().hold(stream_, kGateTimeoutNs);
        gate_held_ = true;
        segment_commands_ = 0;
        TB_CU(cuEventRecord, start_, stream_);
    }

    // The stop event, the gate released, the segment run and its span added to region_.
    void close_segment() {
        TB_CU(cuEventRecord, stop_, stream_);
        release_gate();
        TB_CU(cuEventSynchronize, stop_);
        if (gate_opened_early_)
            throw GateTimeout("gated timing: the timed work waited for the device (a blocking call inside the region)");
        if (stream_gate().timed_out())
            throw GateTimeout("gated timing: the stream was held for " + std::to_string(kGateTimeoutNs / 1000000) +
                              " ms while the work was enqueued (it synchronises, or enqueues more launches than "
                              "the stream queues)");
        float ms = 0;
        TB_CU(cuEventElapsedTime, &ms, start_, stop_);
        region_.events_ms += ms;
        ++region_.segments;
        KernelTracer& tracer = KernelTracer::instance();
        if (!tracer.enabled()) return;
        // CUPTI's span lies inside the events' bracket; one that does not (by more than the
        // events' 0.5 us resolution) is not trusted.
        const std::uint64_t ns = tracer.span_ns();
        if (ns > 0 && double(ns) / 1e6 <= double(ms) + 0.001)
            region_.cupti_ns += ns;
        else
            region_.cupti_trusted = false;
    }

    // An empty segment is not timed (CUPTI would find no work in it): its gate released.
    void drop_segment() {
        release_gate();
        TB_CU(cuStreamSynchronize, stream_);
    }

    // Lets a held stream run (once; a no-op when the gate is not held).
    void release_gate() {
        if (!gate_held_) return;
        gate_held_ = false;
        gate_->release();
    }

    // Called after each command is enqueued: a held segment that is full is run and timed,
    // and the next one held.
    void count_command() {
        if (!gate_held_ || ++segment_commands_ < kGatedSegmentCommands) return;
        close_segment();
        open_segment();
    }

    // A blocking call inside a gated region would wait for the gate's timeout: open it first
    // and void the sample (time_ms throws GateTimeout).
    void open_gate_early() {
        if (!gate_held_) return;
        release_gate();
        gate_opened_early_ = true;
    }
    std::string arch_;
    std::unordered_map<CUfunction, KernelMeta> kernels_;  // kernels of live modules, by handle
    PackedArgs scratch_;
    std::size_t live_buffers_ = 0, live_modules_ = 0, live_graphs_ = 0;
};

CudaModule::CudaModule(CudaDevice* dev, CUmodule mod, std::string file, Dialect dialect,
                       std::vector<KernelSignature> sigs)
    : dev_(dev), mod_(mod), file_(std::move(file)), dialect_(dialect), sigs_(std::move(sigs)) {
    dev_->count_module(+1);
}

CudaModule::~CudaModule() {
    for (CUfunction fn : registered_) dev_->forget_kernel(fn);
    try {
        dev_->bind();
    } catch (const Error& e) {
        std::fprintf(stderr, "tribench: warning: %s\n", e.what());
    }
    warn_if_failed(driver().cuModuleUnload(mod_), "cuModuleUnload");
    dev_->count_module(-1);
}

// Number of parameters of kernel `name` in PTX text: the `.param` declarations between
// `.entry name(` and the closing parenthesis; -1 if the entry is not found.
int ptx_param_count(const std::string& ptx, const std::string& name) {
    const std::string key = ".entry " + name + "(";
    std::size_t pos = ptx.find(key);
    if (pos == std::string::npos) return -1;
    pos += key.size();
    const std::size_t end = ptx.find(')', pos);
    if (end == std::string::npos) return -1;
    int n = 0;
    for (std::size_t p = ptx.find(".param", pos); p != std::string::npos && p < end; p = ptx.find(".param", p + 6)) ++n;
    return n;
}

Kernel CudaModule::kernel(const std::string& name) {
    dev_->bind();
    CUfunction fn = nullptr;
    CUresult r = driver().cuModuleGetFunction(&fn, mod_, name.c_str());
    if (r == CUDA_ERROR_NOT_FOUND) throw Error("kernel '" + name + "' not found in " + file_);
    check(r, "cuModuleGetFunction");

    KernelMeta meta;
    meta.name = name;
    meta.file = file_;
    meta.dialect = dialect_;
    int index = -1;
    if (dialect_ == Dialect::OpenCL) {
        auto it = std::find_if(sigs_.begin(), sigs_.end(), [&](const KernelSignature& s) { return s.name == name; });
        if (it == sigs_.end())
            throw Error("kernel '" + name + "' of " + file_ + " is not a __kernel of the translated source");
        meta.has_signature = true;
        meta.signature = *it;
        index = static_cast<int>(it - sigs_.begin());
    }
    TB_CU(cuFuncGetAttribute, &meta.static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
    TB_CU(cuFuncGetAttribute, &meta.max_dynamic_shared, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fn);
    meta.dynamic_shared_address = dev_->reserved_shared_per_block();
    // Parameter sizes let a launch catch a host/kernel mismatch before the GPU reads garbage.
    // The count comes from the PTX's `.entry` signature: probing past the last parameter
    // would work too, but each probe is an API error that compute-sanitizer reports.
    const int count = ptx_param_count(ptx, name);
    if (auto get_param = driver().cuFuncGetParamInfo; get_param && count >= 0) {
        meta.has_param_sizes = true;
        for (std::size_t i = 0; i < std::size_t(count); ++i) {
            std::size_t offset = 0, size = 0;
            if (get_param(fn, i, &offset, &size) != CUDA_SUCCESS) {  // unknown: launch unchecked
                meta.param_sizes.clear();
                meta.has_param_sizes = false;
                break;
            }
            meta.param_sizes.push_back(size);
        }
    }
    if (std::find(registered_.begin(), registered_.end(), fn) == registered_.end()) registered_.push_back(fn);
    dev_->register_kernel(fn, std::move(meta));
    return Kernel{name, fn, index};
}

CudaGraph::CudaGraph(CudaDevice* dev, CUgraph graph, CUgraphExec exec) : dev_(dev), graph_(graph), exec_(exec) {
    dev_->count_graph(+1);
}

CudaGraph::~CudaGraph() {
    try {
        dev_->bind();
    } catch (const Error& e) {
        std::fprintf(stderr, "tribench: warning: %s\n", e.what());
    }
    warn_if_failed(driver().cuGraphExecDestroy(exec_), "cuGraphExecDestroy");
    warn_if_failed(driver().cuGraphDestroy(graph_), "cuGraphDestroy");
    dev_->count_graph(-1);
}

void CudaGraph::launch() {
    dev_->bind();
    dev_->count_graph_launch();
    TB_CU(cuGraphLaunch, exec_, dev_->stream());
    dev_->graph_launched();
}

// Retains a device's primary context for the length of a scope.
class PrimaryContext {
public:
    explicit PrimaryContext(CUdevice d) : dev_(d) { TB_CU(cuDevicePrimaryCtxRetain, &ctx_, d); }
    ~PrimaryContext() { warn_if_failed(driver().cuDevicePrimaryCtxRelease(dev_), "cuDevicePrimaryCtxRelease"); }
    PrimaryContext(const PrimaryContext&) = delete;
    PrimaryContext& operator=(const PrimaryContext&) = delete;
    CUcontext get() const { return ctx_; }

private:
    CUdevice dev_;
    CUcontext ctx_ = nullptr;
};

class CudaBackend final : public Backend {
public:
    explicit CudaBackend(Dialect d) : dialect_(d) {}
    std::string id() const override { return dialect_ == Dialect::Cuda ? "cuda-native" : "cuda-prelude"; }
    Dialect dialect() const override { return dialect_; }
    bool compiles_with_nvrtc() const override { return true; }

    std::vector<DeviceInfo> devices() override {
        const auto& api = driver();  // throws the reason the backend is unavailable
        int n = 0;
        TB_CU(cuDeviceGetCount, &n);
        std::vector<DeviceInfo> out;
        for (int i = 0; i < n; ++i) {
            CUdevice d = 0;
            TB_CU(cuDeviceGet, &d, i);
            DeviceInfo info = describe_device(d, id());
            // Free memory is a context query: borrow the primary context without
            // disturbing the calling thread's current one.
            PrimaryContext ctx(d);
            TB_CU(cuCtxPushCurrent, ctx.get());
            std::size_t free_bytes = 0, total_bytes = 0;
            CUresult r = api.cuMemGetInfo(&free_bytes, &total_bytes);
            CUcontext popped = nullptr;
            CUresult pop = api.cuCtxPopCurrent(&popped);
            check(r, "cuMemGetInfo");
            check(pop, "cuCtxPopCurrent");
            info.free_mem_bytes = free_bytes;
            out.push_back(std::move(info));
        }
        return out;
    }

    std::unique_ptr<Device> open(std::size_t index) override {
        driver();
        int n = 0;
        TB_CU(cuDeviceGetCount, &n);
        if (index >= static_cast<std::size_t>(n))
            throw Error(id() + ": no device " + std::to_string(index) + " (" + std::to_string(n) + " CUDA devices)");
        return std::make_unique<CudaDevice>(id(), dialect_, static_cast<int>(index));
    }

private:
    Dialect dialect_;
};

}  // namespace
}  // namespace tb::cuda

namespace tb {

std::unique_ptr<Backend> make_cuda_backend(Dialect dialect) { return std::make_unique<cuda::CudaBackend>(dialect); }

}  // namespace tb
