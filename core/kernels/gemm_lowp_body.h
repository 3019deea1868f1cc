// gemm_lowp_kernels.h's products, written once for every vector unit: gemm_lowp_avx2.cpp and
// gemm_lowp_avx512.cpp include their Simd traits and then this file inside an anonymous namespace
// (internal linkage, compiled for that unit's set alone). The weight's rows are cut into blocks of
// 8 (LOWP_ROWS), shared over the CPU threads as the FP32 row kernel shares them (gemv_nt_body.h).
//
// One input row (N = 1, a decoding step at batch 1) reads each weight once: the product is bound
// by streaming the weight from memory, and a weight of 2 or 1 bytes a value streams 2 or 4 times
// less than FP32. As gemv_nt_body.h: 8 rows at once with 8 vector accumulators, LOWP_STEP values
// of each row a step, widened to floats in registers as they are loaded, the block after next
// prefetched; the last partial step of C goes through zero-padded copies of the row ends (x's
// padding is 0, so the padded lanes add 0·0).
//
// Several rows (N > 1): a block's 8 weight rows are widened LOWP_CHUNK columns at a time into a
// small buffer (8 KiB, in L1), which every input row then reads in FP32; each chunk's 8 sums are
// added into out, and the scale and bias come last.

constexpr int LOWP_ROWS = 8;     // weight rows summed at once: one accumulator each
constexpr int LOWP_STEP = 32;    // values of each row a step (64 bytes of BF16/FP16, 32 of INT8)
constexpr int LOWP_CHUNK = 256;  // columns of a block widened at once for N > 1

// The stored formats: the element type and its widening of Simd::W values.
struct Bf16Format {
    using T = uint16_t;
    static Simd::V widen(const T* p) { return Simd::widen_bf16(p); }
};
struct Fp16Format {
    using T = uint16_t;
    static Simd::V widen(const T* p) { return Simd::widen_fp16(p); }
};
struct Int8Format {
    using T = int8_t;
    static Simd::V widen(const T* p) { return Simd::widen_int8(p); }
};

// out[r] = (Σ_c x[c]·w[r,c]) · scale[r] + bias[r] for the weight rows w, w + C, ... (rows ≤ 8; a
// missing row repeats the last one). scale and bias may be null.
template <typename F>
void lowp_gemv_block(float* out, const float* x, const typename F::T* w, const float* scale, const float* bias,
                     int rows, int C, const typename F::T* prefetch) {
    using S = Simd;
    using T = typename F::T;
    constexpr int VECTORS = LOWP_STEP / S::W;
    const T* row[LOWP_ROWS];
    for (int r = 0; r < LOWP_ROWS; ++r) row[r] = w + static_cast<int64_t>(r < rows ? r : rows - 1) * C;
    S::V acc[LOWP_ROWS];
    for (S::V& a : acc) a = S::zero();
    int k = 0;
    for (; k + LOWP_STEP <= C; k += LOWP_STEP) {
        S::V xv[VECTORS];
        for (int j = 0; j < VECTORS; ++j) xv[j] = S::load(x + k + j * S::W);
        for (int r = 0; r < LOWP_ROWS; ++r) {
            S::prefetch(static_cast<const void*>(prefetch + static_cast<int64_t>(r) * C + k));
            for (int j = 0; j < VECTORS; ++j) acc[r] = S::fmadd(F::widen(row[r] + k + j * S::W), xv[j], acc[r]);
        }
    }
    if (k < C) {   // the last, partial step: the row ends copied after zeros' worth of padding
        const int left = C - k;
        alignas(64) float xt[LOWP_STEP];
        alignas(64) T wt[LOWP_STEP];
        for (int j = 0; j < LOWP_STEP; ++j) xt[j] = j < left ? x[k + j] : 0.0f;
        const int vectors = (left + S::W - 1) / S::W;
        for (int r = 0; r < LOWP_ROWS; ++r) {
            for (int j = 0; j < LOWP_STEP; ++j) wt[j] = j < left ? row[r][k + j] : T(0);
            for (int j = 0; j < vectors; ++j) acc[r] = S::fmadd(F::widen(wt + j * S::W), S::load(xt + j * S::W), acc[r]);
        }
    }
    alignas(32) float sums[LOWP_ROWS];
    S::sum_lanes8(sums, acc);
    for (int r = 0; r < rows; ++r) {
        const float s = scale ? sums[r] * scale[r] : sums[r];
        out[r] = s + (bias ? bias[r] : 0.0f);
    }
}

// out (N,OC) columns o0 .. o0 + rows for the weight rows w (rows ≤ 8, row stride C), N > 1: see the
// head of the file. out's row stride is OC.
template <typename F>
void lowp_gemm_block(float* out, const float* inp, const typename F::T* w, const float* scale, const float* bias,
                     int rows, int N, int C, int OC) {
    using S = Simd;
    using T = typename F::T;
    alignas(64) float wide[LOWP_ROWS * LOWP_CHUNK];   // (8, LOWP_CHUNK): the block's rows, widened
    for (int k0 = 0; k0 < C; k0 += LOWP_CHUNK) {
        const int kc = C - k0 < LOWP_CHUNK ? C - k0 : LOWP_CHUNK;
        const int full = kc / S::W * S::W;   // columns in whole vectors; the rest, zero-padded, in one more
        for (int r = 0; r < LOWP_ROWS; ++r) {
            const T* src = w + static_cast<int64_t>(r < rows ? r : rows - 1) * C + k0;
            float* dst = wide + r * LOWP_CHUNK;
            for (int j = 0; j < full; j += S::W) S::store(dst + j, F::widen(src + j));
            if (full < kc) {
                alignas(64) T tail[S::W];
                for (int j = 0; j < S::W; ++j) tail[j] = full + j < kc ? src[full + j] : T(0);
                S::store(dst + full, F::widen(tail));
            }
        }
        for (int n = 0; n < N; ++n) {
            const float* x = inp + static_cast<int64_t>(n) * C + k0;
            S::V acc[LOWP_ROWS];
            for (S::V& a : acc) a = S::zero();
            for (int j = 0; j < full; j += S::W) {
                const S::V xv = S::load(x + j);
                for (int r = 0; r < LOWP_ROWS; ++r) acc[r] = S::fmadd(S::load(wide + r * LOWP_CHUNK + j), xv, acc[r]);
            }
            if (full < kc) {   // x's lanes past the row are 0, the widened padding is 0 as well
                const S::V xv = S::load_tail(x + full, kc - full, 0.0f);
                for (int r = 0; r < LOWP_ROWS; ++r)
                    acc[r] = S::fmadd(S::load(wide + r * LOWP_CHUNK + full), xv, acc[r]);
            }
            alignas(32) float sums[LOWP_ROWS];
            S::sum_lanes8(sums, acc);
            float* o = out + static_cast<int64_t>(n) * OC;
            for (int r = 0; r < rows; ++r) o[r] = k0 == 0 ? sums[r] : o[r] + sums[r];
        }
    }
    for (int n = 0; n < N; ++n) {
        float* o = out + static_cast<int64_t>(n) * OC;
        for (int r = 0; r < rows; ++r) {
            const float s = scale ? o[r] * scale[r] : o[r];
            o[r] = s + (bias ? bias[r] : 0.0f);
        }
    }
}

// The whole product: blocks of 8 weight rows over the CPU threads (split_blocks, gemm_kernels.h).
template <typename F>
void lowp_gemm(float* out, const float* inp, const typename F::T* weight, const float* scale, const float* bias,
               int N, int C, int OC) {
    const int blocks = (OC + LOWP_ROWS - 1) / LOWP_ROWS;
    auto block_range = [&](int first, int last) {
        for (int b = first; b < last; ++b) {
            const int o0 = b * LOWP_ROWS, rows = OC - o0 < LOWP_ROWS ? OC - o0 : LOWP_ROWS;
            const auto* w = weight + static_cast<int64_t>(o0) * C;
            const float* s = scale ? scale + o0 : nullptr;
            const float* b0 = bias ? bias + o0 : nullptr;
            if (N == 1) {
                // two blocks ahead (the last blocks prefetch their own rows again: no read past the weight)
                const int ahead = o0 + 3 * LOWP_ROWS <= OC ? o0 + 2 * LOWP_ROWS : o0;
                lowp_gemv_block<F>(out + o0, inp, w, s, b0, rows, C, weight + static_cast<int64_t>(ahead) * C);
            } else {
                lowp_gemm_block<F>(out + o0, inp, w, s, b0, rows, N, C, OC);
            }
        }
    };
    split_blocks(blocks, [](void* f, int first, int last) { (*static_cast<decltype(block_range)*>(f))(first, last); },
                 &block_range);
}

void gemm_bf16(float* out, const float* inp, const uint16_t* weight, const float* bias, int N, int C, int OC) {
    lowp_gemm<Bf16Format>(out, inp, weight, nullptr, bias, N, C, OC);
}
void gemm_fp16(float* out, const float* inp, const uint16_t* weight, const float* bias, int N, int C, int OC) {
    lowp_gemm<Fp16Format>(out, inp, weight, nullptr, bias, N, C, OC);
}
void gemm_int8(float* out, const float* inp, const int8_t* weight, const float* scale, const float* bias, int N,
               int C, int OC) {
    lowp_gemm<Int8Format>(out, inp, weight, scale, bias, N, C, OC);
}

constexpr LowpGemmKernels LOWP_GEMM_KERNELS = {gemm_bf16, gemm_fp16, gemm_int8};
