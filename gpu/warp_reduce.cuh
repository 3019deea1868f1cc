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

}  // namespace tx::cuda
