// LayerNorm and RMSNorm rows on AVX-512 (norm_kernels.h): 16 floats a vector, the last partial vector
// of a row through masked loads and stores, so any C ≥ 1 works. Compiled with -mavx512f (core/CMakeLists.txt);
// everything here but the entry points has internal linkage (gemm_kernels.h says why).
#include "kernels/norm_kernels.h"

#include <immintrin.h>

namespace tx::cpu::kernels {

namespace {

constexpr int W = 16;   // floats per vector

// The lanes of the vector at column c that lie inside a row of C values.
__mmask16 lanes(int c, int C) {
    const int left = C - c;
    return left >= W ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << left) - 1u);
}

float row_sum(const float* x, int C) {
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    int c = 0;
    for (; c + 2 * W <= C; c += 2 * W) {
        acc0 = _mm512_add_ps(acc0, _mm512_loadu_ps(x + c));
        acc1 = _mm512_add_ps(acc1, _mm512_loadu_ps(x + c + W));
    }
    for (; c < C; c += W) acc0 = _mm512_add_ps(acc0, _mm512_maskz_loadu_ps(lanes(c, C), x + c));
    return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
}

// Σ (x - m)² over the row; lanes past its end contribute nothing (not m²).
float row_squared_deviation(const float* x, float m, int C) {
    const __m512 vm = _mm512_set1_ps(m);
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    int c = 0;
    for (; c + 2 * W <= C; c += 2 * W) {
        const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x + c), vm);
        const __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(x + c + W), vm);
        acc0 = _mm512_fmadd_ps(d0, d0, acc0);
        acc1 = _mm512_fmadd_ps(d1, d1, acc1);
    }
    for (; c < C; c += W) {
        const __mmask16 k = lanes(c, C);
        const __m512 d = _mm512_maskz_sub_ps(k, _mm512_maskz_loadu_ps(k, x + c), vm);
        acc0 = _mm512_fmadd_ps(d, d, acc0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
}

float inverse_sqrt(float v) { return 1.0f / _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(v))); }

}  // namespace

void norm_forward_rows_avx512(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                              const float* bias, int rows, int C, float eps) {
    const bool rms = mean == nullptr;
    for (int n = 0; n < rows; ++n) {
        const float* x = inp + static_cast<long>(n) * C;
        float* o = out + static_cast<long>(n) * C;
        const float m = rms ? 0.0f : row_sum(x, C) / static_cast<float>(C);
        // LayerNorm: two passes (mean, then squared deviations), no cancellation as in E[x²] − E[x]².
        const float s = inverse_sqrt(row_squared_deviation(x, m, C) / static_cast<float>(C) + eps);
        const __m512 vm = _mm512_set1_ps(m), vs = _mm512_set1_ps(s);
        for (int c = 0; c < C; c += W) {
            const __mmask16 k = lanes(c, C);
            const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + c), vm), vs);
            const __m512 w = _mm512_maskz_loadu_ps(k, weight + c);
            const __m512 y = rms ? _mm512_mul_ps(xhat, w) : _mm512_fmadd_ps(xhat, w, _mm512_maskz_loadu_ps(k, bias + c));
            _mm512_mask_storeu_ps(o + c, k, y);
        }
        if (!rms) mean[n] = m;
        rstd[n] = s;
    }
}

void norm_backward_rows_avx512(float* dinp, float* dinp2, const float* mask2, const float* dout, const float* inp,
                               const float* weight, const float* mean, const float* rstd, int rows, int C) {
    // With xhat = (x − mean)·rstd and dxhat = dout·weight (llm.c layernorm_backward):
    // d = rstd·(dxhat − mean_c(dxhat) − xhat·mean_c(dxhat·xhat)); RMSNorm has no mean and no mean_c(dxhat).
    const bool rms = mean == nullptr;
    for (int n = 0; n < rows; ++n) {
        const long row = static_cast<long>(n) * C;
        const float* x = inp + row;
        const float* g = dout + row;
        const float m = rms ? 0.0f : mean[n];
        const __m512 vm = _mm512_set1_ps(m), vs = _mm512_set1_ps(rstd[n]);
        __m512 sum_dxhat = _mm512_setzero_ps(), sum_dxhat_xhat = _mm512_setzero_ps();
        for (int c = 0; c < C; c += W) {
            const __mmask16 k = lanes(c, C);   // g is 0 past the row's end, so dxhat is too
            const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + c), vm), vs);
            const __m512 dxhat = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, g + c), _mm512_maskz_loadu_ps(k, weight + c));
            sum_dxhat = _mm512_add_ps(sum_dxhat, dxhat);
            sum_dxhat_xhat = _mm512_fmadd_ps(dxhat, xhat, sum_dxhat_xhat);
        }
        const float inv_c = 1.0f / static_cast<float>(C);
        const __m512 a = _mm512_set1_ps(rms ? 0.0f : _mm512_reduce_add_ps(sum_dxhat) * inv_c);
        const __m512 b = _mm512_set1_ps(_mm512_reduce_add_ps(sum_dxhat_xhat) * inv_c);
        for (int c = 0; c < C; c += W) {
            const __mmask16 k = lanes(c, C);
            const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + c), vm), vs);
            const __m512 dxhat = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, g + c), _mm512_maskz_loadu_ps(k, weight + c));
            const __m512 d = _mm512_mul_ps(vs, _mm512_fnmadd_ps(xhat, b, _mm512_sub_ps(dxhat, a)));
            _mm512_mask_storeu_ps(dinp + row + c, k, _mm512_add_ps(_mm512_maskz_loadu_ps(k, dinp + row + c), d));
            if (dinp2) {
                const __m512 d2 = mask2 ? _mm512_mul_ps(_mm512_maskz_loadu_ps(k, mask2 + row + c), d) : d;
                _mm512_mask_storeu_ps(dinp2 + row + c, k, _mm512_add_ps(_mm512_maskz_loadu_ps(k, dinp2 + row + c), d2));
            }
        }
    }
}

void norm_param_grad_columns_avx512(float* dweight, float* dbias, const float* dout, const float* inp,
                                    const float* mean, const float* rstd, int N, int C, int c0, int c1) {
    for (int c = c0; c < c1; c += W) {
        const __mmask16 k = lanes(c, c1);
        __m512 gw = _mm512_maskz_loadu_ps(k, dweight + c);
        __m512 gb = dbias ? _mm512_maskz_loadu_ps(k, dbias + c) : _mm512_setzero_ps();
        for (int n = 0; n < N; ++n) {
            const long row = static_cast<long>(n) * C;
            const __m512 g = _mm512_maskz_loadu_ps(k, dout + row + c);
            const __m512 vm = _mm512_set1_ps(mean ? mean[n] : 0.0f);
            const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, inp + row + c), vm),
                                              _mm512_set1_ps(rstd[n]));
            gw = _mm512_fmadd_ps(xhat, g, gw);
            gb = _mm512_add_ps(gb, g);
        }
        _mm512_mask_storeu_ps(dweight + c, k, gw);
        if (dbias) _mm512_mask_storeu_ps(dbias + c, k, gb);
    }
}

}  // namespace tx::cpu::kernels

namespace tx::cpu::kernels {

namespace {

// a·b mod 2^64 in each 64-bit lane from 32-bit products (AVX-512F has no 64-bit multiply).
__m512i mul64(__m512i a, unsigned long long b) {
    const __m512i b_lo = _mm512_set1_epi64(static_cast<long long>(b & 0xFFFFFFFFull));
    const __m512i b_hi = _mm512_set1_epi64(static_cast<long long>(b >> 32));
    const __m512i cross = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), b_lo), _mm512_mul_epu32(a, b_hi));
    return _mm512_add_epi64(_mm512_mul_epu32(a, b_lo), _mm512_slli_epi64(cross, 32));
}

// The top 24 bits of splitmix64(seed ^ i·0x9E3779B97F4A7C15) for 8 indices (dropout_draw.h).
__m256i draw24(__m512i i, __m512i seed) {
    __m512i z = _mm512_xor_si512(seed, mul64(i, 0x9E3779B97F4A7C15ull));
    z = _mm512_add_epi64(z, _mm512_set1_epi64(static_cast<long long>(0x9E3779B97F4A7C15ull)));
    z = mul64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ull);
    z = mul64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), 0x94D049BB133111EBull);
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
    return _mm512_cvtepi64_epi32(_mm512_srli_epi64(z, 40));
}

// The dropout multipliers of indices i..i+15: scale where the index's uniform draw u ≥ p, else 0;
// u = the draw's 24 bits times 2^-24, exact.
__m512 keep_multipliers(long i, __m512i vseed, __m512 vp, __m512 vscale) {
    const __m512i i0 = _mm512_add_epi64(_mm512_set1_epi64(i), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
    const __m512i i1 = _mm512_add_epi64(i0, _mm512_set1_epi64(8));
    const __m512i bits = _mm512_inserti64x4(_mm512_castsi256_si512(draw24(i0, vseed)), draw24(i1, vseed), 1);
    const __m512 u = _mm512_mul_ps(_mm512_cvtepi32_ps(bits), _mm512_set1_ps(1.0f / 16777216.0f));
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(u, vp, _CMP_GE_OQ), vscale);
}

// The lanes of i..i+15 that lie before last.
__mmask16 lanes_before(long i, long last) {
    return last - i >= W ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (last - i)) - 1u);
}

}  // namespace

void residual_dropout_avx512(float* out, float* mask, const float* x, const float* sub, long first, long last,
                             float p, float scale, unsigned long long seed) {
    const __m512i vseed = _mm512_set1_epi64(static_cast<long long>(seed));
    const __m512 vp = _mm512_set1_ps(p), vscale = _mm512_set1_ps(scale);
    for (long i = first; i < last; i += W) {
        const __mmask16 k = lanes_before(i, last);
        const __m512 m = keep_multipliers(i, vseed, vp, vscale);
        const __m512 dropped = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, sub + i), m);
        _mm512_mask_storeu_ps(mask + i, k, m);
        _mm512_mask_storeu_ps(out + i, k, _mm512_add_ps(_mm512_maskz_loadu_ps(k, x + i), dropped));
    }
}

void dropout_avx512(float* out, float* mask, const float* inp, long first, long last, float p, float scale,
                    unsigned long long seed) {
    const __m512i vseed = _mm512_set1_epi64(static_cast<long long>(seed));
    const __m512 vp = _mm512_set1_ps(p), vscale = _mm512_set1_ps(scale);
    for (long i = first; i < last; i += W) {
        const __mmask16 k = lanes_before(i, last);
        const __m512 m = keep_multipliers(i, vseed, vp, vscale);
        _mm512_mask_storeu_ps(mask + i, k, m);
        _mm512_mask_storeu_ps(out + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, inp + i), m));
    }
}

}  // namespace tx::cpu::kernels
