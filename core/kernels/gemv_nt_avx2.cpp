// sgemm_nt (gemm.h) for one inp row on AVX2 + FMA: gemv_nt_body.h over simd_avx2.h (8 floats a
// vector, so a step is two vectors of each row, and the last partial step of C in scalar code).
// Compiled with -mavx2 -mfma -mno-avx512f (core/CMakeLists.txt); only the entry point has external linkage.
#include "kernels/simd_avx2.h"

#include <cstdint>

#include "kernels/gemm_kernels.h"

namespace tx::cpu::kernels {

namespace {
#include "kernels/gemv_nt_body.h"
}  // namespace

void sgemv_nt_avx2(float* out, const float* x, const float* weight, const float* bias, int C, int OC) {
    sgemv_nt(out, x, weight, bias, C, OC);
}

}  // namespace tx::cpu::kernels
