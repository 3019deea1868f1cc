// SGEMM: our backend's GEMM path, tx::cpu::linear_forward<float> (out (N,OC) = inp (N,C) · W (OC,C)ᵀ,
// core/gemm.h's AVX-512 kernel, or Eigen's product in a portable build), against OpenBLAS's
// cblas_sgemm on the same operands, one thread each.
// Prints GFLOP/s (2·N·C·OC per product; best and median of the timed runs) and the ratio.
// Usage: sgemm_bench [N [C [OC [runs]]]]   (default 512 512 512 50)
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "gemm.h"
#include "ops.h"
#include "threads.h"

extern "C" void openblas_set_num_threads(int threads);
extern "C" char* openblas_get_corename(void);

namespace {

struct Timing {
    double best_ms, median_ms;
};

Timing time_runs(int runs, const std::function<void()>& f) {
    for (int i = 0; i < 3; ++i) f();   // warm-up: caches, page faults, thread pools
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        f();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    return {ms.front(), ms[ms.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
    const int N = argc > 1 ? std::atoi(argv[1]) : 512;
    const int C = argc > 2 ? std::atoi(argv[2]) : 512;
    const int OC = argc > 3 ? std::atoi(argv[3]) : 512;
    const int runs = argc > 4 ? std::atoi(argv[4]) : 50;
    if (N < 1 || C < 1 || OC < 1 || runs < 1) {
        std::fprintf(stderr, "usage: sgemm_bench [N [C [OC [runs]]]]\n");
        return 2;
    }
    tx::set_cpu_threads(1);
    openblas_set_num_threads(1);

    std::vector<float> inp(static_cast<size_t>(N) * C), weight(static_cast<size_t>(OC) * C);
    std::vector<float> ours(static_cast<size_t>(N) * OC), blas(static_cast<size_t>(N) * OC);
    uint32_t state = 1;
    auto next = [&state] {
        state = state * 1664525u + 1013904223u;
        return static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
    };
    for (float& x : inp) x = next();
    for (float& x : weight) x = next();

    const Timing t_ours = time_runs(runs, [&] {
        tx::cpu::linear_forward<float>(ours.data(), inp.data(), weight.data(), nullptr, N, C, OC);
    });
    const Timing t_blas = time_runs(runs, [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, OC, C, 1.0f, inp.data(), C, weight.data(), C, 0.0f,
                    blas.data(), OC);
    });

    double worst = 0.0;
    for (size_t i = 0; i < ours.size(); ++i) worst = std::max(worst, std::fabs(double(ours[i]) - blas[i]));
    const double flop = 2.0 * N * C * OC;
    auto gflops = [flop](double ms) { return flop / (ms * 1e6); };
    std::printf("SGEMM %dx%dx%d, 1 thread, %d runs (OpenBLAS core: %s)\n", N, C, OC, runs, openblas_get_corename());
    std::printf("  ours (%s):  best %.3f ms = %.1f GFLOP/s, median %.3f ms = %.1f GFLOP/s\n",
                tx::cpu::sgemm_uses_kernel(C, OC) ? "AVX-512 kernel" : "Eigen product ", t_ours.best_ms, gflops(t_ours.best_ms), t_ours.median_ms, gflops(t_ours.median_ms));
    std::printf("  OpenBLAS cblas_sgemm:       best %.3f ms = %.1f GFLOP/s, median %.3f ms = %.1f GFLOP/s\n",
                t_blas.best_ms, gflops(t_blas.best_ms), t_blas.median_ms, gflops(t_blas.median_ms));
    std::printf("  ours / OpenBLAS (median): %.1f%%   max |ours - OpenBLAS| = %.2e\n",
                100.0 * t_blas.median_ms / t_ours.median_ms, worst);
    std::printf("{\"n\": %d, \"c\": %d, \"oc\": %d, \"ours_gflops\": %.2f, \"openblas_gflops\": %.2f, \"ratio\": %.4f}\n",
                N, C, OC, gflops(t_ours.median_ms), gflops(t_blas.median_ms), t_blas.median_ms / t_ours.median_ms);
    return worst < 1e-3 ? 0 : 1;
}
