// sgemm_nt (gemm.h) for one inp row, out (1,OC) = x (1,C) · weight (OC,C)ᵀ + bias, written once for
// every vector unit: gemv_nt_avx2.cpp and gemv_nt_avx512.cpp include their Simd traits and then this
// file inside an anonymous namespace (internal linkage, compiled for that unit's set alone).
//
// One row multiplies each weight once, so the product is bound by how fast the weight streams from
// memory, not by FMAs: the weight is read in its stored order, 8 rows (one contiguous block of 8·C
// floats) at a time with 8 vector accumulators, one cache line of each row a step, while the block
// after next is prefetched one cache line per row and step, and x stays in L1. The last partial
// step of C goes through a lane mask where masks are free (Simd::FREE_TAIL_MASKS, AVX-512), else
// into each row's sum in plain scalar code after the vector sums.

constexpr int GEMV_ROWS = 8;   // weight rows summed at once: one accumulator each
constexpr int GEMV_STEP = 16;  // floats of each row a step: one 64-byte cache line

// out[0..rows) for the weight rows w, w + C, ...; rows ≤ 8 (a missing row repeats the last one).
inline void gemv_block(float* out, const float* x, const float* w, const float* bias, int rows, int C,
                       const float* prefetch) {
    using S = Simd;
    constexpr int VECTORS = GEMV_STEP / S::W;   // a step's vectors of one row
    const float* row[GEMV_ROWS];
    for (int r = 0; r < GEMV_ROWS; ++r) row[r] = w + static_cast<int64_t>(r < rows ? r : rows - 1) * C;
    S::V acc[GEMV_ROWS];
    for (S::V& a : acc) a = S::zero();
    int k = 0;
    for (; k + GEMV_STEP <= C; k += GEMV_STEP) {
        S::V xv[VECTORS];
        for (int j = 0; j < VECTORS; ++j) xv[j] = S::load(x + k + j * S::W);
        for (int r = 0; r < GEMV_ROWS; ++r) {
            S::prefetch(prefetch + static_cast<int64_t>(r) * C + k);
            for (int j = 0; j < VECTORS; ++j) acc[r] = S::fmadd(S::load(row[r] + k + j * S::W), xv[j], acc[r]);
        }
    }
    if constexpr (S::FREE_TAIL_MASKS) {
        if (k < C) {   // fewer than W floats: a step is one vector where masks are free
            const S::Lanes m = S::lanes(k, C);
            const S::V xv = S::load(m, x + k);
            for (int r = 0; r < GEMV_ROWS; ++r) acc[r] = S::fmadd(S::load(m, row[r] + k), xv, acc[r]);
            k = C;
        }
    }
    alignas(32) float sums[GEMV_ROWS];
    S::sum_lanes8(sums, acc);
    for (int r = 0; r < rows; ++r) {
        float s = sums[r];
        for (int j = k; j < C; ++j) s += row[r][j] * x[j];   // the last, partial step of C (no masks)
        out[r] = s + (bias ? bias[r] : 0.0f);
    }
}

void sgemv_nt(float* out, const float* x, const float* weight, const float* bias, int C, int OC) {
    const int blocks = (OC + GEMV_ROWS - 1) / GEMV_ROWS;
    auto block_range = [&](int first, int last) {
        for (int b = first; b < last; ++b) {
            const int o0 = b * GEMV_ROWS, rows = OC - o0 < GEMV_ROWS ? OC - o0 : GEMV_ROWS;
            // two blocks ahead (the last blocks prefetch their own rows again: no read past the weight)
            const int ahead = o0 + 2 * GEMV_ROWS + GEMV_ROWS <= OC ? o0 + 2 * GEMV_ROWS : o0;
            gemv_block(out + o0, x, weight + static_cast<int64_t>(o0) * C, bias ? bias + o0 : nullptr, rows, C,
                       weight + static_cast<int64_t>(ahead) * C);
        }
    };
    split_blocks(blocks, [](void* f, int first, int last) { (*static_cast<decltype(block_range)*>(f))(first, last); },
                 &block_range);
}
