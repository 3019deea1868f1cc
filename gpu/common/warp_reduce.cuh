// Warp-wide reductions with shuffles: every lane of the warp gets the result. The row ops
// (softmax, log-softmax, LayerNorm, cross-entropy) give one warp a row and reduce with these.
#pragma once

namespace tx::cuda {

constexpr int WARP = 32;

__device__ inline float warp_sum(float x) {
    for (int offset = WARP / 2; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
    return x;
}

__device__ inline float warp_max(float x) {
    for (int offset = WARP / 2; offset > 0; offset /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
    return x;
}

// The max of a row of C values and Σ exp(x - max), by one warp (every lane gets both): the
// first half of softmax and log-softmax. A row of -inf only gives (-inf, 0), never NaN.
__device__ inline void warp_row_max_sumexp(const float* x, int C, float& maxval, float& sum) {
    const int lane = threadIdx.x % WARP;
    maxval = -INFINITY;
    for (int c = lane; c < C; c += WARP) maxval = fmaxf(maxval, x[c]);
    maxval = warp_max(maxval);
    sum = 0.0f;
    if (maxval == -INFINITY) return;   // the same in every lane: the warp stays together
    for (int c = lane; c < C; c += WARP) sum += expf(x[c] - maxval);
    sum = warp_sum(sum);
}

}  // namespace tx::cuda
