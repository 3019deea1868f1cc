// Fused attention on the GPU (twin of core/ops_attention_fused.cpp): FlashAttention's idea (Dao
// et al. 2022) in float32. A block takes QUERY_ROWS query rows of one (b,h), one thread a row;
// it walks the keys in tiles of KEY_TILE rows of k and v staged in shared memory (every thread
// reads the same key at once: a broadcast, no bank conflicts) and keeps, per row, the running
// max m, the running sum l and the unnormalised context acc in registers. The (T,S) scores never
// exist in memory. q (B,H,T,dk), k and v (B,H,S,dk), mask (B,T,S) or null, out (B,H,T,dk).
#include <cmath>
#include <string>

#include "cuda_check.h"
#include "ops.cuh"

namespace tx::cuda {

namespace {

constexpr int QUERY_ROWS = 64;   // threads (and query rows) per block
constexpr int SUB_TILE = 8;      // keys scored together: 8 independent dot products in flight

// DK_MAX bounds dk at compile time so that q and acc live in registers; KEY_TILE keeps the two
// shared tiles plus the mask tile under the 48 KB of static shared memory.
template <int DK_MAX, int KEY_TILE>
__global__ void __launch_bounds__(QUERY_ROWS)
    fused_attention_kernel(float* out, const float* q, const float* k, const float* v, const float* mask, int H,
                           int T, int S, int dk, float scale) {
    __shared__ float k_tile[KEY_TILE][DK_MAX];
    __shared__ float v_tile[KEY_TILE][DK_MAX];
    __shared__ float keep_tile[QUERY_ROWS][KEY_TILE + 1];   // +1: rows start in different banks

    const int bh = blockIdx.y;
    const int b = bh / H;
    const int row0 = blockIdx.x * QUERY_ROWS;
    const int t = row0 + threadIdx.x;
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
    float m = -INFINITY;   // running max of this row's scores
    float l = 0.0f;        // running Σ exp(s - m)

    for (int j0 = 0; j0 < S; j0 += KEY_TILE) {
        const int n = min(KEY_TILE, S - j0);
        for (int i = threadIdx.x; i < n * dk; i += QUERY_ROWS) {
            const int r = i / dk, d = i % dk;
            k_tile[r][d] = kb[static_cast<long long>(j0 + r) * dk + d];
            v_tile[r][d] = vb[static_cast<long long>(j0 + r) * dk + d];
        }
        for (int i = threadIdx.x; i < QUERY_ROWS * KEY_TILE; i += QUERY_ROWS) {
            const int r = i / KEY_TILE, c = i % KEY_TILE;
            const int tr = row0 + r;
            float keep = 0.0f;
            if (tr < T && c < n) keep = mask ? mask[(static_cast<long long>(b) * T + tr) * S + j0 + c] : 1.0f;
            keep_tile[r][c] = keep;
        }
        __syncthreads();
        if (active) {
            for (int c0 = 0; c0 < n; c0 += SUB_TILE) {
                float s[SUB_TILE];
#pragma unroll
                for (int j = 0; j < SUB_TILE; ++j) s[j] = 0.0f;
#pragma unroll
                for (int d = 0; d < DK_MAX; ++d) {
                    if (d < dk) {
#pragma unroll
                        for (int j = 0; j < SUB_TILE; ++j)
                            if (c0 + j < n) s[j] += qr[d] * k_tile[c0 + j][d];
                    }
                }
                float sub_max = -INFINITY;
#pragma unroll
                for (int j = 0; j < SUB_TILE; ++j) {
                    if (c0 + j >= n || keep_tile[threadIdx.x][c0 + j] == 0.0f) s[j] = -INFINITY;   // masked: -inf
                    sub_max = fmaxf(sub_max, s[j]);
                }
                const float m_new = fmaxf(m, sub_max);
                if (m_new == -INFINITY) continue;   // every key so far masked: nothing to add yet
                if (m_new != m) {
                    // m = -inf only before anything was summed (l = acc = 0): avoid -inf - -inf
                    const float correction = m == -INFINITY ? 0.0f : expf(m - m_new);
                    l *= correction;
#pragma unroll
                    for (int d = 0; d < DK_MAX; ++d) acc[d] *= correction;
                    m = m_new;
                }
#pragma unroll
                for (int j = 0; j < SUB_TILE; ++j) {
                    if (s[j] == -INFINITY) continue;   // a masked key gets exactly nothing
                    const float p = expf(s[j] - m);
                    l += p;
#pragma unroll
                    for (int d = 0; d < DK_MAX; ++d)
                        if (d < dk) acc[d] += p * v_tile[c0 + j][d];
                }
            }
        }
        __syncthreads();   // the tiles are overwritten next
    }
    if (!active) return;
    // l = 0 only for a fully masked row: zeros, as softmax_forward gives
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    float* o = out + (static_cast<long long>(bh) * T + t) * dk;
#pragma unroll
    for (int d = 0; d < DK_MAX; ++d)
        if (d < dk) o[d] = acc[d] * inv;
}

template <int DK_MAX, int KEY_TILE>
void launch(float* out, const float* q, const float* k, const float* v, const float* mask, int B, int H, int T, int S,
            int dk, float scale, cudaStream_t stream) {
    const dim3 grid(blocks_for(T, QUERY_ROWS), static_cast<unsigned int>(B * H));
    fused_attention_kernel<DK_MAX, KEY_TILE><<<grid, QUERY_ROWS, 0, stream>>>(out, q, k, v, mask, H, T, S, dk, scale);
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
    if (dk <= 16) launch<16, 32>(out, q, k, v, mask, B, H, T, S, dk, scale, stream);
    else if (dk <= 32) launch<32, 32>(out, q, k, v, mask, B, H, T, S, dk, scale, stream);
    else if (dk <= 64) launch<64, 32>(out, q, k, v, mask, B, H, T, S, dk, scale, stream);
    else if (dk <= 128) launch<128, 32>(out, q, k, v, mask, B, H, T, S, dk, scale, stream);
    else if (dk <= 256) launch<256, 16>(out, q, k, v, mask, B, H, T, S, dk, scale, stream);
    else
        throw DeviceError("cuda fused_attention_forward: dk = " + std::to_string(dk) +
                          " is above the kernel's limit of 256 (use the step-by-step attention)");
    check_launch("fused_attention_forward");
}

}  // namespace tx::cuda
