// What the per-op CUDA parity files (tests/gpu/test_<op>_cuda.cpp) share: the CUDA op against the CPU
// op on the same seeded random inputs through the Backend interface (cuda_parity.h), at several
// shapes (odd sizes, T != S, fully masked rows). Gradient buffers start from random values, not
// zeros, so that the accumulate rule (+=) is checked too; forward outputs start from random values
// as well, so that a forward that adds to its output, or leaves rows unwritten (pad targets, fully
// masked rows), cannot pass on a zero-filled buffer.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "support/cuda_parity.h"

namespace tx::test {

// Tolerance atol + rtol·|cpu|: 1e-5 and 1e-4 for elementwise and row ops; products of length K sum
// K roundings in another order.
constexpr double ATOL = 1e-5, RTOL = 1e-4;
inline double gemm_atol(int K) { return 1e-5 * std::max(1.0, std::sqrt(static_cast<double>(K))); }

using OpParity = CudaParity;
using VariantParity = CudaParity;   // the modern variants' ops (docs/design.md §3)

// Masks (B,T,S) with padding on later rows, a causal band when T == S, and row 0 of batch 0
// masking every key (a fully masked row).
inline std::vector<float> test_mask(int B, int T, int S) {
    std::vector<float> mask(static_cast<size_t>(B) * T * S);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int s = 0; s < S; ++s) {
                const bool padded = s >= S - b;
                const bool future = T == S && s > t;
                const bool empty_row = b == 0 && t == 0;
                mask[(static_cast<size_t>(b) * T + t) * S + s] = (padded || future || empty_row) ? 0.0f : 1.0f;
            }
    return mask;
}

}  // namespace tx::test
