// sgemm_packed (gemm_packed.h) on AVX-512: an 8 × 32 register tile (16 accumulators of 16 floats)
// that broadcasts an A value against two B vectors per row and k, on the packed panels of
// gemm_packed_blocking.h. Compiled with -mavx512f (core/CMakeLists.txt) and run only where
// cpu_isa.h finds AVX-512 (gemm_packed.cpp). Sizes for a 1 MiB L2 and 32–48 KiB L1: a B panel
// (KC · NR floats = 32 KiB) stays in L1, the A block (MC · KC = 96 KiB) in L2.
#include "kernels/simd_avx512.h"
#include "kernels/gemm_packed_blocking.h"

namespace tx::cpu {

namespace {

struct Avx512Tile {
    static constexpr int MR = 8;      // rows of the register tile
    static constexpr int NR = 32;     // columns of the register tile: two vectors of 16 floats
    static constexpr int KC = 256;    // inner-dimension block
    static constexpr int MC = 96;     // rows of an A block (a multiple of MR)
    static constexpr int NC = 512;    // columns of a B block (a multiple of NR)

    // op(B)[pc .. pc+kc, col0 .. col0+cols] (cols ≤ NR) into a panel: k-major rows of NR floats,
    // the columns past cols 0.
    static void pack_b(float* panel, const float* B, int ldb, bool trans_b, int pc, int col0, int kc, int cols) {
        if (!trans_b) {
            const __mmask16 lo = cols >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << cols) - 1u);
            const __mmask16 hi = cols >= 32 ? 0xFFFF : cols <= 16 ? 0 : static_cast<__mmask16>((1u << (cols - 16)) - 1u);
            for (int k = 0; k < kc; ++k) {
                const float* src = B + static_cast<int64_t>(pc + k) * ldb + col0;
                _mm512_storeu_ps(panel + k * NR, _mm512_maskz_loadu_ps(lo, src));
                _mm512_storeu_ps(panel + k * NR + 16, _mm512_maskz_loadu_ps(hi, src + 16));
            }
        } else {
            pack_b_transposed<NR>(panel, B, ldb, pc, col0, kc, cols);
        }
    }

    // Rows of the next register tile, of `left` rows of an A block still to cover.
    static int tile_rows(int left) { return blk_min(MR, left); }

    // op(A)[row0 .. row0+rows, pc .. pc+kc] (rows ≤ MR) into a panel: k-major columns of MR
    // floats, the rows past `rows` 0.
    static void pack_a(float* panel, const float* A, int lda, bool trans_a, int row0, int pc, int rows, int kc) {
        if (trans_a) {
            // op(A)[i][k] = A[k][i]: the panel's column k is MR contiguous floats of row k of A.
            const __mmask16 mask = static_cast<__mmask16>((1u << rows) - 1u);
            for (int k = 0; k < kc; ++k) {
                const float* src = A + static_cast<int64_t>(pc + k) * lda + row0;
                _mm256_storeu_ps(panel + k * MR, _mm512_castps512_ps256(_mm512_maskz_loadu_ps(mask, src)));
            }
        } else if (rows == MR) {
            transpose_rows8(panel, MR, A + static_cast<int64_t>(row0) * lda + pc, lda, kc);
        } else {
            for (int r = 0; r < MR; ++r) {
                if (r < rows) {
                    const float* src = A + static_cast<int64_t>(row0 + r) * lda + pc;
                    for (int k = 0; k < kc; ++k) panel[k * MR + r] = src[k];
                } else {
                    for (int k = 0; k < kc; ++k) panel[k * MR + r] = 0.0f;
                }
            }
        }
    }

    // The 8 × 32 tile of one A panel and one B panel over kc: c (rows × cols of it valid, row
    // stride ldc) = tile, or += tile with add; then + bias (the tile's cols floats) where not null.
    static void kernel(float* c, int ldc, const float* a, const float* b, int kc, int rows, int cols, bool add,
                       const float* bias) {
        __m512 acc[MR][2];
        for (auto& row : acc) row[0] = row[1] = _mm512_setzero_ps();
        for (int k = 0; k < kc; ++k) {
            const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 8
            for (int r = 0; r < MR; ++r) {
                const __m512 x = _mm512_set1_ps(a[r]);
                acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
                acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
            }
            a += MR;
            b += NR;
        }
        store_tile<MR>(c, ldc, acc, rows, cols, add, bias);
    }
};

}  // namespace

void kernels::sgemm_packed_avx512(float* C, int ldc, const float* A, int lda, bool trans_a, const float* B, int ldb,
                                  bool trans_b, int M, int N, int K, bool accumulate, const float* bias,
                                  const float* prepacked_b) {
    packed_product<Avx512Tile>(C, ldc, A, lda, trans_a, B, ldb, trans_b, M, N, K, accumulate, bias, prepacked_b);
}

int64_t kernels::packed_weight_floats_avx512(int C, int OC) { return packed_b_floats<Avx512Tile>(C, OC); }

void kernels::pack_weight_avx512(float* out, const float* weight, int C, int OC) {
    pack_b_whole<Avx512Tile>(out, weight, C, true, C, OC);
}

}  // namespace tx::cpu
