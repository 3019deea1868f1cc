// The ISA table (core/kernels/cpu_kernels.h): one table of kernel families per instruction set, the
// active path's chosen by cpu_kernels(), none on the generic path. Checked here: every path the
// build has kernels for gives a table with every family and every kernel in it (a missing one would
// be a null call on that path only, maybe one this CPU cannot run), each path its own kernels (not
// another path's under its name), and cpu_kernels() following the active path as tests switch it.
// Whether the kernels compute the right values is for the op tests (every_path.h).
#include "kernels/cpu_kernels.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "support/every_path.h"

namespace {

using tx::cpu::Isa;
using tx::cpu::kernels::CpuKernels;

const Isa EVERY_ISA[] = {Isa::Generic, Isa::Avx2, Isa::Avx512};

// A family table is a struct of function pointers only: the index of its first null one, or -1.
template <typename Table>
int first_null_kernel(const Table& table) {
    using Kernel = void (*)();
    static_assert(sizeof(Table) % sizeof(Kernel) == 0, "a family table holds function pointers only");
    for (size_t i = 0; i < sizeof(Table) / sizeof(Kernel); ++i) {
        Kernel k;
        std::memcpy(&k, reinterpret_cast<const char*>(&table) + i * sizeof(Kernel), sizeof k);
        if (!k) return static_cast<int>(i);
    }
    return -1;
}

void expect_complete(const CpuKernels& k, const std::string& isa) {
    ASSERT_NE(k.softmax, nullptr) << isa;
    EXPECT_EQ(first_null_kernel(*k.softmax), -1) << isa << ": softmax kernel missing";
    ASSERT_NE(k.norm, nullptr) << isa;
    EXPECT_EQ(first_null_kernel(*k.norm), -1) << isa << ": norm kernel missing";
    ASSERT_NE(k.elementwise, nullptr) << isa;
    EXPECT_EQ(first_null_kernel(*k.elementwise), -1) << isa << ": elementwise kernel missing";
    ASSERT_NE(k.gemm, nullptr) << isa;
    EXPECT_EQ(first_null_kernel(*k.gemm), -1) << isa << ": GEMM kernel missing";
    EXPECT_GE(k.sgemm_nt_min_oc, 1) << isa;
}

}  // namespace

TEST(CpuKernels, GenericPathHasNoTable) { EXPECT_EQ(tx::cpu::cpu_kernels_for(Isa::Generic), nullptr); }

TEST(CpuKernels, EveryKernelPathHasEveryKernel) {
    int tables = 0;
    for (Isa isa : EVERY_ISA) {
        const CpuKernels* k = tx::cpu::cpu_kernels_for(isa);
        if (!k) continue;
        ++tables;
        expect_complete(*k, tx::cpu::isa_name(isa));
    }
#if defined(__x86_64__)
    EXPECT_EQ(tables, 2) << "an x86-64 build has AVX2 and AVX-512 kernels";
#endif
}

TEST(CpuKernels, EachPathRunsItsOwnKernels) {
    const CpuKernels* avx2 = tx::cpu::cpu_kernels_for(Isa::Avx2);
    const CpuKernels* avx512 = tx::cpu::cpu_kernels_for(Isa::Avx512);
    if (!avx2 || !avx512) GTEST_SKIP() << "this build has no x86 kernels";
    EXPECT_NE(avx2, avx512);
    EXPECT_NE(avx2->softmax, avx512->softmax);
    EXPECT_NE(avx2->softmax->softmax, avx512->softmax->softmax);
    EXPECT_NE(avx2->norm, avx512->norm);
    EXPECT_NE(avx2->norm->forward_rows, avx512->norm->forward_rows);
    EXPECT_NE(avx2->elementwise, avx512->elementwise);
    EXPECT_NE(avx2->elementwise->adam_update, avx512->elementwise->adam_update);
    EXPECT_NE(avx2->gemm, avx512->gemm);
    EXPECT_NE(avx2->gemm->sgemv_nt, avx512->gemm->sgemv_nt);
    EXPECT_NE(avx2->gemm->sgemm_packed, avx512->gemm->sgemm_packed);
}

TEST(CpuKernels, FollowsTheActivePath) {
    tx::test::on_every_path([] {
        const Isa isa = tx::cpu::active_isa();
        EXPECT_EQ(tx::cpu::cpu_kernels(), tx::cpu::cpu_kernels_for(isa));
        EXPECT_EQ(tx::cpu::cpu_kernels() == nullptr, isa == Isa::Generic);
        EXPECT_EQ(tx::cpu::softmax_row_kernels(), tx::cpu::cpu_kernels() ? tx::cpu::cpu_kernels()->softmax : nullptr);
    });
}
