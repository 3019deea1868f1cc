// The ISA table: every float kernel family of core/kernels/ for one instruction set, one table per
// set, and the choice of the table once, from cpu_isa.h's active path (TX_ISA forces it). Each family
// is written once in its *_body.h over a Simd traits struct (simd_avx2.h, simd_avx512.h) and compiled
// per set in its *_avx2.cpp / *_avx512.cpp unit, which exports that set's family table.
// Call sites ask `if (const CpuKernels* k = cpu_kernels()) k->norm->forward_rows(…)` and otherwise
// run their plain loop or Eigen code: the generic path, and builds for other processors, get null.
// A new family is one *_kernels.h table, one body, one unit per set and one member here; a new set
// is one traits header, one unit per family, one table in cpu_kernels.cpp and one case in its switch.
// Internal to core/.
#pragma once
#include "tx/cpu_isa.h"
#include "kernels/elementwise_kernels.h"
#include "kernels/gemm_kernels.h"
#include "kernels/gemm_lowp_kernels.h"
#include "kernels/norm_kernels.h"
#include "kernels/softmax_kernels.h"

namespace tx::cpu::kernels {

struct CpuKernels {
    const SoftmaxRowKernels* softmax;   // softmax_kernels.h
    const NormRowKernels* norm;         // norm_kernels.h
    const ElementwiseKernels* elementwise;   // elementwise_kernels.h
    const GemmKernels* gemm;            // gemm_kernels.h: sgemm_nt's row kernel and tiles, the packed product
    int sgemm_nt_min_oc;                // the fewest weight rows (OC) sgemm_nt's tiles take: one tile's columns
    const LowpGemmKernels* lowp_gemm;   // gemm_lowp_kernels.h: linear products from BF16/FP16/INT8 weights
};

}  // namespace tx::cpu::kernels

namespace tx::cpu {

// The kernels of path `isa`; null for Isa::Generic and in builds without x86 kernels.
const kernels::CpuKernels* cpu_kernels_for(Isa isa);
// The kernels of the active path (cpu_isa.h); null on the generic path.
const kernels::CpuKernels* cpu_kernels();

}  // namespace tx::cpu
