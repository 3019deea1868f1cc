// The CUDA RoPE (gpu/ops/ops_rope.cu) against the CPU op, forward and backward, on seeded random
// inputs through the Backend interface (support/cuda_op_parity.h: outputs and gradients start
// random, so a forward must overwrite and a backward must add). Skipped without a CUDA device. CPU
// tests: tests/ops/test_rope.cpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

TEST_F(VariantParity, Rope) {
    for (auto [B, H, T, dk, pos0] : {std::tuple{1, 1, 1, 2, 0}, {2, 3, 5, 2, 7}, {2, 4, 17, 32, 0},
                                     {1, 2, 9, 5, 3}, {3, 8, 40, 64, 500}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " dk=" << dk << " pos0=" << pos0);
        const size_t n = static_cast<size_t>(B) * H * T * dk;
        auto inp = random(n), out = random(n);
        both([&](Backend& be, Side s) { be.rope_forward(s(out), s(inp), B, H, T, dk, pos0); });
        expect_close(out, ATOL, RTOL, "rope_forward");
        both([&](Backend& be, Side s) { be.rope_forward(s(inp), s(inp), B, H, T, dk, pos0); });   // in place
        expect_close(inp, ATOL, RTOL, "rope_forward in place");
        auto dout = random(n), dinp = random(n);
        both([&](Backend& be, Side s) { be.rope_backward(s(dinp), s(dout), B, H, T, dk, pos0); });
        expect_close(dinp, ATOL, RTOL, "rope_backward");
    }
}

}  // namespace
}  // namespace tx::test
