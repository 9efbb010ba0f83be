#include "cuda_api.hpp"

#include <algorithm>
#include <memory>

#include "dynlib.hpp"

namespace tb::cuda {
namespace {

// The error-text functions survive a failed load so check() can still name a code.
decltype(&::cuGetErrorName) g_error_name = nullptr;
decltype(&::cuGetErrorString) g_error_string = nullptr;

template <class Fn>
void take_symbol(const DynLib& lib, const char* name, Fn& fn) {
    fn = reinterpret_cast<Fn>(lib.require(name));
}

// Resolves one entry point for `version`; nullptr when the driver has no ABI-compatible one.
void* proc_address(decltype(&::cuGetProcAddress) get_proc, const char* name, int version) {
    void* fn = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = get_proc(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS) return nullptr;
    return fn;
}

struct Loaded {
    std::unique_ptr<DriverApi> api;
    std::string error;  // why the driver cannot be used; empty on success
};

Loaded load() {
    Loaded out;
    try {
        // Kept for the process lifetime: the driver must not be unloaded under its threads.
        static DynLib lib = DynLib::open({"libcuda.so.1", "libcuda.so"});
        auto api = std::make_unique<DriverApi>();
        take_symbol(lib, "cuGetErrorName", api->cuGetErrorName);
        take_symbol(lib, "cuGetErrorString", api->cuGetErrorString);
        g_error_name = api->cuGetErrorName;
        g_error_string = api->cuGetErrorString;
        take_symbol(lib, "cuInit", api->cuInit);
        take_symbol(lib, "cuDriverGetVersion", api->cuDriverGetVersion);

        check(api->cuInit(0), "cuInit");
        check(api->cuDriverGetVersion(&api->driver_version), "cuDriverGetVersion");
        auto* get_proc = reinterpret_cast<decltype(&::cuGetProcAddress)>(lib.find("cuGetProcAddress_v2"));
        if (!get_proc)
            throw Error(lib.name() + ": the driver supports CUDA " + version_string(api->driver_version) +
                        "; tribench needs a CUDA 12 or newer driver (no cuGetProcAddress_v2)");
        // Asking for a version newer than the driver is an error, and asking for an older
        // one than cuda.h could return a symbol whose signature differs from its declaration.
        api->api_version = std::min(api->driver_version, CUDA_VERSION);

#define TB_CUDA_RESOLVE_REQUIRED(fn)                                                            \
    api->fn = reinterpret_cast<decltype(api->fn)>(proc_address(get_proc, #fn, api->api_version)); \
    if (!api->fn)                                                                               \
        throw Error(lib.name() + ": driver API " #fn " not found for CUDA " +                  \
                    version_string(api->api_version));
#define TB_CUDA_RESOLVE_OPTIONAL(fn) \
    api->fn = reinterpret_cast<decltype(api->fn)>(proc_address(get_proc, #fn, api->api_version));
        TB_CUDA_REQUIRED_ENTRY_POINTS(TB_CUDA_RESOLVE_REQUIRED)
        TB_CUDA_OPTIONAL_ENTRY_POINTS(TB_CUDA_RESOLVE_OPTIONAL)
#undef TB_CUDA_RESOLVE_REQUIRED
#undef TB_CUDA_RESOLVE_OPTIONAL
        out.api = std::move(api);
    } catch (const Error& e) {
        out.error = e.what();
    }
    return out;
}

}  // namespace

const DriverApi& driver() {
    // Loaded once: a missing driver or a failed cuInit does not get better by retrying.
    static const Loaded loaded = load();
    if (!loaded.api) throw Error(loaded.error);
    return *loaded.api;
}

std::string describe(CUresult r) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (!g_error_name || g_error_name(r, &name) != CUDA_SUCCESS || !name) {
        // The toolkit's stub libcuda (lib64/stubs) names no errors; say what it is.
        if (r == CUDA_ERROR_STUB_LIBRARY) return "CUDA_ERROR_STUB_LIBRARY (the CUDA toolkit's stub libcuda, not a driver)";
        return "CUresult " + std::to_string(static_cast<int>(r));
    }
    std::string out = name;
    if (g_error_string && g_error_string(r, &text) == CUDA_SUCCESS && text) out += std::string(" (") + text + ")";
    return out;
}

void check(CUresult r, const char* call) {
    if (r != CUDA_SUCCESS) throw Error(std::string(call) + " failed: " + describe(r));
}

std::string version_string(int v) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

KernelResources kernel_resources(const Kernel& k) {
    auto fn = static_cast<CUfunction>(k.handle);
    if (!fn) throw Error("kernel_resources: kernel '" + k.name + "' has no CUDA function");
    auto get = [&](CUfunction_attribute a) {
        int v = 0;
        TB_CU(cuFuncGetAttribute, &v, a, fn);
        return v;
    };
    KernelResources r;
    r.registers = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
    r.static_shared_bytes = get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    r.local_bytes = get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    r.const_bytes = get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
    r.max_threads_per_block = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    r.ptx_version = get(CU_FUNC_ATTRIBUTE_PTX_VERSION);
    r.binary_version = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
    return r;
}

}  // namespace tb::cuda
