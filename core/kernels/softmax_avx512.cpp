// softmax_kernels.h's row kernels on AVX-512F: softmax_rows_body.h over simd_avx512.h (16 floats a
// register, the row's tail through a lane mask, exp's 2^n in one vscalefps). Compiled with -mavx512f
// (core/CMakeLists.txt); only the table has external linkage.
#include "kernels/simd_avx512.h"
#include "kernels/softmax_kernels.h"

namespace tx::cpu::kernels {

namespace {
#include "kernels/softmax_rows_body.h"
}  // namespace

const SoftmaxRowKernels SOFTMAX_ROWS_AVX512 = ROW_KERNELS;

}  // namespace tx::cpu::kernels
