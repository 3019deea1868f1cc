// The CUDA embedding and positional ops (gpu/ops/ops_embedding.cu) against the CPU ops, forward and
// backward, on seeded random inputs through the Backend interface (support/cuda_op_parity.h:
// outputs and gradients start random, so a forward must overwrite and a backward must add). Skipped
// without a CUDA device. CPU tests: tests/ops/test_embedding.cpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

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

TEST_F(VariantParity, LearnedPositionalBackward) {
    for (auto [B, T, D, L] : {std::tuple{1, 1, 1, 1}, {3, 7, 5, 9}, {16, 40, 128, 64}}) {
        SCOPED_TRACE(testing::Message() << "B=" << B << " T=" << T << " D=" << D << " L=" << L);
        auto dout = random(static_cast<size_t>(B) * T * D), dtable = random(static_cast<size_t>(L) * D);
        both([&](Backend& be, Side s) { be.learned_positional_backward(s(dtable), s(dout), B, T, D); });
        expect_close(dtable, ATOL, RTOL, "learned_positional_backward");   // rows >= T stay as they were
    }
}

}  // namespace
}  // namespace tx::test
