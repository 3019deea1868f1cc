// Every CUDA op, forward and backward, against the CPU op on the same seeded random inputs, at
// several shapes (odd sizes, T != S, fully masked rows). Gradient buffers start from random values,
// not zeros, so that the accumulate rule (+=) is checked too; forward outputs start from random
// values as well, so that a forward that adds to its output, or leaves rows unwritten (pad targets,
// fully masked rows), cannot pass on a zero-filled buffer. Tolerance atol + rtol·|cpu|: 1e-5 and
// 1e-4 for elementwise and row ops; products of length K sum K roundings in another order.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_parity.h"

namespace tx::test {
namespace {

constexpr double ATOL = 1e-5, RTOL = 1e-4;
double gemm_atol(int K) { return 1e-5 * std::max(1.0, std::sqrt(static_cast<double>(K))); }

using OpParity = CudaParity;

TEST_F(OpParity, Embedding) {
    for (auto [N, D, V] : {std::tuple{1, 1, 2}, {13, 7, 5}, {64, 33, 11}}) {
        SCOPED_TRACE(testing::Message() << "N=" << N << " D=" << D << " V=" << V);
        auto ids = this->ids(N, V);   // few ids, many repeats: the backward's atomics collide
        auto w = random(static_cast<size_t>(V) * D), out = random(static_cast<size_t>(N) * D);
        both([&](Backend& be, Side s) { be.embedding_forward(s(out), s(ids), s(w), N, D, 2.5f); });
        expect_close(out, ATOL, RTOL, "embedding_forward");
        auto dout = random(static_cast<size_t>(N) * D), dw = random(static_cast<size_t>(V) * D);
        both([&](Backend& be, Side s) { be.embedding_backward(s(dw), s(dout), s(ids), N, D, 2.5f); });
        expect_close(dw, ATOL, RTOL, "embedding_backward");
    }
}

TEST_F(OpParity, Positional) {
    for (auto [B, T, D, L] : {std::tuple{1, 1, 1, 3}, {3, 7, 5, 9}, {2, 32, 64, 40}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " T=" << T << " D=" << D << " L=" << L);
        auto inp = random(static_cast<size_t>(B) * T * D), pe = random(static_cast<size_t>(L) * D);
        auto out = random(inp.size());
        both([&](Backend& be, Side s) { be.positional_forward(s(out), s(inp), s(pe), B, T, D); });
        expect_close(out, ATOL, RTOL, "positional_forward");
        auto dout = random(inp.size()), dinp = random(inp.size());
        both([&](Backend& be, Side s) { be.positional_backward(s(dinp), s(dout), B, T, D); });
        expect_close(dinp, ATOL, RTOL, "positional_backward");
    }
}

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

// Masks (B,T,S) with padding on later rows, a causal band when T == S, and row 0 of batch 0
// masking every key (a fully masked row).
std::vector<float> test_mask(int B, int T, int S) {
    std::vector<float> mask(static_cast<size_t>(B) * T * S);
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
            for (int s = 0; s < S; ++s) {
                const bool padded = s >= S - b;
                const bool future = T == S && s > t;
                const bool empty_row = b == 0 && t == 0;
                mask[(static_cast<size_t>(b) * T + t) * S + s] = (padded || future || empty_row) ? 0.0f : 1.0f;
            }
    return mask;
}

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

TEST_F(OpParity, ResidualReluDropout) {
    for (int N : {1, 31, 1000, 100003}) {
        SCOPED_TRACE(testing::Message() << "N=" << N);
        auto a = random(N), b = random(N), out = random(N);
        both([&](Backend& be, Side s) { be.residual_forward(s(out), s(a), s(b), N); });
        expect_close(out, 0.0, 0.0, "residual_forward");
        auto dout = random(N), da = random(N), db = random(N);
        both([&](Backend& be, Side s) { be.residual_backward(s(da), s(db), s(dout), N); });
        expect_close(da, ATOL, RTOL, "residual_backward da");
        expect_close(db, ATOL, RTOL, "residual_backward db");

        auto r = random(N), dr = random(N);
        both([&](Backend& be, Side s) {
            be.relu_forward(s(r), s(a), N);
            be.relu_backward(s(dr), s(dout), s(r), N);
        });
        expect_close(r, 0.0, 0.0, "relu_forward");
        expect_close(dr, ATOL, RTOL, "relu_backward");
        // in place (out == inp), as the model's FFN runs it
        auto hidden = random(N);
        both([&](Backend& be, Side s) { be.relu_forward(s(hidden), s(hidden), N); });
        expect_close(hidden, 0.0, 0.0, "relu_forward in place");

        // the same hash on both sides: the masks agree bit for bit
        auto d_out = random(N), d_mask = random(N), dd = random(N);
        both([&](Backend& be, Side s) {
            be.dropout_forward(s(d_out), s(d_mask), s(a), N, 0.1f, 0x1234ABCDull);
            be.dropout_backward(s(dd), s(dout), s(d_mask), N);
        });
        expect_close(d_mask, 0.0, 0.0, "dropout_forward mask");
        expect_close(d_out, 0.0, 0.0, "dropout_forward out");
        expect_close(dd, ATOL, RTOL, "dropout_backward");
    }
}

TEST_F(OpParity, LayerNorm) {
    for (auto [N, C] : {std::tuple{1, 1}, {7, 5}, {33, 64}, {300, 512}, {5, 1000}}) {
        SCOPED_TRACE(testing::Message() << "N=" << N << " C=" << C);
        auto inp = random(static_cast<size_t>(N) * C, -3.0f, 3.0f), w = random(C), b = random(C);
        auto out = random(inp.size()), mean = random(N), rstd = random(N);
        both([&](Backend& be, Side s) { be.layernorm_forward(s(out), s(mean), s(rstd), s(inp), s(w), s(b), N, C, 1e-5f); });
        expect_close(out, ATOL * 10, RTOL * 10, "layernorm_forward");
        expect_close(mean, ATOL, RTOL, "layernorm_forward mean");
        expect_close(rstd, ATOL, RTOL * 10, "layernorm_forward rstd");
        auto dout = random(inp.size()), dinp = random(inp.size()), dw = random(C), db = random(C);
        both([&](Backend& be, Side s) {
            be.layernorm_backward(s(dinp), s(dw), s(db), s(dout), s(inp), s(w), s(mean), s(rstd), N, C);
        });
        expect_close(dinp, ATOL * 10, RTOL * 10, "layernorm_backward dinp");
        expect_close(dw, gemm_atol(N), RTOL * 10, "layernorm_backward dweight");
        expect_close(db, gemm_atol(N), RTOL, "layernorm_backward dbias");
    }
}

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

// Device errors are exceptions that name the op, and the backend goes on working afterwards.
TEST_F(OpParity, OutOfMemoryIsAReportedErrorNotACrash) {
    try {
        gpu().allocate(size_t(1) << 52);   // 4 PiB
        FAIL() << "a 4 PiB allocation succeeded";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("allocate"), std::string::npos) << e.what();
    }
    auto a = random(100), b = random(100), out = random(100);
    both([&](Backend& be, Side s) { be.residual_forward(s(out), s(a), s(b), 100); });
    expect_close(out, 0.0, 0.0, "residual_forward after the failed allocation");
}

}  // namespace
}  // namespace tx::test
