// The linear layer's product from a BF16 weight on AVX512_BF16 (cpu_isa.h's Bf16Path::Dpbf16):
// out (N,OC) = x (N,C) · W (OC,C)ᵀ + bias, both operands BF16, by vdpbf16ps, which multiplies pairs
// of BF16 values along C and adds both products into an FP32 sum per output. The twin of
// gemm_lowp_kernels.h's bf16 product (FP32 FMAs on the weight widened as it is read); the choice
// between them is lowp_weight.cpp's. Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512bf16
// (core/CMakeLists.txt) and called only where cpu_has_avx512_bf16(). Internal to core/.
//
// The weight is stored once per parameter change in the *pair layout* (lowp_weight.h's `pairs`):
// Cp = C rounded up to even (an odd C gets one column of zeros); the rows in blocks of 16
// (BF16_PAIR_ROWS), block b holding r = min(16, OC − 16b) rows from index 16b·Cp on; inside it,
// for each pair p < Cp/2 and each row l < r, the values w[16b + l, 2p] and w[16b + l, 2p + 1]:
//     index(o, c) = 16b·Cp + ((c/2)·r + l)·2 + c%2,   b = o/16, l = o%16.
// One 64-byte load then holds pair p of 16 output rows, which vdpbf16ps multiplies by one x pair
// broadcast to all lanes: the 16 lanes are 16 outputs, and no horizontal sums are needed.
#pragma once
#include <cstdint>

namespace tx::cpu::kernels {

constexpr int BF16_PAIR_ROWS = 16;   // weight rows a block of the pair layout: one vector of outputs

// out (N, OC) = x (N, C) · W (OC, C)ᵀ + bias (OC, or null). x: BF16 bits, row stride ldx ≥ Cp,
// x[n, C] = 0 where C is odd (floats_to_bf16_rows writes it so); w: the pair layout above. Each
// output's sum: the pairs in order of C in one FP32 lane (vdpbf16ps: round to nearest even, BF16
// and FP32 subnormals read and written as 0, MXCSR ignored), then the bias. N, C, OC ≥ 1; rows
// of weight blocks are shared over the CPU threads.
void gemm_bf16_pairs_avx512bf16(float* out, const uint16_t* x, int ldx, const uint16_t* w, const float* bias, int N,
                                int C, int OC);

// out (N, ldo): in (N, C) rounded to BF16 bits (nearest even, as vcvtneps2bf16: FP32 subnormals
// become ±0, NaN stays NaN), columns C .. ldo − 1 zero. ldo ≥ C.
void floats_to_bf16_rows_avx512bf16(uint16_t* out, int ldo, const float* in, int N, int C);

// out = the pair layout of the BF16 weight `rows` (OC, C), row-major bits (an odd C's last pair
// completed with 0): each row's pairs are 32-bit units that go to every r-th unit of the block.
void rows_to_bf16_pairs_avx512bf16(uint16_t* out, const uint16_t* rows, int C, int OC);

// out = the pair layout of inᵀ, the weight (M, K) whose rows are in's columns: in (K, M) row-major
// FP32, rounded to BF16 as floats_to_bf16_rows rounds; an odd K's last pair completed with 0.
// For products with a transposed operand (mixed-precision training's backward: dX = dY · W
// multiplies by Wᵀ's rows, dW = dYᵀ · X by Xᵀ's), packed from rows of `in` two at a time. K, M ≥ 1.
void transpose_to_bf16_pairs_avx512bf16(uint16_t* out, const float* in, int K, int M);

}  // namespace tx::cpu::kernels
