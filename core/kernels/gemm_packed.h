// A general float product on row-major buffers, C (M,N) [+]= op(A) (M,K) · op(B) (K,N), for the
// shapes where Eigen's product is slow: the linear layers' products at rows of 128–512 floats
// (the translation model's d_model 128: forward x·Wᵀ below sgemm_nt's 256-float rows, backward
// g·W and gᵀ·x everywhere). Packed panels and a register tile per instruction set (AVX-512 8 × 32,
// AVX2 6 × 16), as BLIS and OpenBLAS do it, chosen at run time (cpu_isa.h; gemm_packed_blocking.h
// says how); Eigen's product on the generic path.
#pragma once

namespace tx::cpu {

// op(A) is A (M,K) with row stride lda, or, with trans_a, Aᵀ of A stored (K,M); likewise op(B)
// is B (K,N) or, with trans_b, Bᵀ of B stored (N,K). accumulate: C += product, else C = product.
void sgemm_packed(float* C, int ldc, const float* A, int lda, bool trans_a, const float* B, int ldb, bool trans_b,
                  int M, int N, int K, bool accumulate);

// True where sgemm_packed runs its own kernel (the active path is avx2 or avx512), for tests and benchmarks.
bool sgemm_packed_has_kernel();

}  // namespace tx::cpu
