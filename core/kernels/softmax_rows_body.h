// The row kernels of softmax_kernels.h written once for every vector unit: softmax_avx2.cpp and
// softmax_avx512.cpp include their Simd traits (simd_avx2.h, simd_avx512.h: register type V, W floats
// a register, loads and stores with a tail of n < W, arithmetic, reductions) and then this file
// inside an anonymous namespace, so every function here has internal linkage and is compiled for
// that unit's set alone.
// Not a header for anyone else: it has no include guard on purpose and no declarations of its own.

// exp(x) as Cephes' expf does it (range reduction x = n·ln2 + r, |r| ≤ ln2/2, then a degree-7 fit of
// e^r), with FMA. Simd::scale_by_pow2 applies 2^n with a single rounding: results in the subnormal
// range round once, exp(88.8) overflows to inf. The clamp at -105 makes every x < -105, -inf
// included, give e^r·2^-151 with e^r ≈ 0.72, below half the smallest subnormal: exactly 0, as
// softmax's masked keys must get. NaN stays NaN (min/max take NaN from their second operand).
// N vectors side by side, each step for all N before the next: one exp is a chain of ~15 dependent
// instructions (~45 cycles), and the FP scheduler holds too few of them to overlap the chains of
// successive loop iterations, so a loop of single exps ran at its latency (~18 cycles a vector on
// a Zen 4); N independent chains interleaved run at the units' throughput. Each vector's result
// is the same as alone.
template <int N>
[[gnu::always_inline]] inline void vexp_each(Simd::V* x) {
    using S = Simd;
    S::V n[N], r[N], y[N];
#pragma GCC unroll 4
    for (int k = 0; k < N; ++k) {
        const S::V xc = S::min(S::set1(88.8f), S::max(S::set1(-105.0f), x[k]));
        n[k] = S::round_nearest(S::mul(xc, S::set1(1.44269504088896341f)));
        r[k] = S::fmadd(n[k], S::set1(-0.693359375f), xc);   // ln2 split in two: n·hi is exact
    }
#pragma GCC unroll 4
    for (int k = 0; k < N; ++k) r[k] = S::fmadd(n[k], S::set1(2.12194440e-4f), r[k]);
#pragma GCC unroll 4
    for (int k = 0; k < N; ++k) y[k] = S::fmadd(S::set1(1.9875691500e-4f), r[k], S::set1(1.3981999507e-3f));
#pragma GCC unroll 4
    for (int k = 0; k < N; ++k) y[k] = S::fmadd(y[k], r[k], S::set1(8.3334519073e-3f));
#pragma GCC unroll 4
    for (int k = 0; k < N; ++k) y[k] = S::fmadd(y[k], r[k], S::set1(4.1665795894e-2f));
#pragma GCC unroll 4
    for (int k = 0; k < N; ++k) y[k] = S::fmadd(y[k], r[k], S::set1(1.6666665459e-1f));
#pragma GCC unroll 4
    for (int k = 0; k < N; ++k) y[k] = S::fmadd(y[k], r[k], S::set1(5.0000001201e-1f));
#pragma GCC unroll 4
    for (int k = 0; k < N; ++k) y[k] = S::fmadd(y[k], S::mul(r[k], r[k]), S::add(r[k], S::set1(1.0f)));
#pragma GCC unroll 4
    for (int k = 0; k < N; ++k) x[k] = S::scale_by_pow2(y[k], n[k]);
}

[[gnu::always_inline]] inline Simd::V vexp(Simd::V x) {
    vexp_each<1>(&x);
    return x;
}

// The vector at p with n lanes in the row: a full load (n = W), or the row's last, partial vector
// with `fill` in its missing lanes; and the matching store.
[[gnu::always_inline]] inline Simd::V load_lanes(const float* p, int n, float fill) {
    return n == Simd::W ? Simd::load(p) : Simd::load_tail(p, n, fill);
}
[[gnu::always_inline]] inline void store_lanes(float* p, Simd::V v, int n) {
    if (n == Simd::W) Simd::store(p, v);
    else Simd::store_tail(p, v, n);
}

// Walks a row of C floats a vector at a time, in order: use(i, exp(in(i, m)), m) for the vector at
// column i with m = W lanes, or m < W for the row's last, partial vector (in loads it, use stores
// it, with masks). The exps of four vectors are computed side by side (vexp_each); the calls of
// use still run one vector at a time in column order, so a running sum adds in the same order,
// and gives the same bits, as a loop of single vectors.
template <class In, class Use>
[[gnu::always_inline]] inline void for_each_exp(int C, In in, Use use) {
    using S = Simd;
    constexpr int N = S::EXPS_SIDE_BY_SIDE;
    int i = 0;
    for (; i + N * S::W <= C; i += N * S::W) {
        S::V e[N];
#pragma GCC unroll 4
        for (int k = 0; k < N; ++k) e[k] = in(i + k * S::W, S::W);
        vexp_each<N>(e);
#pragma GCC unroll 4
        for (int k = 0; k < N; ++k) use(i + k * S::W, e[k], S::W);
    }
    for (; i < C; i += S::W) {
        const int m = C - i < S::W ? C - i : S::W;
        use(i, vexp(in(i, m)), m);
    }
}

// The row's largest value; NaN entries are passed over, as the scalar loop it replaces did.
float row_max(const float* x, int C) {
    using S = Simd;
    S::V m = S::set1(-__builtin_inff());
    int i = 0;
    for (; i + S::W <= C; i += S::W) m = S::max(S::load(x + i), m);
    if (i < C) m = S::max(S::load_tail(x + i, C - i, -__builtin_inff()), m);
    return S::hmax(m);
}

// p = exp(x − shift) and returns Σ p; the tail's missing lanes are -inf, whose exp adds 0.
float exp_shifted_store(float* p, const float* x, int C, float shift) {
    using S = Simd;
    const S::V s = S::set1(shift);
    S::V sum = S::set1(0.0f);
    for_each_exp(
        C,
        [&](int i, int m) { return S::sub(load_lanes(x + i, m, -__builtin_inff()), s); },
        [&](int i, S::V e, int m) {
            store_lanes(p + i, e, m);
            sum = S::add(sum, e);
        });
    return S::hsum(sum);
}

void scale_row(float* p, int C, float factor) {
    using S = Simd;
    const S::V f = S::set1(factor);
    int i = 0;
    for (; i + S::W <= C; i += S::W) S::store(p + i, S::mul(S::load(p + i), f));
    if (i < C) S::store_tail(p + i, S::mul(S::load_tail(p + i, C - i, 0.0f), f), C - i);
}

// Subtracting the row max keeps exp() ≤ 1 (no overflow); a row with nothing but -inf (every key
// masked) would give -inf − (-inf) = NaN, and nothing to attend to gives zeros instead.
void softmax_row(float* p, const float* x, int C) {
    const float maxval = row_max(x, C);
    if (maxval == -__builtin_inff()) {
        for (int c = 0; c < C; ++c) p[c] = 0.0f;
        return;
    }
    scale_row(p, C, 1.0f / exp_shifted_store(p, x, C, maxval));
}

void masked_softmax_row(float* p, const float* x, const float* keep, int C, float scale) {
    using S = Simd;
    const S::V sc = S::set1(scale);
    const S::V neg_inf = S::set1(-__builtin_inff());
    // First touch: the scaled, masked scores go straight into the output row.
    int i = 0;
    for (; i + S::W <= C; i += S::W) {
        S::V v = S::mul(S::load(x + i), sc);
        if (keep) v = S::select_nonzero(S::load(keep + i), v, neg_inf);
        S::store(p + i, v);
    }
    if (i < C) {
        S::V v = S::mul(S::load_tail(x + i, C - i, 0.0f), sc);
        if (keep) v = S::select_nonzero(S::load_tail(keep + i, C - i, 0.0f), v, neg_inf);
        S::store_tail(p + i, v, C - i);
    }
    softmax_row(p, p, C);
}

void softmax_backward_row(float* dx, const float* g, const float* p, int C) {
    using S = Simd;
    S::V acc = S::set1(0.0f);
    int i = 0;
    for (; i + S::W <= C; i += S::W) acc = S::fmadd(S::load(g + i), S::load(p + i), acc);
    if (i < C) acc = S::fmadd(S::load_tail(g + i, C - i, 0.0f), S::load_tail(p + i, C - i, 0.0f), acc);
    const S::V dot = S::set1(S::hsum(acc));
    for (i = 0; i + S::W <= C; i += S::W)
        S::store(dx + i, S::fmadd(S::load(p + i), S::sub(S::load(g + i), dot), S::load(dx + i)));
    if (i < C) {
        const int n = C - i;
        const S::V d = S::fmadd(S::load_tail(p + i, n, 0.0f), S::sub(S::load_tail(g + i, n, 0.0f), dot),
                                S::load_tail(dx + i, n, 0.0f));
        S::store_tail(dx + i, d, n);
    }
}

// Σ over p ≠ 0 only, and nothing to a masked score: exact "a masked key gets nothing" whatever
// dprobs holds there (even inf, where 0·inf would be NaN).
void masked_softmax_backward_row(float* dx, const float* g, const float* p, const float* keep, int C,
                                 float scale) {
    using S = Simd;
    const S::V zero = S::set1(0.0f);
    S::V acc = zero;
    int i = 0;
    for (; i + S::W <= C; i += S::W) {
        const S::V pv = S::load(p + i);
        acc = S::add(acc, S::select_nonzero(pv, S::mul(S::load(g + i), pv), zero));
    }
    if (i < C) {
        const S::V pv = S::load_tail(p + i, C - i, 0.0f);
        acc = S::add(acc, S::select_nonzero(pv, S::mul(S::load_tail(g + i, C - i, 0.0f), pv), zero));
    }
    const S::V dot = S::set1(S::hsum(acc));
    const S::V sc = S::set1(scale);
    for (i = 0; i < C; i += S::W) {
        const int n = C - i < S::W ? C - i : S::W;
        const bool full = n == S::W;
        const S::V pv = full ? S::load(p + i) : S::load_tail(p + i, n, 0.0f);
        const S::V gv = full ? S::load(g + i) : S::load_tail(g + i, n, 0.0f);
        S::V d = S::mul(sc, S::mul(pv, S::sub(gv, dot)));
        if (keep) d = S::select_nonzero(full ? S::load(keep + i) : S::load_tail(keep + i, n, 0.0f), d, zero);
        const S::V old = full ? S::load(dx + i) : S::load_tail(dx + i, n, 0.0f);
        if (full)
            S::store(dx + i, S::add(old, d));
        else
            S::store_tail(dx + i, S::add(old, d), n);
    }
}

// A row of only -inf gives NaN (−inf − (−inf)), as the Eigen code it replaces did.
void log_softmax_row(float* o, const float* x, int V) {
    using S = Simd;
    const float maxval = row_max(x, V);
    const S::V m = S::set1(maxval);
    S::V sum = S::set1(0.0f);
    for_each_exp(
        V, [&](int i, int n) { return S::sub(load_lanes(x + i, n, -__builtin_inff()), m); },
        [&](int, S::V e, int) { sum = S::add(sum, e); });
    if (maxval == -__builtin_inff()) sum = S::set1(__builtin_nanf(""));
    const S::V lse = S::set1(maxval + __builtin_logf(S::hsum(sum)));
    int i = 0;
    for (; i + S::W <= V; i += S::W) S::store(o + i, S::sub(S::load(x + i), lse));
    if (i < V) S::store_tail(o + i, S::sub(S::load_tail(x + i, V - i, 0.0f), lse), V - i);
}

void log_softmax_backward_row(float* dx, const float* g, const float* o, int V) {
    using S = Simd;
    S::V acc = S::set1(0.0f);
    int i = 0;
    for (; i + S::W <= V; i += S::W) acc = S::add(acc, S::load(g + i));
    if (i < V) acc = S::add(acc, S::load_tail(g + i, V - i, 0.0f));
    const S::V gsum = S::set1(S::hsum(acc));
    for_each_exp(
        V, [&](int i, int n) { return load_lanes(o + i, n, 0.0f); },
        [&](int i, S::V e, int n) {
            const S::V d = S::fnmadd(e, gsum, load_lanes(g + i, n, 0.0f));
            store_lanes(dx + i, S::add(load_lanes(dx + i, n, 0.0f), d), n);
        });
}

void exp_affine_add_row(float* d, const float* lp, int V, float a, float b, float c) {
    using S = Simd;
    const S::V av = S::set1(a), bv = S::set1(b), cv = S::set1(c);
    for_each_exp(
        V, [&](int i, int n) { return load_lanes(lp + i, n, 0.0f); },
        [&](int i, S::V e, int n) { store_lanes(d + i, S::fmadd(S::fmsub(e, av, bv), cv, load_lanes(d + i, n, 0.0f)), n); });
}

void exp_array(float* y, const float* x, int n) {
    using S = Simd;
    for_each_exp(
        n, [&](int i, int m) { return load_lanes(x + i, m, 0.0f); }, [&](int i, S::V e, int m) { store_lanes(y + i, e, m); });
}

constexpr kernels::SoftmaxRowKernels ROW_KERNELS = {
    softmax_row,    masked_softmax_row, softmax_backward_row, masked_softmax_backward_row,
    log_softmax_row, log_softmax_backward_row, exp_affine_add_row, exp_array,
};
