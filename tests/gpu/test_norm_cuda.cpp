// The CUDA LayerNorm and RMSNorm (gpu/ops/ops_norm.cu) against the CPU ops, forward and backward,
// on seeded random inputs through the Backend interface (support/cuda_op_parity.h: outputs and
// gradients start random, so a forward must overwrite and a backward must add). Skipped without a
// CUDA device. CPU tests: tests/ops/test_norm.cpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

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
