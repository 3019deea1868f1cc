// The AVX-512F instructions of the kernel bodies (*_body.h), as `struct Simd`: 16 floats a register
// (V), a row's tail through a lane mask, and the same names as simd_avx2.h. Include only in the
// AVX-512 kernel units (compiled with -mavx512f, core/CMakeLists.txt), first: the struct lives in
// an anonymous namespace, so every unit gets its own copy and nothing here becomes a weak symbol.
// GCC 12 reports the self-initialised placeholder of its own _mm512_undefined_ps as uninitialised
// once _mm512_reduce_*_ps are inlined (the false alarm gemv_nt_avx512.cpp describes); set before
// the intrinsic headers are first read, where the warning points.
#pragma once
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

namespace tx::cpu::kernels {

namespace {

struct Simd {
    using V = __m512;
    static constexpr int W = 16;   // floats a register
    // softmax_rows_body.h: exps computed side by side (vexp_each)
    static constexpr int EXPS_SIDE_BY_SIDE = 2;
    // Lane masks cost nothing: a sum's last, partial vector goes through one (gemv_nt_body.h).
    static constexpr bool FREE_TAIL_MASKS = true;

    // The lanes of the vector at column c that lie inside a row of C values.
    using Lanes = __mmask16;
    static Lanes lanes(int c, int C) {
        const int left = C - c;
        return left >= W ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << left) - 1u);
    }
    static V load(Lanes k, const float* p) { return _mm512_maskz_loadu_ps(k, p); }   // zeros outside
    static void store(float* p, Lanes k, V v) { _mm512_mask_storeu_ps(p, k, v); }
    // a − b in the lanes of k, 0 outside them
    static V sub_in(Lanes k, V a, V b) { return _mm512_maskz_sub_ps(k, a, b); }

    static __mmask16 tail(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
    static V load(const float* p) { return _mm512_loadu_ps(p); }
    // The first n < W floats at p, `fill` in the other lanes.
    static V load_tail(const float* p, int n, float fill) { return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), tail(n), p); }
    static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
    static void store_tail(float* p, V v, int n) { _mm512_mask_storeu_ps(p, tail(n), v); }
    static V set1(float x) { return _mm512_set1_ps(x); }
    static V zero() { return _mm512_setzero_ps(); }
    static V add(V a, V b) { return _mm512_add_ps(a, b); }
    static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
    static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
    static V div(V a, V b) { return _mm512_div_ps(a, b); }
    static V sqrt(V a) { return _mm512_sqrt_ps(a); }
    static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    static V fmsub(V a, V b, V c) { return _mm512_fmsub_ps(a, b, c); }
    static V fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
    // Where either is NaN, vmaxps/vminps return the second operand.
    static V max(V a, V b) { return _mm512_max_ps(a, b); }
    static V min(V a, V b) { return _mm512_min_ps(a, b); }
    static V round_nearest(V a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    // √x of one float, correctly rounded (sqrtss, as the vector sqrt rounds)
    static float sqrt1(float x) { return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))); }
    // y·2^⌊n⌋ in one instruction and one rounding: subnormal results and overflow to inf included.
    static V scale_by_pow2(V y, V n) { return _mm512_scalef_ps(y, n); }
    // m != 0 (NaN counts as non-zero, as in C++) ? a : b
    static V select_nonzero(V m, V a, V b) {
        return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(m, _mm512_setzero_ps(), _CMP_NEQ_UQ), b, a);
    }
    // m > 0 (false for NaN) ? a : b
    static V select_positive(V m, V a, V b) {
        return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(m, _mm512_setzero_ps(), _CMP_GT_OQ), b, a);
    }
    static float hsum(V v) { return _mm512_reduce_add_ps(v); }
    // sums[i] = the sum of v[i]'s 16 lanes, i < 8 (sums 32-byte aligned)
    static void sum_lanes8(float* sums, const V* v) {
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
        _mm256_store_ps(sums, _mm256_insertf128_ps(_mm256_castps128_ps256(_mm512_extractf32x4_ps(t, 0)),
                                                   _mm512_extractf32x4_ps(t, 2), 1));
    }
    static void prefetch(const float* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0); }
    static void prefetch(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0); }
    // W weights stored in a low format at p, widened exactly to floats (gemm_lowp_body.h), in
    // AVX-512F alone: BF16 zero-extended and shifted left 16, FP16 through vcvtph2ps (zmm),
    // INT8 sign-extended to 32 bits and converted.
    static V widen_bf16(const uint16_t* p) {
        const __m512i h = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
        return _mm512_castsi512_ps(_mm512_slli_epi32(h, 16));
    }
    static V widen_fp16(const uint16_t* p) { return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
    static V widen_int8(const int8_t* p) {
        return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    }
    static float hmax(V v) { return _mm512_reduce_max_ps(v); }

    // Dropout's multipliers of indices i..i+15: scale where the index's uniform draw u ≥ p, else 0;
    // u = the top 24 bits of splitmix64(seed ^ i·0x9E3779B97F4A7C15) times 2^-24, exact (dropout_draw.h).
    static V dropout_multipliers(long i, unsigned long long seed, V p, V scale) {
        const __m512i vseed = _mm512_set1_epi64(static_cast<long long>(seed));
        const __m512i i0 = _mm512_add_epi64(_mm512_set1_epi64(i), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
        const __m512i i1 = _mm512_add_epi64(i0, _mm512_set1_epi64(8));
        const __m512i bits = _mm512_inserti64x4(_mm512_castsi256_si512(draw24(i0, vseed)), draw24(i1, vseed), 1);
        const __m512 u = _mm512_mul_ps(_mm512_cvtepi32_ps(bits), _mm512_set1_ps(1.0f / 16777216.0f));
        return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(u, p, _CMP_GE_OQ), scale);
    }
    // a·b mod 2^64 in each 64-bit lane from 32-bit products (AVX-512F has no 64-bit multiply).
    static __m512i mul64(__m512i a, unsigned long long b) {
        const __m512i b_lo = _mm512_set1_epi64(static_cast<long long>(b & 0xFFFFFFFFull));
        const __m512i b_hi = _mm512_set1_epi64(static_cast<long long>(b >> 32));
        const __m512i cross = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), b_lo), _mm512_mul_epu32(a, b_hi));
        return _mm512_add_epi64(_mm512_mul_epu32(a, b_lo), _mm512_slli_epi64(cross, 32));
    }
    // The top 24 bits of the draws of 8 indices, as 32-bit integers.
    static __m256i draw24(__m512i i, __m512i seed) {
        __m512i z = _mm512_xor_si512(seed, mul64(i, 0x9E3779B97F4A7C15ull));
        z = _mm512_add_epi64(z, _mm512_set1_epi64(static_cast<long long>(0x9E3779B97F4A7C15ull)));
        z = mul64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ull);
        z = mul64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), 0x94D049BB133111EBull);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
        return _mm512_cvtepi64_epi32(_mm512_srli_epi64(z, 40));
    }
};

}  // namespace

}  // namespace tx::cpu::kernels
