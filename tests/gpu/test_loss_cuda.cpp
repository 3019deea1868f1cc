// The CUDA log-softmax and label-smoothed cross-entropy (gpu/ops/ops_loss.cu) against the CPU ops,
// forward and backward, on seeded random inputs through the Backend interface
// (support/cuda_op_parity.h: outputs and gradients start random, so a forward must overwrite and a
// backward must add). Skipped without a CUDA device. CPU tests: tests/ops/test_loss.cpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

TEST_F(OpParity, LogSoftmaxAndLabelSmoothedCrossEntropy) {
    for (auto [R, V] : {std::tuple{1, 3}, {9, 11}, {40, 2008}}) {
        SCOPED_TRACE(testing::Message() << "R=" << R << " V=" << V);
        auto logits = random(static_cast<size_t>(R) * V, -5.0f, 5.0f), lp = random(logits.size());
        both([&](Backend& be, Side s) { be.log_softmax_forward(s(lp), s(logits), R, V); });
        expect_close(lp, ATOL, RTOL, "log_softmax_forward");
        std::vector<int32_t> host_targets(R);
        for (int r = 0; r < R; ++r) host_targets[r] = r % 3 == 1 ? 0 : (r * 7 + 1) % V;   // every third is PAD (0)
        auto targets = from(host_targets);
        for (float smoothing : {0.0f, 0.1f}) {
            auto losses = random(R), dlosses = random(R, 0.0f, 1.0f), dlp = random(lp.size());
            both([&](Backend& be, Side s) {
                be.cross_entropy_forward(s(losses), s(lp), s(targets), R, V, smoothing, 0);
                be.cross_entropy_backward(s(dlp), s(dlosses), s(targets), R, V, smoothing, 0);
            });
            expect_close(losses, ATOL * 10, RTOL, "cross_entropy_forward");
            expect_close(dlp, ATOL, RTOL, "cross_entropy_backward");
            auto dlogits_fused = random(lp.size());
            both([&](Backend& be, Side s) {
                be.cross_entropy_log_softmax_backward(s(dlogits_fused), s(dlosses), s(lp), s(targets), R, V, smoothing, 0);
            });
            expect_close(dlogits_fused, ATOL, RTOL, "cross_entropy_log_softmax_backward");
        }
        auto dout = random(lp.size()), dlogits = random(lp.size());
        both([&](Backend& be, Side s) { be.log_softmax_backward(s(dlogits), s(dout), s(lp), R, V); });
        expect_close(dlogits, gemm_atol(V), RTOL * 10, "log_softmax_backward");
    }
}

}  // namespace
}  // namespace tx::test
