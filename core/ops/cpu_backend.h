// CpuBackend: the reference tx::Backend. Tensors live in ordinary host memory (64-byte aligned,
// one AVX-512 line, zero-filled); every op forwards to its float instantiation in ops.h. Norms
// and scaling share their work over the CPU threads (parallel_for.h). Internal to core/: the
// precision backend (core/precision/precision_backend.cpp) derives from it.
// The CUDA twin is gpu/ops/cuda_backend.cu.
#pragma once
#include "tx/backend.h"
#include "tx/ops.h"
#include "ops/ops_softmax_fused.h"
#include "ops/ops_add_norm.h"
#include "tx/weight_cache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "kernels/gemm.h"
#include "runtime/parallel_for.h"

namespace tx {

class CpuBackend : public Backend {
public:
    static constexpr size_t ALIGNMENT = 64;
    explicit CpuBackend(bool fused_add_norm = true) : m_fused_add_norm(fused_add_norm) {}
    std::string name() const override { return "cpu"; }

    void* allocate(size_t bytes) override {
        // aligned_alloc wants a size that is a multiple of the alignment
        const size_t padded = (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
        void* ptr = std::aligned_alloc(ALIGNMENT, padded ? padded : ALIGNMENT);
        if (!ptr) throw std::bad_alloc();
        std::memset(ptr, 0, padded);
        return ptr;
    }
    void release(void* ptr) override { std::free(ptr); }
    void upload(void* dst, const void* host_src, size_t bytes) override { copy(dst, host_src, bytes); }
    void download(void* host_dst, const void* src, size_t bytes) override { copy(host_dst, src, bytes); }
    void copy(void* dst, const void* src, size_t bytes) override {
        if (bytes) std::memmove(dst, src, bytes);
    }
    void fill_zero(void* dst, size_t bytes) override {
        // One thread: a clear is bound by memory bandwidth, and the trainer's setup clears its
        // moments on the caller's thread, where an OpenMP team of its own would make libgomp
        // count more threads than cores and stop spinning between regions (a wake-up per region).
        if (bytes) std::memset(dst, 0, bytes);
    }

    void embedding_forward(float* out, const int32_t* ids, const float* weight, int N, int D,
                           float scale) override {
        cpu::embedding_forward<float>(out, ids, weight, N, D, scale);
    }
    void embedding_backward(float* dweight, const float* dout, const int32_t* ids, int N, int D,
                            float scale) override {
        cpu::embedding_backward<float>(dweight, dout, ids, N, D, scale);
    }
    void positional_forward(float* out, const float* inp, const float* pe, int B, int T, int D) override {
        cpu::positional_forward<float>(out, inp, pe, B, T, D);
    }
    void positional_backward(float* dinp, const float* dout, int B, int T, int D) override {
        cpu::positional_backward<float>(dinp, dout, B, T, D);
    }
    void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                        int OC) override {
        cpu::linear_forward<float>(out, inp, weight, bias, N, C, OC);
    }
    void linear_forward_fixed_weight(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                                     int OC, WeightCache& cache) override {
        cpu::sgemm_nt(out, inp, weight, bias, N, C, OC, cache.packed(weight, N, C, OC));
    }
    void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                         const float* weight, int N, int C, int OC) override {
        cpu::linear_backward<float>(dinp, dweight, dbias, dout, inp, weight, N, C, OC);
    }
    void split_heads_forward(float* out, const float* inp, int B, int T, int H, int dk) override {
        cpu::split_heads_forward<float>(out, inp, B, T, H, dk);
    }
    void split_heads_backward(float* dinp, const float* dout, int B, int T, int H, int dk) override {
        cpu::split_heads_backward<float>(dinp, dout, B, T, H, dk);
    }
    void merge_heads_forward(float* out, const float* inp, int B, int T, int H, int dk) override {
        cpu::merge_heads_forward<float>(out, inp, B, T, H, dk);
    }
    void merge_heads_backward(float* dinp, const float* dout, int B, int T, int H, int dk) override {
        cpu::merge_heads_backward<float>(dinp, dout, B, T, H, dk);
    }
    void scores_forward(float* out, const float* q, const float* k, int B, int H, int T, int S, int dk,
                        float scale) override {
        cpu::scores_forward<float>(out, q, k, B, H, T, S, dk, scale);
    }
    void scores_backward(float* dq, float* dk_, const float* dout, const float* q, const float* k,
                         int B, int H, int T, int S, int dk, float scale) override {
        cpu::scores_backward<float>(dq, dk_, dout, q, k, B, H, T, S, dk, scale);
    }
    void attention_mask_forward(float* out, const float* scores, const float* mask, int B, int H, int T,
                                int S) override {
        cpu::attention_mask_forward<float>(out, scores, mask, B, H, T, S);
    }
    void attention_mask_backward(float* dscores, const float* dout, const float* mask, int B, int H, int T,
                                 int S) override {
        cpu::attention_mask_backward<float>(dscores, dout, mask, B, H, T, S);
    }
    void softmax_forward(float* probs, const float* inp, int R, int C) override {
        cpu::softmax_forward<float>(probs, inp, R, C);
    }
    void softmax_backward(float* dinp, const float* dout, const float* probs, int R, int C) override {
        cpu::softmax_backward<float>(dinp, dout, probs, R, C);
    }
    void context_forward(float* out, const float* probs, const float* v, int B, int H, int T, int S,
                         int dk) override {
        cpu::context_forward<float>(out, probs, v, B, H, T, S, dk);
    }
    void context_backward(float* dprobs, float* dv, const float* dout, const float* probs, const float* v,
                          int B, int H, int T, int S, int dk) override {
        cpu::context_backward<float>(dprobs, dv, dout, probs, v, B, H, T, S, dk);
    }
    void fused_attention_forward(float* out, const float* q, const float* k, const float* v, const float* mask,
                                 int B, int H, int T, int S, int dk, float scale) override {
        cpu::fused_attention_forward<float>(out, q, k, v, mask, B, H, T, S, dk, scale);
    }
    bool fuses_masked_softmax() const override { return true; }
    bool small_calls_are_cheap() const override { return true; }
    void masked_softmax_forward(float* probs, const float* scores, const float* mask, int B, int H, int T, int S,
                                float scale) override {
        cpu::masked_softmax_forward<float>(probs, scores, mask, B, H, T, S, scale);
    }
    void masked_softmax_backward(float* dscores, const float* dprobs, const float* probs, const float* mask, int B,
                                 int H, int T, int S, float scale) override {
        cpu::masked_softmax_backward<float>(dscores, dprobs, probs, mask, B, H, T, S, scale);
    }
    void residual_forward(float* out, const float* a, const float* b, int N) override {
        cpu::residual_forward<float>(out, a, b, N);
    }
    void residual_backward(float* da, float* db, const float* dout, int N) override {
        cpu::residual_backward<float>(da, db, dout, N);
    }
    void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                           const float* bias, int N, int C, float eps) override {
        cpu::layernorm_forward<float>(out, mean, rstd, inp, weight, bias, N, C, eps);
    }
    void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                            const float* weight, const float* mean, const float* rstd, int N, int C) override {
        cpu::layernorm_backward<float>(dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C);
    }
    void relu_forward(float* out, const float* inp, int N) override { cpu::relu_forward<float>(out, inp, N); }
    void relu_backward(float* dinp, const float* dout, const float* out, int N) override {
        cpu::relu_backward<float>(dinp, dout, out, N);
    }
    void dropout_forward(float* out, float* mask, const float* inp, int N, float p, uint64_t seed) override {
        cpu::dropout_forward<float>(out, mask, inp, N, p, seed);
    }
    void dropout_backward(float* dinp, const float* dout, const float* mask, int N) override {
        cpu::dropout_backward<float>(dinp, dout, mask, N);
    }
    void log_softmax_forward(float* out, const float* inp, int R, int V) override {
        cpu::log_softmax_forward<float>(out, inp, R, V);
    }
    void log_softmax_backward(float* dinp, const float* dout, const float* out, int R, int V) override {
        cpu::log_softmax_backward<float>(dinp, dout, out, R, V);
    }
    void cross_entropy_forward(float* losses, const float* log_probs, const int32_t* targets, int R, int V,
                               float smoothing, int pad_id) override {
        cpu::cross_entropy_forward<float>(losses, log_probs, targets, R, V, smoothing, pad_id);
    }
    void cross_entropy_backward(float* dlog_probs, const float* dlosses, const int32_t* targets, int R, int V,
                                float smoothing, int pad_id) override {
        cpu::cross_entropy_backward<float>(dlog_probs, dlosses, targets, R, V, smoothing, pad_id);
    }
    void cross_entropy_log_softmax_backward(float* dlogits, const float* dlosses, const float* log_probs,
                                            const int32_t* targets, int R, int V, float smoothing,
                                            int pad_id) override {
        cpu::cross_entropy_log_softmax_backward<float>(dlogits, dlosses, log_probs, targets, R, V, smoothing, pad_id);
    }
    double squared_norm(const float* x, int64_t n) override {
        // Partial sums over fixed blocks, added in block order: the same bits on any thread count.
        // Within a block, four running sums: a chain of one add per element would bound the loop
        // at one element per add latency; in double, the sum of 10^7 squares keeps its digits.
        constexpr int64_t BLOCK = 1 << 16;
        const int64_t blocks = (n + BLOCK - 1) / BLOCK;
        std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
        parallel_for(blocks, 8, [&](int64_t first, int64_t last) {
            for (int64_t block = first; block < last; ++block) {
                const int64_t end = std::min(n, (block + 1) * BLOCK);
                double s[4] = {0, 0, 0, 0};
                int64_t i = block * BLOCK;
                for (; i + 4 <= end; i += 4)
                    for (int k = 0; k < 4; ++k) s[k] += static_cast<double>(x[i + k]) * x[i + k];
                for (; i < end; ++i) s[0] += static_cast<double>(x[i]) * x[i];
                partial[static_cast<size_t>(block)] = s[0] + s[1] + s[2] + s[3];
            }
        });
        double sum = 0.0;
        for (double p : partial) sum += p;
        return sum;
    }
    void scale(float* x, int64_t n, float factor) override {
        parallel_for(n, 1 << 15, [=](int64_t first, int64_t last) {
            for (int64_t i = first; i < last; ++i) x[i] *= factor;
        });
    }
    void adam_update(float* params, float* m, float* v, const float* grads, int64_t n, float lr, float beta1,
                     float beta2, float eps, int64_t t) override {
        cpu::adam_update<float>(params, m, v, grads, n, lr, beta1, beta2, eps, t);
    }
    void rope_forward(float* out, const float* inp, int B, int H, int T, int dk, int pos0) override {
        cpu::rope_forward<float>(out, inp, B, H, T, dk, pos0);
    }
    void rope_backward(float* dinp, const float* dout, int B, int H, int T, int dk, int pos0) override {
        cpu::rope_backward<float>(dinp, dout, B, H, T, dk, pos0);
    }
    void alibi_forward(float* out, const float* scores, int B, int H, int T, int S, int q0) override {
        cpu::alibi_forward<float>(out, scores, B, H, T, S, q0);
    }
    void alibi_backward(float* dscores, const float* dout, int B, int H, int T, int S) override {
        cpu::alibi_backward<float>(dscores, dout, B, H, T, S);
    }
    void alibi_slopes(float* slopes, int H) override { cpu::alibi_slopes<float>(slopes, H); }
    bool has_relative_bias() const override { return true; }
    void relative_bias_forward(float* out, const float* scores, const float* table, int B, int H, int T, int S, int q0,
                               bool bidirectional) override {
        cpu::relative_bias_forward<float>(out, scores, table, B, H, T, S, q0, bidirectional);
    }
    void relative_bias_backward(float* dtable, const float* dout, int B, int H, int T, int S, int q0,
                                bool bidirectional) override {
        cpu::relative_bias_backward<float>(dtable, dout, B, H, T, S, q0, bidirectional);
    }
    void learned_positional_backward(float* dtable, const float* dout, int B, int T, int D) override {
        cpu::learned_positional_backward<float>(dtable, dout, B, T, D);
    }
    void gelu_forward(float* out, const float* inp, int N) override { cpu::gelu_forward<float>(out, inp, N); }
    void gelu_backward(float* dinp, const float* dout, const float* inp, int N) override {
        cpu::gelu_backward<float>(dinp, dout, inp, N);
    }
    void swiglu_forward(float* out, const float* gate, const float* up, int N) override {
        cpu::swiglu_forward<float>(out, gate, up, N);
    }
    void swiglu_backward(float* dgate, float* dup, const float* dout, const float* gate, const float* up,
                         int N) override {
        cpu::swiglu_backward<float>(dgate, dup, dout, gate, up, N);
    }
    void rmsnorm_forward(float* out, float* rstd, const float* inp, const float* weight, int N, int C,
                         float eps) override {
        cpu::rmsnorm_forward<float>(out, rstd, inp, weight, N, C, eps);
    }
    void rmsnorm_backward(float* dinp, float* dweight, const float* dout, const float* inp, const float* weight,
                          const float* rstd, int N, int C) override {
        cpu::rmsnorm_backward<float>(dinp, dweight, dout, inp, weight, rstd, N, C);
    }
    bool fuses_add_norm() const override { return m_fused_add_norm; }
    void residual_dropout_norm_forward(float* out, float* sum, float* mask, float* mean, float* rstd, const float* x,
                                       const float* sub, const float* weight, const float* bias, int N, int C, float p,
                                       uint64_t seed, float eps) override {
        cpu::residual_dropout_norm_forward<float>(out, sum, mask, mean, rstd, x, sub, weight, bias, N, C, p, seed, eps);
    }
    void residual_dropout_norm_backward(float* dx, float* dsub, float* dweight, float* dbias, const float* dout,
                                        const float* sum, const float* mask, const float* weight, const float* mean,
                                        const float* rstd, int N, int C) override {
        cpu::residual_dropout_norm_backward<float>(dx, dsub, dweight, dbias, dout, sum, mask, weight, mean, rstd, N, C);
    }
    void residual_dropout_forward(float* out, float* mask, const float* x, const float* sub, int N, float p,
                                  uint64_t seed) override {
        cpu::residual_dropout_forward<float>(out, mask, x, sub, N, p, seed);
    }
    void residual_dropout_backward(float* dx, float* dsub, const float* dout, const float* mask, int N) override {
        cpu::residual_dropout_backward<float>(dx, dsub, dout, mask, N);
    }

private:
    bool m_fused_add_norm;
};

}  // namespace tx
