// The float product of the linear layer's forward pass, out = inp · weightᵀ (+ bias), on
// row-major buffers. Eigen's GEMM repacks both operands on every call; at the few rows of a forward
// pass (N = B·T ≈ 32–128 tokens) packing the weight costs about as much as the product itself, so
// this product has kernels of its own for AVX-512 and AVX2 (register tiles that read the weight
// in its stored layout), chosen at run time (cpu_isa.h). Other shapes take the packed product of
// gemm_packed.h on those paths, Eigen's product on the generic one. The backward products are
// gemm_packed.h's (ops_linear.cpp).
#pragma once
#include <cstdint>

#include "tx/cpu_isa.h"

namespace tx::cpu {

// out (N,OC) = inp (N,C) · weight (OC,C)ᵀ [+ bias (OC)]; bias may be null. packed_weight: null,
// or the weight as pack_weight packed it for the active path's tile (cpu_isa.h's packed_tile()),
// read instead of weight where the packed product runs (sgemm_nt_uses_packed): a weight that many
// products read packs once.
void sgemm_nt(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC,
              const float* packed_weight = nullptr);

// True where sgemm_nt runs the packed product for this shape on the active path (the path has a
// kernel, and neither the tiles nor the one-row kernel win there).
bool sgemm_nt_uses_packed(int N, int C, int OC);

// Floats of a weight (OC, C) packed for the packed product's tile (packed_tile(): avx2 or avx512;
// 0 for generic, which has nothing to pack), and the packing itself into out (C, OC ≥ 1).
int64_t packed_weight_floats(Isa tile, int C, int OC);
void pack_weight(Isa tile, float* out, const float* weight, int C, int OC);

// True where sgemm_nt runs the dot-product tiles for this shape on the active path (false: the
// packed product, or Eigen's on the generic path), for tests and benchmarks.
bool sgemm_nt_uses_tiles(int N, int C, int OC);

// True where sgemm_nt runs the one-row kernel (gemv_nt_*.cpp): one inp row on a kernel path,
// a decoding step at batch 1, bound by streaming the weight from memory.
bool sgemm_nt_uses_row_kernel(int N);

}  // namespace tx::cpu
