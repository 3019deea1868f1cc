// Parity harness for the CUDA backend: the same data on the CPU backend (the reference) and the
// CUDA backend, an op run on both through the Backend interface, and the results compared with
// |gpu - cpu| <= atol + rtol·|cpu| (non-finite references must match exactly). Every test
// skips with the driver's reason where no CUDA device can be used.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tx/backend.h"
#include "tx/cuda_backend.h"

namespace tx::test {

// One tensor held twice: the CPU backend's copy and the GPU backend's copy.
template <typename T>
struct Twin {
    BackendArray<T> cpu, gpu;
    size_t size() const { return cpu.size(); }
};

// Which backend a call is running on; s(twin) picks that backend's copy.
struct Side {
    bool gpu;
    template <typename T>
    T* operator()(Twin<T>& t) const { return gpu ? t.gpu.data() : t.cpu.data(); }
};

class CudaParity : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string reason = cuda_unavailable_reason();
        if (!reason.empty()) GTEST_SKIP() << "no CUDA device: " << reason;
        m_cpu = make_reference_backend();
        m_gpu = make_cuda_backend();
    }

    // The CPU backend the GPU is held to; a suite may pick another CPU configuration.
    virtual std::unique_ptr<Backend> make_reference_backend() { return make_cpu_backend(); }

    Backend& cpu() { return *m_cpu; }
    Backend& gpu() { return *m_gpu; }

    template <typename T>
    Twin<T> from(const std::vector<T>& host) {
        Twin<T> t{BackendArray<T>(*m_cpu, host.size()), BackendArray<T>(*m_gpu, host.size())};
        m_cpu->upload(t.cpu.data(), host.data(), host.size() * sizeof(T));
        m_gpu->upload(t.gpu.data(), host.data(), host.size() * sizeof(T));
        return t;
    }
    Twin<float> random(size_t n, float lo = -1.0f, float hi = 1.0f) {
        std::uniform_real_distribution<float> dist(lo, hi);
        std::vector<float> host(n);
        for (float& x : host) x = dist(m_rng);
        return from(host);
    }
    Twin<float> zeros(size_t n) { return from(std::vector<float>(n, 0.0f)); }
    Twin<int32_t> ids(size_t n, int V) {
        std::uniform_int_distribution<int32_t> dist(0, V - 1);
        std::vector<int32_t> host(n);
        for (int32_t& x : host) x = dist(m_rng);
        return from(host);
    }

    // Runs f(backend, side) on the CPU, then on the GPU.
    template <typename F>
    void both(F f) {
        f(*m_cpu, Side{false});
        f(*m_gpu, Side{true});
        m_gpu->synchronize();
    }

    void expect_close(const Twin<float>& t, double atol, double rtol, const std::string& what) {
        std::vector<float> ref(t.size()), got(t.size());
        m_cpu->download(ref.data(), t.cpu.data(), ref.size() * sizeof(float));
        m_gpu->download(got.data(), t.gpu.data(), got.size() * sizeof(float));
        expect_close(got, ref, atol, rtol, what);
    }

    static void expect_close(const std::vector<float>& got, const std::vector<float>& ref, double atol, double rtol,
                             const std::string& what) {
        ASSERT_EQ(got.size(), ref.size()) << what;
        size_t bad = 0, worst = 0;
        double worst_excess = 0.0;
        for (size_t i = 0; i < ref.size(); ++i) {
            const double r = ref[i], g = got[i];
            double excess;
            if (!std::isfinite(r)) excess = (g == r || (std::isnan(r) && std::isnan(g))) ? 0.0 : INFINITY;
            else excess = std::abs(g - r) - (atol + rtol * std::abs(r));
            if (std::isnan(excess)) excess = INFINITY;   // a NaN from the GPU: report it as the worst, not the last
            if (!(excess <= 0.0)) {
                ++bad;
                if (!(excess <= worst_excess)) {
                    worst_excess = excess;
                    worst = i;
                }
            }
        }
        EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << ref.size() << " values differ; worst at " << worst
                           << ": gpu " << got[worst] << " vs cpu " << ref[worst] << " (atol " << atol << ", rtol "
                           << rtol << ")";
    }

private:
    std::unique_ptr<Backend> m_cpu, m_gpu;
    std::mt19937_64 m_rng{20261123};
};

}  // namespace tx::test
