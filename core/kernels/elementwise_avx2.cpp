// The float Adam update on AVX2 (elementwise_kernels.h): 8 floats a vector, the last partial vector in plain
// scalar code of the same operations (vmaskmov's store is microcoded on AMD Zen). Compiled with -mavx2
// -mno-avx512f -ffp-contract=off (core/CMakeLists.txt); only the entry point has external linkage.
#include "kernels/elementwise_kernels.h"

#include <immintrin.h>

namespace tx::cpu::kernels {

void relu_backward_avx2(float* dinp, const float* dout, const float* out, long first, long last) {
    constexpr long W = 8;
    const __m256 zero = _mm256_setzero_ps();
    long i = first;
    for (; i + W <= last; i += W) {
        // a blend, not a masked store: lanes whose unit was off get their own bits back (−0 included)
        const __m256 on = _mm256_cmp_ps(_mm256_loadu_ps(out + i), zero, _CMP_GT_OQ);
        const __m256 d = _mm256_loadu_ps(dinp + i);
        _mm256_storeu_ps(dinp + i, _mm256_blendv_ps(d, _mm256_add_ps(d, _mm256_loadu_ps(dout + i)), on));
    }
    for (; i < last; ++i)
        if (out[i] > 0.0f) dinp[i] += dout[i];
}

void relu_forward_avx2(float* out, const float* inp, long first, long last) {
    constexpr long W = 8;
    const __m256 zero = _mm256_setzero_ps();
    long i = first;
    for (; i + W <= last; i += W) {
        const __m256 x = _mm256_loadu_ps(inp + i);
        _mm256_storeu_ps(out + i, _mm256_and_ps(_mm256_cmp_ps(x, zero, _CMP_GT_OQ), x));   // x, or +0
    }
    for (; i < last; ++i) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

void attention_mask_avx2(float* out, const float* scores, const float* mask, long n) {
    constexpr long W = 8;
    const __m256 zero = _mm256_setzero_ps(), neg_inf = _mm256_set1_ps(-__builtin_inff());
    long i = 0;
    for (; i + W <= n; i += W) {
        const __m256 keep = _mm256_cmp_ps(_mm256_loadu_ps(mask + i), zero, _CMP_NEQ_UQ);
        _mm256_storeu_ps(out + i, _mm256_blendv_ps(neg_inf, _mm256_loadu_ps(scores + i), keep));
    }
    for (; i < n; ++i) out[i] = mask[i] != 0.0f ? scores[i] : -__builtin_inff();
}

void column_sums_add_avx2(float* dbias, const float* dout, int N, int OC) {
    constexpr int W = 8;
    int c = 0;
    for (; c + 2 * W <= OC; c += 2 * W) {   // two vectors: one 64-byte cache line of each row per pass
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
        for (int n = 0; n < N; ++n) {
            const float* row = dout + static_cast<long>(n) * OC + c;
            a0 = _mm256_add_ps(a0, _mm256_loadu_ps(row));
            a1 = _mm256_add_ps(a1, _mm256_loadu_ps(row + W));
        }
        _mm256_storeu_ps(dbias + c, _mm256_add_ps(_mm256_loadu_ps(dbias + c), a0));
        _mm256_storeu_ps(dbias + c + W, _mm256_add_ps(_mm256_loadu_ps(dbias + c + W), a1));
    }
    for (; c + W <= OC; c += W) {
        __m256 a = _mm256_setzero_ps();
        for (int n = 0; n < N; ++n) a = _mm256_add_ps(a, _mm256_loadu_ps(dout + static_cast<long>(n) * OC + c));
        _mm256_storeu_ps(dbias + c, _mm256_add_ps(_mm256_loadu_ps(dbias + c), a));
    }
    for (; c < OC; ++c) {   // the same sums in the same order, one column at a time
        float a = 0.0f;
        for (int n = 0; n < N; ++n) a += dout[static_cast<long>(n) * OC + c];
        dbias[c] += a;
    }
}

void adam_update_avx2(float* params, float* m, float* v, const float* grads, long n, float step, float beta1,
                      float beta2, float inv_sqrt_bc2, float eps) {
    constexpr long W = 8;
    const __m256 b1 = _mm256_set1_ps(beta1), c1 = _mm256_set1_ps(1.0f - beta1);
    const __m256 b2 = _mm256_set1_ps(beta2), c2 = _mm256_set1_ps(1.0f - beta2);
    const __m256 vstep = _mm256_set1_ps(step), vinv = _mm256_set1_ps(inv_sqrt_bc2), veps = _mm256_set1_ps(eps);
    long i = 0;
    for (; i + W <= n; i += W) {
        const __m256 g = _mm256_loadu_ps(grads + i);
        const __m256 mi = _mm256_add_ps(_mm256_mul_ps(b1, _mm256_loadu_ps(m + i)), _mm256_mul_ps(c1, g));
        const __m256 vi = _mm256_add_ps(_mm256_mul_ps(b2, _mm256_loadu_ps(v + i)), _mm256_mul_ps(_mm256_mul_ps(c2, g), g));
        const __m256 denom = _mm256_add_ps(_mm256_mul_ps(_mm256_sqrt_ps(vi), vinv), veps);
        _mm256_storeu_ps(m + i, mi);
        _mm256_storeu_ps(v + i, vi);
        _mm256_storeu_ps(params + i, _mm256_sub_ps(_mm256_loadu_ps(params + i), _mm256_div_ps(_mm256_mul_ps(vstep, mi), denom)));
    }
    // the tail: sqrtss rounds as sqrtps does, and each line rounds once per operation (-ffp-contract=off)
    for (; i < n; ++i) {
        const float g = grads[i];
        m[i] = beta1 * m[i] + (1.0f - beta1) * g;
        v[i] = beta2 * v[i] + ((1.0f - beta2) * g) * g;
        const float root = _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(v[i])));
        params[i] -= (step * m[i]) / (root * inv_sqrt_bc2 + eps);
    }
}

}  // namespace tx::cpu::kernels
