// The CUDA ALiBi and its slopes (gpu/ops/ops_alibi.cu) against the CPU ops, forward and backward,
// on seeded random inputs through the Backend interface (support/cuda_op_parity.h: outputs and
// gradients start random, so a forward must overwrite and a backward must add). Skipped without a
// CUDA device. CPU tests: tests/ops/test_alibi.cpp.
#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

TEST_F(VariantParity, AlibiAndSlopes) {
    for (int H : {1, 2, 3, 4, 6, 8, 12, 16}) {
        SCOPED_TRACE(testing::Message() << "H=" << H);
        auto slopes = random(H);
        both([&](Backend& be, Side s) { be.alibi_slopes(s(slopes), H); });
        expect_close(slopes, 0.0, 1e-6, "alibi_slopes");
    }
    for (auto [B, H, T, S, q0] : {std::tuple{1, 1, 1, 1, 0}, {2, 6, 5, 9, 0}, {2, 4, 12, 12, 0}, {1, 8, 1, 70, 69},
                                  {3, 3, 33, 40, 7}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " S=" << S << " q0=" << q0);
        const size_t n = static_cast<size_t>(B) * H * T * S;
        std::vector<float> host(n);
        {
            std::mt19937 rng(static_cast<unsigned>(n));
            std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
            for (float& x : host) x = dist(rng);
            host[0] = -INFINITY;   // a masked score stays masked on both
        }
        auto scores = from(host), out = random(n);
        both([&](Backend& be, Side s) { be.alibi_forward(s(out), s(scores), B, H, T, S, q0); });
        expect_close(out, ATOL, RTOL, "alibi_forward");
        both([&](Backend& be, Side s) { be.alibi_forward(s(scores), s(scores), B, H, T, S, q0); });
        expect_close(scores, ATOL, RTOL, "alibi_forward in place");
        auto dout = random(n), dscores = random(n);
        both([&](Backend& be, Side s) { be.alibi_backward(s(dscores), s(dout), B, H, T, S); });
        expect_close(dscores, ATOL, RTOL, "alibi_backward");
    }
}

}  // namespace
}  // namespace tx::test
