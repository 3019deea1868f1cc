// sgemm_nt (gemm.h) on AVX2 + FMA: out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias, as register
// tiles that read both operands in their stored row-major layout (nothing packed or copied), the
// AVX2 tile of gemm_nt_body.h. Compiled with -mavx2 -mfma -mno-avx512f (core/CMakeLists.txt),
// chosen by cpu_isa.h.
//
// Every output is a dot product of an inp row and a weight row. A tile of 3 inp rows × 4 weight
// rows keeps 12 ymm accumulators of partial dot products along C; with the 3 inp vectors and one
// weight vector at a time that is all 16 ymm registers, and 3 + 4 loads per 12 FMAs. At the end of
// C, horizontal adds turn each row's 4 accumulators into its 4 sums (nt_finish_tile). The loops
// over chunks of inp rows, blocks of C and tiles, and what they keep in which cache, are
// gemm_nt_body.h's, shared with the AVX-512 unit; this file gives them the tile.
#include <immintrin.h>

#include <cstdint>

#include "kernels/gemm_kernels.h"
#include "tx/threads.h"

namespace tx::cpu {

namespace {

constexpr int LANES = 8;      // floats per __m256
constexpr int NT_ROWS = 3;    // tile: inp rows ...
constexpr int NT_COLS = 4;    // ... × weight rows
constexpr int MAX_CHUNK_TILES = 43;   // at most 129 inp rows a chunk (16 KiB of accumulators)
constexpr bool EQUAL_CHUNKS = true;   // chunks of equal size (gemm_nt_body.h)

// The 3 × 4 micro-kernel: acc[4r + c] (12 vectors) = x[r] ⊙ w_c summed over `vectors`·8 floats,
// weight row c at w0 + c·C (C = stride_bytes / 4); with ACCUMULATE, added to acc's sums (the
// previous block of C). In assembly because GCC folds the weight loads into the FMAs (12 loads
// instead of 4 per step, past the two loads a cycle of the FMA pipes' pace) and copies the
// inp rows between registers. Registers: ymm0–11 the accumulators (ymm(4r + c)), ymm12–14 the 3
// inp rows, ymm15 the weight vectors in turn. Weight rows are addressed as w0 + {0,1,2}·stride and
// w3 = w0 + 3·stride. Every step also prefetches into L2 from `prefetch` on (the next block of
// weight rows, while the weights come from memory at the rate they are used).
#define TX_NT2_COLUMN(LOAD, A0, A1, A2)                     \
    LOAD ", %%ymm15\n\t"                                    \
    "vfmadd231ps %%ymm15, %%ymm12, %%ymm" A0 "\n\t"          \
    "vfmadd231ps %%ymm15, %%ymm13, %%ymm" A1 "\n\t"          \
    "vfmadd231ps %%ymm15, %%ymm14, %%ymm" A2 "\n\t"
#define TX_NT2_ACC(OP, A, B, C, D) \
    OP(A) OP(B) OP(C) OP(D)
#define TX_NT2_LOAD(A) "vmovaps " #A "*32(%[acc]), %%ymm" #A "\n\t"
#define TX_NT2_STORE(A) "vmovaps %%ymm" #A ", " #A "*32(%[acc])\n\t"
#define TX_NT2_ZERO(A) "vxorps %%ymm" #A ", %%ymm" #A ", %%ymm" #A "\n\t"

template <bool ACCUMULATE>
void nt_kernel(float* acc, const float* const x[NT_ROWS], const float* w0, int64_t stride_bytes, int64_t vectors,
                   const float* prefetch) {
    const float* w3 = w0 + 3 * (stride_bytes / 4);
    int64_t off = 0;
    const int64_t end = vectors * 32;
    asm volatile(
        ".if %c[accumulate]\n\t"
        TX_NT2_ACC(TX_NT2_LOAD, 0, 1, 2, 3) TX_NT2_ACC(TX_NT2_LOAD, 4, 5, 6, 7) TX_NT2_ACC(TX_NT2_LOAD, 8, 9, 10, 11)
        ".else\n\t"
        TX_NT2_ACC(TX_NT2_ZERO, 0, 1, 2, 3) TX_NT2_ACC(TX_NT2_ZERO, 4, 5, 6, 7) TX_NT2_ACC(TX_NT2_ZERO, 8, 9, 10, 11)
        ".endif\n\t"
        "test %[end], %[end]\n\t"
        "jz 2f\n"
        "1:\n\t"
        "prefetcht1 (%[prefetch])\n\t"
        "add $32, %[prefetch]\n\t"
        "vmovups (%[x0],%[off]), %%ymm12\n\t"
        "vmovups (%[x1],%[off]), %%ymm13\n\t"
        "vmovups (%[x2],%[off]), %%ymm14\n\t"
        TX_NT2_COLUMN("vmovups (%[w0])", "0", "4", "8")
        TX_NT2_COLUMN("vmovups (%[w0],%[ws])", "1", "5", "9")
        TX_NT2_COLUMN("vmovups (%[w0],%[ws],2)", "2", "6", "10")
        TX_NT2_COLUMN("vmovups (%[w3])", "3", "7", "11")
        "add $32, %[w0]\n\t"
        "add $32, %[w3]\n\t"
        "add $32, %[off]\n\t"
        "cmp %[end], %[off]\n\t"
        "jb 1b\n"
        "2:\n\t"
        TX_NT2_ACC(TX_NT2_STORE, 0, 1, 2, 3) TX_NT2_ACC(TX_NT2_STORE, 4, 5, 6, 7) TX_NT2_ACC(TX_NT2_STORE, 8, 9, 10, 11)
        : [w0] "+r"(w0), [w3] "+r"(w3), [off] "+r"(off), [prefetch] "+r"(prefetch)
        : [x0] "r"(x[0]), [x1] "r"(x[1]), [x2] "r"(x[2]), [ws] "r"(stride_bytes), [end] "r"(end), [acc] "r"(acc),
          [accumulate] "i"(ACCUMULATE ? 1 : 0)
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
          "xmm13", "xmm14", "xmm15", "memory", "cc");
}
#undef TX_NT2_COLUMN
#undef TX_NT2_ACC
#undef TX_NT2_LOAD
#undef TX_NT2_STORE
#undef TX_NT2_ZERO

// Lane i (< 4) of the result: the sum of the 8 lanes of v[i].
inline __m128 horizontal_sums4(const __m256 v[4]) {
    const __m256 s = _mm256_hadd_ps(_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3]));
    return _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
}

// Finishes the tile of out rows [n0, n0+rows) × columns [first_col, first_col+4): adds the last,
// partial vector of C, sums each accumulator, adds the bias and stores columns first_col+skip..
// (a narrow last block is computed as the last 4 columns of out and stores only its own).
void nt_finish_tile(float* out, float* acc, const float* const x[NT_ROWS], const float* w0, const float* bias, int n0,
                    int rows, int first_col, int skip, int C, int OC) {
    const int k = C / LANES * LANES;
    if (k < C) {   // the last, partial vector of C: masked loads read zeros past the row
        const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(C - k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        for (int c = 0; c < NT_COLS; ++c) {
            const __m256 wv = _mm256_maskload_ps(w0 + static_cast<int64_t>(c) * C + k, m);
            for (int r = 0; r < NT_ROWS; ++r) {
                float* a = acc + (r * NT_COLS + c) * LANES;
                _mm256_store_ps(a, _mm256_fmadd_ps(_mm256_maskload_ps(x[r] + k, m), wv, _mm256_load_ps(a)));
            }
        }
    }
    const __m128 bias4 = bias ? _mm_loadu_ps(bias + first_col) : _mm_setzero_ps();
    for (int r = 0; r < rows; ++r) {
        __m256 v[NT_COLS];
        for (int c = 0; c < NT_COLS; ++c) v[c] = _mm256_load_ps(acc + (r * NT_COLS + c) * LANES);
        const __m128 sums = _mm_add_ps(horizontal_sums4(v), bias4);
        float* o = out + static_cast<int64_t>(n0 + r) * OC + first_col;
        if (skip == 0) {
            _mm_storeu_ps(o, sums);
        } else {
            alignas(16) float lanes[NT_COLS];
            _mm_store_ps(lanes, sums);
            for (int c = skip; c < NT_COLS; ++c) o[c] = lanes[c];
        }
    }
}

using kernels::split_blocks;
#include "kernels/gemm_nt_body.h"

}  // namespace

void kernels::sgemm_nt_avx2(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                            int OC) {
    sgemm_nt_tiles(out, inp, weight, bias, N, C, OC);
}

}  // namespace tx::cpu
