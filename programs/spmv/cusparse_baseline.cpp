// cuSPARSE's generic SpMV as the vendor baseline, one row per CSR algorithm (variants
// csr-alg1 and csr-alg2). libcusparse is opened at run time (never linked); only its types
// come from the toolkit's cusparse.h. Handle, descriptors, the work buffer and the
// algorithm's analysis are made in prepare, outside timing; run() is one cusparseSpMV on
// the backend's own stream, so the harness's events time it like a kernel.
#include "instance.hpp"

#include <cstdint>
#include <cstdio>

#include "dynlib.hpp"

#if __has_include(<cusparse.h>)
#include <cusparse.h>
#define TB_HAVE_CUSPARSE_H 1
#endif

namespace tb::spmv {

#ifndef TB_HAVE_CUSPARSE_H

void require_cusparse(Device&) {
    throw Error("cuSPARSE not available: tribench was built without the CUDA toolkit's cusparse.h");
}

std::unique_ptr<Instance> make_cusparse_instance(Device& dev, std::shared_ptr<const Problem>, const std::string&) {
    require_cusparse(dev);
    return nullptr;
}

#else

namespace {

struct CusparseApi {
    DynLib lib;
    decltype(&cusparseCreate) create = nullptr;
    decltype(&cusparseDestroy) destroy = nullptr;
    decltype(&cusparseSetStream) set_stream = nullptr;
    decltype(&cusparseGetErrorName) error_name = nullptr;
    decltype(&cusparseCreateCsr) create_csr = nullptr;
    decltype(&cusparseDestroySpMat) destroy_sp_mat = nullptr;
    decltype(&cusparseCreateDnVec) create_dn_vec = nullptr;
    decltype(&cusparseDestroyDnVec) destroy_dn_vec = nullptr;
    decltype(&cusparseSpMV_bufferSize) spmv_buffer_size = nullptr;
    decltype(&cusparseSpMV_preprocess) spmv_preprocess = nullptr;  // CUDA 12.4+; optional
    decltype(&cusparseSpMV) spmv = nullptr;

    template <class F>
    void need(F& f, const char* symbol) {
        f = reinterpret_cast<F>(lib.require(symbol));
    }

    CusparseApi() {
        lib = DynLib::open({"libcusparse.so.12", "libcusparse.so", "/usr/local/cuda/lib64/libcusparse.so.12",
                            "/usr/local/cuda/lib64/libcusparse.so"});
        need(create, "cusparseCreate");
        need(destroy, "cusparseDestroy");
        need(set_stream, "cusparseSetStream");
        need(error_name, "cusparseGetErrorName");
        need(create_csr, "cusparseCreateCsr");
        need(destroy_sp_mat, "cusparseDestroySpMat");
        need(create_dn_vec, "cusparseCreateDnVec");
        need(destroy_dn_vec, "cusparseDestroyDnVec");
        need(spmv_buffer_size, "cusparseSpMV_bufferSize");
        need(spmv, "cusparseSpMV");
        spmv_preprocess = reinterpret_cast<decltype(spmv_preprocess)>(lib.find("cusparseSpMV_preprocess"));
    }

    // Loaded once; a failure is remembered and reported again on every later call.
    static const CusparseApi& get() {
        static const std::string failure = [] {
            try {
                instance();
                return std::string();
            } catch (const Error& e) {
                return std::string(e.what());
            }
        }();
        if (!failure.empty()) throw Error("cuSPARSE not available: " + failure);
        return instance();
    }

private:
    static CusparseApi& instance() {
        static CusparseApi api;
        return api;
    }
};

std::string status_name(const CusparseApi& api, cusparseStatus_t s) {
    const char* n = api.error_name ? api.error_name(s) : nullptr;
    return n ? n : "cusparseStatus " + std::to_string(int(s));
}

void check(const CusparseApi& api, cusparseStatus_t s, const char* call) {
    if (s != CUSPARSE_STATUS_SUCCESS) throw Error(std::string(call) + " failed: " + status_name(api, s));
}

// Destructors cannot throw: a failed release is reported and the rest still released.
void warn(const CusparseApi& api, cusparseStatus_t s, const char* call) {
    if (s != CUSPARSE_STATUS_SUCCESS)
        std::fprintf(stderr, "tribench: warning: %s failed: %s\n", call, status_name(api, s).c_str());
}

void* device_pointer(const Buffer& b) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(b.handle())); }

// The algorithms by name, chosen explicitly so a row does not change meaning if
// ALG_DEFAULT is remapped. CSR_ALG1 is cuSPARSE's default for CSR; CSR_ALG2 is documented
// as giving bit-wise the same result on every run (a fixed split of the non-zeros). The
// validation bound holds for any summation order either uses.
cusparseSpMVAlg_t algorithm_of(const std::string& variant) {
    if (variant == "csr-alg1") return CUSPARSE_SPMV_CSR_ALG1;
    if (variant == "csr-alg2") return CUSPARSE_SPMV_CSR_ALG2;
    throw Error("spmv: no cuSPARSE algorithm '" + variant + "' (known: csr-alg1, csr-alg2)");
}

class CusparseInstance final : public SpmvInstance {
public:
    CusparseInstance(Device& dev, std::shared_ptr<const Problem> problem, cusparseSpMVAlg_t algorithm)
        : SpmvInstance(dev, std::move(problem)), api_(CusparseApi::get()), algorithm_(algorithm) {
        try {
            setup();
        } catch (...) {
            release();
            throw;
        }
    }
    ~CusparseInstance() override { release(); }

    void run() override {
        check(api_, api_.spmv(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, mat_, vec_x_, &beta_, vec_y_,
                              CUDA_R_32F, algorithm_, buffer_ ? device_pointer(buffer_) : nullptr),
              "cusparseSpMV");
    }

private:
    void setup() {
        const auto& a = p_->a;
        dev_.synchronize();  // makes the backend's context current: cuSPARSE's runtime adopts it
        check(api_, api_.create(&handle_), "cusparseCreate");
        check(api_, api_.set_stream(handle_, static_cast<cudaStream_t>(dev_.native_queue())), "cusparseSetStream");
        check(api_,
              api_.create_csr(&mat_, a.rows, a.cols, a.nnz(), device_pointer(row_ptr_), device_pointer(col_),
                              device_pointer(val_), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                              CUDA_R_32F),
              "cusparseCreateCsr");
        check(api_, api_.create_dn_vec(&vec_x_, a.cols, device_pointer(x_), CUDA_R_32F), "cusparseCreateDnVec");
        check(api_, api_.create_dn_vec(&vec_y_, a.rows, device_pointer(y_), CUDA_R_32F), "cusparseCreateDnVec");
        std::size_t bytes = 0;
        check(api_,
              api_.spmv_buffer_size(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, mat_, vec_x_, &beta_, vec_y_,
                                    CUDA_R_32F, algorithm_, &bytes),
              "cusparseSpMV_bufferSize");
        if (bytes > 0) buffer_ = dev_.alloc(bytes);
        // Analysis a repeated product amortises, as an application would do it once.
        if (api_.spmv_preprocess)
            check(api_,
                  api_.spmv_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, mat_, vec_x_, &beta_, vec_y_,
                                       CUDA_R_32F, algorithm_, buffer_ ? device_pointer(buffer_) : nullptr),
                  "cusparseSpMV_preprocess");
        dev_.synchronize();
    }

    void release() noexcept {
        if (vec_y_) warn(api_, api_.destroy_dn_vec(vec_y_), "cusparseDestroyDnVec");
        if (vec_x_) warn(api_, api_.destroy_dn_vec(vec_x_), "cusparseDestroyDnVec");
        if (mat_) warn(api_, api_.destroy_sp_mat(mat_), "cusparseDestroySpMat");
        if (handle_) warn(api_, api_.destroy(handle_), "cusparseDestroy");
        vec_y_ = vec_x_ = nullptr;
        mat_ = nullptr;
        handle_ = nullptr;
    }

    const CusparseApi& api_;
    const cusparseSpMVAlg_t algorithm_;
    cusparseHandle_t handle_ = nullptr;
    cusparseSpMatDescr_t mat_ = nullptr;
    cusparseDnVecDescr_t vec_x_ = nullptr, vec_y_ = nullptr;
    Buffer buffer_;
    // y = 1 * A x + 0 * y: with beta == 0 cuSPARSE does not read y, so the poison cannot leak in.
    const float alpha_ = 1.0f, beta_ = 0.0f;
};

}  // namespace

void require_cusparse(Device& dev) {
    if (!dev.info().is_nvidia || dev.dialect() != Dialect::Cuda)
        throw Error("cuSPARSE not available: it needs an NVIDIA GPU on a CUDA backend (device " + dev.info().name + " on " +
                    dev.info().backend + ")");
    if (!dev.native_queue())
        throw Error("cuSPARSE not available: the " + dev.info().backend +
                    " backend does not expose its CUDA stream (Device::native_queue() is null)");
    CusparseApi::get();
}

std::unique_ptr<Instance> make_cusparse_instance(Device& dev, std::shared_ptr<const Problem> problem,
                                                 const std::string& algorithm) {
    const cusparseSpMVAlg_t alg = algorithm_of(algorithm);
    require_cusparse(dev);  // before any device memory is allocated
    return std::make_unique<CusparseInstance>(dev, std::move(problem), alg);
}

#endif

}  // namespace tb::spmv
