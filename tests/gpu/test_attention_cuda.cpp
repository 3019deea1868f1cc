// The CUDA attention steps (scores, mask, softmax, context) (gpu/ops/ops_attention.cu) against the
// CPU ops, forward and backward, on seeded random inputs through the Backend interface
// (support/cuda_op_parity.h: outputs and gradients start random, so a forward must overwrite and a
// backward must add). Skipped without a CUDA device. CPU tests: tests/ops/test_attention.cpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

TEST_F(OpParity, ScoresMaskSoftmaxContext) {
    for (auto [B, H, T, S, dk] : {std::tuple{1, 1, 1, 1, 1}, {2, 3, 5, 9, 7}, {2, 4, 12, 12, 16}, {1, 8, 33, 70, 64}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " S=" << S << " dk=" << dk);
        const size_t nq = static_cast<size_t>(B) * H * T * dk, nk = static_cast<size_t>(B) * H * S * dk,
                     ns = static_cast<size_t>(B) * H * T * S;
        const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
        auto q = random(nq), k = random(nk), v = random(nk), mask = from(test_mask(B, T, S));
        auto scores = random(ns), masked = random(ns), probs = random(ns), ctx = random(nq);
        both([&](Backend& be, Side s) {
            be.scores_forward(s(scores), s(q), s(k), B, H, T, S, dk, scale);
            be.attention_mask_forward(s(masked), s(scores), s(mask), B, H, T, S);
            be.softmax_forward(s(probs), s(masked), B * H * T, S);
            be.context_forward(s(ctx), s(probs), s(v), B, H, T, S, dk);
        });
        expect_close(scores, gemm_atol(dk), RTOL, "scores_forward");
        expect_close(masked, gemm_atol(dk), RTOL, "attention_mask_forward");   // -inf where masked
        expect_close(probs, ATOL, RTOL, "softmax_forward");
        expect_close(ctx, gemm_atol(S), RTOL, "context_forward");

        auto dctx = random(nq), dprobs = random(ns), dv = random(nk);
        both([&](Backend& be, Side s) { be.context_backward(s(dprobs), s(dv), s(dctx), s(probs), s(v), B, H, T, S, dk); });
        expect_close(dprobs, gemm_atol(dk), RTOL, "context_backward dprobs");
        expect_close(dv, gemm_atol(T), RTOL, "context_backward dv");
        auto dmasked = random(ns);
        both([&](Backend& be, Side s) { be.softmax_backward(s(dmasked), s(dprobs), s(probs), B * H * T, S); });
        expect_close(dmasked, gemm_atol(S), RTOL, "softmax_backward");
        auto dscores = random(ns);
        both([&](Backend& be, Side s) { be.attention_mask_backward(s(dscores), s(dmasked), s(mask), B, H, T, S); });
        expect_close(dscores, gemm_atol(S), RTOL, "attention_mask_backward");
        auto dq = random(nq), dk_ = random(nk);
        both([&](Backend& be, Side s) { be.scores_backward(s(dq), s(dk_), s(dscores), s(q), s(k), B, H, T, S, dk, scale); });
        expect_close(dq, gemm_atol(S) * 10, RTOL, "scores_backward dq");
        expect_close(dk_, gemm_atol(T) * 10, RTOL, "scores_backward dk");
    }
}

TEST_F(OpParity, NullMaskKeepsEverything) {
    const int B = 2, H = 2, T = 3, S = 4;
    auto scores = random(B * H * T * S), out = random(B * H * T * S);
    auto dout = random(B * H * T * S), d = random(B * H * T * S);
    both([&](Backend& be, Side s) {
        be.attention_mask_forward(s(out), s(scores), nullptr, B, H, T, S);
        be.attention_mask_backward(s(d), s(dout), nullptr, B, H, T, S);
    });
    expect_close(out, 0.0, 0.0, "attention_mask_forward without mask");
    expect_close(d, ATOL, RTOL, "attention_mask_backward without mask");
}

TEST_F(OpParity, SoftmaxWideRowsAndLargeValues) {
    // rows wider than a warp many times over, values that would overflow exp() unshifted
    for (auto [R, C] : {std::tuple{3, 1}, {5, 31}, {7, 1000}, {2, 4096}}) {
        SCOPED_TRACE(testing::Message() << "R=" << R << " C=" << C);
        auto inp = random(static_cast<size_t>(R) * C, -80.0f, 80.0f), probs = random(inp.size());
        both([&](Backend& be, Side s) { be.softmax_forward(s(probs), s(inp), R, C); });
        expect_close(probs, ATOL, RTOL, "softmax_forward");
        // the backward's row reduction over the same wide rows (one warp strides over C)
        auto dout = random(inp.size()), dinp = random(inp.size());
        both([&](Backend& be, Side s) { be.softmax_backward(s(dinp), s(dout), s(probs), R, C); });
        expect_close(dinp, gemm_atol(C), RTOL, "softmax_backward");
    }
}

}  // namespace
}  // namespace tx::test
