// gemm_lowp_kernels.h's products on AVX-512F: gemm_lowp_body.h over simd_avx512.h (16 floats a
// register: a step is two vectors of each row). The widening is AVX-512F alone (vpmovzxwd + vpslld
// for BF16, vcvtph2ps zmm for FP16, vpmovsxbd + vcvtdq2ps for INT8). BF16 by AVX512_BF16's dot
// products (vdpbf16ps) is gemm_bf16_avx512bf16.cpp, chosen instead where the CPU has them
// (cpu_isa.h's bf16_path()). Compiled with -mavx512f (core/CMakeLists.txt); only the table has
// external linkage.
#include "kernels/simd_avx512.h"

#include <cstdint>

#include "kernels/gemm_kernels.h"
#include "kernels/gemm_lowp_kernels.h"

namespace tx::cpu::kernels {

namespace {
#include "kernels/gemm_lowp_body.h"
}  // namespace

const LowpGemmKernels LOWP_GEMM_AVX512 = LOWP_GEMM_KERNELS;

}  // namespace tx::cpu::kernels
