// The CUDA backend itself (gpu/ops/cuda_backend.cu): a device error is an exception that names the
// op, and the backend goes on working afterwards. Skipped without a CUDA device. The CPU backend's
// tests: tests/ops/test_cpu_backend.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tx/cuda_backend.h"

#include "support/cuda_op_parity.h"

namespace tx::test {
namespace {

// Without an NVIDIA driver, CUDA answers "driver version is insufficient"; a learner would read
// that as "update your driver". The reason the app shows says what is missing instead.
TEST(CudaProbe, WithoutADriverTheReasonSaysWhatIsMissing) {
    if (std::filesystem::exists("/proc/driver/nvidia/version")) GTEST_SKIP() << "an NVIDIA driver is loaded";
    EXPECT_EQ(cuda_unavailable_reason(), NO_DRIVER_REASON);
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
