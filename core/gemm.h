// The float product of the linear layer's forward pass, out = inp · weightᵀ (+ bias), on
// row-major buffers. Eigen's GEMM repacks both operands on every call; at the few rows of a forward
// pass (N = B·T ≈ 32–128 tokens) packing the weight costs about as much as the product itself, so
// this product has kernels of its own for AVX-512 and AVX2 (register tiles that read the weight
// in its stored layout), chosen at run time (cpu_isa.h). Other shapes take the packed product of
// gemm_packed.h on those paths, Eigen's product on the generic one. The backward products are
// gemm_packed.h's (ops_linear.cpp).
#pragma once

namespace tx::cpu {

// out (N,OC) = inp (N,C) · weight (OC,C)ᵀ [+ bias (OC)]; bias may be null.
void sgemm_nt(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC);

// True where sgemm_nt runs the dot-product tiles for this shape on the active path (false: the
// packed product, or Eigen's on the generic path), for tests and benchmarks.
bool sgemm_nt_uses_tiles(int N, int C, int OC);

// True where sgemm_nt runs the one-row kernel (gemv_nt_*.cpp): one inp row on a kernel path,
// a decoding step at batch 1, bound by streaming the weight from memory.
bool sgemm_nt_uses_row_kernel(int N);

}  // namespace tx::cpu
