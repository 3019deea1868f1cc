// gemm_lowp_kernels.h's products on AVX2 + FMA + F16C: gemm_lowp_body.h over simd_avx2.h (8 floats
// a register: a step is four vectors of each row; FP16 widened by vcvtph2ps, which is why this unit
// alone of the AVX2 ones is compiled with -mf16c, core/CMakeLists.txt). Only the table has external
// linkage.
#include "kernels/simd_avx2.h"

#include <cstdint>

#include "kernels/gemm_kernels.h"
#include "kernels/gemm_lowp_kernels.h"

namespace tx::cpu::kernels {

namespace {
#include "kernels/gemm_lowp_body.h"
}  // namespace

const LowpGemmKernels LOWP_GEMM_AVX2 = LOWP_GEMM_KERNELS;

}  // namespace tx::cpu::kernels
