// Token embedding and positional encoding on the GPU (twins of core/ops/ops_embedding.cpp).
// ids (N) index rows of weight (V,D); pe (L,D) is the fixed table uploaded by the model, or a
// learned one, whose gradient is learned_positional_backward.
#include "common/cuda_check.h"
#include "ops.cuh"

namespace tx::cuda {

namespace {

constexpr int THREADS = 256;

__global__ void embedding_forward_kernel(float* out, const int32_t* ids, const float* weight, int N, int D,
                                         float scale) {
    // out (N,D): one thread per element
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= static_cast<long long>(N) * D) return;
    const long long n = i / D, d = i % D;
    out[i] = weight[static_cast<long long>(ids[n]) * D + d] * scale;
}

__global__ void embedding_backward_kernel(float* dweight, const float* dout, const int32_t* ids, int N, int D,
                                          float scale) {
    // dweight (V,D) += dout (N,D) * scale; a token seen twice adds twice, hence the atomics
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= static_cast<long long>(N) * D) return;
    const long long n = i / D, d = i % D;
    atomicAdd(&dweight[static_cast<long long>(ids[n]) * D + d], dout[i] * scale);
}

__global__ void positional_forward_kernel(float* out, const float* inp, const float* pe, long long TD, long long n) {
    // out (B,T,D) = inp + pe[0:T]: element i of any batch row uses pe[i mod T·D]
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = inp[i] + pe[i % TD];
}

__global__ void add_into_kernel(float* dst, const float* src, long long n) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) dst[i] += src[i];
}

}  // namespace

void embedding_forward(float* out, const int32_t* ids, const float* weight, int N, int D, float scale,
                       cudaStream_t stream) {
    const long long n = static_cast<long long>(N) * D;
    if (n == 0) return;
    embedding_forward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(out, ids, weight, N, D, scale);
    check_launch("embedding_forward");
}

void embedding_backward(float* dweight, const float* dout, const int32_t* ids, int N, int D, float scale,
                        cudaStream_t stream) {
    const long long n = static_cast<long long>(N) * D;
    if (n == 0) return;
    embedding_backward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(dweight, dout, ids, N, D, scale);
    check_launch("embedding_backward");
}

void positional_forward(float* out, const float* inp, const float* pe, int B, int T, int D, cudaStream_t stream) {
    const long long TD = static_cast<long long>(T) * D, n = B * TD;
    if (n == 0) return;
    positional_forward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(out, inp, pe, TD, n);
    check_launch("positional_forward");
}

void positional_backward(float* dinp, const float* dout, int B, int T, int D, cudaStream_t stream) {
    // dinp += dout; the table is fixed, it has no gradient
    const long long n = static_cast<long long>(B) * T * D;
    if (n == 0) return;
    add_into_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(dinp, dout, n);
    check_launch("positional_backward");
}

namespace {

__global__ void learned_positional_backward_kernel(float* dtable, const float* dout, int B, long long TD) {
    // dtable[i] += Σ_b dout[b·TD + i]: one thread per table entry, b in order (no atomics, the
    // same bits on every run)
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= TD) return;
    float acc = dtable[i];
    for (int b = 0; b < B; ++b) acc += dout[b * TD + i];
    dtable[i] = acc;
}

}  // namespace

void learned_positional_backward(float* dtable, const float* dout, int B, int T, int D, cudaStream_t stream) {
    const long long TD = static_cast<long long>(T) * D;
    if (TD <= 0 || B <= 0) return;
    learned_positional_backward_kernel<<<blocks_for(TD, THREADS), THREADS, 0, stream>>>(dtable, dout, B, TD);
    check_launch("learned_positional_backward");
}

}  // namespace tx::cuda
