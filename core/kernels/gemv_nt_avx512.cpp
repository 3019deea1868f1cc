// sgemm_nt (gemm.h) for one inp row on AVX-512F: gemv_nt_body.h over simd_avx512.h (16 floats a
// vector, so a step is one vector of each row, and the last partial step of C through a lane mask).
// Compiled with -mavx512f (core/CMakeLists.txt); only the entry point has external linkage.
#include "kernels/simd_avx512.h"

#include <cstdint>

#include "kernels/gemm_kernels.h"

namespace tx::cpu::kernels {

namespace {
#include "kernels/gemv_nt_body.h"
}  // namespace

void sgemv_nt_avx512(float* out, const float* x, const float* weight, const float* bias, int C, int OC) {
    sgemv_nt(out, x, weight, bias, C, OC);
}

}  // namespace tx::cpu::kernels
