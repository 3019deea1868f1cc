// softmax_row_kernels() (softmax_kernels.h): the row kernels of the active instruction-set path
// (cpu_isa.h) for the float softmax, masked softmax and log-softmax ops; none on the generic path,
// where the ops keep their Eigen code.
#include "tx/cpu_isa.h"
#include "kernels/softmax_kernels.h"

namespace tx::cpu {

const kernels::SoftmaxRowKernels* softmax_row_kernels() {
#if defined(TX_X86_KERNELS)
    switch (active_isa()) {
        case Isa::Avx512:
            return kernels::softmax_rows_avx512();
        case Isa::Avx2:
            return kernels::softmax_rows_avx2();
        case Isa::Generic:
            break;
    }
#endif
    return nullptr;
}

}  // namespace tx::cpu
