// sgemm_nt (gemm.h), out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias: the choice of kernel per
// shape and instruction set (cpu_isa.h). The dot-product tiles that read both operands in their
// stored layout are in gemm_nt_avx512.cpp and gemm_nt_avx2.cpp; the other shapes go to the packed
// product (gemm_packed.h) on those paths, and to Eigen's product on the generic path.
#include "kernels/gemm.h"

#include "tx/cpu_isa.h"
#include "ops/eigen_types.h"
#include "kernels/cpu_kernels.h"

namespace tx::cpu {

namespace {

// Measured on a Zen 4 core (bench/sgemm_bench.cpp, best of 30–40, one thread, busy machine),
// GFLOP/s of the dot-product tiles against the packed product, per path:
//   N = 32, C = 512:    AVX-512 96 vs 93, AVX2 96 vs 81 (packing the weight costs more than it saves)
//   N = 128, C = 512 (OC = 2048): AVX-512 93 vs 94, AVX2 81 vs 85
//   N = 32, C = 2048:   AVX-512 72 vs 88, AVX2 70 vs 79 (the tiles' sums wait in memory between blocks of C)
//   N = 720, C = 512:   AVX-512 86 vs 96, AVX2 60 vs 74
//   N = 32, C = 128:    packed 95 (AVX-512), 82 (AVX2), where Eigen's product (-march=native) made 76
// So the tiles run at fewer than 128 rows of 256–1024 floats (and at a few rows, below), the packed product everywhere else
// on a kernel path, and Eigen's product only on the generic path. OpenBLAS (its own kernels for
// the same ISA) was ahead by ~10% only at N = 32, C = 2048 on AVX2 (86 vs 79): not worth a
// dependency of the core and a second thread pool.
constexpr int MIN_TILE_C = 256;
constexpr int MAX_TILE_C = 1024;
constexpr int MAX_TILE_ROWS = 127;
// A few rows (decoding one token per sentence or beam: N = B) read each weight once, and the
// packed product would first copy the whole weight: there the tiles win at every C. Measured on
// the Zen 4 (AVX-512 path, best of 300, ms, tiles vs packed): N = 1, C = 2048, OC = 512: 0.083 vs
// 0.296; N = 4, C = 2048: 0.087 vs 0.294; N = 8, C = 2048: 0.170 vs 0.292; N = 1, C = 128,
// OC = 512: 0.011 vs 0.015; N = 4, C = 128, OC = 2000: 0.039 vs 0.067; but N = 8, C = 128:
// 0.017 vs 0.016. So: up to 4 rows at any C, up to 8 rows from 256 floats of C.
// One row (batch 1) goes to the one-row kernel instead: in a decoding step at batch 1 the ~33 MB
// of a base model's decoder weights no longer fit the 32 MiB L3 and come from memory each step,
// where the 4 × 6 tiles read 6 strided rows with one prefetch and reached ~15 GB/s; the row kernel
// streams 8 rows with prefetches ahead (bench/run_generate_bench.sh, docs/speed.md).
constexpr int FEW_ROWS = 4;
constexpr int SOME_ROWS = 8;

}  // namespace

void sgemm_nt(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC,
              const float* packed_weight) {
    if (N <= 0 || OC <= 0) return;
    if (const kernels::CpuKernels* k = cpu_kernels(); k && C >= 1) {
        if (sgemm_nt_uses_row_kernel(N)) return k->gemm->sgemv_nt(out, inp, weight, bias, C, OC);
        if (sgemm_nt_uses_tiles(N, C, OC)) return k->gemm->sgemm_nt(out, inp, weight, bias, N, C, OC);
        // The packed product on the active path's tile (cpu_isa.h), its store adding the bias.
        return cpu_kernels_for(packed_tile())->gemm->sgemm_packed(out, OC, inp, C, false, weight, C, true, N, OC, C,
                                                                  false, bias, packed_weight);
    }
    // Eigen's product (an empty one at C = 0 is zeros) and a pass for the bias.
    Eigen::Map<RowMatrix<float>> y(out, N, OC);
    Eigen::Map<const RowMatrix<float>> x(inp, N, C);
    Eigen::Map<const RowMatrix<float>> w(weight, OC, C);
    y.noalias() = x * w.transpose();
    if (bias) y.rowwise() += Eigen::Map<const RowVector<float>>(bias, OC);
}

bool sgemm_nt_uses_packed(int N, int C, int OC) {
    return cpu_kernels() != nullptr && N >= 1 && C >= 1 && OC >= 1 && !sgemm_nt_uses_row_kernel(N) &&
           !sgemm_nt_uses_tiles(N, C, OC);
}

int64_t packed_weight_floats(Isa tile, int C, int OC) {
    const kernels::CpuKernels* k = cpu_kernels_for(tile);
    return k ? k->gemm->packed_weight_floats(C, OC) : 0;
}

void pack_weight(Isa tile, float* out, const float* weight, int C, int OC) {
    if (const kernels::CpuKernels* k = cpu_kernels_for(tile)) k->gemm->pack_weight(out, weight, C, OC);
}

bool sgemm_nt_uses_row_kernel(int N) { return N == 1 && cpu_kernels() != nullptr; }

bool sgemm_nt_uses_tiles(int N, int C, int OC) {
    if (sgemm_nt_uses_row_kernel(N)) return false;
    const kernels::CpuKernels* k = cpu_kernels();
    if (!k || OC < k->sgemm_nt_min_oc) return false;
    return N <= FEW_ROWS || (N <= SOME_ROWS && C >= MIN_TILE_C) ||
           (N <= MAX_TILE_ROWS && C >= MIN_TILE_C && C <= MAX_TILE_C);
}

}  // namespace tx::cpu
