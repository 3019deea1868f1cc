// Scaled dot-product attention on the GPU, step by step (twin of core/ops/ops_attention.cpp): the
// kernels the step-through shows. scores and context are strided-batched cuBLAS products, one
// (T,S) or (T,dk) matrix per (b,h); mask and softmax are kernels. q (B,H,T,dk), k and v
// (B,H,S,dk), scores/probs (B,H,T,S), mask (B,T,S) shared by the heads.
#include <cmath>

#include "common/cuda_check.h"
#include "ops.cuh"
#include "common/warp_reduce.cuh"

namespace tx::cuda {

namespace {

constexpr int THREADS = 256;
constexpr int ROWS_PER_BLOCK = 4;   // row kernels: one warp a row

// Heads: (B,T,H·dk) <-> (B,H,T,dk). One thread per element of the (B,H,T,dk) side; `heads_index`
// gives the matching index on the (B,T,H·dk) side. Each element moves once: no atomics needed.
__device__ inline long long heads_index(long long i, int T, int H, int dk) {
    const int d = static_cast<int>(i % dk);
    const int t = static_cast<int>((i / dk) % T);
    const int h = static_cast<int>((i / (static_cast<long long>(dk) * T)) % H);
    const long long b = i / (static_cast<long long>(dk) * T * H);
    return ((b * T + t) * H + h) * dk + d;
}

__global__ void split_heads_forward_kernel(float* out, const float* inp, int T, int H, int dk, long long n) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = inp[heads_index(i, T, H, dk)];
}

__global__ void split_heads_backward_kernel(float* dinp, const float* dout, int T, int H, int dk, long long n) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) dinp[heads_index(i, T, H, dk)] += dout[i];
}

__global__ void merge_heads_forward_kernel(float* out, const float* inp, int T, int H, int dk, long long n) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) out[heads_index(i, T, H, dk)] = inp[i];
}

__global__ void merge_heads_backward_kernel(float* dinp, const float* dout, int T, int H, int dk, long long n) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) dinp[i] += dout[heads_index(i, T, H, dk)];
}

__global__ void attention_mask_forward_kernel(float* out, const float* scores, const float* mask, int H,
                                              long long TS, long long n) {
    // out = keep ? scores : -inf, with keep = mask[b, t, s] != 0 (all heads share it)
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const long long b = i / (TS * H);
    const bool keep = !mask || mask[b * TS + i % TS] != 0.0f;
    out[i] = keep ? scores[i] : -INFINITY;
}

__global__ void attention_mask_backward_kernel(float* dscores, const float* dout, const float* mask, int H,
                                               long long TS, long long n) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const long long b = i / (TS * H);
    if (!mask || mask[b * TS + i % TS] != 0.0f) dscores[i] += dout[i];
}

__global__ void softmax_forward_kernel(float* probs, const float* inp, int R, int C) {
    // probs, inp (R,C); one warp a row. Subtract the row max (no overflow); a fully masked row
    // (max = -inf) gives zeros, never NaN; exp(-inf - max) is exactly 0 for a masked entry.
    const int lane = threadIdx.x % WARP;
    const long long r = blockIdx.x * static_cast<long long>(ROWS_PER_BLOCK) + threadIdx.x / WARP;
    if (r >= R) return;
    const float* x = inp + r * C;
    float* p = probs + r * C;
    float maxval, sum;
    warp_row_max_sumexp(x, C, maxval, sum);
    if (maxval == -INFINITY) {
        for (int c = lane; c < C; c += WARP) p[c] = 0.0f;
        return;
    }
    const float inv = 1.0f / sum;
    for (int c = lane; c < C; c += WARP) p[c] = expf(x[c] - maxval) * inv;
}

__global__ void softmax_backward_kernel(float* dinp, const float* dout, const float* probs, int R, int C) {
    // dinp (R,C) += probs * (dout - Σ_c dout*probs); one warp a row
    const int lane = threadIdx.x % WARP;
    const long long r = blockIdx.x * static_cast<long long>(ROWS_PER_BLOCK) + threadIdx.x / WARP;
    if (r >= R) return;
    const float* g = dout + r * C;
    const float* p = probs + r * C;
    float* dx = dinp + r * C;
    float dot = 0.0f;
    for (int c = lane; c < C; c += WARP) dot += g[c] * p[c];
    dot = warp_sum(dot);
    for (int c = lane; c < C; c += WARP) dx[c] += p[c] * (g[c] - dot);
}

long long count(int B, int H, int T, int X) { return static_cast<long long>(B) * H * T * X; }

}  // namespace

void split_heads_forward(float* out, const float* inp, int B, int T, int H, int dk, cudaStream_t stream) {
    const long long n = count(B, H, T, dk);
    if (n == 0) return;
    split_heads_forward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(out, inp, T, H, dk, n);
    check_launch("split_heads_forward");
}

void split_heads_backward(float* dinp, const float* dout, int B, int T, int H, int dk, cudaStream_t stream) {
    const long long n = count(B, H, T, dk);
    if (n == 0) return;
    split_heads_backward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(dinp, dout, T, H, dk, n);
    check_launch("split_heads_backward");
}

void merge_heads_forward(float* out, const float* inp, int B, int T, int H, int dk, cudaStream_t stream) {
    const long long n = count(B, H, T, dk);
    if (n == 0) return;
    merge_heads_forward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(out, inp, T, H, dk, n);
    check_launch("merge_heads_forward");
}

void merge_heads_backward(float* dinp, const float* dout, int B, int T, int H, int dk, cudaStream_t stream) {
    const long long n = count(B, H, T, dk);
    if (n == 0) return;
    merge_heads_backward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(dinp, dout, T, H, dk, n);
    check_launch("merge_heads_backward");
}

void scores_forward(float* out, const float* q, const float* k, int B, int H, int T, int S, int dk, float scale,
                    cublasHandle_t blas) {
    // per (b,h): out (T,S) = scale · q (T,dk) · k (S,dk)ᵀ;  column-major: outᵀ (S,T) = scale · k·qᵀ
    if (count(B, H, T, S) == 0) return;
    const float zero = 0.0f;
    check(cublasSgemmStridedBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, S, T, dk, &scale, k, dk,
                                    static_cast<long long>(S) * dk, q, dk, static_cast<long long>(T) * dk, &zero, out,
                                    S, static_cast<long long>(T) * S, B * H),
          "scores_forward");
}

void scores_backward(float* dq, float* dk_, const float* dout, const float* q, const float* k, int B, int H, int T,
                     int S, int dk, float scale, cublasHandle_t blas) {
    if (count(B, H, T, S) == 0) return;
    const float one = 1.0f;
    if (dq)   // dq (T,dk) += scale · dout (T,S) · k (S,dk);  column-major: dqᵀ (dk,T) += scale · kᵀ·doutᵀ
        check(cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_N, dk, T, S, &scale, k, dk,
                                        static_cast<long long>(S) * dk, dout, S, static_cast<long long>(T) * S, &one,
                                        dq, dk, static_cast<long long>(T) * dk, B * H),
              "scores_backward");
    if (dk_)   // dk (S,dk) += scale · dout (T,S)ᵀ · q (T,dk);  column-major: dkᵀ (dk,S) += scale · qᵀ·dout
        check(cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_T, dk, S, T, &scale, q, dk,
                                        static_cast<long long>(T) * dk, dout, S, static_cast<long long>(T) * S, &one,
                                        dk_, dk, static_cast<long long>(S) * dk, B * H),
              "scores_backward");
}

void attention_mask_forward(float* out, const float* scores, const float* mask, int B, int H, int T, int S,
                            cudaStream_t stream) {
    const long long n = count(B, H, T, S);
    if (n == 0) return;
    attention_mask_forward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(
        out, scores, mask, H, static_cast<long long>(T) * S, n);
    check_launch("attention_mask_forward");
}

void attention_mask_backward(float* dscores, const float* dout, const float* mask, int B, int H, int T, int S,
                             cudaStream_t stream) {
    const long long n = count(B, H, T, S);
    if (n == 0) return;
    attention_mask_backward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(
        dscores, dout, mask, H, static_cast<long long>(T) * S, n);
    check_launch("attention_mask_backward");
}

void softmax_forward(float* probs, const float* inp, int R, int C, cudaStream_t stream) {
    if (R == 0 || C == 0) return;
    softmax_forward_kernel<<<blocks_for(R, ROWS_PER_BLOCK), ROWS_PER_BLOCK * WARP, 0, stream>>>(probs, inp, R, C);
    check_launch("softmax_forward");
}

void softmax_backward(float* dinp, const float* dout, const float* probs, int R, int C, cudaStream_t stream) {
    if (R == 0 || C == 0) return;
    softmax_backward_kernel<<<blocks_for(R, ROWS_PER_BLOCK), ROWS_PER_BLOCK * WARP, 0, stream>>>(dinp, dout, probs,
                                                                                                R, C);
    check_launch("softmax_backward");
}

void context_forward(float* out, const float* probs, const float* v, int B, int H, int T, int S, int dk,
                     cublasHandle_t blas) {
    // per (b,h): out (T,dk) = probs (T,S) · v (S,dk);  column-major: outᵀ (dk,T) = vᵀ·probsᵀ
    if (count(B, H, T, dk) == 0) return;
    const float one = 1.0f, zero = 0.0f;
    check(cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_N, dk, T, S, &one, v, dk,
                                    static_cast<long long>(S) * dk, probs, S, static_cast<long long>(T) * S, &zero,
                                    out, dk, static_cast<long long>(T) * dk, B * H),
          "context_forward");
}

void context_backward(float* dprobs, float* dv, const float* dout, const float* probs, const float* v, int B, int H,
                      int T, int S, int dk, cublasHandle_t blas) {
    if (count(B, H, T, S) == 0) return;
    const float one = 1.0f;
    if (dprobs)   // dprobs (T,S) += dout (T,dk) · v (S,dk)ᵀ;  column-major: dprobsᵀ (S,T) += v·doutᵀ
        check(cublasSgemmStridedBatched(blas, CUBLAS_OP_T, CUBLAS_OP_N, S, T, dk, &one, v, dk,
                                        static_cast<long long>(S) * dk, dout, dk, static_cast<long long>(T) * dk, &one,
                                        dprobs, S, static_cast<long long>(T) * S, B * H),
              "context_backward");
    if (dv)   // dv (S,dk) += probs (T,S)ᵀ · dout (T,dk);  column-major: dvᵀ (dk,S) += doutᵀ·probs
        check(cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_T, dk, S, T, &one, dout, dk,
                                        static_cast<long long>(T) * dk, probs, S, static_cast<long long>(T) * S, &one,
                                        dv, dk, static_cast<long long>(S) * dk, B * H),
              "context_backward");
}

}  // namespace tx::cuda
