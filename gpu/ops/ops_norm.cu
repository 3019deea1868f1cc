// Layer normalisation on the GPU (twin of core/ops/ops_norm.cpp), as torch.nn.LayerNorm: biased
// variance, eps inside the square root. inp, out (N,C); weight, bias (C); mean, rstd (N) cached.
// One warp a row for the row work; the parameter gradients are column sums over the N rows.
// RMSNorm (twin of core/ops/ops_norm.cpp's, Zhang & Sennrich 2019) below it, with the same layout.
#include "common/cuda_check.h"
#include "ops.cuh"
#include "common/warp_reduce.cuh"

namespace tx::cuda {

namespace {

constexpr int ROWS_PER_BLOCK = 4;
constexpr int COLUMNS = 32, ROW_PHASES = 8, ROW_CHUNK = 256;   // column-sum blocks, as linear's dbias

__global__ void layernorm_forward_kernel(float* out, float* mean, float* rstd, const float* inp,
                                         const float* weight, const float* bias, int N, int C, float eps) {
    const int lane = threadIdx.x % WARP;
    const long long n = blockIdx.x * static_cast<long long>(ROWS_PER_BLOCK) + threadIdx.x / WARP;
    if (n >= N) return;
    const float* x = inp + n * C;
    float* o = out + n * C;
    float sum = 0.0f;
    for (int c = lane; c < C; c += WARP) sum += x[c];
    const float m = warp_sum(sum) / C;
    // two passes (mean, then squared deviations): no cancellation as in E[x²] - E[x]²
    float sq = 0.0f;
    for (int c = lane; c < C; c += WARP) sq += (x[c] - m) * (x[c] - m);
    const float s = 1.0f / sqrtf(warp_sum(sq) / C + eps);
    for (int c = lane; c < C; c += WARP) o[c] = (x[c] - m) * s * weight[c] + bias[c];
    if (lane == 0) {
        mean[n] = m;
        rstd[n] = s;
    }
}

__global__ void layernorm_backward_input_kernel(float* dinp, const float* dout, const float* inp,
                                                const float* weight, const float* mean, const float* rstd, int N,
                                                int C) {
    // dx += rstd * (dxhat - mean_c(dxhat) - xhat * mean_c(dxhat * xhat)), dxhat = dout*weight
    const int lane = threadIdx.x % WARP;
    const long long n = blockIdx.x * static_cast<long long>(ROWS_PER_BLOCK) + threadIdx.x / WARP;
    if (n >= N) return;
    const float* x = inp + n * C;
    const float* g = dout + n * C;
    float* dx = dinp + n * C;
    const float m = mean[n], s = rstd[n];
    float dxhat_sum = 0.0f, dxhat_xhat_sum = 0.0f;
    for (int c = lane; c < C; c += WARP) {
        const float dxhat = g[c] * weight[c];
        dxhat_sum += dxhat;
        dxhat_xhat_sum += dxhat * (x[c] - m) * s;
    }
    const float dxhat_mean = warp_sum(dxhat_sum) / C;
    const float dxhat_xhat_mean = warp_sum(dxhat_xhat_sum) / C;
    for (int c = lane; c < C; c += WARP) {
        const float xhat = (x[c] - m) * s;
        dx[c] += s * (g[c] * weight[c] - dxhat_mean - xhat * dxhat_xhat_mean);
    }
}

__global__ void layernorm_backward_params_kernel(float* dweight, float* dbias, const float* dout, const float* inp,
                                                 const float* mean, const float* rstd, int N, int C) {
    // dweight (C) += Σ_n xhat·dout, dbias (C) += Σ_n dout: block (32,8) sums 32 columns over
    // ROW_CHUNK rows, then one atomic per column and block
    __shared__ float part_w[ROW_PHASES][COLUMNS], part_b[ROW_PHASES][COLUMNS];
    const int c = blockIdx.x * COLUMNS + threadIdx.x;
    const int row_begin = blockIdx.y * ROW_CHUNK;
    const int row_end = min(N, row_begin + ROW_CHUNK);
    float sw = 0.0f, sb = 0.0f;
    if (c < C)
        for (int n = row_begin + threadIdx.y; n < row_end; n += ROW_PHASES) {
            const long long i = static_cast<long long>(n) * C + c;
            sw += (inp[i] - mean[n]) * rstd[n] * dout[i];
            sb += dout[i];
        }
    part_w[threadIdx.y][threadIdx.x] = sw;
    part_b[threadIdx.y][threadIdx.x] = sb;
    __syncthreads();
    if (threadIdx.y == 0 && c < C) {
        for (int r = 1; r < ROW_PHASES; ++r) {
            sw += part_w[r][threadIdx.x];
            sb += part_b[r][threadIdx.x];
        }
        atomicAdd(&dweight[c], sw);
        atomicAdd(&dbias[c], sb);
    }
}

}  // namespace

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C, float eps, cudaStream_t stream) {
    if (N <= 0 || C <= 0) return;
    layernorm_forward_kernel<<<blocks_for(N, ROWS_PER_BLOCK), ROWS_PER_BLOCK * WARP, 0, stream>>>(
        out, mean, rstd, inp, weight, bias, N, C, eps);
    check_launch("layernorm_forward");
}

void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int N, int C, cudaStream_t stream) {
    if (N <= 0 || C <= 0) return;
    layernorm_backward_input_kernel<<<blocks_for(N, ROWS_PER_BLOCK), ROWS_PER_BLOCK * WARP, 0, stream>>>(
        dinp, dout, inp, weight, mean, rstd, N, C);
    check_launch("layernorm_backward");
    const dim3 grid(blocks_for(C, COLUMNS), blocks_for(N, ROW_CHUNK));
    layernorm_backward_params_kernel<<<grid, dim3(COLUMNS, ROW_PHASES), 0, stream>>>(dweight, dbias, dout, inp, mean,
                                                                                   rstd, N, C);
    check_launch("layernorm_backward");
}

namespace {

__global__ void rmsnorm_forward_kernel(float* out, float* rstd, const float* inp, const float* weight, int N, int C,
                                       float eps) {
    // out = x·rstd·weight, rstd = 1/sqrt(mean(x²) + eps)
    const int lane = threadIdx.x % WARP;
    const long long n = blockIdx.x * static_cast<long long>(ROWS_PER_BLOCK) + threadIdx.x / WARP;
    if (n >= N) return;
    const float* x = inp + n * C;
    float* o = out + n * C;
    float sq = 0.0f;
    for (int c = lane; c < C; c += WARP) sq += x[c] * x[c];
    const float s = 1.0f / sqrtf(warp_sum(sq) / C + eps);
    for (int c = lane; c < C; c += WARP) o[c] = x[c] * s * weight[c];
    if (lane == 0) rstd[n] = s;
}

__global__ void rmsnorm_backward_input_kernel(float* dinp, const float* dout, const float* inp, const float* weight,
                                              const float* rstd, int N, int C) {
    // dx += rstd·(dxhat − xhat·mean_c(dxhat·xhat)), xhat = x·rstd, dxhat = dout·weight
    const int lane = threadIdx.x % WARP;
    const long long n = blockIdx.x * static_cast<long long>(ROWS_PER_BLOCK) + threadIdx.x / WARP;
    if (n >= N) return;
    const float* x = inp + n * C;
    const float* g = dout + n * C;
    float* dx = dinp + n * C;
    const float s = rstd[n];
    float dxhat_xhat_sum = 0.0f;
    for (int c = lane; c < C; c += WARP) dxhat_xhat_sum += g[c] * weight[c] * x[c] * s;
    const float dxhat_xhat_mean = warp_sum(dxhat_xhat_sum) / C;
    for (int c = lane; c < C; c += WARP) dx[c] += s * (g[c] * weight[c] - x[c] * s * dxhat_xhat_mean);
}

__global__ void rmsnorm_backward_weight_kernel(float* dweight, const float* dout, const float* inp, const float* rstd,
                                               int N, int C) {
    // dweight (C) += Σ_n xhat·dout, blocks as layernorm_backward_params_kernel
    __shared__ float part[ROW_PHASES][COLUMNS];
    const int c = blockIdx.x * COLUMNS + threadIdx.x;
    const int row_begin = blockIdx.y * ROW_CHUNK;
    const int row_end = min(N, row_begin + ROW_CHUNK);
    float sw = 0.0f;
    if (c < C)
        for (int n = row_begin + threadIdx.y; n < row_end; n += ROW_PHASES) {
            const long long i = static_cast<long long>(n) * C + c;
            sw += inp[i] * rstd[n] * dout[i];
        }
    part[threadIdx.y][threadIdx.x] = sw;
    __syncthreads();
    if (threadIdx.y == 0 && c < C) {
        for (int r = 1; r < ROW_PHASES; ++r) sw += part[r][threadIdx.x];
        atomicAdd(&dweight[c], sw);
    }
}

}  // namespace

void rmsnorm_forward(float* out, float* rstd, const float* inp, const float* weight, int N, int C, float eps,
                     cudaStream_t stream) {
    if (N <= 0 || C <= 0) return;
    rmsnorm_forward_kernel<<<blocks_for(N, ROWS_PER_BLOCK), ROWS_PER_BLOCK * WARP, 0, stream>>>(out, rstd, inp, weight,
                                                                                               N, C, eps);
    check_launch("rmsnorm_forward");
}

void rmsnorm_backward(float* dinp, float* dweight, const float* dout, const float* inp, const float* weight,
                      const float* rstd, int N, int C, cudaStream_t stream) {
    if (N <= 0 || C <= 0) return;
    rmsnorm_backward_input_kernel<<<blocks_for(N, ROWS_PER_BLOCK), ROWS_PER_BLOCK * WARP, 0, stream>>>(
        dinp, dout, inp, weight, rstd, N, C);
    check_launch("rmsnorm_backward");
    const dim3 grid(blocks_for(C, COLUMNS), blocks_for(N, ROW_CHUNK));
    rmsnorm_backward_weight_kernel<<<grid, dim3(COLUMNS, ROW_PHASES), 0, stream>>>(dweight, dout, inp, rstd, N, C);
    check_launch("rmsnorm_backward");
}

}  // namespace tx::cuda
