// sgemm_packed (gemm_packed.h): C (M,N) [+]= op(A) (M,K) · op(B) (K,N), row-major. The choice of
// kernel: the packed register tiles of gemm_packed_avx512.cpp (8 × 32) or gemm_packed_avx2.cpp
// (6 × 16, BLIS's Haswell tile), as cpu_isa.h chooses at run time; Eigen's product on maps of the
// operands on the generic path. Also the kernels' per-thread scratch and thread split
// (gemm_kernels.h), which live here, in a unit compiled for the baseline instruction set.
#include "kernels/gemm_packed.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tx/cpu_isa.h"
#include "ops/eigen_types.h"
#include "kernels/cpu_kernels.h"
#include "runtime/parallel_for.h"

namespace tx::cpu {

float* kernels::gemm_scratch(int slot, size_t floats) {
    constexpr size_t ALIGN_FLOATS = 16;   // 64 bytes: a panel row of NR floats starts a cache line
    thread_local std::vector<float> buffers[2];
    std::vector<float>& buffer = buffers[slot];
    if (buffer.size() < floats + ALIGN_FLOATS) buffer.resize(floats + ALIGN_FLOATS);
    const auto address = reinterpret_cast<uintptr_t>(buffer.data());
    return buffer.data() + ((64 - address % 64) % 64) / sizeof(float);
}

void kernels::split_blocks(int blocks, void (*body)(void* ctx, int first, int last), void* ctx) {
    parallel_for(blocks, 1, [=](int64_t first, int64_t last) {
        body(ctx, static_cast<int>(first), static_cast<int>(last));
    });
}

void sgemm_packed(float* C, int ldc, const float* A, int lda, bool trans_a, const float* B, int ldb, bool trans_b,
                  int M, int N, int K, bool accumulate) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        if (!accumulate)
            for (int i = 0; i < M; ++i) std::fill_n(C + static_cast<int64_t>(i) * ldc, N, 0.0f);
        return;
    }
    if (cpu_kernels())   // a kernel path: its packed product on the path's tile (cpu_isa.h)
        return cpu_kernels_for(packed_tile())->gemm->sgemm_packed(C, ldc, A, lda, trans_a, B, ldb, trans_b, M, N, K,
                                                                  accumulate, nullptr, nullptr);
    using Stride = Eigen::OuterStride<>;
    Eigen::Map<RowMatrix<float>, 0, Stride> c(C, M, N, Stride(ldc));
    const auto product = [&](const auto& a) {
        if (trans_b) {
            Eigen::Map<const RowMatrix<float>, 0, Stride> b(B, N, K, Stride(ldb));
            if (accumulate) c.noalias() += a * b.transpose();
            else c.noalias() = a * b.transpose();
        } else {
            Eigen::Map<const RowMatrix<float>, 0, Stride> b(B, K, N, Stride(ldb));
            if (accumulate) c.noalias() += a * b;
            else c.noalias() = a * b;
        }
    };
    if (trans_a) product(Eigen::Map<const RowMatrix<float>, 0, Stride>(A, K, M, Stride(lda)).transpose());
    else product(Eigen::Map<const RowMatrix<float>, 0, Stride>(A, M, K, Stride(lda)));
}

bool sgemm_packed_has_kernel() { return cpu_kernels() != nullptr; }

}  // namespace tx::cpu
