// The CUDA elementwise ops (residual, ReLU, dropout) (gpu/ops/ops_elementwise.cu) against the CPU
// ops, forward and backward, on seeded random inputs through the Backend interface
// (support/cuda_op_parity.h: outputs and gradients start random, so a forward must overwrite and a
// backward must add). Skipped without a CUDA device. CPU tests: tests/ops/test_elementwise.cpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

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

}  // namespace
}  // namespace tx::test
