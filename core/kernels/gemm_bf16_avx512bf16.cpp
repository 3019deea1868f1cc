// gemm_bf16_kernels.h on AVX512_BF16: out (N,OC) = x (N,C) · W (OC,C)ᵀ + bias from BF16 x and a
// BF16 weight in the pair layout, by vdpbf16ps. Compiled with -mavx512f -mavx512bw -mavx512vl
// -mavx512bf16 (core/CMakeLists.txt); lowp_weight.cpp calls it only where cpu_has_avx512_bf16().
//
// The tile: 6 x rows × 4 weight blocks (64 outputs) keep 24 vector accumulators; per pair of C
// it loads the 4 blocks' vectors and broadcasts each x row's pair (a 32-bit load), 10 loads per
// 24 vdpbf16ps (gemm_nt_avx512.cpp's 4 × 6 FMA tile, whose accumulators are sums along C, has the
// same ratio but needs a transposing reduction at the end; here each lane is one output already).
// The lanes of an accumulator are 16 outputs, so the tile stores its sums straight into out.
// Rows left over (N mod 6, and decoding's single rows) and a last group of fewer than 4 whole
// blocks go through one x row at a time over up to 4 blocks, with two sets of accumulators (even
// and odd pairs) so that the adds of one chain never wait for the last.
//
// Cache use: x rows in chunks of at most 256 KiB (they stay in L2 while every group of 4 weight
// blocks passes over them); a group (64 rows × C, 64 KiB at C = 512) is read from L2 once per tile
// of 6 rows, the tile's 6 rows from L1. vdpbf16ps ignores MXCSR: round to nearest even, subnormal
// inputs and results are 0 (Intel SDM, VDPBF16PS: "DAZ, FTZ, RNE, SAE").
#include <immintrin.h>

#include <cstdint>

#include "kernels/gemm_bf16_kernels.h"
#include "kernels/gemm_kernels.h"

namespace tx::cpu::kernels {

namespace {

constexpr int TILE_ROWS = 6;     // x rows of the tile
constexpr int TILE_BLOCKS = 4;   // weight blocks of the tile (16 outputs each)
constexpr int CHUNK_BYTES = 256 * 1024;

constexpr int min_int(int a, int b) { return a < b ? a : b; }

// acc[4i + j] (24 vectors of 16 floats) = Σ_p x_i pair p · block j pair p, p < pairs: blocks j at
// w0 + j·block_bytes (whole blocks of 16 rows), x row i at x[i]. In assembly, as gemm_nt_avx512.cpp's
// tile, so that the 24 accumulators, the 4 weight vectors and the broadcast pairs stay in the 32
// registers: zmm0–23 accumulators (zmm(4i + j)), zmm24–27 the blocks' pair p, zmm28/29 the x pairs.
#define TX_BF_ROW(X, B, A0, A1, A2, A3)                    \
    "vpbroadcastd (%[" X "],%[off]), %%zmm" B "\n\t"       \
    "vdpbf16ps %%zmm24, %%zmm" B ", %%zmm" A0 "\n\t"       \
    "vdpbf16ps %%zmm25, %%zmm" B ", %%zmm" A1 "\n\t"       \
    "vdpbf16ps %%zmm26, %%zmm" B ", %%zmm" A2 "\n\t"       \
    "vdpbf16ps %%zmm27, %%zmm" B ", %%zmm" A3 "\n\t"
#define TX_BF_ZERO(A, B, C, D) \
    "vpxord %%zmm" A ", %%zmm" A ", %%zmm" A "\n\tvpxord %%zmm" B ", %%zmm" B ", %%zmm" B "\n\t" \
    "vpxord %%zmm" C ", %%zmm" C ", %%zmm" C "\n\tvpxord %%zmm" D ", %%zmm" D ", %%zmm" D "\n\t"
#define TX_BF_STORE(A, B, C, D)                                                            \
    "vmovups %%zmm" #A ", " #A "*64(%[acc])\n\tvmovups %%zmm" #B ", " #B "*64(%[acc])\n\t" \
    "vmovups %%zmm" #C ", " #C "*64(%[acc])\n\tvmovups %%zmm" #D ", " #D "*64(%[acc])\n\t"

void tile_kernel(float* acc, const uint16_t* const x[TILE_ROWS], const uint16_t* w0, int64_t block_bytes,
                 int64_t pairs) {
    const uint16_t* w3 = w0 + 3 * (block_bytes / 2);
    int64_t off = 0;
    const int64_t end = pairs * 4;
    asm volatile(
        TX_BF_ZERO("0", "1", "2", "3") TX_BF_ZERO("4", "5", "6", "7") TX_BF_ZERO("8", "9", "10", "11")
        TX_BF_ZERO("12", "13", "14", "15") TX_BF_ZERO("16", "17", "18", "19") TX_BF_ZERO("20", "21", "22", "23")
        "test %[end], %[end]\n\t"
        "jz 2f\n"
        "1:\n\t"
        "vmovups (%[w0]), %%zmm24\n\t"
        "vmovups (%[w0],%[bs]), %%zmm25\n\t"
        "vmovups (%[w0],%[bs],2), %%zmm26\n\t"
        "vmovups (%[w3]), %%zmm27\n\t"
        TX_BF_ROW("x0", "28", "0", "1", "2", "3")
        TX_BF_ROW("x1", "29", "4", "5", "6", "7")
        TX_BF_ROW("x2", "28", "8", "9", "10", "11")
        TX_BF_ROW("x3", "29", "12", "13", "14", "15")
        TX_BF_ROW("x4", "28", "16", "17", "18", "19")
        TX_BF_ROW("x5", "29", "20", "21", "22", "23")
        "add $64, %[w0]\n\t"
        "add $64, %[w3]\n\t"
        "add $4, %[off]\n\t"
        "cmp %[end], %[off]\n\t"
        "jb 1b\n"
        "2:\n\t"
        TX_BF_STORE(0, 1, 2, 3) TX_BF_STORE(4, 5, 6, 7) TX_BF_STORE(8, 9, 10, 11)
        TX_BF_STORE(12, 13, 14, 15) TX_BF_STORE(16, 17, 18, 19) TX_BF_STORE(20, 21, 22, 23)
        : [w0] "+r"(w0), [w3] "+r"(w3), [off] "+r"(off)
        : [x0] "r"(x[0]), [x1] "r"(x[1]), [x2] "r"(x[2]), [x3] "r"(x[3]), [x4] "r"(x[4]), [x5] "r"(x[5]),
          [bs] "r"(block_bytes), [end] "r"(end), [acc] "r"(acc)
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
          "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
          "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "memory", "cc");
}
#undef TX_BF_ROW
#undef TX_BF_ZERO
#undef TX_BF_STORE

__m512bh as_bh(__m512i v) { return (__m512bh)v; }

// Pair p of x, broadcast to the 16 lanes.
__m512i pair_at(const uint16_t* x, int64_t p) { return _mm512_broadcastd_epi32(_mm_loadu_si32(x + 2 * p)); }

// out_row[16j + l] = Σ_p x pair p · block j's row l, + bias, for NB ≤ 4 blocks starting at block
// b0; rows[j] is block j's row count (16, or fewer in the weight's last block: masked loads and
// stores). Even and odd pairs go to separate accumulators, added at the end.
template <int NB>
void row_blocks(float* out_row, const uint16_t* x, const uint16_t* w, const float* bias, int b0, const int rows[NB],
                int64_t Cp) {
    const int64_t pairs = Cp / 2;
    const uint16_t* block[NB];
    __mmask32 load_mask[NB];
    int64_t step[NB];   // values a pair of the block takes: 2 per row
    __m512 even[NB], odd[NB];
    for (int j = 0; j < NB; ++j) {
        block[j] = w + static_cast<int64_t>(b0 + j) * BF16_PAIR_ROWS * Cp;
        step[j] = 2 * rows[j];
        load_mask[j] = rows[j] == BF16_PAIR_ROWS ? static_cast<__mmask32>(0xFFFFFFFFu)
                                                : static_cast<__mmask32>((1u << (2 * rows[j])) - 1u);
        even[j] = _mm512_setzero_ps();
        odd[j] = _mm512_setzero_ps();
    }
    int64_t p = 0;
    for (; p + 2 <= pairs; p += 2) {
        const __m512i x0 = pair_at(x, p), x1 = pair_at(x, p + 1);
        for (int j = 0; j < NB; ++j) {
            const __m512i w0 = _mm512_maskz_loadu_epi16(load_mask[j], block[j] + p * step[j]);
            const __m512i w1 = _mm512_maskz_loadu_epi16(load_mask[j], block[j] + (p + 1) * step[j]);
            even[j] = _mm512_dpbf16_ps(even[j], as_bh(x0), as_bh(w0));
            odd[j] = _mm512_dpbf16_ps(odd[j], as_bh(x1), as_bh(w1));
        }
    }
    if (p < pairs) {
        const __m512i x0 = pair_at(x, p);
        for (int j = 0; j < NB; ++j)
            even[j] = _mm512_dpbf16_ps(even[j], as_bh(x0),
                                       as_bh(_mm512_maskz_loadu_epi16(load_mask[j], block[j] + p * step[j])));
    }
    for (int j = 0; j < NB; ++j) {
        const __mmask16 lanes = static_cast<__mmask16>((1u << rows[j]) - 1u);
        const int o = (b0 + j) * BF16_PAIR_ROWS;
        __m512 sum = _mm512_add_ps(even[j], odd[j]);
        if (bias) sum = _mm512_add_ps(sum, _mm512_maskz_loadu_ps(lanes, bias + o));
        _mm512_mask_storeu_ps(out_row + o, lanes, sum);
    }
}

void gemm_pairs(float* out, const uint16_t* x, int ldx, const uint16_t* w, const float* bias, int N, int C, int OC) {
    const int64_t Cp = C + (C & 1);
    const int blocks = (OC + BF16_PAIR_ROWS - 1) / BF16_PAIR_ROWS;
    const int groups = (blocks + TILE_BLOCKS - 1) / TILE_BLOCKS;
    const int tiles_fit = CHUNK_BYTES / (2 * ldx) / TILE_ROWS;
    const int chunk_rows = min_int(N, TILE_ROWS * (tiles_fit > 0 ? tiles_fit : 1));
    for (int chunk = 0; chunk < N; chunk += chunk_rows) {
        const int chunk_end = min_int(N, chunk + chunk_rows);
        auto group_range = [&](int first, int last) {
            alignas(64) float acc[TILE_ROWS * TILE_BLOCKS * BF16_PAIR_ROWS];
            for (int g = first; g < last; ++g) {
                const int b0 = g * TILE_BLOCKS, nb = min_int(TILE_BLOCKS, blocks - b0);
                int rows[TILE_BLOCKS];
                for (int j = 0; j < nb; ++j) rows[j] = min_int(BF16_PAIR_ROWS, OC - (b0 + j) * BF16_PAIR_ROWS);
                const bool whole = nb == TILE_BLOCKS && rows[TILE_BLOCKS - 1] == BF16_PAIR_ROWS;
                int n = chunk;
                if (whole) {
                    const uint16_t* w0 = w + static_cast<int64_t>(b0) * BF16_PAIR_ROWS * Cp;
                    for (; n + TILE_ROWS <= chunk_end; n += TILE_ROWS) {
                        const uint16_t* xr[TILE_ROWS];
                        for (int i = 0; i < TILE_ROWS; ++i) xr[i] = x + static_cast<int64_t>(n + i) * ldx;
                        tile_kernel(acc, xr, w0, BF16_PAIR_ROWS * Cp * 2, Cp / 2);
                        for (int i = 0; i < TILE_ROWS; ++i) {
                            float* o = out + static_cast<int64_t>(n + i) * OC + b0 * BF16_PAIR_ROWS;
                            for (int j = 0; j < TILE_BLOCKS; ++j) {
                                __m512 v = _mm512_load_ps(acc + (TILE_BLOCKS * i + j) * BF16_PAIR_ROWS);
                                if (bias) v = _mm512_add_ps(v, _mm512_loadu_ps(bias + (b0 + j) * BF16_PAIR_ROWS));
                                _mm512_storeu_ps(o + j * BF16_PAIR_ROWS, v);
                            }
                        }
                    }
                }
                for (; n < chunk_end; ++n) {
                    const uint16_t* xr = x + static_cast<int64_t>(n) * ldx;
                    float* o = out + static_cast<int64_t>(n) * OC;
                    switch (nb) {
                        case 4: row_blocks<4>(o, xr, w, bias, b0, rows, Cp); break;
                        case 3: row_blocks<3>(o, xr, w, bias, b0, rows, Cp); break;
                        case 2: row_blocks<2>(o, xr, w, bias, b0, rows, Cp); break;
                        default: row_blocks<1>(o, xr, w, bias, b0, rows, Cp); break;
                    }
                }
            }
        };
        split_blocks(groups, [](void* f, int first, int last) { (*static_cast<decltype(group_range)*>(f))(first, last); },
                     &group_range);
    }
}

void to_bf16_rows(uint16_t* out, int ldo, const float* in, int N, int C) {
    for (int n = 0; n < N; ++n) {
        const float* src = in + static_cast<int64_t>(n) * C;
        uint16_t* dst = out + static_cast<int64_t>(n) * ldo;
        int c = 0;
        for (; c + 32 <= C; c += 32)
            _mm512_storeu_si512(dst + c, (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + c + 16), _mm512_loadu_ps(src + c)));
        for (; c < C; c += 16) {
            const int left = min_int(16, C - c);
            const __mmask16 m = static_cast<__mmask16>((1u << left) - 1u);
            _mm256_mask_storeu_epi16(dst + c, m, (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, src + c)));
        }
        for (c = C; c < ldo; ++c) dst[c] = 0;
    }
}

// Block b of the pair layout of inᵀ (rows 16b .. 16b + r − 1 of inᵀ: columns of in): pair p holds
// in[2p, 16b + l] and in[2p + 1, 16b + l] for l < r, i.e. two rows of in converted and interleaved.
void transpose_pairs(uint16_t* out, const float* in, int K, int M) {
    const int64_t Kp = K + (K & 1);
    // lanes 2l and 2l + 1 of the result: value l of the first row, value l of the second
    alignas(64) static constexpr uint16_t INTERLEAVE[32] = {0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
                                                           8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
    const __m512i interleave = _mm512_load_si512(INTERLEAVE);
    const int blocks = (M + BF16_PAIR_ROWS - 1) / BF16_PAIR_ROWS;
    for (int b = 0; b < blocks; ++b) {
        const int r = min_int(BF16_PAIR_ROWS, M - b * BF16_PAIR_ROWS);
        const __mmask16 lanes = static_cast<__mmask16>((1u << r) - 1u);
        const __mmask32 values = r == BF16_PAIR_ROWS ? static_cast<__mmask32>(0xFFFFFFFFu)
                                                     : static_cast<__mmask32>((1u << (2 * r)) - 1u);
        uint16_t* dst = out + static_cast<int64_t>(b) * BF16_PAIR_ROWS * Kp;
        for (int64_t p = 0; p < Kp / 2; ++p) {
            const float* first = in + 2 * p * M + b * BF16_PAIR_ROWS;
            const __m512 a = _mm512_maskz_loadu_ps(lanes, first);
            const __m512 c = 2 * p + 1 < K ? _mm512_maskz_loadu_ps(lanes, first + M) : _mm512_setzero_ps();
            const __m512i both = (__m512i)_mm512_cvtne2ps_pbh(c, a);   // a's 16 values, then c's
            _mm512_mask_storeu_epi16(dst + p * 2 * r, values, _mm512_permutexvar_epi16(interleave, both));
        }
    }
}

// Row l of block b: its pairs p .. p + 15 (one 64-byte load of its bits) scattered to the 32-bit
// units p·r + l .. (p + 15)·r + l of the block.
void rows_to_pairs(uint16_t* out, const uint16_t* rows, int C, int OC) {
    const int64_t Cp = C + (C & 1);
    const int blocks = (OC + BF16_PAIR_ROWS - 1) / BF16_PAIR_ROWS;
    for (int b = 0; b < blocks; ++b) {
        const int r = min_int(BF16_PAIR_ROWS, OC - b * BF16_PAIR_ROWS);
        const __m512i units = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                                 _mm512_set1_epi32(r));
        uint16_t* block = out + static_cast<int64_t>(b) * BF16_PAIR_ROWS * Cp;
        for (int l = 0; l < r; ++l) {
            const uint16_t* row = rows + static_cast<int64_t>(b * BF16_PAIR_ROWS + l) * C;
            for (int c = 0; c < C; c += 32) {
                const int left = min_int(32, C - c);
                const __mmask32 values = left == 32 ? static_cast<__mmask32>(0xFFFFFFFFu)
                                                    : static_cast<__mmask32>((1u << left) - 1u);
                const int pairs = (left + 1) / 2;
                const __mmask16 lanes = static_cast<__mmask16>((1u << pairs) - 1u);
                const __m512i bits = _mm512_maskz_loadu_epi16(values, row + c);   // an odd C's last pair ends in 0
                _mm512_mask_i32scatter_epi32(block + (static_cast<int64_t>(c / 2) * r + l) * 2, lanes, units, bits, 4);
            }
        }
    }
}

}  // namespace

void rows_to_bf16_pairs_avx512bf16(uint16_t* out, const uint16_t* rows, int C, int OC) { rows_to_pairs(out, rows, C, OC); }

void transpose_to_bf16_pairs_avx512bf16(uint16_t* out, const float* in, int K, int M) { transpose_pairs(out, in, K, M); }

void gemm_bf16_pairs_avx512bf16(float* out, const uint16_t* x, int ldx, const uint16_t* w, const float* bias, int N,
                                int C, int OC) {
    gemm_pairs(out, x, ldx, w, bias, N, C, OC);
}

void floats_to_bf16_rows_avx512bf16(uint16_t* out, int ldo, const float* in, int N, int C) {
    to_bf16_rows(out, ldo, in, N, C);
}

}  // namespace tx::cpu::kernels
