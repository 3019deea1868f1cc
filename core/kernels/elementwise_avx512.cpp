// The float Adam update on AVX-512 (elementwise_kernels.h): 16 floats a vector, the tail through masked loads
// and stores, so any n works. Compiled with -mavx512f -ffp-contract=off (core/CMakeLists.txt); everything
// but the entry point has internal linkage (gemm_kernels.h).
#include "kernels/elementwise_kernels.h"

#include <immintrin.h>

namespace tx::cpu::kernels {

void relu_backward_avx512(float* dinp, const float* dout, const float* out, long first, long last) {
    constexpr long W = 16;
    const __m512 zero = _mm512_setzero_ps();
    for (long i = first; i < last; i += W) {
        const __mmask16 k = last - i >= W ? static_cast<__mmask16>(0xFFFF)
                                          : static_cast<__mmask16>((1u << (last - i)) - 1u);
        // only the lanes whose unit was on are written: the others keep their bits (−0 included)
        const __mmask16 on = _mm512_mask_cmp_ps_mask(k, _mm512_maskz_loadu_ps(k, out + i), zero, _CMP_GT_OQ);
        const __m512 sum = _mm512_add_ps(_mm512_maskz_loadu_ps(on, dinp + i), _mm512_maskz_loadu_ps(on, dout + i));
        _mm512_mask_storeu_ps(dinp + i, on, sum);
    }
}

void relu_forward_avx512(float* out, const float* inp, long first, long last) {
    constexpr long W = 16;
    const __m512 zero = _mm512_setzero_ps();
    for (long i = first; i < last; i += W) {
        const __mmask16 k = last - i >= W ? static_cast<__mmask16>(0xFFFF)
                                          : static_cast<__mmask16>((1u << (last - i)) - 1u);
        const __m512 x = _mm512_maskz_loadu_ps(k, inp + i);
        _mm512_mask_storeu_ps(out + i, k, _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, zero, _CMP_GT_OQ), x));   // x, or +0
    }
}

void attention_mask_avx512(float* out, const float* scores, const float* mask, long n) {
    constexpr long W = 16;
    const __m512 zero = _mm512_setzero_ps(), neg_inf = _mm512_set1_ps(-__builtin_inff());
    for (long i = 0; i < n; i += W) {
        const __mmask16 k = n - i >= W ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (n - i)) - 1u);
        const __mmask16 keep = _mm512_cmp_ps_mask(_mm512_maskz_loadu_ps(k, mask + i), zero, _CMP_NEQ_UQ);
        _mm512_mask_storeu_ps(out + i, k, _mm512_mask_blend_ps(keep, neg_inf, _mm512_maskz_loadu_ps(k, scores + i)));
    }
}

void column_sums_add_avx512(float* dbias, const float* dout, int N, int OC) {
    constexpr int W = 16;   // one cache line of each row per column block
    for (int c = 0; c < OC; c += W) {
        const __mmask16 k = OC - c >= W ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (OC - c)) - 1u);
        __m512 acc = _mm512_setzero_ps();
        for (int n = 0; n < N; ++n) acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(k, dout + static_cast<long>(n) * OC + c));
        _mm512_mask_storeu_ps(dbias + c, k, _mm512_add_ps(_mm512_maskz_loadu_ps(k, dbias + c), acc));
    }
}

void adam_update_avx512(float* params, float* m, float* v, const float* grads, long n, float step, float beta1,
                        float beta2, float inv_sqrt_bc2, float eps) {
    constexpr long W = 16;
    const __m512 b1 = _mm512_set1_ps(beta1), c1 = _mm512_set1_ps(1.0f - beta1);
    const __m512 b2 = _mm512_set1_ps(beta2), c2 = _mm512_set1_ps(1.0f - beta2);
    const __m512 vstep = _mm512_set1_ps(step), vinv = _mm512_set1_ps(inv_sqrt_bc2), veps = _mm512_set1_ps(eps);
    for (long i = 0; i < n; i += W) {
        const __mmask16 k = n - i >= W ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (n - i)) - 1u);
        const __m512 g = _mm512_maskz_loadu_ps(k, grads + i);
        const __m512 mi = _mm512_add_ps(_mm512_mul_ps(b1, _mm512_maskz_loadu_ps(k, m + i)), _mm512_mul_ps(c1, g));
        const __m512 vi = _mm512_add_ps(_mm512_mul_ps(b2, _mm512_maskz_loadu_ps(k, v + i)),
                                        _mm512_mul_ps(_mm512_mul_ps(c2, g), g));
        const __m512 denom = _mm512_add_ps(_mm512_mul_ps(_mm512_sqrt_ps(vi), vinv), veps);
        const __m512 p = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, params + i), _mm512_div_ps(_mm512_mul_ps(vstep, mi), denom));
        _mm512_mask_storeu_ps(m + i, k, mi);
        _mm512_mask_storeu_ps(v + i, k, vi);
        _mm512_mask_storeu_ps(params + i, k, p);
    }
}

}  // namespace tx::cpu::kernels
