// The CUDA fused attention (gpu/ops/ops_attention_fused.cu, forward only) against the CPU's fused
// op and the GPU's own four steps, with and without a mask, on seeded random inputs through the
// Backend interface (support/cuda_op_parity.h: outputs start random, so the op must overwrite).
// Skipped without a CUDA device. CPU tests: tests/ops/test_attention_fused.cpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

TEST_F(OpParity, FusedAttentionMatchesCpuFusedAndGpuStepByStep) {
    // dk covers every kernel instantiation (16, 32, 64, 128, 256) with sizes that are not the bound
    for (auto [B, H, T, S, dk] : {std::tuple{1, 1, 1, 1, 1}, {2, 3, 5, 9, 7}, {2, 4, 12, 12, 16}, {1, 8, 33, 70, 64},
                                  {2, 2, 65, 65, 100}, {1, 2, 20, 50, 200}, {1, 1, 3, 129, 32}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " H=" << H << " T=" << T << " S=" << S << " dk=" << dk);
        const size_t nq = static_cast<size_t>(B) * H * T * dk, nk = static_cast<size_t>(B) * H * S * dk,
                     ns = static_cast<size_t>(B) * H * T * S;
        const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
        auto q = random(nq, -2.0f, 2.0f), k = random(nk, -2.0f, 2.0f), v = random(nk), mask = from(test_mask(B, T, S));
        auto fused = random(nq), unmasked = random(nq);
        both([&](Backend& be, Side s) {
            be.fused_attention_forward(s(fused), s(q), s(k), s(v), s(mask), B, H, T, S, dk, scale);
            be.fused_attention_forward(s(unmasked), s(q), s(k), s(v), nullptr, B, H, T, S, dk, scale);
        });
        expect_close(fused, gemm_atol(S), RTOL * 10, "fused_attention_forward vs CPU fused");
        expect_close(unmasked, gemm_atol(S), RTOL * 10, "fused_attention_forward without mask vs CPU fused");

        // the GPU's own four steps
        BackendArray<float> scores(gpu(), ns), probs(gpu(), ns), ctx(gpu(), nq);
        gpu().scores_forward(scores.data(), q.gpu.data(), k.gpu.data(), B, H, T, S, dk, scale);
        gpu().attention_mask_forward(scores.data(), scores.data(), mask.gpu.data(), B, H, T, S);
        gpu().softmax_forward(probs.data(), scores.data(), B * H * T, S);
        gpu().context_forward(ctx.data(), probs.data(), v.gpu.data(), B, H, T, S, dk);
        std::vector<float> steps(nq), one_pass(nq);
        gpu().download(steps.data(), ctx.data(), nq * sizeof(float));
        gpu().download(one_pass.data(), fused.gpu.data(), nq * sizeof(float));
        expect_close(one_pass, steps, gemm_atol(S), RTOL * 10, "fused vs step-by-step on the GPU");
        // batch 0, query row 0 sees no key: exactly zero
        for (int h = 0; h < H; ++h)
            for (int d = 0; d < dk; ++d) EXPECT_EQ(one_pass[static_cast<size_t>(h) * T * dk + d], 0.0f);
    }
}

}  // namespace
}  // namespace tx::test
