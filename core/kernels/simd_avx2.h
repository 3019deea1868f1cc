// The AVX2 + FMA instructions of the kernel bodies (*_body.h), as `struct Simd`: 8 floats a register
// (V), loads and stores with a row's tail, arithmetic, reductions, and the few wider helpers the
// bodies share (exp's 2^n, dropout's draw). simd_avx512.h is its twin with the same names.
// Include only in the AVX2 kernel units (compiled with -mavx2 -mfma -mno-avx512f, core/CMakeLists.txt):
// the struct lives in an anonymous namespace, so every unit gets its own copy compiled for its own
// set and nothing here becomes a weak symbol the linker could share (gemm_kernels.h says why).
#pragma once
#include <immintrin.h>

#include <cstdint>

#include "kernels/avx2_partial_store.h"

namespace tx::cpu::kernels {

namespace {

struct Simd {
    using V = __m256;
    static constexpr int W = 8;   // floats a register
    // softmax_rows_body.h: exps computed side by side (vexp_each)
    static constexpr int EXPS_SIDE_BY_SIDE = 4;
    // A masked load or store costs more than a plain one (vmaskmov is microcoded on AMD's Zen
    // cores): bodies that can end a sum in scalar code instead do so (gemv_nt_body.h).
    static constexpr bool FREE_TAIL_MASKS = false;

    // The lanes of the vector at column c that lie inside a row of C values: all of them (full), or
    // the row's last, partial vector with k all ones in its lanes (n of them). Only that partial
    // vector is loaded through vmaskmov, and stored in plain stores (avx2_partial_store.h says why).
    struct Lanes {
        __m256i k;
        bool full;
        int n;
    };
    static Lanes lanes(int c, int C) {
        alignas(32) static const int table[2 * W] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
        const int left = C - c;
        if (left >= W) return {_mm256_set1_epi32(-1), true, W};
        return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(table + W - left)), false, left};
    }
    static V load(Lanes l, const float* p) { return l.full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, l.k); }   // zeros outside
    static void store(float* p, Lanes l, V v) {
        if (l.full) _mm256_storeu_ps(p, v);
        else store_first_lanes(p, v, l.n);
    }
    // a − b in the lanes of l, 0 outside them
    static V sub_in(Lanes l, V a, V b) { return _mm256_and_ps(_mm256_sub_ps(a, b), _mm256_castsi256_ps(l.k)); }

    static __m256i tail(int n) {
        return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }
    static V load(const float* p) { return _mm256_loadu_ps(p); }
    // The first n < W floats at p, `fill` in the other lanes; vmaskmovps reads nothing where the
    // mask is off (no fault past the row's end).
    static V load_tail(const float* p, int n, float fill) {
        const __m256i m = tail(n);
        return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
    }
    static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
    static void store_tail(float* p, V v, int n) { store_first_lanes(p, v, n); }
    static V set1(float x) { return _mm256_set1_ps(x); }
    static V zero() { return _mm256_setzero_ps(); }
    static V add(V a, V b) { return _mm256_add_ps(a, b); }
    static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
    static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
    static V div(V a, V b) { return _mm256_div_ps(a, b); }
    static V sqrt(V a) { return _mm256_sqrt_ps(a); }
    static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    static V fmsub(V a, V b, V c) { return _mm256_fmsub_ps(a, b, c); }
    static V fnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
    // Where either is NaN, vmaxps/vminps return the second operand.
    static V max(V a, V b) { return _mm256_max_ps(a, b); }
    static V min(V a, V b) { return _mm256_min_ps(a, b); }
    static V round_nearest(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    // √x of one float, correctly rounded (sqrtss, as the vector sqrt rounds)
    static float sqrt1(float x) { return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))); }
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
    // m > 0 (false for NaN) ? a : b
    static V select_positive(V m, V a, V b) {
        return _mm256_blendv_ps(b, a, _mm256_cmp_ps(m, _mm256_setzero_ps(), _CMP_GT_OQ));
    }
    static float hsum(V v) {
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }
    // sums[i] = the sum of v[i]'s 8 lanes, i < 8 (sums 32-byte aligned)
    static void sum_lanes8(float* sums, const V* v) {
        const __m256 a = _mm256_hadd_ps(v[0], v[1]), b = _mm256_hadd_ps(v[2], v[3]);
        const __m256 c = _mm256_hadd_ps(v[4], v[5]), d = _mm256_hadd_ps(v[6], v[7]);
        const __m256 ab = _mm256_hadd_ps(a, b), cd = _mm256_hadd_ps(c, d);   // per 128-bit half: rows 0–3, 4–7
        _mm256_store_ps(sums, _mm256_add_ps(_mm256_permute2f128_ps(ab, cd, 0x20), _mm256_permute2f128_ps(ab, cd, 0x31)));
    }
    static void prefetch(const float* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0); }
    static void prefetch(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0); }
    // W weights stored in a low format at p, widened exactly to floats (gemm_lowp_body.h): BF16 is
    // a float's upper half (zero-extend, shift left 16); FP16 is F16C's vcvtph2ps (used only in units
    // compiled with -mf16c); INT8 is sign-extended to 32 bits and converted.
    static V widen_bf16(const uint16_t* p) {
        const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
        return _mm256_castsi256_ps(_mm256_slli_epi32(h, 16));
    }
    static V widen_fp16(const uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
    static V widen_int8(const int8_t* p) {
        return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
    }
    static float hmax(V v) {
        __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_max_ps(s, _mm_movehl_ps(s, s));
        s = _mm_max_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }

    // Dropout's multipliers of indices i..i+7: scale where the index's uniform draw u ≥ p, else 0;
    // u = the top 24 bits of splitmix64(seed ^ i·0x9E3779B97F4A7C15) times 2^-24, exact (dropout_draw.h).
    static V dropout_multipliers(long i, unsigned long long seed, V p, V scale) {
        const __m256i vseed = _mm256_set1_epi64x(static_cast<long long>(seed));
        const __m256i i0 = _mm256_add_epi64(_mm256_set1_epi64x(i), _mm256_set_epi64x(3, 2, 1, 0));
        const __m256i i1 = _mm256_add_epi64(i0, _mm256_set1_epi64x(4));
        const __m256i bits = _mm256_inserti128_si256(_mm256_castsi128_si256(draw24(i0, vseed)), draw24(i1, vseed), 1);
        const __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(bits), _mm256_set1_ps(1.0f / 16777216.0f));
        return _mm256_and_ps(_mm256_cmp_ps(u, p, _CMP_GE_OQ), scale);
    }
    // a·b mod 2^64 in each 64-bit lane from 32-bit products (AVX2 has no 64-bit multiply).
    static __m256i mul64(__m256i a, unsigned long long b) {
        const __m256i b_lo = _mm256_set1_epi64x(static_cast<long long>(b & 0xFFFFFFFFull));
        const __m256i b_hi = _mm256_set1_epi64x(static_cast<long long>(b >> 32));
        const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b_lo), _mm256_mul_epu32(a, b_hi));
        return _mm256_add_epi64(_mm256_mul_epu32(a, b_lo), _mm256_slli_epi64(cross, 32));
    }
    // The top 24 bits of the draws of 4 indices, as 32-bit integers in the low half.
    static __m128i draw24(__m256i i, __m256i seed) {
        __m256i z = _mm256_xor_si256(seed, mul64(i, 0x9E3779B97F4A7C15ull));
        z = _mm256_add_epi64(z, _mm256_set1_epi64x(static_cast<long long>(0x9E3779B97F4A7C15ull)));
        z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ull);
        z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), 0x94D049BB133111EBull);
        z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
        const __m256i low_words = _mm256_permutevar8x32_epi32(_mm256_srli_epi64(z, 40), _mm256_set_epi32(7, 5, 3, 1, 6, 4, 2, 0));
        return _mm256_castsi256_si128(low_words);
    }
};

}  // namespace

}  // namespace tx::cpu::kernels
