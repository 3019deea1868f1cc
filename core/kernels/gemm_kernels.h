// The per-instruction-set kernels behind sgemm_nt (gemm.h) and sgemm_packed (gemm_packed.h), each
// in a unit of its own compiled with that set's -m flags (core/CMakeLists.txt); gemm.cpp and
// gemm_packed.cpp call them only when cpu_isa.h's active path says the CPU can run them. Row-major
// buffers; the shapes and arguments are those of the public functions. Internal to core/.
// The kernel units hold no inline code shared with other units (no std:: containers or
// algorithms): the linker could otherwise keep their AVX-512 copy for the whole program.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tx::cpu::kernels {

// sgemm_nt's dot-product tiles, for OC of at least one tile's columns (NT_*_MIN_OC); gemm.cpp
// chooses them where they beat the packed product.
void sgemm_nt_avx512(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC);
void sgemm_nt_avx2(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC);
constexpr int NT_AVX512_MIN_OC = 6;   // a 4 × 6 tile's columns
constexpr int NT_AVX2_MIN_OC = 4;     // a 3 × 4 tile's columns

// sgemm_packed for M, N, K ≥ 1, with bias (N floats, or null) added to every row of C after the
// product (sgemm_nt's bias, in the store of the product instead of a pass of its own), and
// prepacked_b null or op(B) packed by pack_weight_* below (then B is not read).
void sgemm_packed_avx512(float* C, int ldc, const float* A, int lda, bool trans_a, const float* B, int ldb,
                         bool trans_b, int M, int N, int K, bool accumulate, const float* bias, const float* prepacked_b);
void sgemm_packed_avx2(float* C, int ldc, const float* A, int lda, bool trans_a, const float* B, int ldb,
                       bool trans_b, int M, int N, int K, bool accumulate, const float* bias, const float* prepacked_b);

// A linear weight (OC, C) packed whole as sgemm_packed_* packs op(B) = weightᵀ for x·Wᵀ:
// packed_weight_floats_* floats (its blocks and panels, gemm_packed_blocking.h), written by
// pack_weight_* (C, OC ≥ 1). The layout is the unit's own: a weight packed for one path is
// read by that path's product only.
int64_t packed_weight_floats_avx512(int C, int OC);
int64_t packed_weight_floats_avx2(int C, int OC);
void pack_weight_avx512(float* out, const float* weight, int C, int OC);
void pack_weight_avx2(float* out, const float* weight, int C, int OC);

// Scratch for packed panels, per calling thread (the GUI and the trainer may multiply at once,
// and the pool's threads pack their own A blocks): at least `floats` floats, 64-byte aligned, grown
// once and reused (a fresh page costs ~10 µs here, docs/design.md §10). Slot 0 holds packed B, 1 A.
float* gemm_scratch(int slot, size_t floats);

// sgemm_nt for one inp row (N = 1, a decoding step at batch 1), C, OC ≥ 1: bound by streaming the
// weight from memory, which these read in order (gemv_nt_*.cpp).
void sgemv_nt_avx512(float* out, const float* x, const float* weight, const float* bias, int C, int OC);
void sgemv_nt_avx2(float* out, const float* x, const float* weight, const float* bias, int C, int OC);
// The products of one instruction set, as a table (cpu_kernels.h), with the shapes above.
struct GemmKernels {
    void (*sgemv_nt)(float* out, const float* x, const float* weight, const float* bias, int C, int OC);
    void (*sgemm_nt)(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC);
    void (*sgemm_packed)(float* C, int ldc, const float* A, int lda, bool trans_a, const float* B, int ldb,
                         bool trans_b, int M, int N, int K, bool accumulate, const float* bias,
                         const float* prepacked_b);
    int64_t (*packed_weight_floats)(int C, int OC);
    void (*pack_weight)(float* out, const float* weight, int C, int OC);
};

// Runs body(ctx, first, last) over [0, blocks) cut into parallel_for.h's ranges, one per CPU
// thread (one range when blocks is 1): the kernel units' threads, without its templates here.
void split_blocks(int blocks, void (*body)(void* ctx, int first, int last), void* ctx);

}  // namespace tx::cpu::kernels
