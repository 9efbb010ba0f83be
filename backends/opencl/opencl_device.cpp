// The opencl backend: every device of every OpenCL platform, one context and one in-order
// profiling queue per opened device.
#include "opencl_device.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include "cl_api.hpp"
#include "cl_build.hpp"
#include "cl_events.hpp"
#include "cl_gate.hpp"
#include "cl_info.hpp"
#include "cl_launch_bounds.hpp"
#include "cl_module.hpp"

namespace tb {
namespace {

using cl::api;
using cl::check;

cl_mem to_mem(std::uint64_t handle) { return reinterpret_cast<cl_mem>(static_cast<std::uintptr_t>(handle)); }
std::uint64_t to_handle(cl_mem m) { return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(m)); }

std::string mib(std::uint64_t bytes) {
    char s[32];
    std::snprintf(s, sizeof s, "%.1f", double(bytes) / (1024.0 * 1024.0));
    return s;
}

// "OpenCL 3.0 CUDA 12.8" -> 300; 100 when the string does not follow the spec's format.
int platform_major_minor(cl_platform_id p) {
    const std::string v = cl::platform_string(p, CL_PLATFORM_VERSION);
    int major = 1, minor = 0;
    if (std::sscanf(v.c_str(), "OpenCL %d.%d", &major, &minor) != 2) return 100;
    return major * 100 + minor;
}

std::string dims_text(const std::size_t* d, cl_uint n) {
    std::string s;
    for (cl_uint i = 0; i < n; ++i) s += (i ? "x" : "") + std::to_string(d[i]);
    return s;
}

class OpenClDevice final : public Device {
public:
    explicit OpenClDevice(const cl::DeviceRef& ref)
        : ref_(ref), info_(cl::describe(ref)), nvidia_platform_(cl::is_nvidia_platform(ref.platform)) {
        const cl::Api& a = api();
        cl_int rc = CL_SUCCESS;
        const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                               reinterpret_cast<cl_context_properties>(ref.platform), 0};
        ctx_ = a.CreateContext(props, 1, &ref.device, nullptr, nullptr, &rc);
        check(rc, "clCreateContext");
        try {
            span_mode_ = cl::span_mode_from_environment();
            // Platforms before OpenCL 1.2 have no markers with events: an event per command.
            if (!a.EnqueueMarkerWithWaitList || platform_major_minor(ref.platform) < 102) span_mode_ = cl::SpanMode::each;
            queue_ = create_queue();
        } catch (...) {
            a.ReleaseContext(ctx_);
            throw;
        }
    }

    ~OpenClDevice() override {
        const cl::Api& a = api();
        a.Finish(queue_);  // let enqueued work end before its queue goes
        a.ReleaseCommandQueue(queue_);
        a.ReleaseContext(ctx_);
    }

    const DeviceInfo& info() const override { return info_; }
    Dialect dialect() const override { return Dialect::OpenCL; }

    void upload(const Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) override {
        check_range("upload", dst, bytes, offset);
        if (bytes == 0) return;
        open_gate_early();
        check(api().Finish(queue_), "clFinish");  // time the copy alone, not earlier work
        auto timer = time_upload(bytes);
        cl_event ev = nullptr;
        check(api().EnqueueWriteBuffer(queue_, to_mem(dst.handle()), CL_TRUE, offset, bytes, src, 0, nullptr, event_slot(ev)),
              "clEnqueueWriteBuffer");
        keep(ev);
    }

    void download(void* dst, const Buffer& src, std::size_t bytes, std::size_t offset) override {
        check_range("download", src, bytes, offset);
        if (bytes == 0) return;
        open_gate_early();
        check(api().Finish(queue_), "clFinish");
        auto timer = time_download(bytes);
        cl_event ev = nullptr;
        check(api().EnqueueReadBuffer(queue_, to_mem(src.handle()), CL_TRUE, offset, bytes, dst, 0, nullptr, event_slot(ev)),
              "clEnqueueReadBuffer");
        keep(ev);
    }

    void copy(const Buffer& dst, const Buffer& src, std::size_t bytes) override {
        check_range("copy source", src, bytes, 0);
        check_range("copy destination", dst, bytes, 0);
        if (bytes == 0) return;
        cl_event ev = nullptr;
        check(api().EnqueueCopyBuffer(queue_, to_mem(src.handle()), to_mem(dst.handle()), 0, 0, bytes, 0, nullptr,
                                      event_slot(ev)),
              "clEnqueueCopyBuffer");
        keep(ev);
    }

    void fill_u32(const Buffer& dst, std::uint32_t pattern) override {
        // The filled size must be a multiple of the pattern: whole 32-bit words only.
        const std::size_t bytes = dst.bytes() / 4 * 4;
        if (bytes == 0) return;
        cl_event ev = nullptr;
        check(api().EnqueueFillBuffer(queue_, to_mem(dst.handle()), &pattern, sizeof pattern, 0, bytes, 0, nullptr,
                                      event_slot(ev)),
              "clEnqueueFillBuffer");
        keep(ev);
    }

    std::unique_ptr<Module> compile(const Source& src, const CompileOptions& opt) override {
        cl::BuiltProgram built =
            cl::build_program(cl::BuildTarget{ctx_, ref_.device, info_.name, nvidia_platform_}, src, opt);
        auto m = std::make_unique<cl::ClModule>(built.program, src.file_name);
        m->ptx = std::move(built.binary);  // NVIDIA's platform: PTX text; others: not asked for
        m->log = std::move(built.log);
        m->compile_ms = built.compile_ms;
        return m;
    }

    void launch(const Kernel& k, Dim3 grid, Dim3 block, const Args& args) override {
        ++launches_;
        const cl::Api& a = api();
        auto kernel = static_cast<cl_kernel>(k.handle);
        if (!kernel) throw Error("opencl: launch of kernel '" + k.name + "' without a handle");
        if (grid.count() == 0 || block.count() == 0)
            throw Error("opencl: launch of '" + k.name + "' with an empty grid or block");
        set_args(kernel, k.name, args);

        // Only as many dimensions as the launch uses, so get_work_dim() tells the truth.
        const cl_uint dims = (grid.z > 1 || block.z > 1) ? 3 : (grid.y > 1 || block.y > 1) ? 2 : 1;
        const std::size_t global[3] = {std::size_t(grid.x) * block.x, std::size_t(grid.y) * block.y,
                                       std::size_t(grid.z) * block.z};
        const std::size_t local[3] = {block.x, block.y, block.z};
        cl_event ev = nullptr;
        check(a.EnqueueNDRangeKernel(queue_, kernel, dims, nullptr, global, local, 0, nullptr, event_slot(ev)),
              "clEnqueueNDRangeKernel(" + k.name + ", global " + dims_text(global, dims) + ", local " +
                  dims_text(local, dims) + ")");
        keep(ev);
    }

    void synchronize() override {
        open_gate_early();
        check(api().Finish(queue_), "clFinish");
    }
    void* native_queue() const override { return queue_; }

    std::size_t max_group_size(const Kernel& k) override {
        const auto kernel = static_cast<cl_kernel>(k.handle);
        std::size_t n = 0;
        check(api().GetKernelWorkGroupInfo(kernel, ref_.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof n, &n, nullptr),
              "clGetKernelWorkGroupInfo");
        if (!nvidia_platform_) return n;
        // NVIDIA's runtime reports 256 for fft_r4096_wide built from PTX that says .maxntid 1024
        // (64 registers), and launches it with 1024 work-items (H100, driver 580.159.04,
        // 2026-11-27): there the PTX's own limit, which ptxas fits the registers to, is the
        // kernel's (docs/opencl-backend.md, "Work-group limits").
        cl_program program = nullptr;
        check(api().GetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, nullptr),
              "clGetKernelInfo(CL_KERNEL_PROGRAM)");
        const std::uint64_t declared = cl::ptx_entry_max_items(cl::program_binary(program), k.name);
        return declared > 0 ? std::size_t(std::min<std::uint64_t>(declared, info_.max_work_group_size)) : n;
    }

    bool supports_gated_timing() const override { return cl::QueueGate::supported(); }

    void start_timing_series() override { series_commands_ = 0; }

    double time_ms(const std::function<void()>& work) override {
        if (timing_) throw Error("opencl: time_ms regions cannot be nested");
        // Gated, the queue is held while events are created, so their host cost is hidden, but
        // an event on every command also puts ~2.7 us between dependent kernels on NVIDIA's
        // runtime, and the closing marker of `bracket` adds its own processing to the span:
        // `ends` puts events on the first command and the one the series' last region ended
        // with (docs/opencl-backend.md, "Timing"). TRIBENCH_OPENCL_TIMING=each keeps one on
        // every command, to measure that cost.
        gated_ = timing_mode() == TimingMode::Gated && supports_gated_timing();
        region_ = Region{};
        gate_opened_early_ = false;
        timing_ = true;
        try {
            open_segment();
            work();
            if (span_->commands() > 0 || region_.segments == 0) {
                close_segment();
            } else {  // the work filled its last segment exactly: nothing to time in this one
                gate_.reset();
                span_.reset();
            }
        } catch (...) {
            timing_ = false;
            gate_.reset();  // opens the queue
            span_.reset();
            throw;
        }
        timing_ = false;
        series_commands_ = region_.commands;
        last_segments_ = region_.segments;
        return region_.ms;
    }

protected:
    std::uint64_t raw_alloc(std::size_t bytes) override {
        if (bytes == 0) throw Error("opencl: cannot allocate a 0-byte buffer");
        if (bytes > info_.max_alloc_bytes)
            throw Error("opencl: dataset needs " + mib(bytes) + " MiB in one buffer but the device allows " +
                        mib(info_.max_alloc_bytes) + " MiB (CL_DEVICE_MAX_MEM_ALLOC_SIZE of " + info_.name + ")");
        // Some platforms (PoCL) allocate lazily and would fail later, far from the cause.
        if (allocated_ + bytes > info_.global_mem_bytes)
            throw Error("opencl: dataset needs " + mib(allocated_ + bytes) + " MiB but the device allows " +
                        mib(info_.global_mem_bytes) + " MiB (CL_DEVICE_GLOBAL_MEM_SIZE of " + info_.name + ")");
        cl_int rc = CL_SUCCESS;
        cl_mem m = api().CreateBuffer(ctx_, CL_MEM_READ_WRITE, bytes, nullptr, &rc);
        check(rc, "clCreateBuffer(" + std::to_string(bytes) + " bytes)");
        sizes_[to_handle(m)] = bytes;
        allocated_ += bytes;
        return to_handle(m);
    }

    void raw_free(std::uint64_t handle) noexcept override {
        auto it = sizes_.find(handle);
        if (it != sizes_.end()) {
            allocated_ -= it->second;
            sizes_.erase(it);
        }
        api().ReleaseMemObject(to_mem(handle));  // a destructor path: nothing to do on failure
    }

private:
    cl_command_queue create_queue() {
        const cl::Api& a = api();
        cl_int rc = CL_SUCCESS;
        if (a.CreateCommandQueueWithProperties && platform_major_minor(ref_.platform) >= 200) {
            const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
            cl_command_queue q = a.CreateCommandQueueWithProperties(ctx_, ref_.device, props, &rc);
            check(rc, "clCreateCommandQueueWithProperties");
            return q;
        }
        if (!a.CreateCommandQueue) throw Error("opencl: the OpenCL loader has no clCreateCommandQueue for this 1.x platform");
        cl_command_queue q = a.CreateCommandQueue(ctx_, ref_.device, CL_QUEUE_PROFILING_ENABLE, &rc);
        check(rc, "clCreateCommandQueue");
        return q;
    }

    void set_args(cl_kernel kernel, const std::string& name, const Args& args) {
        const cl::Api& a = api();
        cl_uint expected = 0;
        check(a.GetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof expected, &expected, nullptr),
              "clGetKernelInfo(CL_KERNEL_NUM_ARGS)");
        if (expected != args.values().size())
            throw Error("opencl: kernel '" + name + "' takes " + std::to_string(expected) + " arguments, " +
                        std::to_string(args.values().size()) + " given");
        cl_uint i = 0;
        for (const Arg& arg : args.values()) {
            const cl_int rc = std::visit(
                [&](const auto& v) -> cl_int {
                    using T = std::decay_t<decltype(v)>;
                    if constexpr (std::is_same_v<T, BufferRef>) {
                        const cl_mem m = to_mem(v.handle);
                        return a.SetKernelArg(kernel, i, sizeof m, &m);
                    } else if constexpr (std::is_same_v<T, LocalMem>) {
                        return a.SetKernelArg(kernel, i, v.bytes, nullptr);  // a __local pointer
                    } else {
                        return a.SetKernelArg(kernel, i, sizeof v, &v);  // scalars by value
                    }
                },
                arg);
            check(rc, "clSetKernelArg(" + name + ", argument " + std::to_string(i) + ")");
            ++i;
        }
    }

    void check_range(const char* what, const Buffer& b, std::size_t bytes, std::size_t offset) const {
        if (!b) throw Error(std::string("opencl: ") + what + " of an empty buffer");
        if (offset > b.bytes() || bytes > b.bytes() - offset)
            throw Error(std::string("opencl: ") + what + " of " + std::to_string(bytes) + " bytes at offset " +
                        std::to_string(offset) + " exceeds the buffer's " + std::to_string(b.bytes()) + " bytes");
    }

    // Inside time_ms the commands the span asks for get an event; outside, none is created.
    cl_event* event_slot(cl_event& ev) { return timing_ && span_->next_wants_event() ? &ev : nullptr; }
    // After each command: its event joins the span, and a full held segment is run and timed.
    void keep(cl_event ev) {
        if (!timing_) return;
        if (ev) span_->add(ev);
        if (gate_ && !gate_->is_open() && span_->commands() >= kGatedSegmentCommands) {
            close_segment();
            open_segment();
        }
    }

    // A segment of a time_ms region (Device::kGatedSegmentCommands): its span and, gated, the
    // queue held. In `ends` its last command gets an event where the series' last region
    // ended, or where the segment fills up.
    void open_segment() {
        cl::SpanMode mode = span_mode_;
        std::size_t expected = 0;
        if (gated_) {
            mode = span_mode_ == cl::SpanMode::each ? cl::SpanMode::each : cl::SpanMode::ends;
            const std::size_t before = region_.commands;
            const std::size_t left = series_commands_ > before ? series_commands_ - before : 0;
            expected = left > 0 && left < kGatedSegmentCommands ? left : kGatedSegmentCommands;
            gate_.emplace(ctx_, queue_);
        }
        span_.emplace(mode, expected);
    }

    // The closing marker where the span needs one, the gate opened, the segment run and its
    // span added to region_.
    void close_segment() {
        if (span_->needs_end_marker()) {
            // In an in-order queue the marker ends after everything enqueued before it.
            cl_event end = nullptr;
            check(api().EnqueueMarkerWithWaitList(queue_, 0, nullptr, &end), "clEnqueueMarkerWithWaitList");
            span_->add(end);
        }
        if (gate_) gate_->open();
        check(api().Finish(queue_), "clFinish");
        if (span_->empty()) throw Error("opencl: time_ms: the timed work enqueued nothing");
        if (gate_opened_early_)
            throw GateTimeout("gated timing: the timed work waited for the device (a blocking call inside the region)");
        region_.ms += span_->elapsed_ms();
        region_.commands += span_->commands();
        ++region_.segments;
        span_.reset();
        gate_.reset();
    }

    cl::DeviceRef ref_;
    DeviceInfo info_;
    bool nvidia_platform_ = false;
    cl_context ctx_ = nullptr;
    cl_command_queue queue_ = nullptr;
    cl::SpanMode span_mode_ = cl::SpanMode::bracket;
    bool timing_ = false;  // a time_ms region is open
    bool gated_ = false;   // ... and gated
    std::optional<cl::EventSpan> span_;  // the open segment's events
    std::optional<cl::QueueGate> gate_;  // the open segment's gate (gated regions)
    struct Region {
        double ms = 0;
        std::size_t commands = 0, segments = 0;
    } region_;                         // the closed segments of the open region
    std::size_t series_commands_ = 0;  // commands of the timing series' last region (0: none yet)
    bool gate_opened_early_ = false;

    // A blocking call inside a gated region would wait forever on the held queue: open it
    // first and void the sample (time_ms throws GateTimeout).
    void open_gate_early() {
        if (gate_ && !gate_->is_open()) {
            gate_->open();
            gate_opened_early_ = true;
        }
    }
    std::unordered_map<std::uint64_t, std::size_t> sizes_;
    std::uint64_t allocated_ = 0;
};

class OpenClBackend final : public Backend {
public:
    std::string id() const override { return "opencl"; }
    Dialect dialect() const override { return Dialect::OpenCL; }

    std::vector<DeviceInfo> devices() override {
        std::vector<DeviceInfo> out;
        for (const auto& ref : cl::all_devices()) out.push_back(cl::describe(ref));
        return out;
    }

    std::unique_ptr<Device> open(std::size_t index) override {
        const auto refs = cl::all_devices();
        if (index >= refs.size())
            throw Error("opencl: no device " + std::to_string(index) + " (" + std::to_string(refs.size()) +
                        " device(s), numbered from 0)");
        return std::make_unique<OpenClDevice>(refs[index]);
    }
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<OpenClBackend>(); }

}  // namespace tb
