// elementwise_kernels.h's kernels on AVX2 + FMA: elementwise_body.h over simd_avx2.h (8 floats a
// vector, the last partial vector loaded through vmaskmov and stored in plain stores). Compiled with
// -mavx2 -mfma -mno-avx512f -ffp-contract=off (core/CMakeLists.txt); only the table has external linkage.
#include "kernels/simd_avx2.h"
#include "kernels/elementwise_kernels.h"

namespace tx::cpu::kernels {

namespace {
#include "kernels/elementwise_body.h"
}  // namespace

const ElementwiseKernels ELEMENTWISE_AVX2 = ELEMENTWISE_KERNELS;

}  // namespace tx::cpu::kernels
