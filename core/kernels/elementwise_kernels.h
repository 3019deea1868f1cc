// The per-instruction-set kernels behind float ReLU forward and backward (ops_elementwise.cpp), the
// attention mask (ops_attention.cpp), the Adam update
// (ops_adam.cpp) and a linear layer's bias gradient (ops_linear.cpp), each in a unit of its own compiled with that set's -m flags (core/CMakeLists.txt),
// called only when cpu_isa.h's active path says the CPU can run them. Flat buffers of n floats. As
// gemm_kernels.h: the units hold no inline code shared with other units. Internal to core/.
#pragma once

namespace tx::cpu::kernels {

// dinp[i] += dout[i] where out[i] > 0 (out is the ReLU's output), dinp left as it is elsewhere, for
// i in [first, last): the bits of relu_backward's plain loop.
void relu_backward_avx512(float* dinp, const float* dout, const float* out, long first, long last);
void relu_backward_avx2(float* dinp, const float* dout, const float* out, long first, long last);

// out[i] = inp[i] > 0 ? inp[i] : +0 for i in [first, last) (out may be inp): relu_forward's bits.
void relu_forward_avx512(float* out, const float* inp, long first, long last);
void relu_forward_avx2(float* out, const float* inp, long first, long last);

// out[i] = mask[i] != 0 ? scores[i] : −inf for i < n (out may be scores): one head's
// attention_mask_forward, the mask's NaN keeping the score as C++'s != does.
void attention_mask_avx512(float* out, const float* scores, const float* mask, long n);
void attention_mask_avx2(float* out, const float* scores, const float* mask, long n);

// A linear layer's bias gradient: dbias[c] += Σ_n dout[n, c], dout (N,OC) row-major, each column's rows
// summed in order 0..N-1 into a sum that is then added to dbias[c].
void column_sums_add_avx512(float* dbias, const float* dout, int N, int OC);
void column_sums_add_avx2(float* dbias, const float* dout, int N, int OC);

// m = beta1·m + (1 − beta1)·g; v = beta2·v + ((1 − beta2)·g)·g; p −= (step·m) / (√v·inv_sqrt_bc2 + eps),
// each operation rounded as written (no fused multiply-adds), √ correctly rounded.
void adam_update_avx512(float* params, float* m, float* v, const float* grads, long n, float step, float beta1,
                        float beta2, float inv_sqrt_bc2, float eps);
void adam_update_avx2(float* params, float* m, float* v, const float* grads, long n, float step, float beta1,
                      float beta2, float inv_sqrt_bc2, float eps);

}  // namespace tx::cpu::kernels
