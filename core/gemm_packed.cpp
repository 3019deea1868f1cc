// sgemm_packed (gemm_packed.h): C (M,N) [+]= op(A) (M,K) · op(B) (K,N), row-major.
//
// The classic blocked product (Goto and van de Geijn, "Anatomy of high-performance matrix
// multiplication", 2008; BLIS): for a block of NC columns and KC of the inner dimension, op(B) is
// packed into panels of NR = 32 columns (k-major, zero-padded), op(A) into panels of MR = 8 rows
// per block of MC rows; an 8 × 32 register tile (16 accumulators of 16 floats) then walks one A
// panel and one B panel, broadcasting an A value against two B vectors per row and k. Packing
// makes every operand layout (a transposed one included) the same contiguous stream, so one
// kernel serves x·Wᵀ, g·W and gᵀ·x.
//
// Sizes for the project's 1 MiB L2 and 32–48 KiB L1: a B panel (KC · NR floats = 32 KiB) is
// reused by every A panel of the MC block; the A block (MC · KC = 96 KiB) stays in L2; the
// packed B block (KC · NC = 512 KiB) stays in L2 across the MC blocks. Threads split the MC
// blocks; each packs its own A block (buffers reused from call to call, shared/PERF.md).
#include "gemm_packed.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "eigen_types.h"
#include "threads.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tx::cpu {

#if defined(__AVX512F__)

namespace {

constexpr int MR = 8;      // rows of the register tile
constexpr int NR = 32;     // columns of the register tile: two vectors of 16 floats
constexpr int KC = 256;    // inner-dimension block
constexpr int MC = 96;     // rows of an A block (a multiple of MR)
constexpr int NC = 512;    // columns of a B block (a multiple of NR)

// Buffers grow to the largest block once and are reused (a fresh page costs ~10 µs here).
// Per calling thread: the GUI and the trainer thread may multiply at the same time.
std::vector<float>& packed_b_buffer() {
    thread_local std::vector<float> buffer;
    return buffer;
}
std::vector<float>& packed_a_buffer() {
    thread_local std::vector<float> buffer;
    return buffer;
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

// op(B)[pc .. pc+kc, jc .. jc+nc] into panels of NR columns: panel p holds k-major rows of NR
// floats, columns past nc are 0.
void pack_b(float* out, const float* B, int ldb, bool trans_b, int pc, int jc, int kc, int nc) {
    for (int j0 = 0; j0 < nc; j0 += NR) {
        const int cols = std::min(NR, nc - j0);
        float* panel = out + static_cast<int64_t>(j0) * kc;
        if (!trans_b) {
            const __mmask16 lo = cols >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << cols) - 1u);
            const __mmask16 hi = cols >= 32 ? 0xFFFF : cols <= 16 ? 0 : static_cast<__mmask16>((1u << (cols - 16)) - 1u);
            for (int k = 0; k < kc; ++k) {
                const float* src = B + static_cast<int64_t>(pc + k) * ldb + jc + j0;
                _mm512_storeu_ps(panel + k * NR, _mm512_maskz_loadu_ps(lo, src));
                _mm512_storeu_ps(panel + k * NR + 16, _mm512_maskz_loadu_ps(hi, src + 16));
            }
        } else {
            // op(B)[k][j] = B[j][k]: column j of the panel is a contiguous row of B.
            int j = 0;
            for (; j + 8 <= cols; j += 8)
                transpose_rows8(panel + j, NR, B + static_cast<int64_t>(jc + j0 + j) * ldb + pc, ldb, kc);
            for (; j < NR; ++j) {
                if (j < cols) {
                    const float* src = B + static_cast<int64_t>(jc + j0 + j) * ldb + pc;
                    for (int k = 0; k < kc; ++k) panel[k * NR + j] = src[k];
                } else {
                    for (int k = 0; k < kc; ++k) panel[k * NR + j] = 0.0f;
                }
            }
        }
    }
}

// op(A)[ic .. ic+mc, pc .. pc+kc] into panels of MR rows: panel p holds k-major columns of MR
// floats, rows past mc are 0.
void pack_a(float* out, const float* A, int lda, bool trans_a, int ic, int pc, int mc, int kc) {
    for (int i0 = 0; i0 < mc; i0 += MR) {
        const int rows = std::min(MR, mc - i0);
        float* panel = out + static_cast<int64_t>(i0) * kc;
        if (trans_a) {
            // op(A)[i][k] = A[k][i]: the panel's column k is MR contiguous floats of row k of A.
            const __mmask16 mask = static_cast<__mmask16>((1u << rows) - 1u);
            for (int k = 0; k < kc; ++k) {
                const float* src = A + static_cast<int64_t>(pc + k) * lda + ic + i0;
                _mm256_storeu_ps(panel + k * MR, _mm512_castps512_ps256(_mm512_maskz_loadu_ps(mask, src)));
            }
        } else if (rows == MR) {
            transpose_rows8(panel, MR, A + static_cast<int64_t>(ic + i0) * lda + pc, lda, kc);
        } else {
            for (int r = 0; r < MR; ++r) {
                if (r < rows) {
                    const float* src = A + static_cast<int64_t>(ic + i0 + r) * lda + pc;
                    for (int k = 0; k < kc; ++k) panel[k * MR + r] = src[k];
                } else {
                    for (int k = 0; k < kc; ++k) panel[k * MR + r] = 0.0f;
                }
            }
        }
    }
}

// The 8 × 32 tile of one A panel and one B panel over kc: c (rows × cols of it valid, row
// stride ldc) = tile, or += tile with add.
void kernel_8x32(float* c, int ldc, const float* a, const float* b, int kc, int rows, int cols, bool add) {
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
    const __mmask16 lo = cols >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << cols) - 1u);
    const __mmask16 hi = cols >= 32 ? 0xFFFF : cols <= 16 ? 0 : static_cast<__mmask16>((1u << (cols - 16)) - 1u);
    for (int r = 0; r < rows; ++r) {
        float* out = c + static_cast<int64_t>(r) * ldc;
        __m512 v0 = acc[r][0], v1 = acc[r][1];
        if (add) {
            v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(lo, out));
            v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(hi, out + 16));
        }
        _mm512_mask_storeu_ps(out, lo, v0);
        _mm512_mask_storeu_ps(out + 16, hi, v1);
    }
}

}  // namespace

void sgemm_packed(float* C, int ldc, const float* A, int lda, bool trans_a, const float* B, int ldb, bool trans_b,
                  int M, int N, int K, bool accumulate) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        if (!accumulate)
            for (int i = 0; i < M; ++i) std::fill_n(C + static_cast<int64_t>(i) * ldc, N, 0.0f);
        return;
    }
    const int threads = cpu_threads();
    // Rows per A block: MC, or fewer so that the blocks split evenly across the threads (a weight
    // gradient of 128 rows is two blocks of 64 on two threads, not 96 and 32).
    int blocks = (M + MC - 1) / MC;
    if (threads > 1) blocks = (std::max(blocks, threads) + threads - 1) / threads * threads;
    const int block_rows = std::min(MC, ((M + blocks - 1) / blocks + MR - 1) / MR * MR);
    blocks = (M + block_rows - 1) / block_rows;
    std::vector<float>& bp = packed_b_buffer();
    const size_t b_size = static_cast<size_t>(KC) * ((std::min(N, NC) + NR - 1) / NR * NR);
    if (bp.size() < b_size) bp.resize(b_size);
    for (int jc = 0; jc < N; jc += NC) {
        const int nc = std::min(NC, N - jc);
        for (int pc = 0; pc < K; pc += KC) {
            const int kc = std::min(KC, K - pc);
            const bool add = accumulate || pc > 0;
            pack_b(bp.data(), B, ldb, trans_b, pc, jc, kc, nc);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && blocks > 1)
            for (int blk = 0; blk < blocks; ++blk) {
                const int ic = blk * block_rows, mc = std::min(block_rows, M - ic);
                std::vector<float>& ap = packed_a_buffer();
                const size_t a_size = static_cast<size_t>(MC) * KC;
                if (ap.size() < a_size) ap.resize(a_size);
                pack_a(ap.data(), A, lda, trans_a, ic, pc, mc, kc);
                for (int j0 = 0; j0 < nc; j0 += NR)
                    for (int i0 = 0; i0 < mc; i0 += MR)
                        kernel_8x32(C + static_cast<int64_t>(ic + i0) * ldc + jc + j0, ldc,
                                    ap.data() + static_cast<int64_t>(i0) * kc, bp.data() + static_cast<int64_t>(j0) * kc,
                                    kc, std::min(MR, mc - i0), std::min(NR, nc - j0), add);
            }
        }
    }
}

bool sgemm_packed_has_kernel() { return true; }

#else  // no AVX-512: Eigen's product on maps of the operands

void sgemm_packed(float* C, int ldc, const float* A, int lda, bool trans_a, const float* B, int ldb, bool trans_b,
                  int M, int N, int K, bool accumulate) {
    using Stride = Eigen::OuterStride<>;
    Eigen::Map<RowMatrix<float>, 0, Stride> c(C, M, N, Stride(ldc));
    const auto product = [&](const auto& a) {
        if (trans_b) {
            Eigen::Map<const RowMatrix<float>, 0, Stride> b(B, N, K, Stride(ldb));
            if (accumulate) c.noalias() += a * b.transpose();
            else c.noalias() = a * b.transpose();
        } else {
            Eigen::Map<const RowMatrix<float>, 0, Stride> b(B, K, N, Stride(ldb));
            if (accumulate) c.noalias() += a * b;
            else c.noalias() = a * b;
        }
    };
    if (trans_a) product(Eigen::Map<const RowMatrix<float>, 0, Stride>(A, K, M, Stride(lda)).transpose());
    else product(Eigen::Map<const RowMatrix<float>, 0, Stride>(A, M, K, Stride(lda)));
}

bool sgemm_packed_has_kernel() { return false; }

#endif

}  // namespace tx::cpu
