// The per-instruction-set kernels behind float ReLU backward (ops_elementwise.cpp) and the Adam update
// (ops_adam.cpp), each in a unit of its own compiled with that set's -m flags (core/CMakeLists.txt),
// called only when cpu_isa.h's active path says the CPU can run them. Flat buffers of n floats. As
// gemm_kernels.h: the units hold no inline code shared with other units. Internal to core/.
#pragma once

namespace tx::cpu::kernels {

// dinp[i] += dout[i] where out[i] > 0 (out is the ReLU's output), dinp left as it is elsewhere, for
// i in [first, last): the bits of relu_backward's plain loop.
void relu_backward_avx512(float* dinp, const float* dout, const float* out, long first, long last);
void relu_backward_avx2(float* dinp, const float* dout, const float* out, long first, long last);

// m = beta1·m + (1 − beta1)·g; v = beta2·v + ((1 − beta2)·g)·g; p −= (step·m) / (√v·inv_sqrt_bc2 + eps),
// each operation rounded as written (no fused multiply-adds), as ops_adam.cpp's expressions give.
void adam_update_avx512(float* params, float* m, float* v, const float* grads, long n, float step, float beta1,
                        float beta2, float inv_sqrt_bc2, float eps);
void adam_update_avx2(float* params, float* m, float* v, const float* grads, long n, float step, float beta1,
                      float beta2, float inv_sqrt_bc2, float eps);

}  // namespace tx::cpu::kernels
