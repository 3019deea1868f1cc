// The CPU backend (core/ops/cpu_backend.cpp): its aligned, zero-filled allocations, memory commands
// and op dispatch through the Backend interface, and the optimizer's squared norm and scale.
// The CUDA backend's twin: tests/gpu/test_cuda_backend.cpp.
#include "tx/backend.h"
#include "tx/ops.h"

#include <gtest/gtest.h>

#include "support/random_floats.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace {

using std::vector;
using tx::test::random_floats;

TEST(CpuBackend, SquaredNormAndScaleForTheOptimizer) {
    std::unique_ptr<tx::Backend> be = tx::make_cpu_backend();
    // 7 values: the four partial sums and the tail are all exercised
    vector<float> x = {3.0f, -4.0f, 1.0f, 2.0f, -2.0f, 0.5f, 0.25f};
    double ref = 0.0;
    for (float e : x) ref += static_cast<double>(e) * e;
    EXPECT_DOUBLE_EQ(be->squared_norm(x.data(), static_cast<int64_t>(x.size())), ref);
    EXPECT_EQ(be->squared_norm(x.data(), 0), 0.0);
    be->scale(x.data(), static_cast<int64_t>(x.size()), 0.5f);
    EXPECT_EQ(x[0], 1.5f);
    EXPECT_EQ(x[1], -2.0f);
    EXPECT_EQ(x[6], 0.125f);
    x[2] = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(std::isfinite(be->squared_norm(x.data(), static_cast<int64_t>(x.size()))));
}

TEST(CpuBackend, AllocationsAreAlignedAndZeroFilled) {
    std::unique_ptr<tx::Backend> be = tx::make_cpu_backend();
    EXPECT_EQ(be->name(), "cpu");
    for (size_t bytes : {size_t(1), size_t(4), size_t(100), size_t(4096), size_t(1 << 20)}) {
        auto* p = static_cast<unsigned char*>(be->allocate(bytes));
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
        for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(p[i], 0) << "byte " << i;
        be->release(p);
    }
}

TEST(CpuBackend, MemoryCommandsAndOpsDispatch) {
    std::unique_ptr<tx::Backend> be = tx::make_cpu_backend();
    const int N = 5, C = 7, OC = 3;
    const vector<float> x = random_floats(static_cast<size_t>(N) * C, 34);
    const vector<float> w = random_floats(static_cast<size_t>(OC) * C, 35);
    tx::BackendArray<float> dx(*be, x.size()), dw(*be, w.size()), dout(*be, static_cast<size_t>(N) * OC),
        copy(*be, x.size());
    be->upload(dx.data(), x.data(), x.size() * sizeof(float));
    be->upload(dw.data(), w.data(), w.size() * sizeof(float));
    be->linear_forward(dout.data(), dx.data(), dw.data(), nullptr, N, C, OC);
    be->synchronize();
    vector<float> got(dout.size()), want(dout.size());
    be->download(got.data(), dout.data(), got.size() * sizeof(float));
    tx::cpu::linear_forward(want.data(), x.data(), w.data(), static_cast<const float*>(nullptr), N, C, OC);
    EXPECT_EQ(got, want);

    be->copy(copy.data(), dx.data(), x.size() * sizeof(float));
    vector<float> back(x.size());
    be->download(back.data(), copy.data(), back.size() * sizeof(float));
    EXPECT_EQ(back, x);
    be->fill_zero(copy.data(), x.size() * sizeof(float));
    be->download(back.data(), copy.data(), back.size() * sizeof(float));
    EXPECT_EQ(back, vector<float>(x.size(), 0.0f));
}

}  // namespace
