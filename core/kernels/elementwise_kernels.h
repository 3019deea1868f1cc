// The kernels behind float ReLU forward and backward (ops_elementwise.cpp), the attention mask
// (ops_attention.cpp), a linear layer's bias gradient (ops_linear.cpp) and the Adam update
// (ops_adam.cpp), as a table per instruction set: written once in elementwise_body.h, compiled per
// set in elementwise_avx2.cpp and elementwise_avx512.cpp (core/CMakeLists.txt), reached through
// cpu_kernels() (cpu_kernels.h). Flat buffers of n floats. Internal to core/.
#pragma once

namespace tx::cpu::kernels {

struct ElementwiseKernels {
    // dinp[i] += dout[i] where out[i] > 0 (out is the ReLU's output), dinp left as it is elsewhere,
    // for i in [first, last): the bits of relu_backward's plain loop.
    void (*relu_backward)(float* dinp, const float* dout, const float* out, long first, long last);
    // out[i] = inp[i] > 0 ? inp[i] : +0 for i in [first, last) (out may be inp): relu_forward's bits.
    void (*relu_forward)(float* out, const float* inp, long first, long last);
    // out[i] = mask[i] != 0 ? scores[i] : −inf for i < n (out may be scores): one head's
    // attention_mask_forward, the mask's NaN keeping the score as C++'s != does.
    void (*attention_mask)(float* out, const float* scores, const float* mask, long n);
    // A linear layer's bias gradient: dbias[c] += Σ_n dout[n, c], dout (N,OC) row-major, each
    // column's rows summed in order 0..N-1 into a sum that is then added to dbias[c].
    void (*column_sums_add)(float* dbias, const float* dout, int N, int OC);
    // m = beta1·m + (1 − beta1)·g; v = beta2·v + ((1 − beta2)·g)·g; p −= (step·m) / (√v·inv_sqrt_bc2 + eps),
    // each operation rounded as written (no fused multiply-adds), √ correctly rounded.
    void (*adam_update)(float* params, float* m, float* v, const float* grads, long n, float step, float beta1,
                        float beta2, float inv_sqrt_bc2, float eps);
};

extern const ElementwiseKernels ELEMENTWISE_AVX2;     // elementwise_avx2.cpp
extern const ElementwiseKernels ELEMENTWISE_AVX512;   // elementwise_avx512.cpp

}  // namespace tx::cpu::kernels
