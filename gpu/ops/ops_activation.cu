// The FFN's modern activations on the GPU over flat buffers of N values (twin of
// core/ops/ops_activation.cpp): GELU in its exact erf form and SwiGLU's hidden SiLU(gate)·up.
// One thread per value.
#include "common/cuda_check.h"
#include "ops.cuh"

namespace tx::cuda {

namespace {

constexpr int THREADS = 256;
constexpr float INV_SQRT2 = 0.70710678118654752440f, INV_SQRT_2PI = 0.39894228040143267794f;

#define TX_ELEMENT_INDEX                                                                  \
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; \
    if (i >= N) return

__device__ inline float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }   // exp overflow gives 0, not NaN

__global__ void gelu_forward_kernel(float* out, const float* inp, long long N) {
    TX_ELEMENT_INDEX;
    const float x = inp[i];
    out[i] = 0.5f * x * (1.0f + erff(x * INV_SQRT2));
}

__global__ void gelu_backward_kernel(float* dinp, const float* dout, const float* inp, long long N) {
    // d/dx x·Φ(x) = Φ(x) + x·φ(x)
    TX_ELEMENT_INDEX;
    const float x = inp[i];
    const float cdf = 0.5f * (1.0f + erff(x * INV_SQRT2));
    const float pdf = INV_SQRT_2PI * expf(-0.5f * x * x);
    dinp[i] += dout[i] * (cdf + x * pdf);
}

__global__ void swiglu_forward_kernel(float* out, const float* gate, const float* up, long long N) {
    TX_ELEMENT_INDEX;
    const float g = gate[i];
    out[i] = g * sigmoid(g) * up[i];
}

__global__ void swiglu_backward_kernel(float* dgate, float* dup, const float* dout, const float* gate,
                                       const float* up, long long N) {
    // SiLU'(g) = σ(g)·(1 + g·(1 − σ(g)))
    TX_ELEMENT_INDEX;
    const float g = gate[i], sg = sigmoid(g);
    dgate[i] += dout[i] * up[i] * sg * (1.0f + g * (1.0f - sg));
    dup[i] += dout[i] * g * sg;
}

#undef TX_ELEMENT_INDEX

}  // namespace

void gelu_forward(float* out, const float* inp, int N, cudaStream_t stream) {
    if (N <= 0) return;
    gelu_forward_kernel<<<blocks_for(N, THREADS), THREADS, 0, stream>>>(out, inp, N);
    check_launch("gelu_forward");
}

void gelu_backward(float* dinp, const float* dout, const float* inp, int N, cudaStream_t stream) {
    if (N <= 0) return;
    gelu_backward_kernel<<<blocks_for(N, THREADS), THREADS, 0, stream>>>(dinp, dout, inp, N);
    check_launch("gelu_backward");
}

void swiglu_forward(float* out, const float* gate, const float* up, int N, cudaStream_t stream) {
    if (N <= 0) return;
    swiglu_forward_kernel<<<blocks_for(N, THREADS), THREADS, 0, stream>>>(out, gate, up, N);
    check_launch("swiglu_forward");
}

void swiglu_backward(float* dgate, float* dup, const float* dout, const float* gate, const float* up, int N,
                     cudaStream_t stream) {
    if (N <= 0) return;
    swiglu_backward_kernel<<<blocks_for(N, THREADS), THREADS, 0, stream>>>(dgate, dup, dout, gate, up, N);
    check_launch("swiglu_backward");
}

}  // namespace tx::cuda
