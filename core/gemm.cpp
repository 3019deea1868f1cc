// sgemm_nt (gemm.h), out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias: the choice of kernel per
// shape and instruction set. The dot-product tiles that read both operands in their stored layout
// are in gemm_nt_avx512.cpp and gemm_nt_avx2.cpp (compiled for those sets, chosen at run time by
// cpu_isa.h); shorter rows go to the packed product (gemm_packed.h) from MIN_PACKED_ROWS rows on,
// and to Eigen's product below that and on the generic path.
#include "gemm.h"

#include <algorithm>
#include <cstdint>

#include "cpu_isa.h"
#include "eigen_types.h"
#include "gemm_kernels.h"
#include "gemm_packed.h"
#include "threads.h"

namespace tx::cpu {

namespace {

// Rows at which packing the weight pays for itself (gemm_packed.h): from 128 rows the packed
// product beats Eigen's at C = 64–128 (on a Zen 4 core, 89–105 against 76–87 GFLOP/s; at 32
// rows Eigen's, 73–77 against 60–72).
constexpr int MIN_PACKED_ROWS = 128;
// Below 256 floats of C a tile's reduction and stores outweigh its dot products, and Eigen's
// product is faster (tiny model, C = 64: 90 against 130–160 GFLOP/s).
constexpr int MIN_KERNEL_C_AVX512 = 256;
constexpr int MIN_KERNEL_C_AVX2 = 256;

// The product where the dot-product kernel does not run: packed, or Eigen's for few rows.
void short_rows_nt(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC) {
    Eigen::Map<RowMatrix<float>> y(out, N, OC);
    if (N >= MIN_PACKED_ROWS && sgemm_packed_has_kernel()) {
        sgemm_packed(out, OC, inp, C, false, weight, C, true, N, OC, C, false);
    } else {
        Eigen::Map<const RowMatrix<float>> x(inp, N, C);
        Eigen::Map<const RowMatrix<float>> w(weight, OC, C);
        y.noalias() = x * w.transpose();
    }
    if (bias) y.rowwise() += Eigen::Map<const RowVector<float>>(bias, OC);
}

}  // namespace

void sgemm_nt(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC) {
    if (!sgemm_uses_kernel(C, OC)) {
        short_rows_nt(out, inp, weight, bias, N, C, OC);
        return;
    }
    if (active_isa() == Isa::Avx512)
        kernels::sgemm_nt_avx512(out, inp, weight, bias, N, C, OC);
    else
        kernels::sgemm_nt_avx2(out, inp, weight, bias, N, C, OC);
}

bool sgemm_uses_kernel(int C, int OC) {
    switch (active_isa()) {
        case Isa::Avx512: return C >= MIN_KERNEL_C_AVX512 && OC >= kernels::NT_AVX512_MIN_OC;
        case Isa::Avx2: return C >= MIN_KERNEL_C_AVX2 && OC >= kernels::NT_AVX2_MIN_OC;
        case Isa::Generic: break;
    }
    return false;
}

}  // namespace tx::cpu
