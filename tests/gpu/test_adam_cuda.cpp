// The CUDA Adam update, squared norm and scale (gpu/ops/ops_adam.cu) against the CPU ops on seeded
// random inputs through the Backend interface (support/cuda_op_parity.h), over several steps and up
// to 2^20 parameters. Skipped without a CUDA device. CPU tests: tests/ops/test_adam.cpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

TEST_F(OpParity, AdamNormAndScale) {
    for (int64_t n : {int64_t(1), int64_t(1000), int64_t(1) << 20}) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        auto p = random(n), m = random(n, -0.01f, 0.01f), v = random(n, 0.0f, 1e-4f), g = random(n);
        for (int64_t t : {int64_t(1), int64_t(2), int64_t(1000)})
            both([&](Backend& be, Side s) { be.adam_update(s(p), s(m), s(v), s(g), n, 1e-3f, 0.9f, 0.98f, 1e-9f, t); });
        expect_close(p, ATOL, RTOL, "adam_update params");
        expect_close(m, ATOL, RTOL, "adam_update m");
        expect_close(v, ATOL, RTOL, "adam_update v");
        const double ref = cpu().squared_norm(g.cpu.data(), n), got = gpu().squared_norm(g.gpu.data(), n);
        EXPECT_NEAR(got, ref, 1e-9 * ref) << "squared_norm";
        both([&](Backend& be, Side s) { be.scale(s(g), n, 0.37f); });
        expect_close(g, 0.0, 0.0, "scale");
    }
}

}  // namespace
}  // namespace tx::test
