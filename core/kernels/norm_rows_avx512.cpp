// norm_kernels.h's kernels on AVX-512F: norm_rows_body.h over simd_avx512.h (16 floats a vector, the
// row's last partial vector through a lane mask). Compiled with -mavx512f -ffp-contract=off
// (core/CMakeLists.txt); only the table has external linkage.
#include "kernels/simd_avx512.h"
#include "kernels/norm_kernels.h"

namespace tx::cpu::kernels {

namespace {
#include "kernels/norm_rows_body.h"
}  // namespace

const NormRowKernels NORM_ROWS_AVX512 = NORM_ROW_KERNELS;

}  // namespace tx::cpu::kernels
