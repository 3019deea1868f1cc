// The training loss on the GPU (twin of core/ops/ops_loss.cpp): log_softmax over the vocabulary and
// the label-smoothed cross-entropy as the Annotated Transformer's KL divergence. log_probs (R,V),
// targets and losses (R). One warp a row.
#include <cmath>

#include "common/cuda_check.h"
#include "ops.cuh"
#include "common/warp_reduce.cuh"

namespace tx::cuda {

namespace {

constexpr int ROWS_PER_BLOCK = 4;
constexpr int THREADS = 256;

// The smoothed target of one row: 1 - smoothing on the target, 0 on pad, smoothing/(V-2) on the
// V-2 others (as core/ops/ops_loss.cpp's SmoothedTarget).
struct SmoothedTarget {
    float on, off;
    int target, pad;
    __device__ float operator()(int v) const { return v == target ? on : (v == pad ? 0.0f : off); }
};

__device__ inline SmoothedTarget smoothed_target(int target, int V, float smoothing, int pad_id) {
    return {1.0f - smoothing, V > 2 ? smoothing / static_cast<float>(V - 2) : 0.0f, target, pad_id};
}

__global__ void log_softmax_forward_kernel(float* out, const float* inp, int R, int V) {
    // out = x - max - log Σ exp(x - max)
    const int lane = threadIdx.x % WARP;
    const long long r = blockIdx.x * static_cast<long long>(ROWS_PER_BLOCK) + threadIdx.x / WARP;
    if (r >= R) return;
    const float* x = inp + r * V;
    float* o = out + r * V;
    float maxval, sum;
    warp_row_max_sumexp(x, V, maxval, sum);
    const float lse = maxval + logf(sum);   // a row of -inf gives -inf - -inf = NaN, as the CPU op
    for (int v = lane; v < V; v += WARP) o[v] = x[v] - lse;
}

__global__ void log_softmax_backward_kernel(float* dinp, const float* dout, const float* out, int R, int V) {
    // dinp += dout - exp(out) * Σ_v dout
    const int lane = threadIdx.x % WARP;
    const long long r = blockIdx.x * static_cast<long long>(ROWS_PER_BLOCK) + threadIdx.x / WARP;
    if (r >= R) return;
    const float* g = dout + r * V;
    const float* o = out + r * V;
    float* dx = dinp + r * V;
    float gsum = 0.0f;
    for (int v = lane; v < V; v += WARP) gsum += g[v];
    gsum = warp_sum(gsum);
    for (int v = lane; v < V; v += WARP) dx[v] += g[v] - expf(o[v]) * gsum;
}

__global__ void cross_entropy_forward_kernel(float* losses, const float* log_probs, const int32_t* targets, int R,
                                             int V, float smoothing, int pad_id) {
    // losses (R) = Σ_v t_v (log t_v - log_probs_v), skipping t_v = 0 (0·log 0 = 0, and 0·-inf
    // would be NaN); a pad target has no loss
    const int lane = threadIdx.x % WARP;
    const long long r = blockIdx.x * static_cast<long long>(ROWS_PER_BLOCK) + threadIdx.x / WARP;
    if (r >= R) return;
    if (targets[r] == pad_id) {
        if (lane == 0) losses[r] = 0.0f;
        return;
    }
    const SmoothedTarget t = smoothed_target(targets[r], V, smoothing, pad_id);
    const float* lp = log_probs + r * V;
    float loss = 0.0f;
    for (int v = lane; v < V; v += WARP) {
        const float tv = t(v);
        if (tv > 0.0f) loss += tv * (logf(tv) - lp[v]);
    }
    loss = warp_sum(loss);
    if (lane == 0) losses[r] = loss;
}

__global__ void cross_entropy_backward_kernel(float* dlog_probs, const float* dlosses, const int32_t* targets, int R,
                                              int V, float smoothing, int pad_id) {
    // dlog_probs (R,V) += -t_v * dlosses[r]; pad rows get nothing
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= static_cast<long long>(R) * V) return;
    const long long r = i / V;
    if (targets[r] == pad_id) return;
    const SmoothedTarget t = smoothed_target(targets[r], V, smoothing, pad_id);
    dlog_probs[i] -= t(static_cast<int>(i % V)) * dlosses[r];
}

__global__ void cross_entropy_log_softmax_backward_kernel(float* dlogits, const float* dlosses, const float* log_probs,
                                                         const int32_t* targets, int R, int V, float smoothing,
                                                         int pad_id) {
    // dlogits (R,V) += dl · (p_v Σt − t_v), p = exp(log_probs); pad rows get nothing
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= static_cast<long long>(R) * V) return;
    const long long r = i / V;
    if (targets[r] == pad_id) return;
    const SmoothedTarget t = smoothed_target(targets[r], V, smoothing, pad_id);
    const float total = t.on + (V > 2 ? t.off * static_cast<float>(V - 2) : 0.0f);
    dlogits[i] += dlosses[r] * (expf(log_probs[i]) * total - t(static_cast<int>(i % V)));
}

}  // namespace

void log_softmax_forward(float* out, const float* inp, int R, int V, cudaStream_t stream) {
    if (R <= 0 || V <= 0) return;
    log_softmax_forward_kernel<<<blocks_for(R, ROWS_PER_BLOCK), ROWS_PER_BLOCK * WARP, 0, stream>>>(out, inp, R, V);
    check_launch("log_softmax_forward");
}

void log_softmax_backward(float* dinp, const float* dout, const float* out, int R, int V, cudaStream_t stream) {
    if (R <= 0 || V <= 0) return;
    log_softmax_backward_kernel<<<blocks_for(R, ROWS_PER_BLOCK), ROWS_PER_BLOCK * WARP, 0, stream>>>(dinp, dout, out,
                                                                                                    R, V);
    check_launch("log_softmax_backward");
}

void cross_entropy_forward(float* losses, const float* log_probs, const int32_t* targets, int R, int V,
                           float smoothing, int pad_id, cudaStream_t stream) {
    if (R <= 0) return;
    cross_entropy_forward_kernel<<<blocks_for(R, ROWS_PER_BLOCK), ROWS_PER_BLOCK * WARP, 0, stream>>>(
        losses, log_probs, targets, R, V, smoothing, pad_id);
    check_launch("cross_entropy_forward");
}

void cross_entropy_backward(float* dlog_probs, const float* dlosses, const int32_t* targets, int R, int V,
                            float smoothing, int pad_id, cudaStream_t stream) {
    const long long n = static_cast<long long>(R) * V;
    if (n <= 0) return;
    cross_entropy_backward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(dlog_probs, dlosses, targets, R, V,
                                                                                  smoothing, pad_id);
    check_launch("cross_entropy_backward");
}

void cross_entropy_log_softmax_backward(float* dlogits, const float* dlosses, const float* log_probs,
                                        const int32_t* targets, int R, int V, float smoothing, int pad_id,
                                        cudaStream_t stream) {
    const long long n = static_cast<long long>(R) * V;
    if (n <= 0) return;
    cross_entropy_log_softmax_backward_kernel<<<blocks_for(n, THREADS), THREADS, 0, stream>>>(
        dlogits, dlosses, log_probs, targets, R, V, smoothing, pad_id);
    check_launch("cross_entropy_log_softmax_backward");
}

}  // namespace tx::cuda
