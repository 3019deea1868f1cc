// half_convert_kernels.h for AVX2 + F16C. BF16 rounds in the integer unit: bits + 0x7FFF + (the
// kept lowest bit) carries into the upper half exactly when round-to-nearest-even rounds up, and a
// NaN is made quiet instead (the carry could turn it into inf). FP16 is F16C's VCVTPS2PH with
// round-to-nearest-even, which handles overflow, subnormals and NaN as half_float.cpp does.
#include "kernels/half_convert_kernels.h"

#include <immintrin.h>

#include <cstring>

namespace tx::cpu::kernels {

namespace {

constexpr int W = 8;
constexpr int FP16_NEAREST = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// The rounded BF16 value in the upper 16 bits of each lane (the lower 16 bits are garbage).
__m256i bf16_upper(__m256 x) {
    const __m256i bits = _mm256_castps_si256(x);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    const __m256i rounded = _mm256_add_epi32(bits, _mm256_add_epi32(_mm256_set1_epi32(0x7FFF), lsb));
    const __m256i quiet = _mm256_or_si256(bits, _mm256_set1_epi32(0x00400000));
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    return _mm256_blendv_epi8(rounded, quiet, nan);
}

__m256 round_bf16(__m256 x) {
    return _mm256_castsi256_ps(_mm256_and_si256(bf16_upper(x), _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))));
}

// 8 lanes' upper halves as 8 uint16 (packus works per 128-bit lane; the permute restores order).
__m128i bf16_pack(__m256 x) {
    const __m256i upper = _mm256_srli_epi32(bf16_upper(x), 16);
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(upper, upper), 0xD8);
    return _mm256_castsi256_si128(packed);
}

__m256 bf16_unpack(__m128i h) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)); }

// Runs body(dst, src) on full vectors, then on the tail copied into zero-padded W-wide buffers.
template <typename Out, typename In, typename Body>
void for_vectors(Out* out, const In* in, int64_t n, Body body) {
    int64_t i = 0;
    for (; i + W <= n; i += W) body(out + i, in + i);
    if (i == n) return;
    alignas(32) In src[W] = {};
    alignas(32) Out dst[W] = {};
    std::memcpy(src, in + i, static_cast<size_t>(n - i) * sizeof(In));
    body(dst, src);
    std::memcpy(out + i, dst, static_cast<size_t>(n - i) * sizeof(Out));
}

}  // namespace

void floats_to_bf16_avx2(uint16_t* out, const float* in, int64_t n) {
    for_vectors(out, in, n, [](uint16_t* o, const float* x) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o), bf16_pack(_mm256_loadu_ps(x)));
    });
}

void bf16_to_floats_avx2(float* out, const uint16_t* in, int64_t n) {
    for_vectors(out, in, n, [](float* o, const uint16_t* h) {
        _mm256_storeu_ps(o, bf16_unpack(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h))));
    });
}

void floats_to_fp16_avx2(uint16_t* out, const float* in, int64_t n) {
    for_vectors(out, in, n, [](uint16_t* o, const float* x) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm256_cvtps_ph(_mm256_loadu_ps(x), FP16_NEAREST));
    });
}

void fp16_to_floats_avx2(float* out, const uint16_t* in, int64_t n) {
    for_vectors(out, in, n, [](float* o, const uint16_t* h) {
        _mm256_storeu_ps(o, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h))));
    });
}

void round_to_bf16_avx2(float* out, const float* in, int64_t n) {
    for_vectors(out, in, n, [](float* o, const float* x) { _mm256_storeu_ps(o, round_bf16(_mm256_loadu_ps(x))); });
}

void round_to_fp16_avx2(float* out, const float* in, int64_t n) {
    for_vectors(out, in, n, [](float* o, const float* x) {
        _mm256_storeu_ps(o, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(x), FP16_NEAREST)));
    });
}

}  // namespace tx::cpu::kernels
