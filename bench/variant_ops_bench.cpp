// The modern variants' ops against the 2017 ops they replace, on one backend and the model's shapes:
// B sentences of L tokens, width D, H heads (dk = D/H), FFN width F. Pairs, forward and backward:
// sinusoidal add vs RoPE on q and k, mask vs ALiBi on the scores (B,H,L,L), ReLU vs GELU vs SwiGLU
// on the hidden (B·L,F), LayerNorm vs RMSNorm on (B·L,D). Prints one JSON object per op; times are
// medians of Backend::timer_start/stop (CUDA events on the GPU) after warm-up.
// Usage: variant_ops_bench [--backend cpu|cuda] [--batch B] [--len L] [--d-model D] [--heads H]
//                          [--d-ff F] [--threads N] [--repeats N]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_backend.h"
#include "tx/backend.h"
#include "tx/threads.h"

namespace {

int usage(const std::string& why) {
    std::fprintf(stderr, "variant_ops_bench: %s\nusage: variant_ops_bench [--backend cpu|cuda] [--batch B] [--len L] "
                         "[--d-model D] [--heads H] [--d-ff F] [--threads N] [--repeats N]\n", why.c_str());
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string backend_name = "cpu";
    int B = 32, L = 24, D = 128, H = 4, F = 512, threads = 1, repeats = 50;   // the default model, a training batch
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&](int& out) {
            if (i + 1 >= argc) return false;
            out = std::atoi(argv[++i]);
            return out > 0;
        };
        bool ok = true;
        if (a == "--backend" && i + 1 < argc) backend_name = argv[++i];
        else if (a == "--batch") ok = next(B);
        else if (a == "--len") ok = next(L);
        else if (a == "--d-model") ok = next(D);
        else if (a == "--heads") ok = next(H);
        else if (a == "--d-ff") ok = next(F);
        else if (a == "--threads") ok = next(threads);
        else if (a == "--repeats") ok = next(repeats);
        else return usage("unknown argument '" + a + "'");
        if (!ok) return usage(a + " needs a positive number");
    }
    if (D % H != 0 || (D / H) % 2 != 0) return usage("--d-model must be a multiple of --heads with an even quotient (RoPE pairs)");
    tx::set_cpu_threads(threads);
    std::unique_ptr<tx::Backend> be;
    try {
        be = bench::make_named_backend(backend_name);
    } catch (const std::invalid_argument& e) {
        return usage(e.what());
    } catch (const tx::DeviceError& e) {
        std::fprintf(stderr, "variant_ops_bench: %s\n", e.what());
        return 1;
    }
    const int dk = D / H, N = B * L;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    auto filled = [&](size_t n) {
        tx::BackendArray<float> a(*be, n);
        std::vector<float> host(n);
        for (float& x : host) x = dist(rng);
        be->upload(a.data(), host.data(), n * sizeof(float));
        return a;
    };
    const size_t nx = static_cast<size_t>(N) * D, ns = static_cast<size_t>(B) * H * L * L, nh = static_cast<size_t>(N) * F;
    auto x = filled(nx), x2 = filled(nx), dx = filled(nx), pe = filled(static_cast<size_t>(L) * D);
    auto scores = filled(ns), dscores = filled(ns), mask = filled(static_cast<size_t>(B) * L * L);
    auto hid = filled(nh), up = filled(nh), out = filled(nh), dh = filled(nh), dup = filled(nh);
    auto w = filled(D), bias = filled(D), dw = filled(D), db = filled(D), mean = filled(N), rstd = filled(N);

    struct Row {
        const char* op;
        const char* replaces;
        std::function<void()> run;
    };
    const std::vector<Row> rows = {
        {"positional_forward", "", [&] { be->positional_forward(x2.data(), x.data(), pe.data(), B, L, D); }},
        {"rope_forward (q and k)", "positional_forward",
         [&] {
             be->rope_forward(x2.data(), x.data(), B, H, L, dk, 0);
             be->rope_forward(dx.data(), x.data(), B, H, L, dk, 0);
         }},
        {"positional_backward", "", [&] { be->positional_backward(dx.data(), x.data(), B, L, D); }},
        {"rope_backward (q and k)", "positional_backward",
         [&] {
             be->rope_backward(dx.data(), x.data(), B, H, L, dk, 0);
             be->rope_backward(x2.data(), x.data(), B, H, L, dk, 0);
         }},
        {"learned_positional_backward", "positional_backward",
         [&] { be->learned_positional_backward(pe.data(), x.data(), B, L, D); }},
        {"attention_mask_forward", "", [&] { be->attention_mask_forward(dscores.data(), scores.data(), mask.data(), B, H, L, L); }},
        {"alibi_forward", "attention_mask_forward", [&] { be->alibi_forward(dscores.data(), scores.data(), B, H, L, L, 0); }},
        {"relu_forward", "", [&] { be->relu_forward(out.data(), hid.data(), static_cast<int>(nh)); }},
        {"gelu_forward", "relu_forward", [&] { be->gelu_forward(out.data(), hid.data(), static_cast<int>(nh)); }},
        {"swiglu_forward", "relu_forward", [&] { be->swiglu_forward(out.data(), hid.data(), up.data(), static_cast<int>(nh)); }},
        {"relu_backward", "", [&] { be->relu_backward(dh.data(), up.data(), hid.data(), static_cast<int>(nh)); }},
        {"gelu_backward", "relu_backward", [&] { be->gelu_backward(dh.data(), up.data(), hid.data(), static_cast<int>(nh)); }},
        {"swiglu_backward", "relu_backward",
         [&] { be->swiglu_backward(dh.data(), dup.data(), out.data(), hid.data(), up.data(), static_cast<int>(nh)); }},
        {"layernorm_forward", "",
         [&] { be->layernorm_forward(x2.data(), mean.data(), rstd.data(), x.data(), w.data(), bias.data(), N, D, 1e-5f); }},
        {"rmsnorm_forward", "layernorm_forward", [&] { be->rmsnorm_forward(x2.data(), rstd.data(), x.data(), w.data(), N, D, 1e-5f); }},
        {"layernorm_backward", "",
         [&] {
             be->layernorm_backward(dx.data(), dw.data(), db.data(), x2.data(), x.data(), w.data(), mean.data(),
                                    rstd.data(), N, D);
         }},
        {"rmsnorm_backward", "layernorm_backward",
         [&] { be->rmsnorm_backward(dx.data(), dw.data(), x2.data(), x.data(), w.data(), rstd.data(), N, D); }},
    };
    // layernorm_backward reads mean; rmsnorm_backward reads rstd: compute them once before timing
    be->layernorm_forward(x2.data(), mean.data(), rstd.data(), x.data(), w.data(), bias.data(), N, D, 1e-5f);
    for (const Row& r : rows) {
        const double ms = bench::median_ms(*be, repeats, r.run);
        std::printf("{\"backend\": \"%s\", \"threads\": %d, \"B\": %d, \"L\": %d, \"D\": %d, \"H\": %d, \"F\": %d, "
                    "\"op\": \"%s\", \"replaces\": \"%s\", \"median_ms\": %.5f}\n",
                    backend_name.c_str(), threads, B, L, D, H, F, r.op, r.replaces, ms);
        std::fflush(stdout);
    }
    return 0;
}
