// sgemm_nt (gemm.h) for one inp row on AVX2 + FMA: out (1,OC) = x (1,C) · weight (OC,C)ᵀ + bias,
// the AVX2 twin of gemv_nt_avx512.cpp (which says why it streams the weight in its stored order).
// Compiled with -mavx2 -mfma -mno-avx512f (core/CMakeLists.txt), chosen by cpu_isa.h.
// 8 weight rows at a time: 8 ymm accumulators, 2 for x, one cache line (2 vectors) per row a step.
#include <immintrin.h>

#include <cstdint>

#include "kernels/gemm_kernels.h"

namespace tx::cpu {

namespace {

constexpr int LANES = 8;   // floats per __m256
constexpr int ROWS = 8;    // weight rows summed at once: one accumulator each

// Lane i of the result is the sum of v[i]'s 8 lanes.
inline __m256 sum_lanes8(const __m256* v) {
    const __m256 a = _mm256_hadd_ps(v[0], v[1]), b = _mm256_hadd_ps(v[2], v[3]);
    const __m256 c = _mm256_hadd_ps(v[4], v[5]), d = _mm256_hadd_ps(v[6], v[7]);
    const __m256 ab = _mm256_hadd_ps(a, b), cd = _mm256_hadd_ps(c, d);   // per 128-bit half: rows 0–3, 4–7
    return _mm256_add_ps(_mm256_permute2f128_ps(ab, cd, 0x20), _mm256_permute2f128_ps(ab, cd, 0x31));
}

inline void gemv_block(float* out, const float* x, const float* w, const float* bias, int rows, int C,
                       const float* prefetch) {
    const float* row[ROWS];
    for (int r = 0; r < ROWS; ++r) row[r] = w + static_cast<int64_t>(r < rows ? r : rows - 1) * C;
    __m256 acc[ROWS];
    for (__m256& a : acc) a = _mm256_setzero_ps();
    int k = 0;
    for (; k + 2 * LANES <= C; k += 2 * LANES) {
        const __m256 x0 = _mm256_loadu_ps(x + k), x1 = _mm256_loadu_ps(x + k + LANES);
        for (int r = 0; r < ROWS; ++r) {
            _mm_prefetch(reinterpret_cast<const char*>(prefetch + static_cast<int64_t>(r) * C + k), _MM_HINT_T0);
            acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(row[r] + k), x0, acc[r]);
            acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(row[r] + k + LANES), x1, acc[r]);
        }
    }
    alignas(32) float sums[ROWS];
    _mm256_store_ps(sums, sum_lanes8(acc));
    for (int r = 0; r < rows; ++r) {
        float s = sums[r];
        for (int j = k; j < C; ++j) s += row[r][j] * x[j];   // the last, partial step of C
        out[r] = s + (bias ? bias[r] : 0.0f);
    }
}

}  // namespace

void kernels::sgemv_nt_avx2(float* out, const float* x, const float* weight, const float* bias, int C, int OC) {
    const int blocks = (OC + ROWS - 1) / ROWS;
    auto block_range = [&](int first, int last) {
        for (int b = first; b < last; ++b) {
            const int o0 = b * ROWS, rows = OC - o0 < ROWS ? OC - o0 : ROWS;
            const int ahead = o0 + 2 * ROWS + ROWS <= OC ? o0 + 2 * ROWS : o0;   // as in the AVX-512 twin
            gemv_block(out + o0, x, weight + static_cast<int64_t>(o0) * C, bias ? bias + o0 : nullptr, rows, C,
                       weight + static_cast<int64_t>(ahead) * C);
        }
    };
    kernels::split_blocks(blocks, [](void* f, int first, int last) { (*static_cast<decltype(block_range)*>(f))(first, last); }, &block_range);
}

}  // namespace tx::cpu
