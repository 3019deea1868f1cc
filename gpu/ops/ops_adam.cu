// The optimizer's ops on the GPU: Adam (Kingma & Ba 2015) with bias correction as one kernel over
// the flat parameter, gradient and moment buffers, in torch.optim.Adam's arrangement (twin of
// core/ops/ops_adam.cpp); and the gradient's squared norm and in-place scaling for clipping (twins of
// CpuBackend::squared_norm and scale).
#include <algorithm>
#include <cmath>

#include "common/cuda_check.h"
#include "ops.cuh"

namespace tx::cuda {

namespace {

constexpr int THREADS = 256;

__global__ void adam_update_kernel(float* params, float* m, float* v, const float* grads, long long n, float step,
                                   float inv_sqrt_bc2, float beta1, float beta2, float eps) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const float g = grads[i];
    const float mi = beta1 * m[i] + (1.0f - beta1) * g;
    const float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    params[i] -= step * mi / (sqrtf(vi) * inv_sqrt_bc2 + eps);
}

constexpr int NORM_THREADS = 256;
constexpr int NORM_BLOCKS = 1024;   // grid-stride: enough blocks to fill any GPU, few atomics

__global__ void squared_norm_kernel(double* result, const float* x, long long n) {
    // *result += Σ x² in double: per-thread partial sums, then the warp, then the block
    __shared__ double warp_sums[NORM_THREADS / 32];
    double sum = 0.0;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        sum += static_cast<double>(x[i]) * x[i];
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        double block_sum = 0.0;
        for (int w = 0; w < NORM_THREADS / 32; ++w) block_sum += warp_sums[w];
        atomicAdd(result, block_sum);
    }
}

__global__ void scale_kernel(float* x, long long n, float factor) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) x[i] *= factor;
}

}  // namespace

double squared_norm(const float* x, int64_t n, double* scratch, cudaStream_t stream) {
    check(cudaMemsetAsync(scratch, 0, sizeof(double), stream), "squared_norm");
    if (n > 0) {
        const unsigned int blocks = std::min<unsigned int>(NORM_BLOCKS, blocks_for(n, NORM_THREADS));
        squared_norm_kernel<<<blocks, NORM_THREADS, 0, stream>>>(scratch, x, n);
        check_launch("squared_norm");
    }
    double result = 0.0;
    check(cudaMemcpyAsync(&result, scratch, sizeof(double), cudaMemcpyDeviceToHost, stream), "squared_norm");
    check(cudaStreamSynchronize(stream), "squared_norm");
    return result;
}

void scale(float* x, int64_t n, float factor, cudaStream_t stream) {
    if (n <= 0) return;
    scale_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(x, n, factor);
    check_launch("scale");
}

void adam_update(float* params, float* m, float* v, const float* grads, int64_t n, float lr, float beta1,
                 float beta2, float eps, int64_t t, cudaStream_t stream) {
    if (n <= 0) return;
    // The bias corrections once, on the host, exactly as the CPU op computes them (beta^t in double).
    const float bc1 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta1), static_cast<double>(t)));
    const float bc2 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta2), static_cast<double>(t)));
    const float step = lr / bc1;
    const float inv_sqrt_bc2 = 1.0f / std::sqrt(bc2);
    adam_update_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(params, m, v, grads, n, step, inv_sqrt_bc2,
                                                                       beta1, beta2, eps);
    check_launch("adam_update");
}

}  // namespace tx::cuda
