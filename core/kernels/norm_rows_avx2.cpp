// LayerNorm and RMSNorm rows on AVX2 + FMA (norm_kernels.h): 8 floats a vector, the last partial vector
// of a row through masked loads and stores (vmaskmov), so any C ≥ 1 works. Compiled with -mavx2 -mfma
// -mno-avx512f (core/CMakeLists.txt); everything but the entry points has internal linkage (gemm_kernels.h).
#include "kernels/norm_kernels.h"

#include <immintrin.h>

#include "kernels/avx2_partial_store.h"

namespace tx::cpu::kernels {

namespace {

constexpr int W = 8;   // floats per vector

// The lanes of the vector at column c that lie inside a row of C values: all of them (full), or the
// row's last, partial vector with k all ones in its lanes (n of them). Only that partial vector is
// loaded through vmaskmov, and stored in plain stores (avx2_partial_store.h says why).
struct Lanes {
    __m256i k;
    bool full;
    int n;
};

Lanes lanes(int c, int C) {
    alignas(32) static const int table[2 * W] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    const int left = C - c;
    if (left >= W) return {_mm256_set1_epi32(-1), true, W};
    return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(table + W - left)), false, left};
}

__m256 load(Lanes l, const float* p) { return l.full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, l.k); }   // zeros outside
void store(float* p, Lanes l, __m256 v) {
    if (l.full) _mm256_storeu_ps(p, v);
    else store_first_lanes(p, v, l.n);
}

float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

float row_sum(const float* x, int C) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    int c = 0;
    for (; c + 2 * W <= C; c += 2 * W) {
        acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(x + c));
        acc1 = _mm256_add_ps(acc1, _mm256_loadu_ps(x + c + W));
    }
    for (; c < C; c += W) acc0 = _mm256_add_ps(acc0, load(lanes(c, C), x + c));
    return hsum(_mm256_add_ps(acc0, acc1));
}

// Σ (x - m)² over the row; lanes past its end contribute nothing (not m²).
float row_squared_deviation(const float* x, float m, int C) {
    const __m256 vm = _mm256_set1_ps(m);
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    int c = 0;
    for (; c + 2 * W <= C; c += 2 * W) {
        const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(x + c), vm);
        const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(x + c + W), vm);
        acc0 = _mm256_fmadd_ps(d0, d0, acc0);
        acc1 = _mm256_fmadd_ps(d1, d1, acc1);
    }
    for (; c < C; c += W) {
        const Lanes k = lanes(c, C);
        const __m256 d = _mm256_and_ps(_mm256_sub_ps(load(k, x + c), vm), _mm256_castsi256_ps(k.k));
        acc0 = _mm256_fmadd_ps(d, d, acc0);
    }
    return hsum(_mm256_add_ps(acc0, acc1));
}

float inverse_sqrt(float v) { return 1.0f / _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(v))); }

}  // namespace

void norm_forward_rows_avx2(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                            const float* bias, int rows, int C, float eps) {
    const bool rms = mean == nullptr;
    for (int n = 0; n < rows; ++n) {
        const float* x = inp + static_cast<long>(n) * C;
        float* o = out + static_cast<long>(n) * C;
        const float m = rms ? 0.0f : row_sum(x, C) / static_cast<float>(C);
        // LayerNorm: two passes (mean, then squared deviations), no cancellation as in E[x²] − E[x]².
        const float s = inverse_sqrt(row_squared_deviation(x, m, C) / static_cast<float>(C) + eps);
        const __m256 vm = _mm256_set1_ps(m), vs = _mm256_set1_ps(s);
        for (int c = 0; c < C; c += W) {
            const Lanes k = lanes(c, C);
            const __m256 xhat = _mm256_mul_ps(_mm256_sub_ps(load(k, x + c), vm), vs);
            const __m256 w = load(k, weight + c);
            store(o + c, k, rms ? _mm256_mul_ps(xhat, w) : _mm256_fmadd_ps(xhat, w, load(k, bias + c)));
        }
        if (!rms) mean[n] = m;
        rstd[n] = s;
    }
}

void norm_backward_rows_avx2(float* dinp, float* dinp2, const float* mask2, const float* dout, const float* inp,
                             const float* weight, const float* mean, const float* rstd, int rows, int C) {
    // With xhat = (x − mean)·rstd and dxhat = dout·weight (llm.c layernorm_backward):
    // d = rstd·(dxhat − mean_c(dxhat) − xhat·mean_c(dxhat·xhat)); RMSNorm has no mean and no mean_c(dxhat).
    const bool rms = mean == nullptr;
    for (int n = 0; n < rows; ++n) {
        const long row = static_cast<long>(n) * C;
        const float* x = inp + row;
        const float* g = dout + row;
        const __m256 vm = _mm256_set1_ps(rms ? 0.0f : mean[n]), vs = _mm256_set1_ps(rstd[n]);
        __m256 sum_dxhat = _mm256_setzero_ps(), sum_dxhat_xhat = _mm256_setzero_ps();
        for (int c = 0; c < C; c += W) {
            const Lanes k = lanes(c, C);   // g is 0 past the row's end, so dxhat is too
            const __m256 xhat = _mm256_mul_ps(_mm256_sub_ps(load(k, x + c), vm), vs);
            const __m256 dxhat = _mm256_mul_ps(load(k, g + c), load(k, weight + c));
            sum_dxhat = _mm256_add_ps(sum_dxhat, dxhat);
            sum_dxhat_xhat = _mm256_fmadd_ps(dxhat, xhat, sum_dxhat_xhat);
        }
        const float inv_c = 1.0f / static_cast<float>(C);
        const __m256 a = _mm256_set1_ps(rms ? 0.0f : hsum(sum_dxhat) * inv_c);
        const __m256 b = _mm256_set1_ps(hsum(sum_dxhat_xhat) * inv_c);
        for (int c = 0; c < C; c += W) {
            const Lanes k = lanes(c, C);
            const __m256 xhat = _mm256_mul_ps(_mm256_sub_ps(load(k, x + c), vm), vs);
            const __m256 dxhat = _mm256_mul_ps(load(k, g + c), load(k, weight + c));
            const __m256 d = _mm256_mul_ps(vs, _mm256_fnmadd_ps(xhat, b, _mm256_sub_ps(dxhat, a)));
            store(dinp + row + c, k, _mm256_add_ps(load(k, dinp + row + c), d));
            if (dinp2) {
                const __m256 d2 = mask2 ? _mm256_mul_ps(load(k, mask2 + row + c), d) : d;
                store(dinp2 + row + c, k, _mm256_add_ps(load(k, dinp2 + row + c), d2));
            }
        }
    }
}

void norm_param_grad_columns_avx2(float* dweight, float* dbias, const float* dout, const float* inp,
                                  const float* mean, const float* rstd, int N, int C, int c0, int c1) {
    for (int c = c0; c < c1; c += W) {
        const Lanes k = lanes(c, c1);
        __m256 gw = load(k, dweight + c);
        __m256 gb = dbias ? load(k, dbias + c) : _mm256_setzero_ps();
        for (int n = 0; n < N; ++n) {
            const long row = static_cast<long>(n) * C;
            const __m256 g = load(k, dout + row + c);
            const __m256 vm = _mm256_set1_ps(mean ? mean[n] : 0.0f);
            const __m256 xhat = _mm256_mul_ps(_mm256_sub_ps(load(k, inp + row + c), vm), _mm256_set1_ps(rstd[n]));
            gw = _mm256_fmadd_ps(xhat, g, gw);
            gb = _mm256_add_ps(gb, g);
        }
        store(dweight + c, k, gw);
        if (dbias) store(dbias + c, k, gb);
    }
}

}  // namespace tx::cpu::kernels

namespace tx::cpu::kernels {

namespace {

// a·b mod 2^64 in each 64-bit lane from 32-bit products (AVX2 has no 64-bit multiply).
__m256i mul64(__m256i a, unsigned long long b) {
    const __m256i b_lo = _mm256_set1_epi64x(static_cast<long long>(b & 0xFFFFFFFFull));
    const __m256i b_hi = _mm256_set1_epi64x(static_cast<long long>(b >> 32));
    const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b_lo), _mm256_mul_epu32(a, b_hi));
    return _mm256_add_epi64(_mm256_mul_epu32(a, b_lo), _mm256_slli_epi64(cross, 32));
}

// The top 24 bits of splitmix64(seed ^ i·0x9E3779B97F4A7C15) for 4 indices (dropout_draw.h), as
// 32-bit integers in the low half.
__m128i draw24(__m256i i, __m256i seed) {
    __m256i z = _mm256_xor_si256(seed, mul64(i, 0x9E3779B97F4A7C15ull));
    z = _mm256_add_epi64(z, _mm256_set1_epi64x(static_cast<long long>(0x9E3779B97F4A7C15ull)));
    z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ull);
    z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), 0x94D049BB133111EBull);
    z = _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
    const __m256i low_words = _mm256_permutevar8x32_epi32(_mm256_srli_epi64(z, 40), _mm256_set_epi32(7, 5, 3, 1, 6, 4, 2, 0));
    return _mm256_castsi256_si128(low_words);
}

// The dropout multipliers of indices i..i+7: scale where the index's uniform draw u ≥ p, else 0;
// u = the draw's 24 bits times 2^-24, exact.
__m256 keep_multipliers(long i, __m256i vseed, __m256 vp, __m256 vscale) {
    const __m256i i0 = _mm256_add_epi64(_mm256_set1_epi64x(i), _mm256_set_epi64x(3, 2, 1, 0));
    const __m256i i1 = _mm256_add_epi64(i0, _mm256_set1_epi64x(4));
    const __m256i bits = _mm256_inserti128_si256(_mm256_castsi128_si256(draw24(i0, vseed)), draw24(i1, vseed), 1);
    const __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(bits), _mm256_set1_ps(1.0f / 16777216.0f));
    return _mm256_and_ps(_mm256_cmp_ps(u, vp, _CMP_GE_OQ), vscale);
}

}  // namespace

void residual_dropout_avx2(float* out, float* mask, const float* x, const float* sub, long first, long last,
                           float p, float scale, unsigned long long seed) {
    const __m256i vseed = _mm256_set1_epi64x(static_cast<long long>(seed));
    const __m256 vp = _mm256_set1_ps(p), vscale = _mm256_set1_ps(scale);
    for (long i = first; i < last; i += W) {
        const Lanes k = lanes(0, static_cast<int>(last - i < W ? last - i : W));
        const __m256 m = keep_multipliers(i, vseed, vp, vscale);
        const __m256 dropped = _mm256_mul_ps(load(k, sub + i), m);
        store(mask + i, k, m);
        store(out + i, k, _mm256_add_ps(load(k, x + i), dropped));
    }
}

void dropout_avx2(float* out, float* mask, const float* inp, long first, long last, float p, float scale,
                  unsigned long long seed) {
    const __m256i vseed = _mm256_set1_epi64x(static_cast<long long>(seed));
    const __m256 vp = _mm256_set1_ps(p), vscale = _mm256_set1_ps(scale);
    for (long i = first; i < last; i += W) {
        const Lanes k = lanes(0, static_cast<int>(last - i < W ? last - i : W));
        const __m256 m = keep_multipliers(i, vseed, vp, vscale);
        store(mask + i, k, m);
        store(out + i, k, _mm256_mul_ps(load(k, inp + i), m));
    }
}

}  // namespace tx::cpu::kernels
