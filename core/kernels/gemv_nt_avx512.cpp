// sgemm_nt (gemm.h) for one inp row on AVX-512: out (1,OC) = x (1,C) · weight (OC,C)ᵀ + bias,
// the product of every decoding step at batch 1. Compiled with -mavx512f (core/CMakeLists.txt),
// run only where cpu_isa.h finds AVX-512 (gemm.cpp); its AVX2 twin is gemv_nt_avx2.cpp.
//
// One row multiplies each weight once, so the product is bound by how fast the weight streams
// from memory, not by FMAs: the weight is read in its stored order, 8 rows (one contiguous block
// of 8·C floats) at a time with 8 vector accumulators, while the block after next is prefetched
// one cache line per row and step, and x stays in L1.

// GCC 12 reports the self-initialised placeholder of its own _mm512_undefined_ps as uninitialised
// once the lane sums below are inlined (the false alarm ops_activation.cpp describes); set before
// the intrinsic headers are first read, where the warning points.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

#include "kernels/gemm_kernels.h"

namespace tx::cpu {

namespace {

constexpr int LANES = 16;   // floats per __m512
constexpr int ROWS = 8;     // weight rows summed at once: one accumulator each

// Lane i (< 8) of the result is the sum of v[i]'s 16 lanes.
inline __m256 sum_lanes8(const __m512* v) {
    __m512 pairs[4];
    for (int i = 0; i < 4; ++i)
        pairs[i] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));
    const __m512 q0 = _mm512_add_ps(_mm512_shuffle_ps(pairs[0], pairs[1], _MM_SHUFFLE(1, 0, 1, 0)),
                                    _mm512_shuffle_ps(pairs[0], pairs[1], _MM_SHUFFLE(3, 2, 3, 2)));
    const __m512 q1 = _mm512_add_ps(_mm512_shuffle_ps(pairs[2], pairs[3], _MM_SHUFFLE(1, 0, 1, 0)),
                                    _mm512_shuffle_ps(pairs[2], pairs[3], _MM_SHUFFLE(3, 2, 3, 2)));
    const __m512 h = _mm512_add_ps(_mm512_shuffle_f32x4(q0, q1, _MM_SHUFFLE(2, 0, 2, 0)),
                                   _mm512_shuffle_f32x4(q0, q1, _MM_SHUFFLE(3, 1, 3, 1)));
    const __m512 t = _mm512_add_ps(h, _mm512_shuffle_f32x4(h, h, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm512_extractf32x4_ps(t, 0)), _mm512_extractf32x4_ps(t, 2), 1);
}

// out[0..rows) for the weight rows w, w + C, ...; rows ≤ 8 (a missing row repeats the last one).
inline void gemv_block(float* out, const float* x, const float* w, const float* bias, int rows, int C,
                       const float* prefetch) {
    const float* row[ROWS];
    for (int r = 0; r < ROWS; ++r) row[r] = w + static_cast<int64_t>(r < rows ? r : rows - 1) * C;
    __m512 acc[ROWS];
    for (__m512& a : acc) a = _mm512_setzero_ps();
    int k = 0;
    for (; k + LANES <= C; k += LANES) {
        const __m512 xv = _mm512_loadu_ps(x + k);
        for (int r = 0; r < ROWS; ++r) {
            _mm_prefetch(reinterpret_cast<const char*>(prefetch + static_cast<int64_t>(r) * C + k), _MM_HINT_T0);
            acc[r] = _mm512_fmadd_ps(_mm512_loadu_ps(row[r] + k), xv, acc[r]);
        }
    }
    if (k < C) {
        const __mmask16 m = static_cast<__mmask16>((1u << (C - k)) - 1u);
        const __m512 xv = _mm512_maskz_loadu_ps(m, x + k);
        for (int r = 0; r < ROWS; ++r) acc[r] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, row[r] + k), xv, acc[r]);
    }
    alignas(32) float sums[ROWS];
    _mm256_store_ps(sums, sum_lanes8(acc));
    for (int r = 0; r < rows; ++r) out[r] = sums[r] + (bias ? bias[r] : 0.0f);
}

}  // namespace

void kernels::sgemv_nt_avx512(float* out, const float* x, const float* weight, const float* bias, int C, int OC) {
    const int blocks = (OC + ROWS - 1) / ROWS;
    auto block_range = [&](int first, int last) {
        for (int b = first; b < last; ++b) {
            const int o0 = b * ROWS, rows = OC - o0 < ROWS ? OC - o0 : ROWS;
            // two blocks ahead (the last blocks prefetch their own rows again: no read past the weight)
            const int ahead = o0 + 2 * ROWS + ROWS <= OC ? o0 + 2 * ROWS : o0;
            gemv_block(out + o0, x, weight + static_cast<int64_t>(o0) * C, bias ? bias + o0 : nullptr, rows, C,
                       weight + static_cast<int64_t>(ahead) * C);
        }
    };
    kernels::split_blocks(blocks, [](void* f, int first, int last) { (*static_cast<decltype(block_range)*>(f))(first, last); }, &block_range);
}

}  // namespace tx::cpu
