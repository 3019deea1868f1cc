// The CUDA GELU and SwiGLU (gpu/ops/ops_activation.cu) against the CPU ops, forward and backward,
// on seeded random inputs through the Backend interface (support/cuda_op_parity.h: outputs and
// gradients start random, so a forward must overwrite and a backward must add). Skipped without a
// CUDA device. CPU tests: tests/ops/test_activation.cpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

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

}  // namespace
}  // namespace tx::test
