// txcli bench: times the forward pass (every step) at a given batch and length, per backend;
// prints a table or one JSON object per backend and line (DESIGN.md §3).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "model_source.h"
#include "threads.h"
#include "transformer.h"

namespace tx::cli {

namespace {

struct Stats {
    double median = 0, min = 0, max = 0;
};

Stats stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
    return parts;
}

// Deterministic content ids (not PAD/BOS/EOS/UNK): a benchmark must not depend on a tokenizer.
std::vector<std::vector<int>> rows(int B, int len, int vocab, int first, int last, uint32_t seed) {
    std::vector<std::vector<int>> r(static_cast<size_t>(B));
    for (int b = 0; b < B; ++b) {
        r[b].push_back(first);
        for (int i = 1; i < len; ++i) {
            seed = seed * 1664525u + 1013904223u;
            r[b].push_back(4 + static_cast<int>((seed >> 8) % static_cast<uint32_t>(vocab - 4)));
        }
        if (last >= 0) r[b].back() = last;
    }
    return r;
}

}  // namespace

int cmd_bench(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("usage: txcli bench [--checkpoint FILE | model options] [--src-len N] [--tgt-len N] [--batch N]\n"
                    "                   [--threads N] [--backend cpu[,cuda]] [--repeats N] [--warmup N] [--json]\n\n"
                    "Times the forward pass (every step, eval mode) on fixed pseudo-random token ids.\n"
                    "Defaults: lengths 32, batch 1, 1 thread, 30 timed runs after 3 warm-up runs.\n\n%s",
                    MODEL_OPTIONS_HELP);
        return 0;
    }
    auto valued = MODEL_OPTIONS;
    valued.insert({"src-len", "tgt-len", "batch", "threads", "backend", "repeats", "warmup"});
    auto flags = MODEL_FLAGS;
    flags.insert("json");
    const Args args(argv, valued, flags);
    const Checkpoint checkpoint = model_from_options(args);
    const ModelConfig& c = checkpoint.config;
    const int S = static_cast<int>(args.integer("src-len", 32, 1, c.max_len));
    const int T = static_cast<int>(args.integer("tgt-len", 32, 1, c.max_len));
    const int B = static_cast<int>(args.integer("batch", 1, 1, 4096));
    const int threads = static_cast<int>(args.integer("threads", 1, 1, 1024));
    const int repeats = static_cast<int>(args.integer("repeats", 30, 1, 100000));
    const int warmup = static_cast<int>(args.integer("warmup", 3, 0, 100000));
    const bool json = args.flag("json");
    if (threads > 1 && !cpu_threads_supported()) throw CliError("--threads > 1 needs a build with OpenMP");
    set_cpu_threads(threads);
    const auto src = rows(B, S, c.src_vocab, 4, c.special.eos, 12345u);
    const auto tgt = rows(B, T, c.tgt_vocab, c.special.bos, -1, 54321u);

    for (const std::string& name : split_commas(args.get_or("backend", "cpu"))) {
        auto backend = backend_from_name(name);
        Transformer model(c, *backend);
        model.set_parameters(checkpoint.parameters);
        model.set_batch(src, tgt);
        for (int i = 0; i < warmup; ++i) model.forward();
        std::vector<double> totals;
        std::vector<std::vector<double>> per_step(model.step_count());
        for (int r = 0; r < repeats; ++r) {
            backend->synchronize();
            const auto start = std::chrono::steady_clock::now();
            model.forward();
            backend->synchronize();
            totals.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            for (size_t i = 0; i < model.step_count(); ++i) per_step[i].push_back(model.steps()[i].ms);
        }
        const Stats total = stats(totals);
        if (json) {
            nlohmann::json out;
            out["backend"] = name;
            out["config"] = {{"d_model", c.d_model}, {"heads", c.heads}, {"d_ff", c.d_ff},
                             {"encoder_layers", c.encoder_layers}, {"decoder_layers", c.decoder_layers}};
            out["batch"] = B;
            out["src_len"] = S;
            out["tgt_len"] = T;
            out["threads"] = threads;
            out["repeats"] = repeats;
            out["forward_ms"] = {{"median", total.median}, {"min", total.min}, {"max", total.max}};
            out["steps"] = nlohmann::json::array();
            for (size_t i = 0; i < model.step_count(); ++i)
                out["steps"].push_back({{"name", model.steps()[i].name}, {"ms", stats(per_step[i]).median}});
            std::printf("%s\n", out.dump().c_str());
        } else {
            std::printf("backend %s, d_model %d, heads %d, d_ff %d, layers %d+%d, B=%d S=%d T=%d, %d thread(s), %d runs\n",
                        name.c_str(), c.d_model, c.heads, c.d_ff, c.encoder_layers, c.decoder_layers, B, S, T, threads,
                        repeats);
            for (size_t i = 0; i < model.step_count(); ++i)
                std::printf("  %-46s %9.4f ms\n", model.steps()[i].name.c_str(), stats(per_step[i]).median);
            std::printf("forward: median %.4f ms, min %.4f, max %.4f\n", total.median, total.min, total.max);
        }
    }
    return 0;
}

}  // namespace tx::cli
