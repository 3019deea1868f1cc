// Rotary position embedding on the GPU (twin of core/ops/ops_rope.cpp, RoFormer eq. 34): pairs
// (2i, 2i+1) of each head vector of q or k (B,H,T,dk) rotated by (pos0 + t)·θ_i, θ_i = 10000^(−2i/dk).
// One thread per pair; the angle is formed in double as on the CPU, so that a float angle at a
// large position does not carry one rounding of θ_i per position.
#include "common/cuda_check.h"
#include "ops.cuh"

namespace tx::cuda {

namespace {

constexpr int THREADS = 256;

// Thread j handles unit i = j mod units of row j / units: a pair for i < dk/2, and for an odd dk the
// unpaired last component (i = dk/2), which passes unrotated as on the CPU.
__device__ inline void rope_angle(int i, int dk, int pos, float& c, float& s) {
    const double theta = pow(10000.0, -2.0 * i / dk);
    double sd, cd;
    sincos(static_cast<double>(pos) * theta, &sd, &cd);
    c = static_cast<float>(cd);
    s = static_cast<float>(sd);
}

__global__ void rope_forward_kernel(float* out, const float* inp, long long rows, int T, int dk, int pos0) {
    const int units = (dk + 1) / 2, half = dk / 2;
    const long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (j >= rows * units) return;
    const long long row = j / units;
    const int i = static_cast<int>(j % units);
    const float* x = inp + row * dk;
    float* o = out + row * dk;
    if (i == half) {   // odd dk only
        o[dk - 1] = x[dk - 1];
        return;
    }
    float c, s;
    rope_angle(i, dk, pos0 + static_cast<int>(row % T), c, s);
    const float x0 = x[2 * i], x1 = x[2 * i + 1];   // both read before either is written: out may be inp
    o[2 * i] = x0 * c - x1 * s;
    o[2 * i + 1] = x0 * s + x1 * c;
}

__global__ void rope_backward_kernel(float* dinp, const float* dout, long long rows, int T, int dk, int pos0) {
    // dinp += Rᵀ·dout, the rotation by the opposite angle
    const int units = (dk + 1) / 2, half = dk / 2;
    const long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (j >= rows * units) return;
    const long long row = j / units;
    const int i = static_cast<int>(j % units);
    const float* g = dout + row * dk;
    float* dx = dinp + row * dk;
    if (i == half) {
        dx[dk - 1] += g[dk - 1];
        return;
    }
    float c, s;
    rope_angle(i, dk, pos0 + static_cast<int>(row % T), c, s);
    const float g0 = g[2 * i], g1 = g[2 * i + 1];
    dx[2 * i] += g0 * c + g1 * s;
    dx[2 * i + 1] += -g0 * s + g1 * c;
}

}  // namespace

void rope_forward(float* out, const float* inp, int B, int H, int T, int dk, int pos0, cudaStream_t stream) {
    if (B <= 0 || H <= 0 || T <= 0 || dk <= 0) return;
    const long long rows = static_cast<long long>(B) * H * T;
    rope_forward_kernel<<<blocks_for(rows * ((dk + 1) / 2), THREADS), THREADS, 0, stream>>>(out, inp, rows, T, dk,
                                                                                          pos0);
    check_launch("rope_forward");
}

void rope_backward(float* dinp, const float* dout, int B, int H, int T, int dk, int pos0, cudaStream_t stream) {
    if (B <= 0 || H <= 0 || T <= 0 || dk <= 0) return;
    const long long rows = static_cast<long long>(B) * H * T;
    rope_backward_kernel<<<blocks_for(rows * ((dk + 1) / 2), THREADS), THREADS, 0, stream>>>(dinp, dout, rows, T,
                                                                                           dk, pos0);
    check_launch("rope_backward");
}

}  // namespace tx::cuda
