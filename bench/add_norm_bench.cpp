// LayerNorm and the Post-LN sublayer connection on the CPU, per instruction-set path, on (N,C) rows:
// LayerNorm forward + backward alone; then the connection as the separate ops run it in training
// (dropout, residual, LayerNorm and their backwards, with the model's buffer clearing) against the fused
// ops (core/ops/ops_add_norm.h). The variants alternate within every round; medians and ranges in ms.
// Usage: add_norm_bench [--rows N] [--d-model C] [--threads T] [--repeats R]   (one JSON object per line)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tx/cpu_isa.h"
#include "tx/ops.h"
#include "ops/ops_add_norm.h"
#include "tx/threads.h"

namespace {

struct Variant {
    std::string op;
    std::function<void()> run;
    std::vector<double> ms;
};

int usage(const std::string& why) {
    std::fprintf(stderr, "add_norm_bench: %s\nusage: add_norm_bench [--rows N] [--d-model C] [--threads T] [--repeats R]\n",
                 why.c_str());
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    int N = 1024, C = 128, threads = 1, repeats = 200;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) return usage("missing value after " + a);
        const int v = std::atoi(argv[++i]);
        if (v < 1) return usage(a + " needs a positive integer");
        if (a == "--rows") N = v;
        else if (a == "--d-model") C = v;
        else if (a == "--threads") threads = v;
        else if (a == "--repeats") repeats = v;
        else return usage("unknown option " + a);
    }
    tx::set_cpu_threads(threads);
    const size_t NC = static_cast<size_t>(N) * C;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    auto random = [&](size_t n) {
        std::vector<float> v(n);
        for (float& x : v) x = dist(rng);
        return v;
    };
    const std::vector<float> x = random(NC), sub = random(NC), w = random(C), b = random(C), g = random(NC);
    std::vector<float> out(NC), sum(NC), mask(NC), dropped(NC), mean(N), rstd(N), dx(NC), dsub(NC), dsum(NC),
        scratch(NC), dw(C), db(C), sub_inplace(NC);
    const float p = 0.1f, eps = 1e-5f;
    const uint64_t seed = 42;
    const int n = static_cast<int>(NC);
    auto clear = [](std::vector<float>& v) { std::memset(v.data(), 0, v.size() * sizeof(float)); };

    std::vector<Variant> variants;
    variants.push_back({"layernorm forward+backward", [&] {
        tx::cpu::layernorm_forward<float>(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C, eps);
        tx::cpu::layernorm_backward<float>(dx.data(), dw.data(), db.data(), g.data(), x.data(), w.data(), mean.data(),
                                           rstd.data(), N, C);
    }, {}});
    // The separate ops as transformer.cpp runs them: dropout in place on the sublayer's output, the
    // residual into sum, the norm; backward: the norm into a cleared dsum, the residual into both
    // branches, and dropout's backward into a cleared scratch.
    variants.push_back({"connection separate forward+backward", [&] {
        std::memcpy(sub_inplace.data(), sub.data(), NC * sizeof(float));
        tx::cpu::dropout_forward<float>(sub_inplace.data(), mask.data(), sub_inplace.data(), n, p, seed);
        tx::cpu::residual_forward<float>(sum.data(), x.data(), sub_inplace.data(), n);
        tx::cpu::layernorm_forward<float>(out.data(), mean.data(), rstd.data(), sum.data(), w.data(), b.data(), N, C, eps);
        clear(dsum);
        tx::cpu::layernorm_backward<float>(dsum.data(), dw.data(), db.data(), g.data(), sum.data(), w.data(),
                                           mean.data(), rstd.data(), N, C);
        tx::cpu::residual_backward<float>(dx.data(), dsub.data(), dsum.data(), n);
        clear(scratch);
        tx::cpu::dropout_backward<float>(scratch.data(), dsub.data(), mask.data(), n);
        clear(dsub);
    }, {}});
    variants.push_back({"connection fused forward+backward", [&] {
        std::memcpy(sub_inplace.data(), sub.data(), NC * sizeof(float));   // as the separate variant's copy
        tx::cpu::residual_dropout_norm_forward<float>(out.data(), sum.data(), mask.data(), mean.data(), rstd.data(),
                                                      x.data(), sub_inplace.data(), w.data(), b.data(), N, C, p, seed,
                                                      eps);
        tx::cpu::residual_dropout_norm_backward<float>(dx.data(), dsub.data(), dw.data(), db.data(), g.data(),
                                                       sum.data(), mask.data(), w.data(), mean.data(), rstd.data(), N, C);
        clear(dsub);
    }, {}});

    const tx::cpu::Isa before = tx::cpu::active_isa();
    std::printf("# %s; rows %d, d_model %d, %d thread(s), %d rounds\n", tx::cpu::machine_summary().c_str(), N, C,
                threads, repeats);
    for (tx::cpu::Isa isa : tx::cpu::supported_isas()) {
        tx::cpu::set_active_isa(isa);
        for (Variant& v : variants) {
            v.ms.clear();
            for (int i = 0; i < 5; ++i) v.run();
        }
        for (int r = 0; r < repeats; ++r)
            for (Variant& v : variants) {
                const auto t0 = std::chrono::steady_clock::now();
                v.run();
                v.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            }
        for (Variant& v : variants) {
            std::sort(v.ms.begin(), v.ms.end());
            std::printf("{\"isa\": \"%s\", \"op\": \"%s\", \"rows\": %d, \"d_model\": %d, \"median_ms\": %.4f, "
                        "\"p10_ms\": %.4f, \"p90_ms\": %.4f}\n",
                        tx::cpu::isa_name(isa), v.op.c_str(), N, C, v.ms[v.ms.size() / 2], v.ms[v.ms.size() / 10],
                        v.ms[v.ms.size() * 9 / 10]);
        }
    }
    tx::cpu::set_active_isa(before);
    return 0;
}
