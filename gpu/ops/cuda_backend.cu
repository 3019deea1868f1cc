// CudaBackend: tx::Backend on one CUDA device (twin of core/ops/cpu_backend.cpp). Tensors live in
// device memory and stay there between steps; ops are queued on one stream (cuBLAS bound to it)
// and only upload/download/synchronize wait. Steps are timed with CUDA events on that stream.
// Every failure becomes tx::DeviceError naming the op; nothing here aborts the process.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>

#include "tx/cuda_backend.h"
#include "common/cuda_check.h"
#include "ops.cuh"

namespace tx {

namespace {

using cuda::check;

class CudaBackend final : public Backend {
public:
    CudaBackend() {
        try {
            create();
        } catch (...) {
            destroy();   // the destructor does not run for a half-built object
            throw;
        }
    }
    ~CudaBackend() override { destroy(); }
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    std::string name() const override { return "cuda"; }

    void* allocate(size_t bytes) override {
        void* ptr = nullptr;
        const cudaError_t err = cudaMalloc(&ptr, bytes ? bytes : 1);
        if (err != cudaSuccess) {
            cudaGetLastError();   // clear the (non-sticky) allocation error
            throw DeviceError("cuda allocate " + std::to_string(bytes) + " bytes: " + cuda::error_text(err));
        }
        const cudaError_t fill = cudaMemsetAsync(ptr, 0, bytes, m_stream);
        if (fill != cudaSuccess) cudaFree(ptr);   // the caller never sees this pointer: free it here
        check(fill, "allocate");
        return ptr;
    }
    void release(void* ptr) override { cudaFree(ptr); }   // called from destructors: never throws
    void upload(void* dst, const void* host_src, size_t bytes) override {
        if (!bytes) return;
        check(cudaMemcpyAsync(dst, host_src, bytes, cudaMemcpyHostToDevice, m_stream), "upload");
        check(cudaStreamSynchronize(m_stream), "upload");   // the host buffer may go away on return
    }
    void download(void* host_dst, const void* src, size_t bytes) override {
        if (!bytes) return;
        check(cudaMemcpyAsync(host_dst, src, bytes, cudaMemcpyDeviceToHost, m_stream), "download");
        check(cudaStreamSynchronize(m_stream), "download");
    }
    void copy(void* dst, const void* src, size_t bytes) override {
        if (bytes && dst != src) check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, m_stream), "copy");
    }
    void fill_zero(void* dst, size_t bytes) override {
        if (bytes) check(cudaMemsetAsync(dst, 0, bytes, m_stream), "fill_zero");
    }
    void synchronize() override { check(cudaStreamSynchronize(m_stream), "synchronize"); }
    void timer_start() override { check(cudaEventRecord(m_start, m_stream), "timer"); }
    double timer_stop() override {
        check(cudaEventRecord(m_stop, m_stream), "timer");
        check(cudaEventSynchronize(m_stop), "step");   // a fault in the step's kernels shows here
        float ms = 0.0f;
        check(cudaEventElapsedTime(&ms, m_start, m_stop), "timer");
        return ms;
    }

    void embedding_forward(float* out, const int32_t* ids, const float* weight, int N, int D, float scale) override {
        cuda::embedding_forward(out, ids, weight, N, D, scale, m_stream);
    }
    void embedding_backward(float* dweight, const float* dout, const int32_t* ids, int N, int D,
                            float scale) override {
        cuda::embedding_backward(dweight, dout, ids, N, D, scale, m_stream);
    }
    void positional_forward(float* out, const float* inp, const float* pe, int B, int T, int D) override {
        cuda::positional_forward(out, inp, pe, B, T, D, m_stream);
    }
    void positional_backward(float* dinp, const float* dout, int B, int T, int D) override {
        cuda::positional_backward(dinp, dout, B, T, D, m_stream);
    }
    void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                        int OC) override {
        cuda::linear_forward(out, inp, weight, bias, N, C, OC, m_blas, m_stream);
    }
    void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                         const float* weight, int N, int C, int OC) override {
        cuda::linear_backward(dinp, dweight, dbias, dout, inp, weight, N, C, OC, m_blas, m_stream);
    }
    void split_heads_forward(float* out, const float* inp, int B, int T, int H, int dk) override {
        cuda::split_heads_forward(out, inp, B, T, H, dk, m_stream);
    }
    void split_heads_backward(float* dinp, const float* dout, int B, int T, int H, int dk) override {
        cuda::split_heads_backward(dinp, dout, B, T, H, dk, m_stream);
    }
    void merge_heads_forward(float* out, const float* inp, int B, int T, int H, int dk) override {
        cuda::merge_heads_forward(out, inp, B, T, H, dk, m_stream);
    }
    void merge_heads_backward(float* dinp, const float* dout, int B, int T, int H, int dk) override {
        cuda::merge_heads_backward(dinp, dout, B, T, H, dk, m_stream);
    }
    void scores_forward(float* out, const float* q, const float* k, int B, int H, int T, int S, int dk,
                        float scale) override {
        cuda::scores_forward(out, q, k, B, H, T, S, dk, scale, m_blas);
    }
    void scores_backward(float* dq, float* dk_, const float* dout, const float* q, const float* k, int B, int H,
                         int T, int S, int dk, float scale) override {
        cuda::scores_backward(dq, dk_, dout, q, k, B, H, T, S, dk, scale, m_blas);
    }
    void attention_mask_forward(float* out, const float* scores, const float* mask, int B, int H, int T,
                                int S) override {
        cuda::attention_mask_forward(out, scores, mask, B, H, T, S, m_stream);
    }
    void attention_mask_backward(float* dscores, const float* dout, const float* mask, int B, int H, int T,
                                 int S) override {
        cuda::attention_mask_backward(dscores, dout, mask, B, H, T, S, m_stream);
    }
    void softmax_forward(float* probs, const float* inp, int R, int C) override {
        cuda::softmax_forward(probs, inp, R, C, m_stream);
    }
    void softmax_backward(float* dinp, const float* dout, const float* probs, int R, int C) override {
        cuda::softmax_backward(dinp, dout, probs, R, C, m_stream);
    }
    void context_forward(float* out, const float* probs, const float* v, int B, int H, int T, int S,
                         int dk) override {
        cuda::context_forward(out, probs, v, B, H, T, S, dk, m_blas);
    }
    void context_backward(float* dprobs, float* dv, const float* dout, const float* probs, const float* v, int B,
                          int H, int T, int S, int dk) override {
        cuda::context_backward(dprobs, dv, dout, probs, v, B, H, T, S, dk, m_blas);
    }
    void fused_attention_forward(float* out, const float* q, const float* k, const float* v, const float* mask,
                                 int B, int H, int T, int S, int dk, float scale) override {
        cuda::fused_attention_forward(out, q, k, v, mask, B, H, T, S, dk, scale, m_stream);
    }
    void residual_forward(float* out, const float* a, const float* b, int N) override {
        cuda::residual_forward(out, a, b, N, m_stream);
    }
    void residual_backward(float* da, float* db, const float* dout, int N) override {
        cuda::residual_backward(da, db, dout, N, m_stream);
    }
    void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                           const float* bias, int N, int C, float eps) override {
        cuda::layernorm_forward(out, mean, rstd, inp, weight, bias, N, C, eps, m_stream);
    }
    void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                            const float* weight, const float* mean, const float* rstd, int N, int C) override {
        cuda::layernorm_backward(dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C, m_stream);
    }
    void relu_forward(float* out, const float* inp, int N) override { cuda::relu_forward(out, inp, N, m_stream); }
    void relu_backward(float* dinp, const float* dout, const float* out, int N) override {
        cuda::relu_backward(dinp, dout, out, N, m_stream);
    }
    void dropout_forward(float* out, float* mask, const float* inp, int N, float p, uint64_t seed) override {
        cuda::dropout_forward(out, mask, inp, N, p, seed, m_stream);
    }
    void dropout_backward(float* dinp, const float* dout, const float* mask, int N) override {
        cuda::dropout_backward(dinp, dout, mask, N, m_stream);
    }
    void log_softmax_forward(float* out, const float* inp, int R, int V) override {
        cuda::log_softmax_forward(out, inp, R, V, m_stream);
    }
    void log_softmax_backward(float* dinp, const float* dout, const float* out, int R, int V) override {
        cuda::log_softmax_backward(dinp, dout, out, R, V, m_stream);
    }
    void cross_entropy_forward(float* losses, const float* log_probs, const int32_t* targets, int R, int V,
                               float smoothing, int pad_id) override {
        cuda::cross_entropy_forward(losses, log_probs, targets, R, V, smoothing, pad_id, m_stream);
    }
    void cross_entropy_backward(float* dlog_probs, const float* dlosses, const int32_t* targets, int R, int V,
                                float smoothing, int pad_id) override {
        cuda::cross_entropy_backward(dlog_probs, dlosses, targets, R, V, smoothing, pad_id, m_stream);
    }
    void cross_entropy_log_softmax_backward(float* dlogits, const float* dlosses, const float* log_probs,
                                            const int32_t* targets, int R, int V, float smoothing,
                                            int pad_id) override {
        cuda::cross_entropy_log_softmax_backward(dlogits, dlosses, log_probs, targets, R, V, smoothing, pad_id,
                                                 m_stream);
    }
    double squared_norm(const float* x, int64_t n) override {
        return cuda::squared_norm(x, n, m_norm_scratch, m_stream);
    }
    void scale(float* x, int64_t n, float factor) override { cuda::scale(x, n, factor, m_stream); }
    void adam_update(float* params, float* m, float* v, const float* grads, int64_t n, float lr, float beta1,
                     float beta2, float eps, int64_t t) override {
        cuda::adam_update(params, m, v, grads, n, lr, beta1, beta2, eps, t, m_stream);
    }
    void rope_forward(float* out, const float* inp, int B, int H, int T, int dk, int pos0) override {
        cuda::rope_forward(out, inp, B, H, T, dk, pos0, m_stream);
    }
    void rope_backward(float* dinp, const float* dout, int B, int H, int T, int dk, int pos0) override {
        cuda::rope_backward(dinp, dout, B, H, T, dk, pos0, m_stream);
    }
    void alibi_forward(float* out, const float* scores, int B, int H, int T, int S, int q0) override {
        cuda::alibi_forward(out, scores, B, H, T, S, q0, m_stream);
    }
    void alibi_backward(float* dscores, const float* dout, int B, int H, int T, int S) override {
        cuda::alibi_backward(dscores, dout, B, H, T, S, m_stream);
    }
    void alibi_slopes(float* slopes, int H) override { cuda::alibi_slopes(slopes, H, m_stream); }
    void learned_positional_backward(float* dtable, const float* dout, int B, int T, int D) override {
        cuda::learned_positional_backward(dtable, dout, B, T, D, m_stream);
    }
    void gelu_forward(float* out, const float* inp, int N) override { cuda::gelu_forward(out, inp, N, m_stream); }
    void gelu_backward(float* dinp, const float* dout, const float* inp, int N) override {
        cuda::gelu_backward(dinp, dout, inp, N, m_stream);
    }
    void swiglu_forward(float* out, const float* gate, const float* up, int N) override {
        cuda::swiglu_forward(out, gate, up, N, m_stream);
    }
    void swiglu_backward(float* dgate, float* dup, const float* dout, const float* gate, const float* up,
                         int N) override {
        cuda::swiglu_backward(dgate, dup, dout, gate, up, N, m_stream);
    }
    void rmsnorm_forward(float* out, float* rstd, const float* inp, const float* weight, int N, int C,
                         float eps) override {
        cuda::rmsnorm_forward(out, rstd, inp, weight, N, C, eps, m_stream);
    }
    void rmsnorm_backward(float* dinp, float* dweight, const float* dout, const float* inp, const float* weight,
                          const float* rstd, int N, int C) override {
        cuda::rmsnorm_backward(dinp, dweight, dout, inp, weight, rstd, N, C, m_stream);
    }

private:
    void create() {
        check(cudaSetDevice(0), "init");
        check(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "init");
        check(cublasCreate(&m_blas), "init (cuBLAS)");
        check(cublasSetStream(m_blas, m_stream), "init (cuBLAS)");
        // Plain FP32 products (no TF32): the parity tests hold the GPU to the CPU's float results.
        check(cublasSetMathMode(m_blas, CUBLAS_DEFAULT_MATH), "init (cuBLAS)");
        check(cudaEventCreate(&m_start), "init");
        check(cudaEventCreate(&m_stop), "init");
        check(cudaMalloc(&m_norm_scratch, sizeof(double)), "init");
    }
    void destroy() noexcept {
        // No throwing here: a device already in an error state still gets its handles released.
        if (m_stream) cudaStreamSynchronize(m_stream);
        if (m_start) cudaEventDestroy(m_start);
        if (m_stop) cudaEventDestroy(m_stop);
        if (m_norm_scratch) cudaFree(m_norm_scratch);
        if (m_blas) cublasDestroy(m_blas);
        if (m_stream) cudaStreamDestroy(m_stream);
    }

    cudaStream_t m_stream = nullptr;
    cublasHandle_t m_blas = nullptr;
    cudaEvent_t m_start = nullptr, m_stop = nullptr;
    double* m_norm_scratch = nullptr;   // squared_norm's accumulator (one double)
};

// The first device's state, probed once (the driver's answer does not change while we run).
struct DeviceProbe {
    std::string unavailable_reason;
    std::string description;
};

const DeviceProbe& probe() {
    static DeviceProbe result;
    static std::once_flag once;
    std::call_once(once, [] {
        int count = 0;
        const cudaError_t err = cudaGetDeviceCount(&count);
        if (err != cudaSuccess) {
            cudaGetLastError();
            // Any error here means "no GPU". Without a driver CUDA answers cudaErrorInsufficientDriver,
            // which reads as "update your driver" (docs/design.md §7): the reason says what is missing.
            const bool driver_loaded = std::filesystem::exists("/proc/driver/nvidia/version");
            if (!driver_loaded && (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice))
                result.unavailable_reason = NO_DRIVER_REASON;
            else
                result.unavailable_reason = "no usable CUDA device: " + cuda::error_text(err);
            return;
        }
        if (count == 0) {
            result.unavailable_reason = "no CUDA device found";
            return;
        }
        cudaDeviceProp prop{};
        const cudaError_t prop_err = cudaGetDeviceProperties(&prop, 0);
        if (prop_err != cudaSuccess) {
            result.unavailable_reason = "cannot query CUDA device 0: " + cuda::error_text(prop_err);
            return;
        }
        const int sm = prop.major * 10 + prop.minor;
        if (sm < 75) {
            result.unavailable_reason = std::string(prop.name) + " has compute capability " + std::to_string(prop.major) +
                                        "." + std::to_string(prop.minor) + "; this build needs 7.5 or newer";
            return;
        }
        char memory[32];
        std::snprintf(memory, sizeof memory, "%.1f GiB", static_cast<double>(prop.totalGlobalMem) / (1 << 30));
        result.description = std::string(prop.name) + " (sm_" + std::to_string(sm) + ", " + memory + ")";
    });
    return result;
}

}  // namespace

std::string cuda_unavailable_reason() { return probe().unavailable_reason; }

std::string cuda_device_description() { return probe().description; }

std::unique_ptr<Backend> make_cuda_backend() {
    const std::string reason = cuda_unavailable_reason();
    if (!reason.empty()) throw DeviceError(reason);
    return std::make_unique<CudaBackend>();
}

}  // namespace tx
