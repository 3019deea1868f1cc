// The kernels of norm_kernels.h (LayerNorm and RMSNorm rows, the fused residual + dropout, dropout)
// written once for every vector unit: norm_rows_avx2.cpp and norm_rows_avx512.cpp include their
// Simd traits (simd_avx2.h, simd_avx512.h) and then this file inside an anonymous namespace, so every
// function here has internal linkage and is compiled for that unit's set alone. Any C ≥ 1 works:
// the last partial vector of a row goes through Simd::Lanes. Not a header for anyone else: it has
// no include guard on purpose and no declarations of its own.

float row_sum(const float* x, int C) {
    using S = Simd;
    S::V acc0 = S::zero(), acc1 = S::zero();
    int c = 0;
    for (; c + 2 * S::W <= C; c += 2 * S::W) {
        acc0 = S::add(acc0, S::load(x + c));
        acc1 = S::add(acc1, S::load(x + c + S::W));
    }
    for (; c < C; c += S::W) acc0 = S::add(acc0, S::load(S::lanes(c, C), x + c));
    return S::hsum(S::add(acc0, acc1));
}

// Σ (x - m)² over the row; lanes past its end contribute nothing (not m²).
float row_squared_deviation(const float* x, float m, int C) {
    using S = Simd;
    const S::V vm = S::set1(m);
    S::V acc0 = S::zero(), acc1 = S::zero();
    int c = 0;
    for (; c + 2 * S::W <= C; c += 2 * S::W) {
        const S::V d0 = S::sub(S::load(x + c), vm);
        const S::V d1 = S::sub(S::load(x + c + S::W), vm);
        acc0 = S::fmadd(d0, d0, acc0);
        acc1 = S::fmadd(d1, d1, acc1);
    }
    for (; c < C; c += S::W) {
        const S::Lanes k = S::lanes(c, C);
        const S::V d = S::sub_in(k, S::load(k, x + c), vm);
        acc0 = S::fmadd(d, d, acc0);
    }
    return S::hsum(S::add(acc0, acc1));
}

void norm_forward_rows(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int rows, int C, float eps) {
    using S = Simd;
    const bool rms = mean == nullptr;
    for (int n = 0; n < rows; ++n) {
        const float* x = inp + static_cast<long>(n) * C;
        float* o = out + static_cast<long>(n) * C;
        const float m = rms ? 0.0f : row_sum(x, C) / static_cast<float>(C);
        // LayerNorm: two passes (mean, then squared deviations), no cancellation as in E[x²] − E[x]².
        const float s = 1.0f / S::sqrt1(row_squared_deviation(x, m, C) / static_cast<float>(C) + eps);
        const S::V vm = S::set1(m), vs = S::set1(s);
        for (int c = 0; c < C; c += S::W) {
            const S::Lanes k = S::lanes(c, C);
            const S::V xhat = S::mul(S::sub(S::load(k, x + c), vm), vs);
            const S::V w = S::load(k, weight + c);
            S::store(o + c, k, rms ? S::mul(xhat, w) : S::fmadd(xhat, w, S::load(k, bias + c)));
        }
        if (!rms) mean[n] = m;
        rstd[n] = s;
    }
}

void norm_backward_rows(float* dinp, float* dinp2, const float* mask2, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int rows, int C) {
    using S = Simd;
    // With xhat = (x − mean)·rstd and dxhat = dout·weight (llm.c layernorm_backward):
    // d = rstd·(dxhat − mean_c(dxhat) − xhat·mean_c(dxhat·xhat)); RMSNorm has no mean and no mean_c(dxhat).
    const bool rms = mean == nullptr;
    for (int n = 0; n < rows; ++n) {
        const long row = static_cast<long>(n) * C;
        const float* x = inp + row;
        const float* g = dout + row;
        const S::V vm = S::set1(rms ? 0.0f : mean[n]), vs = S::set1(rstd[n]);
        S::V sum_dxhat = S::zero(), sum_dxhat_xhat = S::zero();
        for (int c = 0; c < C; c += S::W) {
            const S::Lanes k = S::lanes(c, C);   // g is 0 past the row's end, so dxhat is too
            const S::V xhat = S::mul(S::sub(S::load(k, x + c), vm), vs);
            const S::V dxhat = S::mul(S::load(k, g + c), S::load(k, weight + c));
            sum_dxhat = S::add(sum_dxhat, dxhat);
            sum_dxhat_xhat = S::fmadd(dxhat, xhat, sum_dxhat_xhat);
        }
        const float inv_c = 1.0f / static_cast<float>(C);
        const S::V a = S::set1(rms ? 0.0f : S::hsum(sum_dxhat) * inv_c);
        const S::V b = S::set1(S::hsum(sum_dxhat_xhat) * inv_c);
        for (int c = 0; c < C; c += S::W) {
            const S::Lanes k = S::lanes(c, C);
            const S::V xhat = S::mul(S::sub(S::load(k, x + c), vm), vs);
            const S::V dxhat = S::mul(S::load(k, g + c), S::load(k, weight + c));
            const S::V d = S::mul(vs, S::fnmadd(xhat, b, S::sub(dxhat, a)));
            S::store(dinp + row + c, k, S::add(S::load(k, dinp + row + c), d));
            if (dinp2) {
                const S::V d2 = mask2 ? S::mul(S::load(k, mask2 + row + c), d) : d;
                S::store(dinp2 + row + c, k, S::add(S::load(k, dinp2 + row + c), d2));
            }
        }
    }
}

void norm_param_grad_columns(float* dweight, float* dbias, const float* dout, const float* inp, const float* mean,
                             const float* rstd, int N, int C, int c0, int c1) {
    using S = Simd;
    for (int c = c0; c < c1; c += S::W) {
        const S::Lanes k = S::lanes(c, c1);
        S::V gw = S::load(k, dweight + c);
        S::V gb = dbias ? S::load(k, dbias + c) : S::zero();
        for (int n = 0; n < N; ++n) {
            const long row = static_cast<long>(n) * C;
            const S::V g = S::load(k, dout + row + c);
            const S::V vm = S::set1(mean ? mean[n] : 0.0f);
            const S::V xhat = S::mul(S::sub(S::load(k, inp + row + c), vm), S::set1(rstd[n]));
            gw = S::fmadd(xhat, g, gw);
            gb = S::add(gb, g);
        }
        S::store(dweight + c, k, gw);
        if (dbias) S::store(dbias + c, k, gb);
    }
}

// The lanes of the vector at flat index i of a range that ends at last.
[[gnu::always_inline]] inline Simd::Lanes lanes_before(long i, long last) {
    return Simd::lanes(0, static_cast<int>(last - i < Simd::W ? last - i : Simd::W));
}

void residual_dropout(float* out, float* mask, const float* x, const float* sub, long first, long last, float p,
                      float scale, unsigned long long seed) {
    using S = Simd;
    const S::V vp = S::set1(p), vscale = S::set1(scale);
    for (long i = first; i < last; i += S::W) {
        const S::Lanes k = lanes_before(i, last);
        const S::V m = S::dropout_multipliers(i, seed, vp, vscale);
        const S::V dropped = S::mul(S::load(k, sub + i), m);
        S::store(mask + i, k, m);
        S::store(out + i, k, S::add(S::load(k, x + i), dropped));
    }
}

void dropout(float* out, float* mask, const float* inp, long first, long last, float p, float scale,
             unsigned long long seed) {
    using S = Simd;
    const S::V vp = S::set1(p), vscale = S::set1(scale);
    for (long i = first; i < last; i += S::W) {
        const S::Lanes k = lanes_before(i, last);
        const S::V m = S::dropout_multipliers(i, seed, vp, vscale);
        S::store(mask + i, k, m);
        S::store(out + i, k, S::mul(S::load(k, inp + i), m));
    }
}

constexpr NormRowKernels NORM_ROW_KERNELS = {
    norm_forward_rows, norm_backward_rows, norm_param_grad_columns, residual_dropout, dropout,
};
