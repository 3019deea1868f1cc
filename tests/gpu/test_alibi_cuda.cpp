// The modern variants' CUDA ops (RoPE, ALiBi and its slopes, learned positions' gradient, GELU,
// SwiGLU, RMSNorm) against the CPU ops on seeded random inputs, through the Backend interface, as
// test_cuda_ops.cpp does: outputs and gradient buffers start random (a forward must overwrite, a
// backward must add), odd sizes, dk = 2 and odd dk, H not a power of two, pos0/q0 > 0, T != S,
// in-place calls. Tolerance atol + rtol·|cpu| (parity.h); skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "support/cuda_parity.h"

namespace tx::test {
namespace {

constexpr double ATOL = 1e-5, RTOL = 1e-4;

using VariantParity = CudaParity;

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

TEST_F(VariantParity, LearnedPositionalBackward) {
    for (auto [B, T, D, L] : {std::tuple{1, 1, 1, 1}, {3, 7, 5, 9}, {16, 40, 128, 64}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " T=" << T << " D=" << D << " L=" << L);
        auto dout = random(static_cast<size_t>(B) * T * D), dtable = random(static_cast<size_t>(L) * D);
        both([&](Backend& be, Side s) { be.learned_positional_backward(s(dtable), s(dout), B, T, D); });
        expect_close(dtable, ATOL, RTOL, "learned_positional_backward");   // rows >= T stay as they were
    }
}

TEST_F(VariantParity, GeluAndSwiglu) {
    for (int N : {1, 7, 1000, 70001}) {
        SCOPED_TRACE(testing::Message() << "N=" << N);
        auto x = random(N, -6.0f, 6.0f), out = random(N);
        both([&](Backend& be, Side s) { be.gelu_forward(s(out), s(x), N); });
        expect_close(out, ATOL, RTOL, "gelu_forward");
        auto dout = random(N), dx = random(N);
        both([&](Backend& be, Side s) { be.gelu_backward(s(dx), s(dout), s(x), N); });
        expect_close(dx, ATOL, RTOL, "gelu_backward");

        auto gate = random(N, -10.0f, 10.0f), up = random(N, -2.0f, 2.0f), hidden = random(N);
        both([&](Backend& be, Side s) { be.swiglu_forward(s(hidden), s(gate), s(up), N); });
        expect_close(hidden, ATOL, RTOL, "swiglu_forward");
        auto dgate = random(N), dup = random(N);
        both([&](Backend& be, Side s) { be.swiglu_backward(s(dgate), s(dup), s(dout), s(gate), s(up), N); });
        expect_close(dgate, ATOL, RTOL, "swiglu_backward dgate");
        expect_close(dup, ATOL, RTOL, "swiglu_backward dup");
        both([&](Backend& be, Side s) { be.gelu_forward(s(x), s(x), N); });   // in place
        both([&](Backend& be, Side s) { be.swiglu_forward(s(gate), s(gate), s(up), N); });
        expect_close(x, ATOL, RTOL, "gelu_forward in place");
        expect_close(gate, ATOL, RTOL, "swiglu_forward in place");
    }
}

TEST_F(VariantParity, RmsNorm) {
    for (auto [N, C] : {std::tuple{1, 1}, {7, 5}, {33, 64}, {300, 512}, {5, 1000}}) {
        SCOPED_TRACE(testing::Message() << "N=" << N << " C=" << C);
        auto inp = random(static_cast<size_t>(N) * C, -3.0f, 3.0f), w = random(C);
        auto out = random(inp.size()), rstd = random(N);
        both([&](Backend& be, Side s) { be.rmsnorm_forward(s(out), s(rstd), s(inp), s(w), N, C, 1e-5f); });
        expect_close(out, ATOL * 10, RTOL * 10, "rmsnorm_forward");
        expect_close(rstd, ATOL, RTOL * 10, "rmsnorm_forward rstd");
        auto dout = random(inp.size()), dinp = random(inp.size()), dw = random(C);
        both([&](Backend& be, Side s) {
            be.rmsnorm_backward(s(dinp), s(dw), s(dout), s(inp), s(w), s(rstd), N, C);
        });
        expect_close(dinp, ATOL * 10, RTOL * 10, "rmsnorm_backward dinp");
        // a column sum of N products, in another order: the error grows like √N
        expect_close(dw, 1e-5 * std::max(1.0, std::sqrt(static_cast<double>(N))), RTOL * 10, "rmsnorm_backward dweight");
    }
}

}  // namespace
}  // namespace tx::test
