// sgemm_packed (gemm_packed.h) on AVX2 + FMA: BLIS's Haswell micro-kernel, a 6 × 16 register tile
// (12 accumulators of 8 floats; per k, 2 B loads and 6 broadcasts of A against them) on the
// packed panels of gemm_packed_blocking.h. 12 accumulators, 2 B vectors and 1 broadcast fill 15
// of the 16 ymm registers. Compiled with -mavx2 -mfma -mno-avx512f (core/CMakeLists.txt), so even
// a -march=native build on an AVX-512 machine gives code an AVX2 CPU runs; chosen by cpu_isa.h.
// Blocks as BLIS's Haswell configuration (KC 256), MC 96: the A block (96 KiB) stays in a 512 KiB
// L2, a B panel (KC · NR floats = 16 KiB) in L1.
#include "kernels/simd_avx2.h"
#include "kernels/gemm_packed_blocking.h"

namespace tx::cpu {

namespace {

// Lane masks for _mm256_maskload_ps: the first n lanes (n = 0..8).
inline __m256i first_lanes(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// acc (6 rows of two vectors of 8) += the A panel (k-major columns of 6) times the B panel
// (k-major rows of 16) over kc ≥ 1 steps. In assembly because GCC keeps the 12 accumulators in
// memory (it stores all of them on every step), which runs at half speed. The accumulators are
// operands in registers (ymm0–11: the four below are taken), so the caller's store reads them
// there; ymm12–13 hold the B vectors of a step, ymm14–15 the broadcast A values in turn.
#define TX_GEMM_ROW(R, BCAST, C0, C1)                          \
    "vbroadcastss " #R "*4(%[a]), %%ymm" BCAST "\n\t"          \
    "vfmadd231ps %%ymm12, %%ymm" BCAST ", %[c" #C0 "]\n\t"      \
    "vfmadd231ps %%ymm13, %%ymm" BCAST ", %[c" #C1 "]\n\t"
#define TX_GEMM_STEP_START                                     \
    "1:\n\t"                                                   \
    "vmovaps (%[b]), %%ymm12\n\t"                              \
    "vmovaps 32(%[b]), %%ymm13\n\t"
#define TX_GEMM_STEP_END                                       \
    "add $24, %[a]\n\t"                                        \
    "add $64, %[b]\n\t"                                        \
    "dec %[kc]\n\t"                                            \
    "jnz 1b\n\t"
inline void tile_6x16(__m256 (&acc)[6][2], const float* a, const float* b, int64_t kc) {
    asm volatile(
        TX_GEMM_STEP_START
        TX_GEMM_ROW(0, "14", 0, 1) TX_GEMM_ROW(1, "15", 2, 3) TX_GEMM_ROW(2, "14", 4, 5)
        TX_GEMM_ROW(3, "15", 6, 7) TX_GEMM_ROW(4, "14", 8, 9) TX_GEMM_ROW(5, "15", 10, 11)
        TX_GEMM_STEP_END
        : [a] "+r"(a), [b] "+r"(b), [kc] "+r"(kc), [c0] "+x"(acc[0][0]), [c1] "+x"(acc[0][1]),
          [c2] "+x"(acc[1][0]), [c3] "+x"(acc[1][1]), [c4] "+x"(acc[2][0]), [c5] "+x"(acc[2][1]),
          [c6] "+x"(acc[3][0]), [c7] "+x"(acc[3][1]), [c8] "+x"(acc[4][0]), [c9] "+x"(acc[4][1]),
          [c10] "+x"(acc[5][0]), [c11] "+x"(acc[5][1])
        :
        : "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
}

// The same for a tile of 4 rows (rows 0–3 of acc) on the same panels (A columns of 6 floats, of
// which it reads the first 4): a block's last rows when 6-row tiles would compute rows of zeros
// (32 rows: 6+6+6+6+4+4 instead of five tiles of 6 and one of 2 that costs 6).
inline void tile_4x16(__m256 (&acc)[6][2], const float* a, const float* b, int64_t kc) {
    asm volatile(
        TX_GEMM_STEP_START
        TX_GEMM_ROW(0, "14", 0, 1) TX_GEMM_ROW(1, "15", 2, 3) TX_GEMM_ROW(2, "14", 4, 5)
        TX_GEMM_ROW(3, "15", 6, 7)
        TX_GEMM_STEP_END
        : [a] "+r"(a), [b] "+r"(b), [kc] "+r"(kc), [c0] "+x"(acc[0][0]), [c1] "+x"(acc[0][1]),
          [c2] "+x"(acc[1][0]), [c3] "+x"(acc[1][1]), [c4] "+x"(acc[2][0]), [c5] "+x"(acc[2][1]),
          [c6] "+x"(acc[3][0]), [c7] "+x"(acc[3][1])
        :
        : "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
}
#undef TX_GEMM_ROW
#undef TX_GEMM_STEP_START
#undef TX_GEMM_STEP_END

struct Avx2Tile {
    static constexpr int MR = 6;      // rows of the register tile
    static constexpr int NR = 16;     // columns of the register tile: two vectors of 8 floats
    static constexpr int KC = 256;    // inner-dimension block
    static constexpr int MC = 96;     // rows of an A block (a multiple of MR)
    static constexpr int NC = 512;    // columns of a B block (a multiple of NR)

    // op(B)[pc .. pc+kc, col0 .. col0+cols] (cols ≤ NR) into a panel: k-major rows of NR floats,
    // the columns past cols 0.
    static void pack_b(float* panel, const float* B, int ldb, bool trans_b, int pc, int col0, int kc, int cols) {
        if (!trans_b) {
            if (cols == NR) {
                for (int k = 0; k < kc; ++k) {
                    const float* src = B + static_cast<int64_t>(pc + k) * ldb + col0;
                    _mm256_store_ps(panel + k * NR, _mm256_loadu_ps(src));
                    _mm256_store_ps(panel + k * NR + 8, _mm256_loadu_ps(src + 8));
                }
            } else {
                const __m256i lo = first_lanes(blk_min(cols, 8)), hi = first_lanes(blk_max(cols - 8, 0));
                for (int k = 0; k < kc; ++k) {
                    const float* src = B + static_cast<int64_t>(pc + k) * ldb + col0;
                    _mm256_store_ps(panel + k * NR, _mm256_maskload_ps(src, lo));
                    _mm256_store_ps(panel + k * NR + 8, _mm256_maskload_ps(src + 8, hi));
                }
            }
        } else {
            pack_b_transposed<NR>(panel, B, ldb, pc, col0, kc, cols);
        }
    }

    // Rows of the next register tile, of `left` rows of an A block still to cover: 6, but 7 or 8
    // rows as two 4-row tiles (8 rows of work, where 6 + 1 or 6 + 2 would cost 6 + 4).
    static int tile_rows(int left) { return left == 7 || left == 8 ? 4 : blk_min(MR, left); }

    // op(A)[row0 .. row0+rows, pc .. pc+kc] (rows ≤ MR) into a panel: k-major columns of MR
    // floats, the rows past `rows` 0.
    static void pack_a(float* panel, const float* A, int lda, bool trans_a, int row0, int pc, int rows, int kc) {
        if (trans_a) {
            // op(A)[i][k] = A[k][i]: the panel's column k is MR contiguous floats of row k of A.
            const __m256i valid = first_lanes(rows);
            for (int k = 0; k < kc; ++k) {
                const float* src = A + static_cast<int64_t>(pc + k) * lda + row0;
                store_first_lanes(panel + k * MR, _mm256_maskload_ps(src, valid), MR);
            }
            return;
        }
        // 8 × 8 transposes of the rows and zero rows below them; lanes 0–5 of each column stored
        const float* src = A + static_cast<int64_t>(row0) * lda + pc;
        int k = 0;
        for (; k + 8 <= kc; k += 8) {
            __m256 r[8];
            for (int i = 0; i < 8; ++i)
                r[i] = i < rows ? _mm256_loadu_ps(src + static_cast<int64_t>(i) * lda + k) : _mm256_setzero_ps();
            transpose_8x8(r);
            for (int i = 0; i < 8; ++i) store_first_lanes(panel + (k + i) * MR, r[i], MR);
        }
        for (; k < kc; ++k)
            for (int i = 0; i < MR; ++i) panel[k * MR + i] = i < rows ? src[static_cast<int64_t>(i) * lda + k] : 0.0f;
    }

    // The 6 × 16 tile (4 × 16 for up to 4 rows) of one A panel and one B panel over kc: c (rows ×
    // cols of it valid, row stride ldc) = tile, or += tile with add; then + bias (the tile's cols
    // floats) where not null. B panels are 64-byte aligned (gemm_scratch).
    static void kernel(float* c, int ldc, const float* a, const float* b, int kc, int rows, int cols, bool add,
                       const float* bias) {
        __m256 acc[MR][2];
        for (auto& row : acc) row[0] = row[1] = _mm256_setzero_ps();
        if (rows <= 4) tile_4x16(acc, a, b, kc);
        else tile_6x16(acc, a, b, kc);
        store_tile<MR>(c, ldc, acc, rows, cols, add, bias);
    }
};

}  // namespace

void kernels::sgemm_packed_avx2(float* C, int ldc, const float* A, int lda, bool trans_a, const float* B, int ldb,
                                bool trans_b, int M, int N, int K, bool accumulate, const float* bias,
                                const float* prepacked_b) {
    packed_product<Avx2Tile>(C, ldc, A, lda, trans_a, B, ldb, trans_b, M, N, K, accumulate, bias, prepacked_b);
}

int64_t kernels::packed_weight_floats_avx2(int C, int OC) { return packed_b_floats<Avx2Tile>(C, OC); }

void kernels::pack_weight_avx2(float* out, const float* weight, int C, int OC) {
    pack_b_whole<Avx2Tile>(out, weight, C, true, C, OC);
}

}  // namespace tx::cpu
