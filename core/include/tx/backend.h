// Backend: owns tensor memory (host for the CPU, device for CUDA) and runs the ops of ops.h on
// it, with the same names and argument order (float only). The model is written once against
// this interface. Every *_backward accumulates (+=) into its gradient outputs; callers zero.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "tx/precision.h"

namespace tx {

// A backend that cannot run an op (a CUDA device out of memory, a failed launch): the message
// names the op and the device's reason. Callers report it and carry on (on the CPU).
class DeviceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class WeightCache;   // weight_cache.h

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;   // "cpu", "cuda"

    // Memory. Allocations are zero-filled. Pointers are host pointers only for the CPU backend.
    virtual void* allocate(size_t bytes) = 0;
    virtual void release(void* ptr) = 0;
    virtual void upload(void* dst, const void* host_src, size_t bytes) = 0;
    virtual void download(void* host_dst, const void* src, size_t bytes) = 0;
    virtual void copy(void* dst, const void* src, size_t bytes) = 0;
    virtual void fill_zero(void* dst, size_t bytes) = 0;
    // Waits until every queued op has finished (for timing); the CPU runs synchronously.
    virtual void synchronize() {}
    // Whether a small op costs no more than its arithmetic: true on the CPU, where the cached
    // decoder then runs self-attention once per head over the written cache slots only; false
    // on a device, where every call is a kernel launch and one call over all slots is cheaper.
    virtual bool small_calls_are_cheap() const { return false; }
    // The precision the products run in (precision.h, docs/precision.md): FP32 except on a backend
    // made by make_precision_cpu_backend(PrecisionMode).
    virtual PrecisionMode precision() const { return {}; }
    // Where precision().all_low: rounds a finished step's output (n floats) to the low format, in
    // place; the model calls it after every step's forward. Otherwise nothing.
    virtual void round_step_output(float* /*out*/, int64_t /*n*/) {}
    // The parameters may have changed: a backend drops what it derived from the weights (a
    // precision backend's rounded or quantised copies). The model calls it wherever it clears its
    // WeightCache.
    virtual void parameters_changed() {}
    // Times queued work (one step): timer_start() marks the start on the backend's queue and
    // timer_stop() waits for the work and returns milliseconds. The CPU reads a host clock; CUDA
    // records events on its stream (a host clock there would time only the launches).
    virtual void timer_start() {
        synchronize();
        m_timer_start = std::chrono::steady_clock::now();
    }
    virtual double timer_stop() {
        synchronize();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_timer_start).count();
    }

    virtual void embedding_forward(float* out, const int32_t* ids, const float* weight, int N, int D, float scale) = 0;
    virtual void embedding_backward(float* dweight, const float* dout, const int32_t* ids, int N, int D, float scale) = 0;
    virtual void positional_forward(float* out, const float* inp, const float* pe, int B, int T, int D) = 0;
    virtual void positional_backward(float* dinp, const float* dout, int B, int T, int D) = 0;
    virtual void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC) = 0;
    // linear_forward of a weight that stays as it is until `cache` is cleared: a backend may keep
    // work on the weight there (the CPU its packed form, weight_cache.h). By default it is not used.
    virtual void linear_forward_fixed_weight(float* out, const float* inp, const float* weight, const float* bias, int N,
                                             int C, int OC, WeightCache& /*cache*/) {
        linear_forward(out, inp, weight, bias, N, C, OC);
    }
    virtual void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                                 const float* weight, int N, int C, int OC) = 0;
    virtual void split_heads_forward(float* out, const float* inp, int B, int T, int H, int dk) = 0;
    virtual void split_heads_backward(float* dinp, const float* dout, int B, int T, int H, int dk) = 0;
    virtual void merge_heads_forward(float* out, const float* inp, int B, int T, int H, int dk) = 0;
    virtual void merge_heads_backward(float* dinp, const float* dout, int B, int T, int H, int dk) = 0;
    virtual void scores_forward(float* out, const float* q, const float* k, int B, int H, int T, int S, int dk, float scale) = 0;
    virtual void scores_backward(float* dq, float* dk_, const float* dout, const float* q, const float* k,
                                 int B, int H, int T, int S, int dk, float scale) = 0;
    virtual void attention_mask_forward(float* out, const float* scores, const float* mask, int B, int H, int T, int S) = 0;
    virtual void attention_mask_backward(float* dscores, const float* dout, const float* mask, int B, int H, int T, int S) = 0;
    virtual void softmax_forward(float* probs, const float* inp, int R, int C) = 0;
    virtual void softmax_backward(float* dinp, const float* dout, const float* probs, int R, int C) = 0;
    virtual void context_forward(float* out, const float* probs, const float* v, int B, int H, int T, int S, int dk) = 0;
    virtual void context_backward(float* dprobs, float* dv, const float* dout, const float* probs, const float* v,
                                  int B, int H, int T, int S, int dk) = 0;
    // scores -> mask -> softmax -> context in one pass over key tiles (online softmax), without
    // the (T,S) matrices; forward only (the model uses it in evaluation mode).
    virtual void fused_attention_forward(float* out, const float* q, const float* k, const float* v,
                                         const float* mask, int B, int H, int T, int S, int dk, float scale) = 0;
    // Mask and softmax in one pass each way (core/ops/ops_softmax_fused.h), for training: a backend
    // that has them says so, and the model then leaves the mask step unmaterialised; the others
    // (CUDA) keep the two steps, and these are never called on them.
    virtual bool fuses_masked_softmax() const { return false; }
    // The defaults (backend.cpp) throw DeviceError naming the op.
    virtual void masked_softmax_forward(float* probs, const float* scores, const float* mask, int B, int H, int T, int S,
                                        float scale);
    virtual void masked_softmax_backward(float* dscores, const float* dprobs, const float* probs, const float* mask,
                                         int B, int H, int T, int S, float scale);
    virtual void residual_forward(float* out, const float* a, const float* b, int N) = 0;
    virtual void residual_backward(float* da, float* db, const float* dout, int N) = 0;
    virtual void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                                   const float* bias, int N, int C, float eps) = 0;
    virtual void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                                    const float* weight, const float* mean, const float* rstd, int N, int C) = 0;
    virtual void relu_forward(float* out, const float* inp, int N) = 0;
    virtual void relu_backward(float* dinp, const float* dout, const float* out, int N) = 0;
    virtual void dropout_forward(float* out, float* mask, const float* inp, int N, float p, uint64_t seed) = 0;
    virtual void dropout_backward(float* dinp, const float* dout, const float* mask, int N) = 0;
    virtual void log_softmax_forward(float* out, const float* inp, int R, int V) = 0;
    virtual void log_softmax_backward(float* dinp, const float* dout, const float* out, int R, int V) = 0;
    virtual void cross_entropy_forward(float* losses, const float* log_probs, const int32_t* targets, int R, int V,
                                       float smoothing, int pad_id) = 0;
    virtual void cross_entropy_backward(float* dlog_probs, const float* dlosses, const int32_t* targets, int R, int V,
                                        float smoothing, int pad_id) = 0;
    virtual void cross_entropy_log_softmax_backward(float* dlogits, const float* dlosses, const float* log_probs,
                                                    const int32_t* targets, int R, int V, float smoothing,
                                                    int pad_id) = 0;
    // Σ x² over n floats, accumulated in double (the optimizer's gradient norm; non-finite when
    // any x is), and x *= factor in place (gradient clipping). Kept on the backend so that a
    // device backend never copies the gradients to the host.
    virtual double squared_norm(const float* x, int64_t n) = 0;
    virtual void scale(float* x, int64_t n, float factor) = 0;
    virtual void adam_update(float* params, float* m, float* v, const float* grads, int64_t n, float lr,
                             float beta1, float beta2, float eps, int64_t t) = 0;
    // The modern variants' ops (ops.h's appended block): RoPE, ALiBi, learned positions, GELU,
    // SwiGLU, RMSNorm. alibi_slopes writes the H slopes into this backend's memory.
    virtual void rope_forward(float* out, const float* inp, int B, int H, int T, int dk, int pos0) = 0;
    virtual void rope_backward(float* dinp, const float* dout, int B, int H, int T, int dk, int pos0) = 0;
    virtual void alibi_forward(float* out, const float* scores, int B, int H, int T, int S, int q0) = 0;
    virtual void alibi_backward(float* dscores, const float* dout, int B, int H, int T, int S) = 0;
    virtual void alibi_slopes(float* slopes, int H) = 0;
    virtual void learned_positional_backward(float* dtable, const float* dout, int B, int T, int D) = 0;
    // T5's relative position bias (ops.h): only a backend that says it has it gets these calls; the
    // model refuses the variant on the others (the defaults, backend.cpp, throw naming the op).
    virtual bool has_relative_bias() const { return false; }
    virtual void relative_bias_forward(float* out, const float* scores, const float* table, int B, int H, int T, int S,
                                       int q0, bool bidirectional);
    virtual void relative_bias_backward(float* dtable, const float* dout, int B, int H, int T, int S, int q0,
                                        bool bidirectional);
    virtual void gelu_forward(float* out, const float* inp, int N) = 0;
    virtual void gelu_backward(float* dinp, const float* dout, const float* inp, int N) = 0;
    virtual void swiglu_forward(float* out, const float* gate, const float* up, int N) = 0;
    virtual void swiglu_backward(float* dgate, float* dup, const float* dout, const float* gate, const float* up,
                                 int N) = 0;
    virtual void rmsnorm_forward(float* out, float* rstd, const float* inp, const float* weight, int N, int C,
                                 float eps) = 0;
    virtual void rmsnorm_backward(float* dinp, float* dweight, const float* dout, const float* inp,
                                  const float* weight, const float* rstd, int N, int C) = 0;
    // The sublayer connection in one pass each way (core/ops/ops_add_norm.h), for training: Post-LN's
    // norm(x + dropout(sub)) and Pre-LN's x + dropout(sub). A backend that has them says so, and the
    // model then leaves the sublayer's own dropout to them; the others (CUDA) keep the separate
    // dropout, residual and norm ops, and these are never called on them.
    virtual bool fuses_add_norm() const { return false; }
    // The defaults (backend.cpp) throw DeviceError naming the op.
    virtual void residual_dropout_norm_forward(float* out, float* sum, float* mask, float* mean, float* rstd,
                                               const float* x, const float* sub, const float* weight, const float* bias,
                                               int N, int C, float p, uint64_t seed, float eps);
    virtual void residual_dropout_norm_backward(float* dx, float* dsub, float* dweight, float* dbias, const float* dout,
                                                const float* sum, const float* mask, const float* weight,
                                                const float* mean, const float* rstd, int N, int C);
    virtual void residual_dropout_forward(float* out, float* mask, const float* x, const float* sub, int N, float p,
                                          uint64_t seed);
    virtual void residual_dropout_backward(float* dx, float* dsub, const float* dout, const float* mask, int N);

protected:
    std::chrono::steady_clock::time_point m_timer_start;
};

// The reference backend: host memory, the ops of ops.h (Eigen).
std::unique_ptr<Backend> make_cpu_backend();
// The same without the fused sublayer connection (fuses_add_norm() false): the separate ops, which
// the fused ones are tested and benchmarked against.
std::unique_ptr<Backend> make_cpu_backend_unfused_add_norm();
// The reference backend computing in `mode` (docs/precision.md): the linear layers' weights
// rounded (BF16, FP16) or quantised (INT8) once, the matrix products' inputs and outputs rounded
// (BF16, FP16), every step's output rounded with mode.all_low. FP32 is make_cpu_backend() itself.
// Evaluation only: its backward ops are the FP32 ones. Throws std::invalid_argument for a mode
// that validate(mode) refuses.
std::unique_ptr<Backend> make_precision_cpu_backend(PrecisionMode mode);

// A typed array in a backend's memory, released with it (RAII). Zero-filled on allocation.
template <typename T>
class BackendArray {
public:
    BackendArray() = default;
    BackendArray(Backend& backend, size_t count)
        : m_backend(&backend), m_count(count),
          m_data(count ? static_cast<T*>(backend.allocate(count * sizeof(T))) : nullptr) {}
    BackendArray(const BackendArray&) = delete;
    BackendArray& operator=(const BackendArray&) = delete;
    BackendArray(BackendArray&& other) noexcept { swap(other); }
    BackendArray& operator=(BackendArray&& other) noexcept { BackendArray(std::move(other)).swap(*this); return *this; }
    ~BackendArray() { if (m_data) m_backend->release(m_data); }

    T* data() { return m_data; }
    const T* data() const { return m_data; }
    size_t size() const { return m_count; }
    void swap(BackendArray& other) noexcept {
        std::swap(m_backend, other.m_backend);
        std::swap(m_count, other.m_count);
        std::swap(m_data, other.m_data);
    }

private:
    Backend* m_backend = nullptr;
    size_t m_count = 0;
    T* m_data = nullptr;
};

}  // namespace tx
