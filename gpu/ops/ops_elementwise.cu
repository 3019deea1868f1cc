// Elementwise ops on the GPU over flat buffers of N values (twin of core/ops/ops_elementwise.cpp):
// residual add, ReLU, and inverted dropout whose mask is the CPU's bit for bit (same hash).
#include "common/cuda_check.h"
#include "ops.cuh"

namespace tx::cuda {

namespace {

constexpr int THREADS = 256;

#define TX_ELEMENT_INDEX                                                                  \
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; \
    if (i >= N) return

__global__ void residual_forward_kernel(float* out, const float* a, const float* b, long long N) {
    TX_ELEMENT_INDEX;
    out[i] = a[i] + b[i];
}

__global__ void residual_backward_kernel(float* da, float* db, const float* dout, long long N) {
    TX_ELEMENT_INDEX;
    if (da) da[i] += dout[i];
    if (db) db[i] += dout[i];
}

__global__ void relu_forward_kernel(float* out, const float* inp, long long N) {
    TX_ELEMENT_INDEX;
    out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

__global__ void relu_backward_kernel(float* dinp, const float* dout, const float* out, long long N) {
    // reads relu's output, not its input (the FFN runs relu in place)
    TX_ELEMENT_INDEX;
    if (out[i] > 0.0f) dinp[i] += dout[i];
}

// The CPU's dropout draw (core/ops/dropout_draw.h), copied exactly:
//   z = splitmix64(seed ^ (i * 0x9E3779B97F4A7C15)),  u = (z >> 40) * 2^-24,  keep = u >= p
__device__ inline unsigned long long splitmix64(unsigned long long z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__global__ void dropout_forward_kernel(float* out, float* mask, const float* inp, long long N, float p, float scale,
                                       unsigned long long seed) {
    TX_ELEMENT_INDEX;
    const unsigned long long z = splitmix64(seed ^ (static_cast<unsigned long long>(i) * 0x9E3779B97F4A7C15ull));
    const float u = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);   // exact: 24 bits times 2^-24
    mask[i] = u >= p ? scale : 0.0f;
    out[i] = inp[i] * mask[i];
}

__global__ void dropout_backward_kernel(float* dinp, const float* dout, const float* mask, long long N) {
    TX_ELEMENT_INDEX;
    dinp[i] += dout[i] * mask[i];
}

#undef TX_ELEMENT_INDEX

}  // namespace

void residual_forward(float* out, const float* a, const float* b, int N, cudaStream_t stream) {
    if (N <= 0) return;
    residual_forward_kernel<<<blocks_for(N, THREADS), THREADS, 0, stream>>>(out, a, b, N);
    check_launch("residual_forward");
}

void residual_backward(float* da, float* db, const float* dout, int N, cudaStream_t stream) {
    if (N <= 0 || (!da && !db)) return;
    residual_backward_kernel<<<blocks_for(N, THREADS), THREADS, 0, stream>>>(da, db, dout, N);
    check_launch("residual_backward");
}

void relu_forward(float* out, const float* inp, int N, cudaStream_t stream) {
    if (N <= 0) return;
    relu_forward_kernel<<<blocks_for(N, THREADS), THREADS, 0, stream>>>(out, inp, N);
    check_launch("relu_forward");
}

void relu_backward(float* dinp, const float* dout, const float* out, int N, cudaStream_t stream) {
    if (N <= 0) return;
    relu_backward_kernel<<<blocks_for(N, THREADS), THREADS, 0, stream>>>(dinp, dout, out, N);
    check_launch("relu_backward");
}

void dropout_forward(float* out, float* mask, const float* inp, int N, float p, uint64_t seed, cudaStream_t stream) {
    if (N <= 0) return;
    // 1/(1-p) rounded once on the host as the CPU op does, so kept values match bit for bit
    const float scale = 1.0f / (1.0f - p);
    dropout_forward_kernel<<<blocks_for(N, THREADS), THREADS, 0, stream>>>(out, mask, inp, N, p, scale, seed);
    check_launch("dropout_forward");
}

void dropout_backward(float* dinp, const float* dout, const float* mask, int N, cudaStream_t stream) {
    if (N <= 0) return;
    dropout_backward_kernel<<<blocks_for(N, THREADS), THREADS, 0, stream>>>(dinp, dout, mask, N);
    check_launch("dropout_backward");
}

}  // namespace tx::cuda
