// The softmax, masked softmax and log-softmax ops alone (float, one thread), on the forward's shapes:
// each instruction-set path this CPU runs (cpu_isa.h; "generic" is the Eigen code as this build
// compiled it: SSE2 in a portable build, the native set in a -march=native one), timed in
// alternation so that a busy machine slows all alike. Then attention's per-head products at
// T = S, scores (T,dk)·(S,dk)ᵀ and context (T,S)·(S,dk): Eigen's product as the ops run it against
// gemm.h's sgemm_nt and gemm_packed.h's sgemm_packed, and two of the backward products likewise.
// Prints median µs and [min, max].
// Usage: softmax_bench [runs] (default 200)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tx/cpu_isa.h"
#include "ops/eigen_types.h"
#include "kernels/gemm.h"
#include "kernels/gemm_packed.h"
#include "tx/ops.h"
#include "ops/ops_softmax_fused.h"
#include "tx/threads.h"

namespace {

using std::vector;
using tx::cpu::Isa;

struct Stats {
    vector<double> us;
    void print(const char* label) {
        std::sort(us.begin(), us.end());
        std::printf("  %-22s %9.2f us  [%.2f, %.2f]\n", label, us[us.size() / 2], us.front(), us.back());
    }
};

double time_us(const std::function<void()>& fn) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

vector<float> random_floats(size_t n, uint64_t seed, float scale) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> unit(-scale, scale);
    vector<float> v(n);
    for (float& x : v) x = unit(rng);
    return v;
}

// One op on every path, alternating: runs × (path 1, path 2, …).
void compare_paths(const char* name, int runs, const std::function<void()>& op) {
    const vector<Isa> isas = tx::cpu::supported_isas();
    vector<Stats> stats(isas.size());
    for (int i = 0; i < runs + 5; ++i)
        for (size_t p = 0; p < isas.size(); ++p) {
            tx::cpu::set_active_isa(isas[p]);
            const double us = time_us(op);
            if (i >= 5) stats[p].us.push_back(us);
        }
    std::printf("%s\n", name);
    for (size_t p = 0; p < isas.size(); ++p) stats[p].print(tx::cpu::isa_name(isas[p]));
}

void compare(const char* name, int runs, const vector<std::pair<const char*, std::function<void()>>>& ways) {
    vector<Stats> stats(ways.size());
    for (int i = 0; i < runs + 5; ++i)
        for (size_t w = 0; w < ways.size(); ++w) {
            const double us = time_us(ways[w].second);
            if (i >= 5) stats[w].us.push_back(us);
        }
    std::printf("%s\n", name);
    for (size_t w = 0; w < ways.size(); ++w) stats[w].print(ways[w].first);
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::atoi(argv[1]) : 200;
    tx::set_cpu_threads(1);
    std::printf("%s\n", tx::cpu::machine_summary().c_str());
    const Isa best = tx::cpu::active_isa();

    std::printf("\n## Row ops, one thread, per path (median of %d)\n", runs);
    for (auto [B, H, T] : {std::tuple{1, 4, 32}, std::tuple{1, 8, 128}}) {
        const int S = T, R = B * H * T;
        const vector<float> x = random_floats(static_cast<size_t>(R) * S, 1, 4.0f);
        vector<float> mask(static_cast<size_t>(B) * T * S);
        for (int t = 0; t < T; ++t)
            for (int s = 0; s < S; ++s) mask[static_cast<size_t>(t) * S + s] = s <= t ? 1.0f : 0.0f;
        vector<float> p(x.size()), g = random_floats(x.size(), 2, 1.0f), dx(x.size());
        char name[128];
        std::snprintf(name, sizeof name, "softmax_forward R=%d C=%d", R, S);
        compare_paths(name, runs, [&] { tx::cpu::softmax_forward(p.data(), x.data(), R, S); });
        std::snprintf(name, sizeof name, "softmax_backward R=%d C=%d", R, S);
        compare_paths(name, runs, [&] { tx::cpu::softmax_backward(dx.data(), g.data(), p.data(), R, S); });
        std::snprintf(name, sizeof name, "masked_softmax_forward (B,H,T,S)=(%d,%d,%d,%d) causal", B, H, T, S);
        compare_paths(name, runs,
                      [&] { tx::cpu::masked_softmax_forward(p.data(), x.data(), mask.data(), B, H, T, S, 0.125f); });
        std::snprintf(name, sizeof name, "masked_softmax_backward (B,H,T,S)=(%d,%d,%d,%d)", B, H, T, S);
        compare_paths(name, runs, [&] {
            tx::cpu::masked_softmax_backward(dx.data(), g.data(), p.data(), mask.data(), B, H, T, S, 0.125f);
        });
    }
    for (auto [R, V] : {std::pair{32, 1000}, std::pair{128, 8000}}) {
        const vector<float> x = random_floats(static_cast<size_t>(R) * V, 3, 8.0f);
        vector<float> o(x.size()), g = random_floats(x.size(), 4, 1.0f), dx(x.size());
        char name[128];
        std::snprintf(name, sizeof name, "log_softmax_forward R=%d V=%d", R, V);
        compare_paths(name, runs, [&] { tx::cpu::log_softmax_forward(o.data(), x.data(), R, V); });
        std::snprintf(name, sizeof name, "log_softmax_backward R=%d V=%d", R, V);
        compare_paths(name, runs, [&] { tx::cpu::log_softmax_backward(dx.data(), g.data(), o.data(), R, V); });
    }

    tx::cpu::set_active_isa(best);
    std::printf("\n## Per-head products, one head, one thread, path %s (median of %d)\n", tx::cpu::isa_name(best),
                runs);
    for (int dk : {16, 32, 64})
        for (int T : {8, 32, 128, 512}) {
            const int S = T;
            const vector<float> q = random_floats(static_cast<size_t>(T) * dk, 5, 1.0f);
            const vector<float> k = random_floats(static_cast<size_t>(S) * dk, 6, 1.0f);
            const vector<float> probs = random_floats(static_cast<size_t>(T) * S, 7, 1.0f);
            vector<float> out(static_cast<size_t>(T) * std::max(S, dk));
            char name[128];
            std::snprintf(name, sizeof name, "scores q·kT  T=S=%d dk=%d", T, dk);
            compare(name, runs,
                    {{"eigen",
                      [&] {
                          Eigen::Map<const tx::cpu::RowMatrix<float>> qm(q.data(), T, dk), km(k.data(), S, dk);
                          Eigen::Map<tx::cpu::RowMatrix<float>>(out.data(), T, S).noalias() = 0.125f * (qm * km.transpose());
                      }},
                     {"sgemm_nt", [&] { tx::cpu::sgemm_nt(out.data(), q.data(), k.data(), nullptr, T, dk, S); }},
                     {"sgemm_packed", [&] {
                          tx::cpu::sgemm_packed(out.data(), S, q.data(), dk, false, k.data(), dk, true, T, S, dk, false);
                      }}});
            std::snprintf(name, sizeof name, "context p·v  T=S=%d dk=%d", T, dk);
            compare(name, runs,
                    {{"eigen",
                      [&] {
                          Eigen::Map<const tx::cpu::RowMatrix<float>> pm(probs.data(), T, S), vm(k.data(), S, dk);
                          Eigen::Map<tx::cpu::RowMatrix<float>>(out.data(), T, dk).noalias() = pm * vm;
                      }},
                     {"sgemm_packed", [&] {
                          tx::cpu::sgemm_packed(out.data(), dk, probs.data(), S, false, k.data(), dk, false, T, dk, S,
                                                false);
                      }}});
        }
    std::printf("\n## Per-head backward products, one head, one thread, path %s (median of %d)\n",
                tx::cpu::isa_name(best), runs);
    for (int dk : {16, 32, 64})
        for (int T : {8, 32, 128}) {
            const int S = T;
            const vector<float> k = random_floats(static_cast<size_t>(S) * dk, 8, 1.0f);
            const vector<float> g = random_floats(static_cast<size_t>(T) * S, 9, 1.0f);
            const vector<float> gc = random_floats(static_cast<size_t>(T) * dk, 10, 1.0f);
            vector<float> dq(static_cast<size_t>(T) * dk), tmp(dq.size()), dv(static_cast<size_t>(S) * dk);
            char name[128];
            std::snprintf(name, sizeof name, "dq += s·g·k  T=S=%d dk=%d", T, dk);
            compare(name, runs,
                    {{"eigen",
                      [&] {
                          Eigen::Map<const tx::cpu::RowMatrix<float>> gm(g.data(), T, S), km(k.data(), S, dk);
                          Eigen::Map<tx::cpu::RowMatrix<float>>(dq.data(), T, dk).noalias() += 0.125f * (gm * km);
                      }},
                     {"sgemm_packed + axpy", [&] {
                          tx::cpu::sgemm_packed(tmp.data(), dk, g.data(), S, false, k.data(), dk, false, T, dk, S, false);
                          for (size_t i = 0; i < dq.size(); ++i) dq[i] += 0.125f * tmp[i];
                      }}});
            std::snprintf(name, sizeof name, "dv += pT·g  T=S=%d dk=%d", T, dk);
            compare(name, runs,
                    {{"eigen",
                      [&] {
                          Eigen::Map<const tx::cpu::RowMatrix<float>> pm(g.data(), T, S), gm(gc.data(), T, dk);
                          Eigen::Map<tx::cpu::RowMatrix<float>>(dv.data(), S, dk).noalias() += pm.transpose() * gm;
                      }},
                     {"sgemm_packed", [&] {
                          tx::cpu::sgemm_packed(dv.data(), dk, g.data(), S, true, gc.data(), dk, false, S, dk, T, true);
                      }}});
        }
    return 0;
}
