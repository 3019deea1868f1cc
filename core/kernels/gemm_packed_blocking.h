// The blocking of sgemm_packed (gemm_packed.h), C (M,N) [+]= op(A) (M,K) · op(B) (K,N) row-major,
// shared by the kernel units gemm_packed_avx512.cpp and gemm_packed_avx2.cpp: each includes it
// once and instantiates packed_product and pack_b_whole with its register tile (a Tile type: MR ×
// NR, the block sizes, tile_rows, and pack_a, pack_b and kernel for one panel or tile). Everything
// here has internal linkage, so each unit keeps its own copy compiled for its instruction set
// (gemm_kernels.h says why that matters). Needs AVX, and the unit's Simd traits included first.
#pragma once
#include <immintrin.h>

#include <cstdint>

#include "kernels/gemm_kernels.h"
#include "tx/threads.h"

namespace tx::cpu {
namespace {

constexpr int blk_min(int a, int b) { return a < b ? a : b; }
constexpr int blk_max(int a, int b) { return a > b ? a : b; }

// The store of a register tile of MR rows × two vectors (the unit's Simd traits, simd_avx2.h or
// simd_avx512.h, included before this file): c (rows × cols of it valid, cols ≤ 2·W, row stride
// ldc) = acc, or += acc with add; then + bias (the tile's cols floats) where not null. A row's
// partial vectors go through Simd::Lanes (nothing is read or written past cols). Unrolled, so that
// acc is indexed by constants and stays in registers (a loop to `rows` kept it in memory: ~5% of
// the tile's time in a training step).
template <int MR>
[[gnu::always_inline]] inline void store_tile(float* c, int ldc, const kernels::Simd::V (&acc)[MR][2], int rows,
                                              int cols, bool add, const float* bias) {
    using S = kernels::Simd;
    const S::Lanes lo = S::lanes(0, blk_min(cols, S::W)), hi = S::lanes(0, blk_max(cols - S::W, 0));
    const bool full = cols == 2 * S::W;   // the common case: plain loads and stores
    const S::V bias0 = !bias ? S::zero() : full ? S::load(bias) : S::load(lo, bias);
    const S::V bias1 = !bias ? S::zero() : full ? S::load(bias + S::W) : S::load(hi, bias + S::W);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        if (r == rows) break;
        float* out = c + static_cast<int64_t>(r) * ldc;
        S::V v0 = acc[r][0], v1 = acc[r][1];
        if (add) {
            v0 = S::add(v0, full ? S::load(out) : S::load(lo, out));
            v1 = S::add(v1, full ? S::load(out + S::W) : S::load(hi, out + S::W));
        }
        if (bias) {
            v0 = S::add(v0, bias0);
            v1 = S::add(v1, bias1);
        }
        if (full) {
            S::store(out, v0);
            S::store(out + S::W, v1);
        } else {
            S::store(out, lo, v0);
            S::store(out + S::W, hi, v1);
        }
    }
}

// In place: r[i] becomes column i of the 8 × 8 block whose rows were r[0..7].
inline void transpose_8x8(__m256 r[8]) {
    __m256 t[8], s[8];
    for (int i = 0; i < 4; ++i) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; ++h) {   // rows 0-3, then 4-7
        const __m256 *lo = t + 4 * h, *hi = t + 4 * h + 2;
        s[4 * h + 0] = _mm256_shuffle_ps(lo[0], hi[0], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * h + 1] = _mm256_shuffle_ps(lo[0], hi[0], _MM_SHUFFLE(3, 2, 3, 2));
        s[4 * h + 2] = _mm256_shuffle_ps(lo[1], hi[1], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * h + 3] = _mm256_shuffle_ps(lo[1], hi[1], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; ++i) {
        r[i] = _mm256_permute2f128_ps(s[i], s[i + 4], 0x20);
        r[i + 4] = _mm256_permute2f128_ps(s[i], s[i + 4], 0x31);
    }
}

// dst[k·dst_stride + i] = src[i·src_stride + k] for i < 8 and k < count: eight rows read as
// columns, 8 × 8 blocks at a time (the scalar loop only for the last count % 8).
inline void transpose_rows8(float* dst, int64_t dst_stride, const float* src, int64_t src_stride, int count) {
    int k = 0;
    for (; k + 8 <= count; k += 8) {
        __m256 r[8];
        for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * src_stride + k);
        transpose_8x8(r);
        for (int i = 0; i < 8; ++i) _mm256_storeu_ps(dst + (k + i) * dst_stride, r[i]);
    }
    for (; k < count; ++k)
        for (int i = 0; i < 8; ++i) dst[k * dst_stride + i] = src[i * src_stride + k];
}

// A panel of op(B) = Bᵀ, columns col0 .. col0+cols (cols ≤ NR) over pc .. pc+kc: k-major rows of
// NR floats, the columns past cols 0. Column j of the panel is a contiguous row of B, read 8 rows
// at a time as columns (transpose_rows8). Both tiles' pack_b for trans_b.
template <int NR>
void pack_b_transposed(float* panel, const float* B, int ldb, int pc, int col0, int kc, int cols) {
    int j = 0;
    for (; j + 8 <= cols; j += 8)
        transpose_rows8(panel + j, NR, B + static_cast<int64_t>(col0 + j) * ldb + pc, ldb, kc);
    for (; j < NR; ++j) {
        if (j < cols) {
            const float* src = B + static_cast<int64_t>(col0 + j) * ldb + pc;
            for (int k = 0; k < kc; ++k) panel[k * NR + j] = src[k];
        } else {
            for (int k = 0; k < kc; ++k) panel[k * NR + j] = 0.0f;
        }
    }
}

// A rectangle of a row-major operand, rows × len floats from `first` with row stride ld: the
// part of op(B) that the next block packs.
struct RowRange {
    const float* first = nullptr;
    int64_t ld = 0;
    int rows = 0, len = 0;
};

// Asks for rows [row_begin, row_end) of r in L2 (every 64-byte line they touch).
inline void prefetch_rows(const RowRange& r, int row_begin, int row_end) {
    for (int i = row_begin; i < row_end; ++i) {
        const char* p = reinterpret_cast<const char*>(r.first + i * r.ld);
        const char* last = reinterpret_cast<const char*>(r.first + i * r.ld + r.len) - 1;
        for (; p <= last; p += 64) _mm_prefetch(p, _MM_HINT_T1);
        _mm_prefetch(last, _MM_HINT_T1);
    }
}

// op(B)'s source of the block at (pc, jc), kc × nc: B's rows pc.., or with trans_b its rows jc...
inline RowRange b_block_source(const float* B, int ldb, bool trans_b, int pc, int jc, int kc, int nc) {
    if (trans_b) return {B + static_cast<int64_t>(jc) * ldb + pc, ldb, nc, kc};
    return {B + static_cast<int64_t>(pc) * ldb + jc, ldb, kc, nc};
}

// The classic blocked product (Goto and van de Geijn, "Anatomy of high-performance matrix
// multiplication", 2008; BLIS): for a block of NC columns and KC of the inner dimension, op(B) is
// packed into panels of NR columns (k-major, zero-padded), op(A) into panels of up to MR rows per
// block of MC rows; the register tile then walks one A panel and one B panel. Packing makes
// every operand layout (a transposed one included) the same contiguous stream, so one kernel
// serves x·Wᵀ, g·W and gᵀ·x. A B panel is reused from L1 by every A panel of the MC block; the
// A block stays in L2. Threads split the MC blocks; each packs its own A block.
// A block's rows are cut into register tiles of Tile::tile_rows(rows left) rows each, tile t
// reading A panel t (MR floats per k whatever its rows, the rows past them 0), so that a tile
// with fewer rows can run a smaller kernel (gemm_packed_avx2.cpp: 32 rows as 6+6+6+6+4+4, not
// five tiles of 6 and one of 2 that computes 6).
// op(B) comes from memory more often than not: a base model's weights (60 MB) do not stay in
// the 32 MiB L3 from one forward pass to the next. While the tiles work on a block, every row
// block asks for a share of the next block's source in L2, a piece per B panel, so that pack_b
// finds more of it in cache (a 128 × 2048 × 512 forward product 2% faster; pack_b's reads of
// rows in 8 strided streams still run at half the memory's sequential speed).
// bias (N floats, or null) is added to every row of C in the last KC block's store:
// C = (product [+ C]) + bias, the same two roundings as adding it in a pass afterwards.
// Floats of op(B) (K,N) packed whole: every block of NC columns and KC of the inner dimension in
// the order packed_product walks them (column blocks, then K blocks in each), each as pack_b
// lays it out (panels of NR columns, the last zero-padded).
// Floats of one packed block of op(B), kc × nc: its panels of NR columns, the last zero-padded.
template <class Tile>
int64_t packed_block_floats(int kc, int nc) {
    constexpr int NR = Tile::NR;
    return static_cast<int64_t>(kc) * ((nc + NR - 1) / NR * NR);
}

template <class Tile>
int64_t packed_b_floats(int K, int N) {
    return packed_block_floats<Tile>(K, N);   // the column blocks' padded widths add up to N's
}

// op(B) packed whole into out (packed_b_floats(K, N) floats), for packed_product's prepacked_b:
// a weight that many products read packs once instead of once per product.
template <class Tile>
void pack_b_whole(float* out, const float* B, int ldb, bool trans_b, int K, int N) {
    constexpr int NR = Tile::NR, KC = Tile::KC, NC = Tile::NC;
    for (int jc = 0; jc < N; jc += NC) {
        const int nc = blk_min(NC, N - jc);
        for (int pc = 0; pc < K; pc += KC) {
            const int kc = blk_min(KC, K - pc);
            for (int j0 = 0; j0 < nc; j0 += NR)
                Tile::pack_b(out + static_cast<int64_t>(j0) * kc, B, ldb, trans_b, pc, jc + j0, kc, blk_min(NR, nc - j0));
            out += packed_block_floats<Tile>(kc, nc);
        }
    }
}

// prepacked_b: null, or op(B) as pack_b_whole packs it; then no block of B is packed here.
template <class Tile>
void packed_product(float* C, int ldc, const float* A, int lda, bool trans_a, const float* B, int ldb, bool trans_b,
                    int M, int N, int K, bool accumulate, const float* bias, const float* prepacked_b) {
    constexpr int MR = Tile::MR, NR = Tile::NR, KC = Tile::KC, MC = Tile::MC, NC = Tile::NC;
    const int threads = cpu_threads();
    // Rows per A block: MC, or fewer so that the blocks split evenly across the threads (a weight
    // gradient of 128 rows is two blocks of 64 on two threads, not 96 and 32).
    int blocks = (M + MC - 1) / MC;
    if (threads > 1) blocks = (blk_max(blocks, threads) + threads - 1) / threads * threads;
    const int block_rows = blk_min(MC, ((M + blocks - 1) / blocks + MR - 1) / MR * MR);
    blocks = (M + block_rows - 1) / block_rows;
    float* scratch = prepacked_b ? nullptr : kernels::gemm_scratch(0, static_cast<size_t>(packed_block_floats<Tile>(KC, blk_min(N, NC))));
    for (int jc = 0; jc < N; jc += NC) {
        const int nc = blk_min(NC, N - jc);
        for (int pc = 0; pc < K; pc += KC) {
            const int kc = blk_min(KC, K - pc);
            const bool add = accumulate || pc > 0;
            const float* block_bias = bias && pc + kc == K ? bias + jc : nullptr;
            const float* bp = scratch;
            if (prepacked_b) {
                bp = prepacked_b;
                prepacked_b += packed_block_floats<Tile>(kc, nc);
            } else {
                for (int j0 = 0; j0 < nc; j0 += NR)
                    Tile::pack_b(scratch + static_cast<int64_t>(j0) * kc, B, ldb, trans_b, pc, jc + j0, kc, blk_min(NR, nc - j0));
            }
            RowRange next;   // the next block's source, or none (prepacked: its panels are read in order)
            const int next_pc = pc + kc < K ? pc + kc : 0, next_jc = pc + kc < K ? jc : jc + nc;
            if (next_jc < N && scratch)
                next = b_block_source(B, ldb, trans_b, next_pc, next_jc, blk_min(KC, K - next_pc), blk_min(NC, N - next_jc));
            const int panels = (nc + NR - 1) / NR;
            auto row_blocks = [&](int first, int last) {
                for (int blk = first; blk < last; ++blk) {
                    const int ic = blk * block_rows, mc = blk_min(block_rows, M - ic);
                    // one panel of MR floats per k for each tile; at most MC / MR + 1 tiles
                    float* ap = kernels::gemm_scratch(1, static_cast<size_t>(MC + MR) * KC);
                    const int64_t panel_floats = static_cast<int64_t>(MR) * kc;
                    int panel = 0;
                    for (int i0 = 0; i0 < mc; ++panel) {
                        const int rows = Tile::tile_rows(mc - i0);
                        Tile::pack_a(ap + panel * panel_floats, A, lda, trans_a, ic + i0, pc, rows, kc);
                        i0 += rows;
                    }
                    for (int j0 = 0; j0 < nc; j0 += NR) {
                        if (next.rows > 0) {   // piece blk · panels + j0 / NR of blocks · panels
                            const int64_t piece = static_cast<int64_t>(blk) * panels + j0 / NR, pieces = static_cast<int64_t>(blocks) * panels;
                            prefetch_rows(next, static_cast<int>(piece * next.rows / pieces),
                                          static_cast<int>((piece + 1) * next.rows / pieces));
                        }
                        const float* tile_bias = block_bias ? block_bias + j0 : nullptr;
                        panel = 0;
                        for (int i0 = 0; i0 < mc; ++panel) {
                            const int rows = Tile::tile_rows(mc - i0);
                            Tile::kernel(C + static_cast<int64_t>(ic + i0) * ldc + jc + j0, ldc, ap + panel * panel_floats,
                                         bp + static_cast<int64_t>(j0) * kc, kc, rows, blk_min(NR, nc - j0), add,
                                         tile_bias);
                            i0 += rows;
                        }
                    }
                }
            };
            kernels::split_blocks(blocks, [](void* f, int first, int last) { (*static_cast<decltype(row_blocks)*>(f))(first, last); }, &row_blocks);
        }
    }
}

}  // namespace
}  // namespace tx::cpu
