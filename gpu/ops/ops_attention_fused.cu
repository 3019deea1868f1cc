// Fused attention on the GPU (twin of core/ops/ops_attention_fused.cpp): FlashAttention's idea (Dao
// et al. 2022) in float32. A block takes QUERY_ROWS query rows of one (b,h) and PARTS threads a
// row; it walks the keys in tiles staged in shared memory, and each thread of a row takes every
// PARTS-th key of a tile, keeping its own running max m, running sum l and unnormalised context
// acc in registers. At the end the PARTS partial states of a row are merged with shuffles (the
// same rescaling as between tiles). The (T,S) scores never exist in memory.
// q (B,H,T,dk), k and v (B,H,S,dk), mask (B,T,S) or null, out (B,H,T,dk).
#include <cmath>
#include <string>

#include "common/cuda_check.h"
#include "ops.cuh"

namespace tx::cuda {

namespace {

// One thread a row (64-row blocks) left an H100 with 2 warps per multiprocessor at L = 1024 (8
// heads, batch 1): 15x the time of torch's SDPA. PARTS threads a row multiply the warps by PARTS
// with the same registers per thread: 3.6x faster at L = 512 and 1024, 1.9x at 2048 (docs/gpu.md).
// The price: a warp now covers 8 rows, so each shared-memory load feeds 8 rows' multiply-adds
// instead of 32, which is what bounds long rows and full grids (L = 4096: 8% slower than before;
// batch 32, L = 512: 3%). Tensor cores or a register-tiled product are the next step.
constexpr int QUERY_ROWS = 32;                    // query rows per block
constexpr int PARTS = 4;                          // threads per query row (adjacent lanes)
constexpr int THREADS = QUERY_ROWS * PARTS;

// DK_MAX bounds dk at compile time so that q and acc live in registers; KEYS (keys per thread and
// tile) keeps the two shared tiles plus the mask tile under the 48 KB of static shared memory.
// At dk 64 it takes 228 registers, 2 blocks a multiprocessor; a cap for 3 (170) spilled 92 bytes.
template <int DK_MAX, int KEYS>
__global__ void __launch_bounds__(THREADS)
    fused_attention_kernel(float* out, const float* q, const float* k, const float* v, const float* mask, int H,
                           int T, int S, int dk, float scale) {
    constexpr int KEY_TILE = KEYS * PARTS;
    // Row pitch DK_MAX + 4: the PARTS rows a warp reads at once start 4 banks apart, so neither
    // 4- nor 16-byte loads conflict (rows stay 16-byte aligned).
    constexpr int PITCH = DK_MAX + 4;
    __shared__ __align__(16) float k_tile[KEY_TILE][PITCH];
    __shared__ __align__(16) float v_tile[KEY_TILE][PITCH];
    __shared__ float keep_tile[QUERY_ROWS][KEY_TILE + 1];   // +1: rows start in different banks

    const int bh = blockIdx.y;
    const int b = bh / H;
    const int row = threadIdx.x / PARTS, part = threadIdx.x % PARTS;
    const int row0 = blockIdx.x * QUERY_ROWS;
    const int t = row0 + row;
    const bool active = t < T;
    const float* kb = k + static_cast<long long>(bh) * S * dk;
    const float* vb = v + static_cast<long long>(bh) * S * dk;

    float qr[DK_MAX], acc[DK_MAX];
#pragma unroll
    for (int d = 0; d < DK_MAX; ++d) {
        // the scale folded into q: s = (q·scale)·k, one multiply per element instead of per score
        qr[d] = active && d < dk ? q[(static_cast<long long>(bh) * T + t) * dk + d] * scale : 0.0f;
        acc[d] = 0.0f;
    }
    float m = -INFINITY;   // running max of this thread's scores
    float l = 0.0f;        // running Σ exp(s - m)

    for (int j0 = 0; j0 < S; j0 += KEY_TILE) {
        const int n = min(KEY_TILE, S - j0);
        for (int i = threadIdx.x; i < n * dk; i += THREADS) {
            const int r = i / dk, d = i % dk;
            k_tile[r][d] = kb[static_cast<long long>(j0 + r) * dk + d];
            v_tile[r][d] = vb[static_cast<long long>(j0 + r) * dk + d];
        }
        for (int i = threadIdx.x; i < QUERY_ROWS * KEY_TILE; i += THREADS) {
            const int r = i / KEY_TILE, c = i % KEY_TILE;
            const int tr = row0 + r;
            float keep = 0.0f;
            if (tr < T && c < n) keep = mask ? mask[(static_cast<long long>(b) * T + tr) * S + j0 + c] : 1.0f;
            keep_tile[r][c] = keep;
        }
        __syncthreads();
        if (active) {
            // this thread's keys of the tile: c = j·PARTS + part
            float s[KEYS];
#pragma unroll
            for (int j = 0; j < KEYS; ++j) s[j] = 0.0f;
#pragma unroll
            for (int d = 0; d < DK_MAX; ++d) {
                if (d < dk) {
#pragma unroll
                    for (int j = 0; j < KEYS; ++j)
                        if (j * PARTS + part < n) s[j] += qr[d] * k_tile[j * PARTS + part][d];
                }
            }
            float tile_max = -INFINITY;
#pragma unroll
            for (int j = 0; j < KEYS; ++j) {
                const int c = j * PARTS + part;
                if (c >= n || keep_tile[row][c] == 0.0f) s[j] = -INFINITY;   // masked: -inf
                tile_max = fmaxf(tile_max, s[j]);
            }
            const float m_new = fmaxf(m, tile_max);
            if (m_new != -INFINITY) {   // else every key so far masked: nothing to add yet
                if (m_new != m) {
                    // m = -inf only before anything was summed (l = acc = 0): avoid -inf - -inf
                    const float correction = m == -INFINITY ? 0.0f : expf(m - m_new);
                    l *= correction;
#pragma unroll
                    for (int d = 0; d < DK_MAX; ++d) acc[d] *= correction;
                    m = m_new;
                }
#pragma unroll
                for (int j = 0; j < KEYS; ++j) {
                    if (s[j] == -INFINITY) continue;   // a masked key gets exactly nothing
                    const float p = expf(s[j] - m);
                    l += p;
#pragma unroll
                    for (int d = 0; d < DK_MAX; ++d)
                        if (d < dk) acc[d] += p * v_tile[j * PARTS + part][d];
                }
            }
        }
        __syncthreads();   // the tiles are overwritten next
    }
    // Merge the PARTS states of a row (adjacent lanes of one warp; every thread gets here, the
    // inactive rows' with m = -inf, l = 0): rescale each to the row's max and add.
    float m_row = m;
#pragma unroll
    for (int offset = 1; offset < PARTS; offset *= 2) m_row = fmaxf(m_row, __shfl_xor_sync(0xffffffffu, m_row, offset));
    const float weight = m == -INFINITY ? 0.0f : expf(m - m_row);   // a part that saw no key adds nothing
    float l_row = l * weight;
#pragma unroll
    for (int offset = 1; offset < PARTS; offset *= 2) l_row += __shfl_xor_sync(0xffffffffu, l_row, offset);
#pragma unroll
    for (int d = 0; d < DK_MAX; ++d) {
        float a = acc[d] * weight;
#pragma unroll
        for (int offset = 1; offset < PARTS; offset *= 2) a += __shfl_xor_sync(0xffffffffu, a, offset);
        acc[d] = a;
    }
    if (!active || part != 0) return;
    // l_row = 0 only for a fully masked row: zeros, as softmax_forward gives
    const float inv = l_row > 0.0f ? 1.0f / l_row : 0.0f;
    float* o = out + (static_cast<long long>(bh) * T + t) * dk;
#pragma unroll
    for (int d = 0; d < DK_MAX; ++d)
        if (d < dk) o[d] = acc[d] * inv;
}

template <int DK_MAX, int KEYS>
void launch(float* out, const float* q, const float* k, const float* v, const float* mask, int B, int H, int T, int S,
            int dk, float scale, cudaStream_t stream) {
    const dim3 grid(blocks_for(T, QUERY_ROWS), static_cast<unsigned int>(B * H));
    fused_attention_kernel<DK_MAX, KEYS><<<grid, THREADS, 0, stream>>>(out, q, k, v, mask, H, T, S, dk, scale);
}

}  // namespace

void fused_attention_forward(float* out, const float* q, const float* k, const float* v, const float* mask, int B,
                             int H, int T, int S, int dk, float scale, cudaStream_t stream) {
    if (static_cast<long long>(B) * H * T * dk == 0) return;
    if (S == 0) {   // no keys at all: every row is "fully masked"
        check(cudaMemsetAsync(out, 0, static_cast<size_t>(B) * H * T * dk * sizeof(float), stream),
              "fused_attention_forward");
        return;
    }
    // keys per thread and tile: 8 (tiles of 32 keys), 4 at dk 256 to stay under 48 KB
    if (dk <= 16) launch<16, 8>(out, q, k, v, mask, B, H, T, S, dk, scale, stream);
    else if (dk <= 32) launch<32, 8>(out, q, k, v, mask, B, H, T, S, dk, scale, stream);
    else if (dk <= 64) launch<64, 8>(out, q, k, v, mask, B, H, T, S, dk, scale, stream);
    else if (dk <= 128) launch<128, 8>(out, q, k, v, mask, B, H, T, S, dk, scale, stream);
    else if (dk <= 256) launch<256, 4>(out, q, k, v, mask, B, H, T, S, dk, scale, stream);
    else
        throw DeviceError("cuda fused_attention_forward: dk = " + std::to_string(dk) +
                          " is above the kernel's limit of 256 (use the step-by-step attention)");
    check_launch("fused_attention_forward");
}

}  // namespace tx::cuda
