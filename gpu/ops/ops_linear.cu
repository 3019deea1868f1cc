// Linear layers on the GPU with cuBLAS (twin of core/ops/ops_linear.cpp).
// cuBLAS is column-major; our buffers are row-major. A row-major (R,C) matrix is the column-major
// (C,R) matrix with leading dimension C, i.e. its transpose, so each product is written for the
// transposes:  out = inp·Wᵀ  becomes  outᵀ = W·inpᵀ, and so on (the comments give both forms).
#include "common/cuda_check.h"
#include "ops.cuh"

namespace tx::cuda {

namespace {

__global__ void broadcast_bias_kernel(float* out, const float* bias, int N, int OC) {
    // out (N,OC) = bias (OC) in every row, or 0 without a bias; the GEMM then adds with beta = 1
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < static_cast<long long>(N) * OC) out[i] = bias ? bias[i % OC] : 0.0f;
}

constexpr int BIAS_COLUMNS = 32;   // columns per block (one warp wide: coalesced row reads)
constexpr int BIAS_ROWS = 8;       // row phases per block
constexpr int BIAS_ROW_CHUNK = 256;

__global__ void bias_backward_kernel(float* dbias, const float* dout, int N, int OC) {
    // dbias (OC) += Σ_n dout (N,OC). Block (32,8) takes 32 columns and BIAS_ROW_CHUNK rows;
    // partial sums meet in shared memory, then one atomic per column and block.
    __shared__ float partial[BIAS_ROWS][BIAS_COLUMNS];
    const int oc = blockIdx.x * BIAS_COLUMNS + threadIdx.x;
    const int row_begin = blockIdx.y * BIAS_ROW_CHUNK;
    const int row_end = min(N, row_begin + BIAS_ROW_CHUNK);
    float sum = 0.0f;
    if (oc < OC)
        for (int n = row_begin + threadIdx.y; n < row_end; n += BIAS_ROWS) sum += dout[static_cast<long long>(n) * OC + oc];
    partial[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && oc < OC) {
        for (int r = 1; r < BIAS_ROWS; ++r) sum += partial[r][threadIdx.x];
        atomicAdd(&dbias[oc], sum);
    }
}

}  // namespace

void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC,
                    cublasHandle_t blas, cudaStream_t stream) {
    // out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias;  column-major: outᵀ (OC,N) = W·inpᵀ
    if (N == 0 || OC == 0) return;
    const long long n = static_cast<long long>(N) * OC;
    broadcast_bias_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(out, bias, N, OC);
    check_launch("linear_forward");
    const float one = 1.0f;
    check(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, OC, N, C, &one, weight, C, inp, C, &one, out, OC),
          "linear_forward");
}

void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int N, int C, int OC, cublasHandle_t blas, cudaStream_t stream) {
    if (N == 0) return;
    const float one = 1.0f;
    if (dinp)   // dinp (N,C) += dout (N,OC) · W (OC,C);  column-major: dinpᵀ (C,N) += Wᵀ·doutᵀ
        check(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, C, N, OC, &one, weight, C, dout, OC, &one, dinp, C),
              "linear_backward");
    if (dweight)   // dW (OC,C) += doutᵀ (OC,N) · inp (N,C);  column-major: dWᵀ (C,OC) += inpᵀ·dout
        check(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, C, OC, N, &one, inp, C, dout, OC, &one, dweight, C),
              "linear_backward");
    if (dbias) {
        const dim3 block(BIAS_COLUMNS, BIAS_ROWS);
        const dim3 grid(blocks_for(OC, BIAS_COLUMNS), blocks_for(N, BIAS_ROW_CHUNK));
        bias_backward_kernel<<<grid, block, 0, stream>>>(dbias, dout, N, OC);
        check_launch("linear_backward");
    }
}

}  // namespace tx::cuda
