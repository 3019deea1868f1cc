// CUDA twins of core/include/tx/ops.h: the same names and argument order (outputs, inputs, sizes), plus the
// stream they are queued on last — or, for the ops that are matrix products, the cuBLAS handle
// bound to that stream. Pointers are device pointers. Shape letters as ops.h: B batch, T query
// length, S key length, D model width, H heads, dk = D/H, V vocabulary, N rows, C columns.
// Every backward ACCUMULATES (+=) into its gradient outputs, as on the CPU; null gradient
// outputs are skipped where the CPU op allows null. Launch errors throw tx::DeviceError.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tx::cuda {

// embedding (ops_embedding.cu)
void embedding_forward(float* out, const int32_t* ids, const float* weight, int N, int D, float scale,
                       cudaStream_t stream);
void embedding_backward(float* dweight, const float* dout, const int32_t* ids, int N, int D, float scale,
                        cudaStream_t stream);
void positional_forward(float* out, const float* inp, const float* pe, int B, int T, int D, cudaStream_t stream);
void positional_backward(float* dinp, const float* dout, int B, int T, int D, cudaStream_t stream);

// linear (ops_linear.cu): cuBLAS on row-major buffers
void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC,
                    cublasHandle_t blas, cudaStream_t stream);
void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int N, int C, int OC, cublasHandle_t blas, cudaStream_t stream);

// attention, step by step (ops_attention.cu)
void split_heads_forward(float* out, const float* inp, int B, int T, int H, int dk, cudaStream_t stream);
void split_heads_backward(float* dinp, const float* dout, int B, int T, int H, int dk, cudaStream_t stream);
void merge_heads_forward(float* out, const float* inp, int B, int T, int H, int dk, cudaStream_t stream);
void merge_heads_backward(float* dinp, const float* dout, int B, int T, int H, int dk, cudaStream_t stream);
void scores_forward(float* out, const float* q, const float* k, int B, int H, int T, int S, int dk, float scale,
                    cublasHandle_t blas);
void scores_backward(float* dq, float* dk_, const float* dout, const float* q, const float* k, int B, int H, int T,
                     int S, int dk, float scale, cublasHandle_t blas);
void attention_mask_forward(float* out, const float* scores, const float* mask, int B, int H, int T, int S,
                            cudaStream_t stream);
void attention_mask_backward(float* dscores, const float* dout, const float* mask, int B, int H, int T, int S,
                             cudaStream_t stream);
void softmax_forward(float* probs, const float* inp, int R, int C, cudaStream_t stream);
void softmax_backward(float* dinp, const float* dout, const float* probs, int R, int C, cudaStream_t stream);
void context_forward(float* out, const float* probs, const float* v, int B, int H, int T, int S, int dk,
                     cublasHandle_t blas);
void context_backward(float* dprobs, float* dv, const float* dout, const float* probs, const float* v, int B, int H,
                      int T, int S, int dk, cublasHandle_t blas);

// attention, fused (ops_attention_fused.cu): online softmax over key tiles, forward only
void fused_attention_forward(float* out, const float* q, const float* k, const float* v, const float* mask, int B,
                             int H, int T, int S, int dk, float scale, cudaStream_t stream);

// elementwise (ops_elementwise.cu)
void residual_forward(float* out, const float* a, const float* b, int N, cudaStream_t stream);
void residual_backward(float* da, float* db, const float* dout, int N, cudaStream_t stream);
void relu_forward(float* out, const float* inp, int N, cudaStream_t stream);
void relu_backward(float* dinp, const float* dout, const float* out, int N, cudaStream_t stream);
void dropout_forward(float* out, float* mask, const float* inp, int N, float p, uint64_t seed, cudaStream_t stream);
void dropout_backward(float* dinp, const float* dout, const float* mask, int N, cudaStream_t stream);

// layer normalisation (ops_norm.cu)
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C, float eps, cudaStream_t stream);
void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int N, int C, cudaStream_t stream);

// loss (ops_loss.cu)
void log_softmax_forward(float* out, const float* inp, int R, int V, cudaStream_t stream);
void log_softmax_backward(float* dinp, const float* dout, const float* out, int R, int V, cudaStream_t stream);
void cross_entropy_forward(float* losses, const float* log_probs, const int32_t* targets, int R, int V,
                           float smoothing, int pad_id, cudaStream_t stream);
void cross_entropy_backward(float* dlog_probs, const float* dlosses, const int32_t* targets, int R, int V,
                            float smoothing, int pad_id, cudaStream_t stream);
void cross_entropy_log_softmax_backward(float* dlogits, const float* dlosses, const float* log_probs,
                                        const int32_t* targets, int R, int V, float smoothing, int pad_id,
                                        cudaStream_t stream);

// optimizer (ops_adam.cu): Σ x² in double (scratch: one device double; waits for the result),
// x *= factor, and Adam as one kernel over the flat buffers
double squared_norm(const float* x, int64_t n, double* scratch, cudaStream_t stream);
void scale(float* x, int64_t n, float factor, cudaStream_t stream);
void adam_update(float* params, float* m, float* v, const float* grads, int64_t n, float lr, float beta1,
                 float beta2, float eps, int64_t t, cudaStream_t stream);

// modern variants: RoPE (ops_rope.cu), ALiBi (ops_alibi.cu), learned positions' gradient
// (ops_embedding.cu), GELU and SwiGLU (ops_activation.cu), RMSNorm (ops_norm.cu)
void rope_forward(float* out, const float* inp, int B, int H, int T, int dk, int pos0, cudaStream_t stream);
void rope_backward(float* dinp, const float* dout, int B, int H, int T, int dk, int pos0, cudaStream_t stream);
void alibi_forward(float* out, const float* scores, int B, int H, int T, int S, int q0, cudaStream_t stream);
void alibi_backward(float* dscores, const float* dout, int B, int H, int T, int S, cudaStream_t stream);
void alibi_slopes(float* slopes, int H, cudaStream_t stream);
void learned_positional_backward(float* dtable, const float* dout, int B, int T, int D, cudaStream_t stream);
void gelu_forward(float* out, const float* inp, int N, cudaStream_t stream);
void gelu_backward(float* dinp, const float* dout, const float* inp, int N, cudaStream_t stream);
void swiglu_forward(float* out, const float* gate, const float* up, int N, cudaStream_t stream);
void swiglu_backward(float* dgate, float* dup, const float* dout, const float* gate, const float* up, int N,
                     cudaStream_t stream);
void rmsnorm_forward(float* out, float* rstd, const float* inp, const float* weight, int N, int C, float eps,
                     cudaStream_t stream);
void rmsnorm_backward(float* dinp, float* dweight, const float* dout, const float* inp, const float* weight,
                      const float* rstd, int N, int C, cudaStream_t stream);

}  // namespace tx::cuda
