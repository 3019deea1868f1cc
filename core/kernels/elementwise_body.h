// The kernels of elementwise_kernels.h (ReLU forward and backward, the attention mask, a linear
// layer's bias gradient, the Adam update) written once for every vector unit: elementwise_avx2.cpp
// and elementwise_avx512.cpp include their Simd traits (simd_avx2.h, simd_avx512.h) and then this
// file inside an anonymous namespace, so every function here has internal linkage and is compiled
// for that unit's set alone (with -ffp-contract=off: each operation rounded as written). Whole
// vectors first, then the range's last, partial vector through Simd::Lanes; every lane's result is
// the one a plain loop gives. Not a header for anyone else: no include guard, no declarations.

// The lanes of the vector at flat index i of a range that ends at last (i < last).
[[gnu::always_inline]] inline Simd::Lanes lanes_until(long i, long last) {
    return Simd::lanes(0, static_cast<int>(last - i < Simd::W ? last - i : Simd::W));
}

void relu_backward(float* dinp, const float* dout, const float* out, long first, long last) {
    using S = Simd;
    long i = first;
    // a blend, not a masked store: lanes whose unit was off get their own bits back (−0 included)
    for (; i + S::W <= last; i += S::W) {
        const S::V d = S::load(dinp + i);
        S::store(dinp + i, S::select_positive(S::load(out + i), S::add(d, S::load(dout + i)), d));
    }
    if (i < last) {
        const S::Lanes k = lanes_until(i, last);
        const S::V d = S::load(k, dinp + i);
        S::store(dinp + i, k, S::select_positive(S::load(k, out + i), S::add(d, S::load(k, dout + i)), d));
    }
}

void relu_forward(float* out, const float* inp, long first, long last) {
    using S = Simd;
    long i = first;
    for (; i + S::W <= last; i += S::W) {
        const S::V x = S::load(inp + i);
        S::store(out + i, S::select_positive(x, x, S::zero()));   // x, or +0
    }
    if (i < last) {
        const S::Lanes k = lanes_until(i, last);
        const S::V x = S::load(k, inp + i);
        S::store(out + i, k, S::select_positive(x, x, S::zero()));
    }
}

void attention_mask(float* out, const float* scores, const float* mask, long n) {
    using S = Simd;
    const S::V neg_inf = S::set1(-__builtin_inff());
    long i = 0;
    for (; i + S::W <= n; i += S::W) S::store(out + i, S::select_nonzero(S::load(mask + i), S::load(scores + i), neg_inf));
    if (i < n) {
        const S::Lanes k = lanes_until(i, n);
        S::store(out + i, k, S::select_nonzero(S::load(k, mask + i), S::load(k, scores + i), neg_inf));
    }
}

// Column blocks of one 64-byte cache line of each row per pass (two AVX2 vectors, one AVX-512
// vector), then single vectors, then the last partial one; each column's rows summed in order
// 0..N-1 whatever the block, so every block size gives the same bits.
void column_sums_add(float* dbias, const float* dout, int N, int OC) {
    using S = Simd;
    constexpr int LINE = 16;   // floats a cache line
    constexpr int B = LINE / S::W;
    int c = 0;
    for (; c + B * S::W <= OC; c += B * S::W) {
        S::V a[B];
        for (int b = 0; b < B; ++b) a[b] = S::zero();
        for (int n = 0; n < N; ++n) {
            const float* row = dout + static_cast<long>(n) * OC + c;
            for (int b = 0; b < B; ++b) a[b] = S::add(a[b], S::load(row + b * S::W));
        }
        for (int b = 0; b < B; ++b) S::store(dbias + c + b * S::W, S::add(S::load(dbias + c + b * S::W), a[b]));
    }
    for (; c < OC; c += S::W) {
        const S::Lanes k = S::lanes(c, OC);
        S::V a = S::zero();
        for (int n = 0; n < N; ++n) a = S::add(a, S::load(k, dout + static_cast<long>(n) * OC + c));
        S::store(dbias + c, k, S::add(S::load(k, dbias + c), a));
    }
}

// One vector of the Adam update, lanes k of it (the tail's missing lanes read 0 and are not stored).
template <class Load, class Store>
[[gnu::always_inline]] inline void adam_vector(float* params, float* m, float* v, const float* grads, Simd::V b1,
                                               Simd::V c1, Simd::V b2, Simd::V c2, Simd::V vstep, Simd::V vinv,
                                               Simd::V veps, Load load, Store store) {
    using S = Simd;
    const S::V g = load(grads);
    const S::V mi = S::add(S::mul(b1, load(m)), S::mul(c1, g));
    const S::V vi = S::add(S::mul(b2, load(v)), S::mul(S::mul(c2, g), g));
    const S::V denom = S::add(S::mul(S::sqrt(vi), vinv), veps);
    const S::V p = S::sub(load(params), S::div(S::mul(vstep, mi), denom));
    store(m, mi);
    store(v, vi);
    store(params, p);
}

void adam_update(float* params, float* m, float* v, const float* grads, long n, float step, float beta1, float beta2,
                 float inv_sqrt_bc2, float eps) {
    using S = Simd;
    const S::V b1 = S::set1(beta1), c1 = S::set1(1.0f - beta1);
    const S::V b2 = S::set1(beta2), c2 = S::set1(1.0f - beta2);
    const S::V vstep = S::set1(step), vinv = S::set1(inv_sqrt_bc2), veps = S::set1(eps);
    long i = 0;
    for (; i + S::W <= n; i += S::W)
        adam_vector(params + i, m + i, v + i, grads + i, b1, c1, b2, c2, vstep, vinv, veps,
                    [](const float* p) { return S::load(p); }, [](float* p, S::V x) { S::store(p, x); });
    if (i < n) {
        const S::Lanes k = lanes_until(i, n);
        adam_vector(params + i, m + i, v + i, grads + i, b1, c1, b2, c2, vstep, vinv, veps,
                    [k](const float* p) { return S::load(k, p); }, [k](float* p, S::V x) { S::store(p, k, x); });
    }
}

constexpr ElementwiseKernels ELEMENTWISE_KERNELS = {
    relu_backward, relu_forward, attention_mask, column_sums_add, adam_update,
};
