// elementwise_kernels.h's kernels on AVX-512F: elementwise_body.h over simd_avx512.h (16 floats a
// vector, the last partial vector through a lane mask). Compiled with -mavx512f -ffp-contract=off
// (core/CMakeLists.txt); only the table has external linkage.
#include "kernels/simd_avx512.h"
#include "kernels/elementwise_kernels.h"

namespace tx::cpu::kernels {

namespace {
#include "kernels/elementwise_body.h"
}  // namespace

const ElementwiseKernels ELEMENTWISE_AVX512 = ELEMENTWISE_KERNELS;

}  // namespace tx::cpu::kernels
