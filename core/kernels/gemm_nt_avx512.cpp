// sgemm_nt (gemm.h) on AVX-512: out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias, as register tiles
// that read both operands in their stored row-major layout: nothing is packed or copied. Compiled
// with -mavx512f (core/CMakeLists.txt) and run only where cpu_isa.h finds AVX-512 (gemm.cpp).
//
// Every output is a dot product of two contiguous rows, an inp row and a weight row. A tile of
// 4 inp rows × 6 weight rows keeps 24 vector accumulators of partial dot products along C,
// loading 4 + 6 vectors per 24 FMAs (nt_kernel); at the end of C one transposing reduction
// turns them into the tile's 24 sums (nt_finish_tile).
//
// Cache use (1 MiB L2 per core, 48 KiB L1; docs/design.md §10), in the loops of gemm_nt_body.h
// shared with the AVX2 unit: inp rows in chunks of 256 KiB stay in L2 while every block of 6 weight
// rows passes over them; C in blocks of 512 floats keeps a tile's 10 rows of a block in L1 while
// the block's weight rows serve all tiles of the chunk; each tile prefetches one row of the next
// weight block into L2, so weights that come from memory (a forward pass reads ~60 MB of them
// once) arrive before they are needed.
//
// Measured (bench/sgemm_bench.cpp, one core, Zen 5): ~185–200 GFLOP/s at N = 32–720 rows
// against 130–150 for Eigen's product at N = 32, whose per-call packing of the weight costs as
// much as the product; the FMA ceiling is 228.
#include "kernels/simd_avx512.h"

#include <cstdint>

#include "kernels/gemm_kernels.h"
#include "tx/threads.h"

namespace tx::cpu {

namespace {

constexpr int LANES = 16;     // floats per __m512
constexpr int NT_ROWS = 4;    // sgemm_nt tile: inp rows ...
constexpr int NT_COLS = 6;    // ... × weight rows
constexpr int MAX_CHUNK_TILES = 32;   // at most 128 inp rows a chunk (48 KiB of accumulators)
constexpr bool EQUAL_CHUNKS = false;  // chunks of the most rows that fit, the last one shorter

__mmask16 tail_mask(int remaining) {
    return remaining >= LANES ? __mmask16(0xFFFF) : __mmask16((1u << remaining) - 1u);
}

// Lanes 0–1: p[0], p[1]; lanes 2–3: 0. p needs no alignment.
inline __m128 load_two(const float* p) { return _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))); }

// Sums each of v[0..15] across its 16 lanes: lane i of the result is the sum of v[i].
// Shuffles and adds in three levels (45 instructions instead of 16 separate reductions).
inline __m512 transpose_sum16(const __m512* v) {
    __m512 pairs[8];   // per 128-bit lane: [a0+a2, b0+b2, a1+a3, b1+b3] for the pair (a, b)
    for (int i = 0; i < 8; ++i)
        pairs[i] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]),
                                 _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));
    __m512 quads[4];   // per 128-bit lane: that lane's sums of 4 inputs, in input order
    for (int i = 0; i < 4; ++i)
        quads[i] = _mm512_add_ps(_mm512_shuffle_ps(pairs[2 * i], pairs[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                                 _mm512_shuffle_ps(pairs[2 * i], pairs[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    // quads[i] holds inputs 4i..4i+3 once per 128-bit lane; add the four lanes together
    const __m512 q01 = _mm512_add_ps(_mm512_shuffle_f32x4(quads[0], quads[1], _MM_SHUFFLE(2, 0, 2, 0)),
                                     _mm512_shuffle_f32x4(quads[0], quads[1], _MM_SHUFFLE(3, 1, 3, 1)));
    const __m512 q23 = _mm512_add_ps(_mm512_shuffle_f32x4(quads[2], quads[3], _MM_SHUFFLE(2, 0, 2, 0)),
                                     _mm512_shuffle_f32x4(quads[2], quads[3], _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm512_add_ps(_mm512_shuffle_f32x4(q01, q23, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(q01, q23, _MM_SHUFFLE(3, 1, 3, 1)));
}

// The 4×6 micro-kernel of sgemm_nt: acc[6r + c] (24 vectors) = x[r] ⊙ w_c summed over the
// first `vectors`·16 floats, where weight row c starts at w0 + c·C (C = stride_bytes / 4);
// with ACCUMULATE the sums are added to acc's (the previous block of columns of C).
// In assembly because GCC keeps neither the 24 accumulators nor the loaded rows in registers
// here: it stores the accumulators on every iteration or folds one load into every FMA, and
// either halves the speed. Registers: zmm0–23 the accumulators (zmm(6r + c)), zmm24–27 the 4
// inp rows, zmm28–31 the weight vectors in turn: 10 loads per 24 FMAs. Weight rows are
// addressed as w0 + {0,1,2}·stride and w3 + {0,1,2}·stride (w3 = w0 + 3·stride).
// Meanwhile one cache line per iteration from `prefetch` on is fetched into L2 (a row of the
// next block of weight rows, while the weights come from memory at the rate they are used).
#define TX_NT_COLUMN(LOAD, W, A0, A1, A2, A3)                    \
    LOAD "\n\t"                                                  \
    "vfmadd231ps %%zmm" W ", %%zmm24, %%zmm" A0 "\n\t"           \
    "vfmadd231ps %%zmm" W ", %%zmm25, %%zmm" A1 "\n\t"           \
    "vfmadd231ps %%zmm" W ", %%zmm26, %%zmm" A2 "\n\t"           \
    "vfmadd231ps %%zmm" W ", %%zmm27, %%zmm" A3 "\n\t"
#define TX_NT_BODY                                                               \
    "vmovups (%[x0],%[off]), %%zmm24\n\t"                                        \
    "vmovups (%[x1],%[off]), %%zmm25\n\t"                                        \
    "vmovups (%[x2],%[off]), %%zmm26\n\t"                                        \
    "vmovups (%[x3],%[off]), %%zmm27\n\t"                                        \
    TX_NT_COLUMN("vmovups (%[w0]), %%zmm28", "28", "0", "6", "12", "18")         \
    TX_NT_COLUMN("vmovups (%[w0],%[ws]), %%zmm29", "29", "1", "7", "13", "19")   \
    TX_NT_COLUMN("vmovups (%[w0],%[ws],2), %%zmm30", "30", "2", "8", "14", "20") \
    TX_NT_COLUMN("vmovups (%[w3]), %%zmm31", "31", "3", "9", "15", "21")         \
    TX_NT_COLUMN("vmovups (%[w3],%[ws]), %%zmm28", "28", "4", "10", "16", "22")  \
    TX_NT_COLUMN("vmovups (%[w3],%[ws],2), %%zmm29", "29", "5", "11", "17", "23")
#define TX_NT_ZERO(A, B, C, D) \
    "vpxord %%zmm" A ", %%zmm" A ", %%zmm" A "\n\tvpxord %%zmm" B ", %%zmm" B ", %%zmm" B "\n\t" \
    "vpxord %%zmm" C ", %%zmm" C ", %%zmm" C "\n\tvpxord %%zmm" D ", %%zmm" D ", %%zmm" D "\n\t"
#define TX_NT_LOAD(A, B, C, D)                                                             \
    "vmovups " #A "*64(%[acc]), %%zmm" #A "\n\tvmovups " #B "*64(%[acc]), %%zmm" #B "\n\t" \
    "vmovups " #C "*64(%[acc]), %%zmm" #C "\n\tvmovups " #D "*64(%[acc]), %%zmm" #D "\n\t"
#define TX_NT_STORE(A, B, C, D)                                                            \
    "vmovups %%zmm" #A ", " #A "*64(%[acc])\n\tvmovups %%zmm" #B ", " #B "*64(%[acc])\n\t" \
    "vmovups %%zmm" #C ", " #C "*64(%[acc])\n\tvmovups %%zmm" #D ", " #D "*64(%[acc])\n\t"
#define TX_NT_CLOBBERS                                                                                    \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", \
        "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",     \
        "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "memory", "cc"

template <bool ACCUMULATE>
void nt_kernel(float* acc, const float* const x[NT_ROWS], const float* w0, int64_t stride_bytes, int64_t vectors,
                   const float* prefetch) {
    const float* w3 = w0 + 3 * (stride_bytes / 4);
    int64_t off = 0;
    const int64_t end = vectors * 64;
    asm volatile(
        ".if %c[accumulate]\n\t"
        TX_NT_LOAD(0, 1, 2, 3) TX_NT_LOAD(4, 5, 6, 7) TX_NT_LOAD(8, 9, 10, 11)
        TX_NT_LOAD(12, 13, 14, 15) TX_NT_LOAD(16, 17, 18, 19) TX_NT_LOAD(20, 21, 22, 23)
        ".else\n\t"
        TX_NT_ZERO("0", "1", "2", "3") TX_NT_ZERO("4", "5", "6", "7") TX_NT_ZERO("8", "9", "10", "11")
        TX_NT_ZERO("12", "13", "14", "15") TX_NT_ZERO("16", "17", "18", "19") TX_NT_ZERO("20", "21", "22", "23")
        ".endif\n\t"
        "test %[end], %[end]\n\t"
        "jz 2f\n"
        "1:\n\t"
        "prefetcht1 (%[prefetch])\n\t"
        "add $64, %[prefetch]\n\t"
        TX_NT_BODY
        "add $64, %[w0]\n\t"
        "add $64, %[w3]\n\t"
        "add $64, %[off]\n\t"
        "cmp %[end], %[off]\n\t"
        "jb 1b\n"
        "2:\n\t"
        TX_NT_STORE(0, 1, 2, 3) TX_NT_STORE(4, 5, 6, 7) TX_NT_STORE(8, 9, 10, 11)
        TX_NT_STORE(12, 13, 14, 15) TX_NT_STORE(16, 17, 18, 19) TX_NT_STORE(20, 21, 22, 23)
        : [w0] "+r"(w0), [w3] "+r"(w3), [off] "+r"(off), [prefetch] "+r"(prefetch)
        : [x0] "r"(x[0]), [x1] "r"(x[1]), [x2] "r"(x[2]), [x3] "r"(x[3]), [ws] "r"(stride_bytes), [end] "r"(end),
          [acc] "r"(acc), [accumulate] "i"(ACCUMULATE ? 1 : 0)
        : TX_NT_CLOBBERS);
}
#undef TX_NT_COLUMN
#undef TX_NT_BODY
#undef TX_NT_ZERO
#undef TX_NT_LOAD
#undef TX_NT_STORE
#undef TX_NT_CLOBBERS

// Finishes the tile of out rows [n0, n0+rows) × columns [first_col, first_col+6) from the
// kernel's sums over the whole vectors of C in acc: adds the last, partial vector of C, sums
// each accumulator's lanes, adds the bias and stores columns first_col+skip.. (a narrow last
// block is computed as the last 6 columns of out and stores only its own). x are the tile's
// 4 inp rows (a missing row repeats the last valid one), w0 its first weight row.
void nt_finish_tile(float* out, float* acc, const float* const x[NT_ROWS], const float* w0, const float* bias, int n0,
                    int rows, int first_col, int skip, int C, int OC) {
    const int vectors = C / LANES;
    if (const int k = vectors * LANES; k < C) {   // the last, partial vector of C
        const __mmask16 m = tail_mask(C - k);
        for (int c = 0; c < NT_COLS; ++c) {
            const __m512 wv = _mm512_maskz_loadu_ps(m, w0 + static_cast<int64_t>(c) * C + k);
            for (int r = 0; r < NT_ROWS; ++r) {
                float* a = acc + (r * NT_COLS + c) * LANES;
                _mm512_store_ps(a, _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x[r] + k), wv, _mm512_load_ps(a)));
            }
        }
    }
    // columns 0..3 of every row through the 16-way reduction, columns 4..5 through the 8-way one
    __m512 first[16], second[8];
    for (int r = 0; r < NT_ROWS; ++r) {
        for (int c = 0; c < 4; ++c) first[r * 4 + c] = _mm512_load_ps(acc + (r * NT_COLS + c) * LANES);
        for (int c = 0; c < 2; ++c) second[r * 2 + c] = _mm512_load_ps(acc + (r * NT_COLS + 4 + c) * LANES);
    }
    const __m512 sums_first = transpose_sum16(first);    // row r, column c < 4 at lane 4r + c
    alignas(32) float second_rows[8];   // row r, column 4 + c at 2r + c
    kernels::Simd::sum_lanes8(second_rows, second);
    if (rows == NT_ROWS && skip == 0) {   // a whole tile: 4 + 2 floats per row
        const __m128 bias4 = bias ? _mm_loadu_ps(bias + first_col) : _mm_setzero_ps();
        // two floats at a time through the unaligned 64-bit moves (a double* to a float is misaligned)
        const __m128 bias2 = bias ? load_two(bias + first_col + 4) : _mm_setzero_ps();
        for (int r = 0; r < NT_ROWS; ++r) {
            float* o = out + static_cast<int64_t>(n0 + r) * OC + first_col;
            __m128 four;
            switch (r) {   // the lane index of extractf32x4 must be a constant
                case 0: four = _mm512_extractf32x4_ps(sums_first, 0); break;
                case 1: four = _mm512_extractf32x4_ps(sums_first, 1); break;
                case 2: four = _mm512_extractf32x4_ps(sums_first, 2); break;
                default: four = _mm512_extractf32x4_ps(sums_first, 3); break;
            }
            _mm_storeu_ps(o, _mm_add_ps(four, bias4));
            const __m128 two = _mm_add_ps(load_two(second_rows + 2 * r), bias2);
            _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 4), _mm_castps_si128(two));
        }
        return;
    }
    alignas(64) float first_rows[16];
    _mm512_store_ps(first_rows, sums_first);
    for (int r = 0; r < rows; ++r) {
        float* o = out + static_cast<int64_t>(n0 + r) * OC + first_col;
        for (int c = skip; c < NT_COLS; ++c)
            o[c] = (c < 4 ? first_rows[r * 4 + c] : second_rows[r * 2 + c - 4]) + (bias ? bias[first_col + c] : 0.0f);
    }
}

using kernels::split_blocks;
#include "kernels/gemm_nt_body.h"

}  // namespace

void kernels::sgemm_nt_avx512(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                              int OC) {
    sgemm_nt_tiles(out, inp, weight, bias, N, C, OC);
}

}  // namespace tx::cpu
