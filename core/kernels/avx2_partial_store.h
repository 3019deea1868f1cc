// The first n floats of an 8-float vector stored without vmaskmovps, for the AVX2 kernel units
// (compiled with -mavx2; include only there). A masked store is microcoded on AMD's Zen cores and
// costs about ten plain stores: in a causal softmax, where every row ends in a partial vector, it
// made the AVX2 path 3× slower than the AVX-512 one. Here: at most three plain stores (4, 2, 1).
// static: each unit keeps its own copy, compiled for its own instruction set (gemm_kernels.h).
#pragma once
#include <immintrin.h>

namespace tx::cpu {

// p[0 .. n) = lanes 0 .. n of v, for 0 ≤ n ≤ 8; nothing past p + n is written.
[[maybe_unused]] static inline void store_first_lanes(float* p, __m256 v, int n) {
    if (n >= 8) {
        _mm256_storeu_ps(p, v);
        return;
    }
    __m128 part = _mm256_castps256_ps128(v);
    if (n >= 4) {
        _mm_storeu_ps(p, part);
        part = _mm256_extractf128_ps(v, 1);
        p += 4;
        n -= 4;
    }
    if (n >= 2) {
        _mm_storel_pi(reinterpret_cast<__m64*>(p), part);
        part = _mm_movehl_ps(part, part);
        p += 2;
        n -= 2;
    }
    if (n == 1) _mm_store_ss(p, part);
}

}  // namespace tx::cpu
