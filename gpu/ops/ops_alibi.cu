// ALiBi on the GPU (twin of core/ops/ops_alibi.cpp, Press et al. 2022): scores (B,H,T,S) minus
// m_h·|(q0 + t) − s| with the paper's per-head slopes m_h (H). One thread per score; each thread
// forms its head's slope with the CPU's formula (exp2 in double), so no slope table is uploaded.
#include "common/cuda_check.h"
#include "ops.cuh"

namespace tx::cuda {

namespace {

constexpr int THREADS = 256;

// The paper's get_slopes in closed form (see core/ops/ops_alibi.cpp): P = 2^⌊log2 H⌋ heads get
// 2^(−8/P·(h+1)), the remaining H − P get 2^(−8/(2P)·(2(h−P)+1)).
__device__ inline float alibi_slope(int h, int H) {
    int P = 1;
    while (P * 2 <= H) P *= 2;
    const double exponent = h < P ? -8.0 / P * (h + 1) : -8.0 / (2 * P) * (2 * (h - P) + 1);
    return static_cast<float>(exp2(exponent));
}

__global__ void alibi_forward_kernel(float* out, const float* scores, long long n, int H, int T, int S, int q0) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const long long s = i % S, t = (i / S) % T;
    const int h = static_cast<int>((i / (static_cast<long long>(S) * T)) % H);
    const long long distance = llabs(q0 + t - s);
    out[i] = scores[i] - alibi_slope(h, H) * static_cast<float>(distance);
}

__global__ void alibi_slopes_kernel(float* slopes, int H) {
    const int h = blockIdx.x * blockDim.x + threadIdx.x;
    if (h < H) slopes[h] = alibi_slope(h, H);
}

__global__ void add_into_kernel(float* dst, const float* src, long long n) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) dst[i] += src[i];
}

}  // namespace

void alibi_forward(float* out, const float* scores, int B, int H, int T, int S, int q0, cudaStream_t stream) {
    const long long n = static_cast<long long>(B) * H * T * S;
    if (n <= 0) return;
    alibi_forward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(out, scores, n, H, T, S, q0);
    check_launch("alibi_forward");
}

void alibi_backward(float* dscores, const float* dout, int B, int H, int T, int S, cudaStream_t stream) {
    // dscores += dout: the bias is a constant
    const long long n = static_cast<long long>(B) * H * T * S;
    if (n <= 0) return;
    add_into_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(dscores, dout, n);
    check_launch("alibi_backward");
}

void alibi_slopes(float* slopes, int H, cudaStream_t stream) {
    if (H <= 0) return;
    alibi_slopes_kernel<<<blocks_for(H, THREADS), THREADS, 0, stream>>>(slopes, H);
    check_launch("alibi_slopes");
}

}  // namespace tx::cuda
