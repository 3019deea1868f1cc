// Attention alone on a backend: the fused op (online softmax over key tiles) against the four
// step-by-step ops (scores, mask, softmax, context), B·H heads of length L with dk columns, no
// mask (as torch's scaled_dot_product_attention without attn_mask). Prints one JSON object per
// length. Times are medians of CUDA events (Backend::timer_start/stop) after warm-up.
// Usage: attention_bench [--backend cuda|cpu] [--batch B] [--heads H] [--dk N] [--repeats N] L [L ...]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_backend.h"
#include "tx/backend.h"

namespace {

int usage(const char* why) {
    std::fprintf(stderr, "attention_bench: %s\nusage: attention_bench [--backend cuda|cpu] [--batch B] [--heads H] "
                         "[--dk N] [--repeats N] L [L ...]\n", why);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string backend_name = "cuda";
    int B = 1, H = 8, dk = 64, repeats = 20;
    std::vector<int> lengths;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&](int& out) {
            if (i + 1 >= argc) return false;
            out = std::atoi(argv[++i]);
            return out > 0;
        };
        if (a == "--backend" && i + 1 < argc) backend_name = argv[++i];
        else if (a == "--batch") { if (!next(B)) return usage("--batch needs a positive number"); }
        else if (a == "--heads") { if (!next(H)) return usage("--heads needs a positive number"); }
        else if (a == "--dk") { if (!next(dk)) return usage("--dk needs a positive number"); }
        else if (a == "--repeats") { if (!next(repeats)) return usage("--repeats needs a positive number"); }
        else if (std::atoi(a.c_str()) > 0) lengths.push_back(std::atoi(a.c_str()));
        else return usage(("unknown argument '" + a + "'").c_str());
    }
    if (lengths.empty()) return usage("give at least one length");
    std::unique_ptr<tx::Backend> backend;
    try {
        backend = bench::make_named_backend(backend_name);
    } catch (const std::invalid_argument& e) {
        return usage(e.what());
    } catch (const tx::DeviceError& e) {
        std::fprintf(stderr, "attention_bench: %s\n", e.what());
        return 1;
    }
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
    for (int L : lengths) {
        const size_t n = static_cast<size_t>(B) * H * L * dk, ns = static_cast<size_t>(B) * H * L * L;
        std::vector<float> host(n);
        tx::BackendArray<float> q(*backend, n), k(*backend, n), v(*backend, n), fused(*backend, n), ctx(*backend, n);
        for (auto* t : {&q, &k, &v}) {
            for (float& x : host) x = dist(rng);
            backend->upload(t->data(), host.data(), n * sizeof(float));
        }
        const double fused_ms = bench::median_ms(*backend, repeats, [&] {
            backend->fused_attention_forward(fused.data(), q.data(), k.data(), v.data(), nullptr, B, H, L, L, dk, scale);
        });
        double steps_ms = -1.0;   // -1: the (T,S) matrices did not fit in memory
        try {
            tx::BackendArray<float> scores(*backend, ns), probs(*backend, ns);
            steps_ms = bench::median_ms(*backend, repeats, [&] {
                backend->scores_forward(scores.data(), q.data(), k.data(), B, H, L, L, dk, scale);
                backend->attention_mask_forward(scores.data(), scores.data(), nullptr, B, H, L, L);
                backend->softmax_forward(probs.data(), scores.data(), B * H * L, L);
                backend->context_forward(ctx.data(), probs.data(), v.data(), B, H, L, L, dk);
            });
        } catch (const tx::DeviceError&) {
        }
        std::printf("{\"backend\": \"%s\", \"batch\": %d, \"heads\": %d, \"dk\": %d, \"length\": %d, "
                    "\"fused_ms\": %.5f, \"steps_ms\": %.5f}\n",
                    backend_name.c_str(), B, H, dk, L, fused_ms, steps_ms);
        std::fflush(stdout);
    }
    return 0;
}
