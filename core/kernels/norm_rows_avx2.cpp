// norm_kernels.h's kernels on AVX2 + FMA: norm_rows_body.h over simd_avx2.h (8 floats a vector, the
// row's last partial vector loaded through vmaskmov and stored in plain stores). Compiled with
// -mavx2 -mfma -mno-avx512f -ffp-contract=off (core/CMakeLists.txt); only the table has external linkage.
#include "kernels/simd_avx2.h"
#include "kernels/norm_kernels.h"

namespace tx::cpu::kernels {

namespace {
#include "kernels/norm_rows_body.h"
}  // namespace

const NormRowKernels NORM_ROWS_AVX2 = NORM_ROW_KERNELS;

}  // namespace tx::cpu::kernels
