// softmax_kernels.h's row kernels on AVX2 + FMA (this unit is compiled with -mavx2 -mfma
// -mno-avx512f): 8 floats a register, the row's tail loaded through vmaskmovps and stored in
// plain stores (avx2_partial_store.h). The kernels themselves are
// softmax_rows_body.h's, shared with softmax_avx512.cpp; this file gives them the instructions.
#include <immintrin.h>

#include "kernels/avx2_partial_store.h"
#include "kernels/softmax_kernels.h"

namespace tx::cpu::kernels {

namespace {

struct Simd {
    using V = __m256;
    static constexpr int W = 8;
    static constexpr int EXPS_SIDE_BY_SIDE = 4;
    static __m256i tail(int n) {
        return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }
    static V load(const float* p) { return _mm256_loadu_ps(p); }
    // vmaskmovps reads nothing where the mask is off (no fault past the row's end).
    static V load_tail(const float* p, int n, float fill) {
        const __m256i m = tail(n);
        return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
    }
    static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
    static void store_tail(float* p, V v, int n) { store_first_lanes(p, v, n); }
    static V set1(float x) { return _mm256_set1_ps(x); }
    static V add(V a, V b) { return _mm256_add_ps(a, b); }
    static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
    static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
    static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    static V fmsub(V a, V b, V c) { return _mm256_fmsub_ps(a, b, c); }
    static V fnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
    // Where either is NaN, vmaxps/vminps return the second operand.
    static V max(V a, V b) { return _mm256_max_ps(a, b); }
    static V min(V a, V b) { return _mm256_min_ps(a, b); }
    static V round_nearest(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    // y·2^n for whole n in [-151, 128], y in [0.7, 1.5] (vexp's e^r): y·2^n1·2^n2, n1 = ⌊n/2⌋, both
    // factors normal floats (built in the exponent field), the first product exact, the second
    // rounding once. A product with a subnormal or zero result costs a microcode assist on AMD's
    // Zen cores (a causal softmax, whose masked keys all give 0, ran 3× slower for it), so lanes
    // with n ≤ -151, whose result rounds to 0, get their 0 from a blend, and the products run
    // only where every other lane's result is a normal float (n ≥ -124); a vector with a result in
    // between, a true subnormal, takes the products as they come.
    static V scale_by_pow2(V y, V n) {
        const V below_normal = _mm256_cmp_ps(n, _mm256_set1_ps(-124.5f), _CMP_LT_OQ);
        if (_mm256_movemask_ps(below_normal) == 0) [[likely]]
            return times_pow2(y, n);
        const V to_zero = _mm256_cmp_ps(n, _mm256_set1_ps(-150.5f), _CMP_LT_OQ);
        if (_mm256_movemask_ps(below_normal) != _mm256_movemask_ps(to_zero)) [[unlikely]]
            return times_pow2_out_of_line(y, n);
        return _mm256_andnot_ps(to_zero, times_pow2(y, _mm256_max_ps(n, _mm256_set1_ps(-124.0f))));
    }
    // Out of line, so that vexp stays small enough to be inlined into the row loops.
    [[gnu::noinline, gnu::cold]] static V times_pow2_out_of_line(V y, V n) { return times_pow2(y, n); }
    static V times_pow2(V y, V n) {
        const __m256i ni = _mm256_cvttps_epi32(n);
        const __m256i n1 = _mm256_srai_epi32(ni, 1);
        return _mm256_mul_ps(_mm256_mul_ps(y, pow2(n1)), pow2(_mm256_sub_epi32(ni, n1)));
    }
    static V pow2(__m256i n) {
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23));
    }
    // m != 0 (NaN counts as non-zero, as in C++) ? a : b
    static V select_nonzero(V m, V a, V b) {
        return _mm256_blendv_ps(b, a, _mm256_cmp_ps(m, _mm256_setzero_ps(), _CMP_NEQ_UQ));
    }
    static float hsum(V v) {
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }
    static float hmax(V v) {
        __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_max_ps(s, _mm_movehl_ps(s, s));
        s = _mm_max_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }
};

#include "kernels/softmax_rows_body.h"

}  // namespace

const SoftmaxRowKernels* softmax_rows_avx2() { return &ROW_KERNELS; }

}  // namespace tx::cpu::kernels
