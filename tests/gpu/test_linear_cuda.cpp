// The CUDA linear layer and head split (gpu/ops/ops_linear.cu) against the CPU ops, forward and
// backward, on seeded random inputs through the Backend interface (support/cuda_op_parity.h:
// outputs and gradients start random, so a forward must overwrite and a backward must add). Skipped
// without a CUDA device. CPU tests: tests/ops/test_linear.cpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

TEST_F(OpParity, LinearWithAndWithoutBias) {
    for (auto [N, C, OC] : {std::tuple{1, 1, 1}, {7, 13, 5}, {33, 64, 17}, {300, 96, 130}}) {
        for (bool with_bias : {true, false}) {
            SCOPED_TRACE(testing::Message() << "N=" << N << " C=" << C << " OC=" << OC << " bias=" << with_bias);
            auto inp = random(static_cast<size_t>(N) * C), w = random(static_cast<size_t>(OC) * C), b = random(OC);
            auto out = random(static_cast<size_t>(N) * OC);   // without a bias too, out is overwritten
            both([&](Backend& be, Side s) {
                be.linear_forward(s(out), s(inp), s(w), with_bias ? s(b) : nullptr, N, C, OC);
            });
            expect_close(out, gemm_atol(C), RTOL, "linear_forward");
            auto dout = random(out.size()), dinp = random(inp.size()), dw = random(w.size()), db = random(OC);
            both([&](Backend& be, Side s) {
                be.linear_backward(s(dinp), s(dw), with_bias ? s(db) : nullptr, s(dout), s(inp), s(w), N, C, OC);
            });
            expect_close(dinp, gemm_atol(OC), RTOL, "linear_backward dinp");
            expect_close(dw, gemm_atol(N), RTOL, "linear_backward dweight");
            if (with_bias) expect_close(db, gemm_atol(N), RTOL, "linear_backward dbias");
        }
    }
    // a null dinp (the first layer's input needs no gradient) leaves the others right
    auto inp = random(5 * 6), w = random(4 * 6), dout = random(5 * 4), dw = random(4 * 6), db = random(4);
    both([&](Backend& be, Side s) { be.linear_backward(nullptr, s(dw), s(db), s(dout), s(inp), s(w), 5, 6, 4); });
    expect_close(dw, ATOL, RTOL, "linear_backward with null dinp: dweight");
    expect_close(db, ATOL, RTOL, "linear_backward with null dinp: dbias");
}

TEST_F(OpParity, SplitAndMergeHeads) {
    for (auto [B, T, H, dk] : {std::tuple{1, 1, 1, 1}, {2, 5, 3, 7}, {3, 17, 8, 16}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " T=" << T << " H=" << H << " dk=" << dk);
        const size_t n = static_cast<size_t>(B) * T * H * dk;
        auto inp = random(n), out = random(n), back = random(n);
        both([&](Backend& be, Side s) { be.split_heads_forward(s(out), s(inp), B, T, H, dk); });
        expect_close(out, 0.0, 0.0, "split_heads_forward");   // a permutation: exact
        both([&](Backend& be, Side s) { be.merge_heads_forward(s(back), s(out), B, T, H, dk); });
        expect_close(back, 0.0, 0.0, "merge_heads_forward");
        auto dout = random(n), dinp = random(n), dinp2 = random(n);
        both([&](Backend& be, Side s) { be.split_heads_backward(s(dinp), s(dout), B, T, H, dk); });
        expect_close(dinp, ATOL, RTOL, "split_heads_backward");
        both([&](Backend& be, Side s) { be.merge_heads_backward(s(dinp2), s(dout), B, T, H, dk); });
        expect_close(dinp2, ATOL, RTOL, "merge_heads_backward");
    }
}

}  // namespace
}  // namespace tx::test
