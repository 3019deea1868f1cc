// The float product of the linear layer's forward pass, out = inp · weightᵀ (+ bias), on
// row-major buffers, without packing. Eigen's GEMM repacks both operands on every call; at the
// few rows of a forward pass (N = B·T ≈ 32–128 tokens) packing the weight costs about as much as
// the product itself, so this product has a kernel of its own, written for AVX-512 (register
// tiles that read the weight in its stored layout). For short rows (C < 256), where that kernel
// loses, it is the packed product of gemm_packed.h from 128 rows on (a training batch) and
// Eigen's product below; a build that does not target AVX-512 uses Eigen's product throughout.
// The backward products are gemm_packed.h's (ops_linear.cpp).
#pragma once

namespace tx::cpu {

// out (N,OC) = inp (N,C) · weight (OC,C)ᵀ [+ bias (OC)]; bias may be null.
void sgemm_nt(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC);

// True where sgemm_nt runs the AVX-512 kernel for rows of C floats and OC outputs (false:
// Eigen's product: a portable build, C < 256 or OC < 6), for benchmarks.
bool sgemm_uses_kernel(int C, int OC);

}  // namespace tx::cpu
