// softmax_kernels.h's row kernels on AVX2 + FMA: softmax_rows_body.h over simd_avx2.h (8 floats a
// register, the row's tail loaded through vmaskmovps and stored in plain stores, exp's 2^n in two
// normal factors). Compiled with -mavx2 -mfma -mno-avx512f (core/CMakeLists.txt); only the table
// has external linkage.
#include "kernels/simd_avx2.h"
#include "kernels/softmax_kernels.h"

namespace tx::cpu::kernels {

namespace {
#include "kernels/softmax_rows_body.h"
}  // namespace

const SoftmaxRowKernels SOFTMAX_ROWS_AVX2 = ROW_KERNELS;

}  // namespace tx::cpu::kernels
