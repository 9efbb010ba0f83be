// A tb::Device that executes nothing and records everything a program asks of it, so the
// host side of a program can be checked without a GPU (tests/test_dialect_parity.cpp).
//
// - Buffers are sizes only: uploads are bounds-checked and recorded with a hash of their
//   bytes, downloads are bounds-checked and return zeros. Nothing is stored, so the largest
//   datasets (GBs of device memory) cost no memory; no program's run() reads results back.
// - compile() reads the kernels a source defines (tests/kernel_scan.hpp) and fails, as the
//   real compiler would, when a name the source requires from the host (`#ifndef NAME` /
//   `#error`) is not among the defines.
// - launch() checks what the backends check (a kernel of a live module, live buffers, the
//   parameter count, LocalMem exactly at OpenCL's __local parameters, the group size) and
//   records the kernel, grid, block and every argument: buffers by allocation number,
//   scalars by type and value, LocalMem by bytes.
// - capture() records the enqueued commands inside a graph; Graph::launch records a replay.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "device.hpp"
#include "kernel_scan.hpp"

namespace tb::test {

// What the device reports; the same for both dialects so only the dialect differs.
inline DeviceInfo h100_info(const std::string& backend) {
    DeviceInfo i;
    i.backend = backend;
    i.name = "recording H100";
    i.vendor = "NVIDIA Corporation";
    i.platform = "recording";
    i.cc_major = 9;
    i.cc_minor = 0;
    i.compute_units = 132;
    i.global_mem_bytes = 80ull << 30;
    i.free_mem_bytes = 79ull << 30;
    i.max_alloc_bytes = 80ull << 30;
    i.max_local_mem_bytes = 232448;  // CUDA's opt-in shared memory per block on sm_90
    i.max_work_group_size = 1024;
    i.simd_width = 32;
    i.is_gpu = true;
    i.is_nvidia = true;
    return i;
}

// NVIDIA's OpenCL on the same GPU: 48 KiB of local memory per group.
inline DeviceInfo h100_opencl_info(const std::string& backend) {
    DeviceInfo i = h100_info(backend);
    i.platform = "recording NVIDIA CUDA (OpenCL)";
    i.max_local_mem_bytes = 49152;
    return i;
}

// PoCL on a 2-core CPU.
inline DeviceInfo pocl_cpu_info(const std::string& backend) {
    DeviceInfo i;
    i.backend = backend;
    i.name = "recording cpu";
    i.vendor = "recording";
    i.platform = "recording Portable Computing Language";
    i.compute_units = 2;
    i.global_mem_bytes = 8ull << 30;
    i.max_alloc_bytes = 2ull << 30;
    i.max_local_mem_bytes = 4ull << 20;
    i.max_work_group_size = 4096;
    return i;
}

// An AMD GPU through its OpenCL platform: 64-wide wavefronts, groups of at most 256 work-items
// (ROCm's default), 64 KiB of local memory.
inline DeviceInfo amd_wave64_info(const std::string& backend) {
    DeviceInfo i;
    i.backend = backend;
    i.name = "recording wave64 GPU";
    i.vendor = "Advanced Micro Devices, Inc.";
    i.platform = "recording AMD Accelerated Parallel Processing";
    i.compute_units = 120;
    i.global_mem_bytes = 32ull << 30;
    i.max_alloc_bytes = 28ull << 30;
    i.max_local_mem_bytes = 65536;
    i.max_work_group_size = 256;
    i.simd_width = 64;
    i.is_gpu = true;
    return i;
}

// A small GPU at OpenCL's minimum of local memory (32 KiB), 16 work-items in lockstep, groups
// of at most 256, few compute units (a mobile or embedded GPU).
inline DeviceInfo small_gpu_info(const std::string& backend) {
    DeviceInfo i;
    i.backend = backend;
    i.name = "recording small GPU";
    i.vendor = "recording";
    i.platform = "recording embedded";
    i.compute_units = 8;
    i.global_mem_bytes = 4ull << 30;
    i.max_alloc_bytes = 1ull << 30;
    i.max_local_mem_bytes = 32768;
    i.max_work_group_size = 256;
    i.simd_width = 16;
    i.is_gpu = true;
    return i;
}

class RecordingDevice final : public Device {
public:
    RecordingDevice(Dialect dialect, DeviceInfo info) : dialect_(dialect), info_(std::move(info)) {}

    // One line per command, in order.
    const std::vector<std::string>& log() const { return log_; }
    void clear_log() { log_.clear(); }
    std::size_t launches() const { return launches_; }

    const DeviceInfo& info() const override { return info_; }
    Dialect dialect() const override { return dialect_; }

    void upload(const Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) override {
        check_range(dst.handle(), offset, bytes, "upload");
        record("upload " + buf(dst.handle()) + " at " + std::to_string(offset) + " " + std::to_string(bytes) +
               " bytes, hash " + hex(hash(src, bytes)));
    }
    void download(void* dst, const Buffer& src, std::size_t bytes, std::size_t offset) override {
        check_range(src.handle(), offset, bytes, "download");
        std::memset(dst, 0, bytes);
        record("download " + buf(src.handle()) + " at " + std::to_string(offset) + " " + std::to_string(bytes) + " bytes");
    }
    void copy(const Buffer& dst, const Buffer& src, std::size_t bytes) override {
        check_range(dst.handle(), 0, bytes, "copy (destination)");
        check_range(src.handle(), 0, bytes, "copy (source)");
        record("copy " + std::to_string(bytes) + " bytes " + buf(src.handle()) + " -> " + buf(dst.handle()));
    }
    void fill_u32(const Buffer& dst, std::uint32_t pattern) override {
        check_range(dst.handle(), 0, dst.bytes(), "fill_u32");
        record("fill " + buf(dst.handle()) + " with " + hex(pattern));
    }

    std::unique_ptr<Module> compile(const Source& src, const CompileOptions& opt) override {
        if (src.dialect != dialect_) throw Error("recording device: compile of a source of the other dialect");
        std::set<std::string> given;
        for (const auto& d : opt.defines) given.insert(define_name(d));
        for (const auto& name : required_defines(src.text))
            if (!given.count(name)) throw Error(src.file_name + ": #error " + name + " is not defined (not among the defines)");
        auto m = std::make_unique<RecordingModule>(this, next_module_++, scan_kernels(src.text, dialect_));
        std::string defs;
        for (const auto& d : opt.defines) defs += " -D" + d;
        record(std::string("compile, math ") + to_string(opt.math) + ", defines" + defs);
        return m;
    }

    void launch(const Kernel& k, Dim3 grid, Dim3 block, const Args& args) override {
        const auto* decl = static_cast<const KernelDecl*>(k.handle);
        if (!decl || !live_modules_.count(k.index)) throw Error("launch of kernel '" + k.name + "' of no live module");
        if (grid.count() == 0 || block.count() == 0) throw Error("launch of " + k.name + " with an empty grid or group");
        if (block.count() > info_.max_work_group_size)
            throw Error("launch of " + k.name + " with " + std::to_string(block.count()) + " work-items per group (at most " +
                        std::to_string(info_.max_work_group_size) + ")");
        std::ostringstream line;
        line << "launch " << k.name << " grid (" << grid.x << "," << grid.y << "," << grid.z << ") block (" << block.x
             << "," << block.y << "," << block.z << ") args";
        int values = 0;  // arguments that are kernel parameters in this dialect
        const auto& v = args.values();
        for (std::size_t i = 0; i < v.size(); ++i) {
            const bool is_local = std::holds_alternative<LocalMem>(v[i]);
            const bool local_param =
                std::find(decl->local_params.begin(), decl->local_params.end(), int(i)) != decl->local_params.end();
            if (dialect_ == Dialect::OpenCL && is_local != local_param)
                throw Error("launch of " + k.name + ": argument " + std::to_string(i) +
                            (is_local ? " is LocalMem but the parameter is not a __local pointer"
                                      : " is not LocalMem but the parameter is a __local pointer"));
            if (dialect_ == Dialect::OpenCL || !is_local) ++values;
            line << ' ' << describe(v[i]);
        }
        if (values != decl->params)
            throw Error("launch of " + k.name + ": the kernel has " + std::to_string(decl->params) +
                        " parameters, the host passed " + std::to_string(values) +
                        (dialect_ == Dialect::Cuda ? " (LocalMem is not a parameter of a CUDA kernel)" : ""));
        ++launches_;
        record(line.str());
    }

    void synchronize() override { record("synchronize"); }
    // The device's group limit, or a lower one set for a kernel (as registers would cap it).
    std::size_t max_group_size(const Kernel& k) override {
        auto it = kernel_group_limits.find(k.name);
        return it != kernel_group_limits.end() ? it->second : info_.max_work_group_size;
    }
    std::map<std::string, std::size_t> kernel_group_limits;
    double time_ms(const std::function<void()>& work) override {
        record("timed {");
        work();
        record("}");
        return 1.0;
    }

    bool supports_graphs() const override { return true; }
    std::unique_ptr<Graph> capture(const std::function<void()>& work) override {
        if (capturing_) throw Error("recording device: nested graph capture");
        const int id = next_graph_++;
        record("capture graph " + std::to_string(id) + " {");
        capturing_ = true;
        try {
            work();
        } catch (...) {
            capturing_ = false;
            throw;
        }
        capturing_ = false;
        record("}");
        return std::make_unique<RecordingGraph>(this, id);
    }

protected:
    std::uint64_t raw_alloc(std::size_t bytes) override {
        if (bytes == 0) throw Error("recording device: allocation of 0 bytes");
        if (bytes > info_.max_alloc_bytes) throw Error("recording device: allocation of " + std::to_string(bytes) + " bytes");
        const std::uint64_t h = next_buffer_++;
        live_[h] = bytes;
        record("alloc " + buf(h) + " " + std::to_string(bytes) + " bytes");
        return h;
    }
    void raw_free(std::uint64_t handle) noexcept override { live_.erase(handle); }

private:
    class RecordingModule final : public Module {
    public:
        RecordingModule(RecordingDevice* dev, int id, std::vector<KernelDecl> decls)
            : dev_(dev), id_(id), decls_(std::move(decls)) {
            dev_->live_modules_.insert(id_);
        }
        ~RecordingModule() override { dev_->live_modules_.erase(id_); }
        Kernel kernel(const std::string& name) override {
            for (const auto& d : decls_)
                if (d.name == name) return Kernel{name, const_cast<KernelDecl*>(&d), id_};
            throw Error("module has no kernel '" + name + "'");
        }

    private:
        RecordingDevice* dev_;
        int id_;
        std::vector<KernelDecl> decls_;
    };

    class RecordingGraph final : public Graph {
    public:
        RecordingGraph(RecordingDevice* dev, int id) : dev_(dev), id_(id) {}
        void launch() override { dev_->record("replay graph " + std::to_string(id_)); }

    private:
        RecordingDevice* dev_;
        int id_;
    };

    void record(std::string line) { log_.push_back(capturing_ ? "  [graph] " + line : std::move(line)); }

    std::string buf(std::uint64_t h) const { return "buf" + std::to_string(h); }

    void check_range(std::uint64_t h, std::size_t offset, std::size_t bytes, const char* what) const {
        auto it = live_.find(h);
        if (it == live_.end()) throw Error(std::string(what) + " on a buffer that is not allocated");
        if (offset > it->second || bytes > it->second - offset)
            throw Error(std::string(what) + " of " + std::to_string(bytes) + " bytes at " + std::to_string(offset) +
                        " beyond the end of " + buf(h) + " (" + std::to_string(it->second) + " bytes)");
    }

    std::string describe(const Arg& a) const {
        return std::visit(
            [&](const auto& x) -> std::string {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, BufferRef>) {
                    if (!live_.count(x.handle)) throw Error("launch argument refers to a buffer that is not allocated");
                    return buf(x.handle);
                } else if constexpr (std::is_same_v<T, LocalMem>) {
                    return "local:" + std::to_string(x.bytes);
                } else if constexpr (std::is_same_v<T, float>) {
                    std::uint32_t bits;
                    std::memcpy(&bits, &x, sizeof bits);
                    return "f32:" + hex(bits);
                } else if constexpr (std::is_same_v<T, double>) {
                    std::uint64_t bits;
                    std::memcpy(&bits, &x, sizeof bits);
                    return "f64:" + hex(bits);
                } else if constexpr (std::is_same_v<T, std::int32_t>) {
                    return "i32:" + std::to_string(x);
                } else if constexpr (std::is_same_v<T, std::uint32_t>) {
                    return "u32:" + std::to_string(x);
                } else {
                    return "i64:" + std::to_string(x);
                }
            },
            a);
    }

    static std::string hex(std::uint64_t v) {
        char b[20];
        std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(v));
        return b;
    }

    // A 64-bit hash of the bytes, 8 at a time (uploads reach GBs).
    static std::uint64_t hash(const void* p, std::size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        std::uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
        std::size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            std::uint64_t w;
            std::memcpy(&w, b + i, 8);
            h = (h ^ w) * 0x100000001b3ull;
            h ^= h >> 29;
        }
        for (; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
        return h;
    }

    Dialect dialect_;
    DeviceInfo info_;
    std::vector<std::string> log_;
    std::map<std::uint64_t, std::size_t> live_;  // buffer number -> bytes
    std::set<int> live_modules_;
    std::uint64_t next_buffer_ = 1;
    int next_module_ = 1, next_graph_ = 1;
    std::size_t launches_ = 0;
    bool capturing_ = false;
};

}  // namespace tb::test
