// cpu_kernels.h: one table of kernel families per instruction set, and the switch that picks one.
// The switch names every Isa and has no default, so a new path is a compile warning here until it
// gets its table (or says that it has none), never a silent fall into another path's kernels.
#include "kernels/cpu_kernels.h"

namespace tx::cpu {

namespace {
#if defined(TX_X86_KERNELS)
const kernels::GemmKernels GEMM_AVX2 = {kernels::sgemv_nt_avx2, kernels::sgemm_nt_avx2, kernels::sgemm_packed_avx2,
                                        kernels::packed_weight_floats_avx2, kernels::pack_weight_avx2};
const kernels::GemmKernels GEMM_AVX512 = {kernels::sgemv_nt_avx512, kernels::sgemm_nt_avx512,
                                          kernels::sgemm_packed_avx512, kernels::packed_weight_floats_avx512,
                                          kernels::pack_weight_avx512};
const kernels::CpuKernels AVX2_KERNELS = {&kernels::SOFTMAX_ROWS_AVX2, &kernels::NORM_ROWS_AVX2,
                                          &kernels::ELEMENTWISE_AVX2, &GEMM_AVX2, kernels::NT_AVX2_MIN_OC,
                                          &kernels::LOWP_GEMM_AVX2};
const kernels::CpuKernels AVX512_KERNELS = {&kernels::SOFTMAX_ROWS_AVX512, &kernels::NORM_ROWS_AVX512,
                                            &kernels::ELEMENTWISE_AVX512, &GEMM_AVX512, kernels::NT_AVX512_MIN_OC,
                                            &kernels::LOWP_GEMM_AVX512};
#endif
}  // namespace

const kernels::CpuKernels* cpu_kernels_for(Isa isa) {
    switch (isa) {
        case Isa::Avx512:
#if defined(TX_X86_KERNELS)
            return &AVX512_KERNELS;
#else
            return nullptr;
#endif
        case Isa::Avx2:
#if defined(TX_X86_KERNELS)
            return &AVX2_KERNELS;
#else
            return nullptr;
#endif
        case Isa::Generic:
            return nullptr;   // the ops' plain loops and Eigen's products
    }
    return nullptr;
}

const kernels::CpuKernels* cpu_kernels() { return cpu_kernels_for(active_isa()); }

}  // namespace tx::cpu

namespace tx::cpu {

const kernels::SoftmaxRowKernels* softmax_row_kernels() {
    const kernels::CpuKernels* k = cpu_kernels();
    return k ? k->softmax : nullptr;
}

}  // namespace tx::cpu
