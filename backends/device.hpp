// The one interface every program is written against. Programs never include a CUDA or
// OpenCL header: they allocate, upload, compile and launch through Device.
#pragma once

#include <cstddef>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "clock.hpp"

namespace tb {

// Any failure of a GPU API, compiler or loader. The message already names the call and
// the error code's name, so callers print it as one line.
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Thrown by Device::time_ms in gated mode when the gate had to open on its own (its timeout):
// the work could not be enqueued behind a held queue (e.g. it synchronizes, or enqueues more
// than the queue holds). The sample is void; the caller may retry with TimingMode::Plain.
struct GateTimeout : Error {
    using Error::Error;
};

// How Device::time_ms brackets the timed work (docs/measurement.md, "Gated timing").
//  - Gated: the queue is held (CUDA: a spinning kernel; OpenCL: a user event) while the work
//    is enqueued, then released, so the device runs it back to back and the events see GPU
//    execution only, not launch latency.
//  - Plain: events are recorded around the work as it is enqueued.
enum class TimingMode { Gated, Plain };
const char* to_string(TimingMode m);
TimingMode timing_mode_from_string(const std::string& s);  // throws tb::Error on unknown

// Which source file of a program a backend consumes.
enum class Dialect { OpenCL, Cuda };

// Floating-point semantics asked of every toolchain (see docs/math-modes.md).
enum class MathMode { Default, Precise, Fast };
const char* to_string(MathMode m);
MathMode math_mode_from_string(const std::string& s);  // throws tb::Error on unknown

struct Source {
    std::string file_name;  // shown in compiler messages, e.g. "mandelbrot/kernels.cl"
    std::string text;
    Dialect dialect = Dialect::OpenCL;
    // PTX the CUDA backends load instead of compiling `text` (TRIBENCH_KERNEL_DIR's
    // kernels.cl.ptx / kernels.cu.ptx, docs/ptx-tools.md); empty: compile as usual.
    std::string ptx_file;
    std::string ptx;
    // PTX in NVIDIA OpenCL's conventions that the opencl backend builds on NVIDIA's platform
    // instead of compiling `text` (kernels.cl.opencl.ptx); empty: compile as usual.
    std::string opencl_ptx_file;
    std::string opencl_ptx;
};

// Says on stderr, once per given file and process, that `given_ptx_file` replaces the PTX
// `compiler` would have made of `source_file` (a backend loading a Source's given PTX).
void note_given_ptx(const std::string& given_ptx_file, const std::string& source_file, const std::string& compiler);

struct CompileOptions {
    MathMode math = MathMode::Default;
    std::vector<std::string> defines;  // "NAME" or "NAME=VALUE", passed as -D
    std::string arch;                  // CUDA only: "sm_90"; empty = the device's own
};

// A kernel inside a compiled module; only valid while the module lives.
struct Kernel {
    std::string name;
    void* handle = nullptr;  // CUfunction or cl_kernel
    int index = -1;          // position in the module's kernel table (backend-private)
};

struct Module {
    virtual ~Module() = default;
    virtual Kernel kernel(const std::string& name) = 0;  // throws if absent
    std::string ptx;          // PTX text when the toolchain yields it (else empty)
    std::string log;          // compiler messages, also on success
    double compile_ms = 0;    // wall time of source-to-module
    bool from_cache = false;  // true when loaded from the on-disk kernel cache
};

// Device memory; move-only, freed by its destructor.
class Device;
class Buffer {
public:
    Buffer() = default;
    Buffer(Device* dev, std::uint64_t handle, std::size_t bytes) : dev_(dev), handle_(handle), bytes_(bytes) {}
    Buffer(Buffer&& o) noexcept { *this = std::move(o); }
    Buffer& operator=(Buffer&& o) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer();
    std::uint64_t handle() const { return handle_; }  // CUdeviceptr or cl_mem
    std::size_t bytes() const { return bytes_; }
    explicit operator bool() const { return handle_ != 0; }

private:
    Device* dev_ = nullptr;
    std::uint64_t handle_ = 0;
    std::size_t bytes_ = 0;
};

// Scratch memory shared by a work-group, sized by the host at launch.
struct LocalMem {
    std::size_t bytes;
};

// One kernel argument. Buffers are referenced, not owned.
struct BufferRef {
    std::uint64_t handle;
};
using Arg = std::variant<BufferRef, std::int32_t, std::uint32_t, std::int64_t, float, double, LocalMem>;

class Args {
public:
    Args() = default;
    template <class... T>
    explicit Args(const T&... a) { (add(a), ...); }
    Args& add(const Buffer& b) { v_.emplace_back(BufferRef{b.handle()}); return *this; }
    Args& add(std::int32_t x) { v_.emplace_back(x); return *this; }
    Args& add(std::uint32_t x) { v_.emplace_back(x); return *this; }
    Args& add(std::int64_t x) { v_.emplace_back(x); return *this; }
    Args& add(float x) { v_.emplace_back(x); return *this; }
    Args& add(double x) { v_.emplace_back(x); return *this; }
    Args& add(LocalMem x) { v_.emplace_back(x); return *this; }
    const std::vector<Arg>& values() const { return v_; }

private:
    std::vector<Arg> v_;
};

struct Dim3 {
    std::uint32_t x = 1, y = 1, z = 1;
    std::uint64_t count() const { return std::uint64_t(x) * y * z; }
};

struct DeviceInfo {
    std::string backend;        // backend id that opened it
    std::string name;           // "NVIDIA H100 80GB HBM3", "cpu-haswell-..."
    std::string vendor;
    std::string platform;       // OpenCL platform name / "CUDA"
    std::string driver_version;
    std::string runtime_version;  // CUDA driver API version, OpenCL version string
    std::string compiler_version; // NVRTC version / OpenCL C version
    int cc_major = 0, cc_minor = 0;  // compute capability (CUDA devices only)
    int compute_units = 0;
    std::uint64_t global_mem_bytes = 0;
    std::uint64_t free_mem_bytes = 0;  // 0 if unknown
    std::uint64_t max_alloc_bytes = 0;
    std::size_t max_local_mem_bytes = 0;
    std::size_t max_work_group_size = 0;
    // Work-items that execute in lockstep (a CUDA warp; NVIDIA OpenCL's CL_DEVICE_WARP_SIZE_NV;
    // on other OpenCL GPUs AMD's wavefront width or OpenCL 3.0's preferred work-group size
    // multiple); 0 if unknown and on CPUs. Tuning defaults size group rows by it (docs/tuning.md).
    int simd_width = 0;
    int clock_mhz = 0, mem_clock_mhz = 0, mem_bus_width_bits = 0;  // 0 if unknown
    bool is_gpu = false;
    bool is_nvidia = false;
};

// A recorded sequence of launches that can be replayed (CUDA graphs).
struct Graph {
    virtual ~Graph() = default;
    virtual void launch() = 0;
};

// Host<->device traffic of the synchronous upload/download calls, wall-clock.
struct TransferStats {
    double upload_ms = 0, download_ms = 0;
    std::uint64_t upload_bytes = 0, download_bytes = 0;
};

class Device {
public:
    virtual ~Device() = default;
    const TransferStats& transfer_stats() const { return transfers_; }
    void reset_transfer_stats() { transfers_ = {}; }
    virtual const DeviceInfo& info() const = 0;
    virtual Dialect dialect() const = 0;  // which kernels file this backend consumes

    Buffer alloc(std::size_t bytes);
    virtual void upload(const Buffer& dst, const void* src, std::size_t bytes, std::size_t offset = 0) = 0;
    virtual void download(void* dst, const Buffer& src, std::size_t bytes, std::size_t offset = 0) = 0;
    virtual void copy(const Buffer& dst, const Buffer& src, std::size_t bytes) = 0;
    // Sets every 32-bit word of the buffer to `pattern` (used to poison outputs).
    virtual void fill_u32(const Buffer& dst, std::uint32_t pattern) = 0;

    virtual std::unique_ptr<Module> compile(const Source& src, const CompileOptions& opt) = 0;
    // grid counts work-groups (CUDA blocks); block counts work-items per group.
    virtual void launch(const Kernel& k, Dim3 grid, Dim3 block, const Args& args) = 0;
    virtual void synchronize() = 0;
    // The most work-items a group of this kernel may have on this device: below the
    // device's limit when the kernel needs many registers (CUDA's
    // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, OpenCL's CL_KERNEL_WORK_GROUP_SIZE).
    virtual std::size_t max_group_size(const Kernel& k) = 0;

    // Device-side elapsed time of everything `work` enqueues, in milliseconds, bracketed as
    // timing_mode() says (backends that cannot gate time plainly). Throws GateTimeout when a
    // gated region could not be held (see GateTimeout).
    virtual double time_ms(const std::function<void()>& work) = 0;
    // A gated region is held in segments of at most this many commands (kernels, copies,
    // fills, graph launches): each is enqueued behind a gate of its own, released, waited for
    // and timed, and time_ms returns the sum. A held queue takes only so many launches before
    // the host blocks behind it (CUDA's, thousands), so a run of an iterative program's
    // stream launches used to be timed plainly, measuring the host's launch loop. What the
    // GPU spends between two segments (one kernel boundary in kGatedSegmentCommands) is left
    // out (docs/measurement.md, "Gated timing").
    static constexpr std::size_t kGatedSegmentCommands = 256;
    // Segments of the last time_ms region (1 when it was not gated).
    std::size_t last_region_segments() const { return last_segments_; }
    void set_timing_mode(TimingMode m) { timing_mode_ = m; }
    TimingMode timing_mode() const { return timing_mode_; }
    // Whether time_ms can gate on this backend (false: Gated behaves as Plain).
    virtual bool supports_gated_timing() const { return false; }
    // Which clock the last time_ms read: "events" (CUDA events or OpenCL profiling events) or
    // "cupti" (CUPTI activity timestamps of the region's kernels; CUDA, gated).
    virtual std::string timing_clock() const { return "events"; }
    // Whether how a sample is timed depends on the sample before it (CUDA, gated: CUPTI
    // tracing is left off after a long region). The runner then times one sample it throws
    // away before a benchmark's samples, so that they are all timed alike.
    virtual bool needs_warmup_sample() const { return false; }
    // A series of regions to be timed alike starts: a benchmark's warm-up sample and samples
    // (the runner calls it before each benchmark's first sample). CUDA, gated: the first region
    // is traced, and the series' fastest region so far decides the clock of the next (CUPTI
    // under 0.25 ms, the events from there), whatever the benchmark before it or a slow sample.
    virtual void start_timing_series() {}
    // Whether the runner launches its placement scatter, an empty grid of pseudo-random size,
    // before each gated sample (harness/measure/sampling.hpp, docs/measurement.md "Where a
    // work-group runs"): the CUDA backends. Not on CPUs, and not on opencl, whose profiling
    // events vary more from sample to sample than the placement moves most kernels.
    virtual bool scatters_placement() const { return false; }

    // Launches (kernels, and graph replays as one) since reset_launch_count(): a run that makes
    // many cannot be held behind a gate (the runner times it plainly).
    std::uint64_t launch_count() const { return launches_; }
    void reset_launch_count() { launches_ = 0; }

    // The GPU's clock state now, or nothing when the backend cannot tell (no NVML, not a GPU).
    virtual std::optional<ClockSample> clock_sample() { return std::nullopt; }

    // The backend's native queue (CUstream for the CUDA backends, cl_command_queue for
    // opencl), so vendor libraries (cuFFT, cuSPARSE) run in the same order and timing.
    virtual void* native_queue() const { return nullptr; }

    // Graph capture: records everything `work` enqueues into a replayable graph. Throws
    // tb::Error on backends without graphs (supports_graphs() == false).
    virtual bool supports_graphs() const { return false; }
    virtual std::unique_ptr<Graph> capture(const std::function<void()>& work);

protected:
    // Backends wrap each synchronous upload/download in one of these.
    class TransferTimer {
    public:
        TransferTimer(double& ms, std::uint64_t& total, std::size_t bytes)
            : ms_(ms), t0_(std::chrono::steady_clock::now()) { total += bytes; }
        ~TransferTimer() {
            ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
        }

    private:
        double& ms_;
        std::chrono::steady_clock::time_point t0_;
    };
    TransferTimer time_upload(std::size_t bytes) { return {transfers_.upload_ms, transfers_.upload_bytes, bytes}; }
    TransferTimer time_download(std::size_t bytes) { return {transfers_.download_ms, transfers_.download_bytes, bytes}; }
    TransferStats transfers_;
    TimingMode timing_mode_ = TimingMode::Plain;
    std::uint64_t launches_ = 0;  // backends count their launches here
    std::size_t last_segments_ = 0;  // backends set it in time_ms

    friend class Buffer;
    virtual std::uint64_t raw_alloc(std::size_t bytes) = 0;
    virtual void raw_free(std::uint64_t handle) noexcept = 0;
};

inline Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        if (dev_ && handle_) dev_->raw_free(handle_);
        dev_ = o.dev_; handle_ = o.handle_; bytes_ = o.bytes_;
        o.dev_ = nullptr; o.handle_ = 0; o.bytes_ = 0;
    }
    return *this;
}
inline Buffer::~Buffer() {
    if (dev_ && handle_) dev_->raw_free(handle_);
}
inline Buffer Device::alloc(std::size_t bytes) { return Buffer(this, raw_alloc(bytes), bytes); }

}  // namespace tb
