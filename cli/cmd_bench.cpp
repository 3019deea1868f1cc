// txcli bench: times the forward pass (every step and the whole pass) and one training step
// (forward, loss, backward, Adam) at a given batch and length, per backend. With two backends
// (--backend cpu,cuda) it prints them side by side with the speed-up and, per step, the largest
// absolute difference between their outputs. --json prints one object per backend and line
// (docs/design.md §13). --decode N,... times greedy decoding instead: tokens per second with the KV
// cache and with the full recompute of the decoder over the prefix for every token. --precision
// fp32,bf16,fp16,int8 puts CPU precision modes side by side instead of backends (docs/precision.md;
// no training step: the precision backend runs evaluation only).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tx/backend_comparison.h"
#include "commands.h"
#include "tx/cpu_isa.h"
#include "tx/incremental_decoder.h"
#include "model_source.h"
#include "tx/model_on_backend.h"
#include "tx/optimizer.h"
#include "tx/threads.h"
#include "tx/transformer.h"

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

// Training targets for decoder input tgt (BOS + tokens): the tokens shifted left, then EOS.
std::vector<int32_t> next_tokens(const std::vector<std::vector<int>>& tgt, int eos) {
    std::vector<int32_t> targets;
    for (const auto& row : tgt) {
        for (size_t i = 1; i < row.size(); ++i) targets.push_back(row[i]);
        targets.push_back(eos);
    }
    return targets;
}

double elapsed_ms(Backend& backend, const std::chrono::steady_clock::time_point& start) {
    backend.synchronize();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// One backend's model and its measurements.
struct BackendRun {
    std::string name;
    ModelOnBackend model;
    std::vector<double> step_ms;   // median per step (each step waited for and timed alone)
    std::vector<bool> materialised;   // per step: false for the (T,S) steps fused attention skips
    Stats forward;                 // whole passes, steps queued back to back
    Stats train;                   // forward + loss + backward + Adam
};

struct Settings {
    int B, S, T, repeats, warmup, train_repeats;
    bool fused;
};

void time_forward(BackendRun& run, const Settings& s) {
    Transformer& model = *run.model;
    model.options().fused_attention = s.fused;
    for (int i = 0; i < s.warmup; ++i) model.forward();
    std::vector<std::vector<double>> per_step(model.step_count());
    for (int r = 0; r < s.repeats; ++r) {
        model.forward();
        for (size_t i = 0; i < model.step_count(); ++i) per_step[i].push_back(model.steps()[i].ms);
    }
    for (const auto& v : per_step) run.step_ms.push_back(stats(v).median);
    for (const StepInfo& info : model.steps()) run.materialised.push_back(info.materialised);
    model.set_step_timing(false);
    std::vector<double> totals;
    for (int r = 0; r < s.repeats; ++r) {
        run.model.backend->synchronize();
        const auto start = std::chrono::steady_clock::now();
        model.forward();
        totals.push_back(elapsed_ms(*run.model.backend, start));
    }
    model.set_step_timing(true);
    run.forward = stats(totals);
}

// Changes the weights (Adam steps): run after the outputs were compared.
void time_training(BackendRun& run, const Settings& s, const std::vector<int32_t>& targets) {
    Transformer& model = *run.model;
    Optimizer optimizer(*run.model.backend, model.table().total(), AdamSettings{});
    model.options().training = true;
    model.set_step_timing(false);
    std::vector<double> times;
    for (int r = 0; r < s.warmup + s.train_repeats; ++r) {
        run.model.backend->synchronize();
        const auto start = std::chrono::steady_clock::now();
        model.options().dropout_seed = static_cast<uint64_t>(r);
        model.forward();
        model.zero_gradients();
        model.loss(targets, 0.1f);
        model.backward();
        optimizer.step(model.parameters(), model.gradients(), optimizer.gradient_norm(model.gradients()), 1e-4);
        if (r >= s.warmup) times.push_back(elapsed_ms(*run.model.backend, start));
    }
    model.set_step_timing(true);
    model.options().training = false;
    run.train = stats(times);
}

void print_json(const BackendRun& run, const ModelConfig& c, const Settings& s, int threads,
                const std::vector<double>* diffs, const std::string& reference) {
    nlohmann::json out;
    out["backend"] = run.model.backend->name();
    out["precision"] = describe(run.model.backend->precision());   // docs/precision.md
    // where it ran (docs/design.md §10: the machines differ): CPU, GEMM path, FMA ceiling per core
    const cpu::MachineInfo machine = cpu::machine_info();
    out["cpu"] = machine.cpu_model;
    out["isa"] = cpu::isa_name(cpu::active_isa());
    out["bf16_products"] = cpu::bf16_path_name(cpu::bf16_path());   // the path a BF16 run's products take on the CPU
    out["flops_per_cycle"] = machine.flops_per_cycle;
    if (machine.max_ghz > 0.0) out["fma_ceiling_gflops"] = machine.ceiling_gflops();
    out["config"] = {{"d_model", c.d_model}, {"heads", c.heads}, {"d_ff", c.d_ff},
                     {"encoder_layers", c.encoder_layers}, {"decoder_layers", c.decoder_layers}};
    out["batch"] = s.B;
    out["src_len"] = s.S;
    out["tgt_len"] = s.T;
    out["threads"] = threads;
    out["repeats"] = s.repeats;
    out["attention"] = s.fused ? "fused" : "steps";
    out["forward_ms"] = {{"median", run.forward.median}, {"min", run.forward.min}, {"max", run.forward.max}};
    if (s.train_repeats > 0)
        out["train_step_ms"] = {{"median", run.train.median}, {"min", run.train.min}, {"max", run.train.max}};
    out["steps"] = nlohmann::json::array();
    const Transformer& model = *run.model;
    for (size_t i = 0; i < model.step_count(); ++i) {
        nlohmann::json step = {{"name", model.steps()[i].name}, {"ms", run.step_ms[i]}};
        if (!run.materialised[i]) step["materialised"] = false;
        if (diffs && run.materialised[i]) step["max_abs_diff_vs_" + reference] = (*diffs)[i];
        out["steps"].push_back(step);
    }
    std::printf("%s\n", out.dump().c_str());
}

void print_table(const std::vector<BackendRun>& runs, const std::vector<std::vector<double>>& diffs,
                 const ModelConfig& c, const Settings& s, int threads) {
    std::printf("# %s\n", cpu::machine_summary().c_str());
    std::printf("d_model %d, heads %d, d_ff %d, layers %d+%d, B=%d S=%d T=%d, %s attention, %d CPU thread(s), %d runs\n",
                c.d_model, c.heads, c.d_ff, c.encoder_layers, c.decoder_layers, s.B, s.S, s.T,
                s.fused ? "fused" : "step-by-step", threads, s.repeats);
    std::printf("  %-46s", "step (median ms)");
    for (const BackendRun& r : runs) std::printf(" %10s", r.name.c_str());
    for (size_t k = 1; k < runs.size(); ++k) std::printf("  %8s  %12s", "speed-up", "max |diff|");
    std::printf("\n");
    const Transformer& model = *runs[0].model;
    for (size_t i = 0; i < model.step_count(); ++i) {
        std::printf("  %-46s", model.steps()[i].name.c_str());
        if (!runs[0].materialised[i]) {
            std::printf(" (not materialised: fused attention)\n");
            continue;
        }
        for (const BackendRun& r : runs) std::printf(" %10.4f", r.step_ms[i]);
        for (size_t k = 1; k < runs.size(); ++k)
            std::printf("  %7.2fx  %12.3g", runs[0].step_ms[i] / std::max(runs[k].step_ms[i], 1e-9), diffs[k][i]);
        std::printf("\n");
    }
    auto total_line = [&](const char* label, Stats BackendRun::*field) {
        std::printf("  %-46s", label);
        for (const BackendRun& r : runs) std::printf(" %10.4f", (r.*field).median);
        for (size_t k = 1; k < runs.size(); ++k)
            std::printf("  %7.2fx", (runs[0].*field).median / std::max((runs[k].*field).median, 1e-9));
        std::printf("\n");
    };
    total_line("forward pass (steps queued back to back)", &BackendRun::forward);
    if (s.train_repeats > 0) total_line("training step (fwd + loss + bwd + Adam)", &BackendRun::train);
    for (const BackendRun& r : runs)
        std::printf("%s forward: median %.4f ms, min %.4f, max %.4f\n", r.name.c_str(), r.forward.median,
                    r.forward.min, r.forward.max);
}

// Greedy choice of exactly n tokens after BOS for every row (EOS does not stop it, so both ways
// run the same n decoder steps), with the KV cache or with a full decoder pass per token.
std::vector<std::vector<int>> decode_tokens(Transformer& model, const std::vector<std::vector<int>>& src, int n,
                                            bool cached) {
    const ModelConfig& c = model.config();
    const int B = static_cast<int>(src.size()), V = c.tgt_vocab;
    std::vector<std::vector<int>> prefix(static_cast<size_t>(B), std::vector<int>{c.special.bos});
    model.set_batch(src, prefix);
    model.encode();
    std::unique_ptr<IncrementalDecoder> cache;
    if (cached) cache = std::make_unique<IncrementalDecoder>(model, n);
    for (int t = 1; t <= n; ++t) {
        std::vector<float> lp;
        size_t rows = 1;
        if (cached) {
            std::vector<int> last;
            for (const auto& row : prefix) last.push_back(row.back());
            lp = cache->step(last);   // [B, V]
        } else {
            if (t > 1) model.set_target(prefix);
            model.decode();
            lp = model.step_output(model.step_count() - 1);   // [B, t, V]
            rows = static_cast<size_t>(t);
        }
        for (int b = 0; b < B; ++b) {
            const float* row = lp.data() + (static_cast<size_t>(b) * rows + rows - 1) * V;
            prefix[b].push_back(static_cast<int>(std::max_element(row, row + V) - row));
        }
    }
    return prefix;
}

// Returns the cached tokens/s per count of `lengths`.
std::vector<double> bench_decoding(const std::string& lengths, const Checkpoint& checkpoint, Backend& backend, int B,
                                   int S, int repeats, int threads) {
    const ModelConfig& c = checkpoint.config;
    Transformer model(c, backend);
    model.set_parameters(checkpoint.parameters);
    model.set_step_timing(false);
    std::vector<int> counts;
    for (const std::string& text : split_commas(lengths)) {
        try {
            counts.push_back(std::stoi(text));
        } catch (const std::exception&) {
            throw CliError("--decode takes token counts separated by commas, got '" + text + "'");
        }
        if (counts.back() < 1 || counts.back() > c.max_len - 1)
            throw CliError("--decode: " + text + " tokens do not fit max_len " + std::to_string(c.max_len) +
                           " (at most " + std::to_string(c.max_len - 1) + " after BOS)");
    }
    if (counts.empty()) throw CliError("--decode needs at least one token count, e.g. --decode 32,63");
    const auto src = rows(B, S, c.src_vocab, 4, c.special.eos, 12345u);
    std::printf("greedy decoding, d_model %d, heads %d, layers %d+%d, V=%d, B=%d, source %d ids, %s, %d CPU thread(s),\n"
                "median of %d runs (encoder included); tokens/s counts every row's tokens\n",
                c.d_model, c.heads, c.encoder_layers, c.decoder_layers, c.tgt_vocab, B, S,
                (backend.name() + " " + describe(backend.precision())).c_str(),
                threads, repeats);
    std::printf("  %6s  %22s  %10s  %22s  %10s  %8s  %8s\n", "tokens", "full ms [min-max]", "full tok/s",
                "cached ms [min-max]", "cached tok/s", "speed-up", "same ids");
    std::vector<double> cached_tokens_per_s;
    for (int n : counts) {
        Stats timed[2];
        std::vector<std::vector<int>> out[2];
        for (int cached = 0; cached < 2; ++cached) {
            out[cached] = decode_tokens(model, src, n, cached == 1);   // warm-up
            std::vector<double> ms;
            for (int r = 0; r < repeats; ++r) {
                backend.synchronize();
                const auto start = std::chrono::steady_clock::now();
                decode_tokens(model, src, n, cached == 1);
                ms.push_back(elapsed_ms(backend, start));
            }
            timed[cached] = stats(ms);
        }
        auto range = [](const Stats& t) {
            char text[64];
            std::snprintf(text, sizeof text, "%.2f [%.2f-%.2f]", t.median, t.min, t.max);
            return std::string(text);
        };
        std::printf("  %6d  %22s  %10.0f  %22s  %10.0f  %7.2fx  %8s\n", n, range(timed[0]).c_str(),
                    1000.0 * n * B / timed[0].median, range(timed[1]).c_str(), 1000.0 * n * B / timed[1].median,
                    timed[0].median / std::max(timed[1].median, 1e-9), out[0] == out[1] ? "yes" : "NO");
        cached_tokens_per_s.push_back(1000.0 * n * B / timed[1].median);
    }
    return cached_tokens_per_s;
}

// The cached tokens/s of every precision mode side by side, each against the first mode's.
void print_decoding_summary(const std::string& lengths, const std::vector<std::string>& modes,
                            const std::vector<std::vector<double>>& tokens_per_s) {
    std::printf("\ncached greedy decoding, tokens/s (speed-up against %s):\n  %6s", modes[0].c_str(), "tokens");
    for (const std::string& mode : modes) std::printf("  %22s", mode.c_str());
    std::printf("\n");
    const std::vector<std::string> counts = split_commas(lengths);
    for (size_t i = 0; i < counts.size(); ++i) {
        std::printf("  %6s", counts[i].c_str());
        for (const std::vector<double>& run : tokens_per_s) {
            char cell[64];
            std::snprintf(cell, sizeof cell, "%.1f (%.2fx)", run[i], run[i] / std::max(tokens_per_s[0][i], 1e-9));
            std::printf("  %22s", cell);
        }
        std::printf("\n");
    }
}

}  // namespace

int cmd_bench(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("usage: txcli bench [--checkpoint FILE | model options] [--src-len N] [--tgt-len N] [--batch N]\n"
                    "                   [--threads N] [--backend cpu[,cuda]] [--attention steps|fused]\n"
                    "                   [--repeats N] [--warmup N] [--train-repeats N] [--json]\n"
                    "                   [--decode N[,N...]] [--precision P[,P...] [--all-low]]\n\n"
                    "Times the forward pass (every step, eval mode) and one training step (forward, loss,\n"
                    "backward, Adam) on fixed pseudo-random token ids. With two backends, prints them side\n"
                    "by side with the speed-up and each step's largest output difference.\n"
                    "Defaults: lengths 32, batch 1, 1 thread, step-by-step attention, 30 timed runs after\n"
                    "3 warm-up runs, 10 timed training steps (0 skips training).\n"
                    "--decode 32,64 times greedy decoding of that many tokens instead (on the first backend,\n"
                    "--batch rows of --src-len ids, 5 runs unless --repeats): the KV cache against a full\n"
                    "decoder pass over the prefix for every token; EOS does not stop it.\n"
                    "--precision fp32,bf16,fp16,int8 compares CPU precision modes (docs/precision.md) instead of\n"
                    "backends, the first as the reference; no training step (the modes run evaluation only).\n"
                    "With --decode, a last table puts the modes' cached tokens/s side by side.\n\n%s",
                    MODEL_OPTIONS_HELP);
        return 0;
    }
    auto valued = MODEL_OPTIONS;
    valued.insert({"src-len", "tgt-len", "batch", "threads", "backend", "repeats", "warmup", "train-repeats",
                   "attention", "decode", "precision"});
    auto flags = MODEL_FLAGS;
    flags.insert({"json", "all-low"});
    const Args args(argv, valued, flags);
    const Checkpoint checkpoint = model_from_options(args);
    const ModelConfig& c = checkpoint.config;
    Settings s{};
    s.S = static_cast<int>(args.integer("src-len", 32, 1, c.max_len));
    s.T = static_cast<int>(args.integer("tgt-len", 32, 1, c.max_len));
    s.B = static_cast<int>(args.integer("batch", 1, 1, 4096));
    s.repeats = static_cast<int>(args.integer("repeats", 30, 1, 100000));
    s.warmup = static_cast<int>(args.integer("warmup", 3, 0, 100000));
    s.train_repeats = static_cast<int>(args.integer("train-repeats", 10, 0, 100000));
    const std::string attention = args.get_or("attention", "steps");
    if (attention != "steps" && attention != "fused")
        throw CliError("--attention must be steps or fused, got '" + attention + "'");
    s.fused = attention == "fused";
    const int threads = static_cast<int>(args.integer("threads", 1, 1, 1024));
    const bool json = args.flag("json");
    set_cpu_threads(threads);
    const auto src = rows(s.B, s.S, c.src_vocab, 4, c.special.eos, 12345u);
    const auto tgt = rows(s.B, s.T, c.tgt_vocab, c.special.bos, -1, 54321u);
    const std::vector<int32_t> targets = next_tokens(tgt, c.special.eos);

    const std::vector<std::string> names = split_commas(args.get_or("backend", "cpu"));
    if (names.empty()) throw CliError("--backend needs at least one of cpu, cuda");
    // Each run: a backend name and its precision (--precision: the CPU in each mode).
    std::vector<std::pair<std::string, PrecisionMode>> choices;
    if (args.has("precision")) {
        if (args.has("backend") && args.get("backend") != "cpu") throw CliError("--precision compares modes on the cpu backend only");
        for (const std::string& name : split_commas(args.get("precision"))) {
            const auto format = precision_from_string(name);
            if (!format) throw CliError("--precision takes fp32, bf16, fp16 or int8 separated by commas, got '" + name + "'");
            PrecisionMode mode{*format, args.flag("all-low") && (*format == Precision::Bf16 || *format == Precision::Fp16)};
            choices.emplace_back("cpu", mode);
        }
        if (choices.empty()) throw CliError("--precision needs at least one of fp32, bf16, fp16, int8");
        if (args.flag("all-low") && args.has("decode"))
            throw CliError("--decode cannot be timed with --all-low: rounding every step's output turns the KV cache off, "
                           "so there is no cached generation to compare (leave out --decode to time the forward pass)");
        s.train_repeats = 0;
    } else {
        if (args.flag("all-low")) throw CliError("--all-low needs --precision");
        for (const std::string& name : names) choices.emplace_back(name, PrecisionMode{});
    }
    if (args.has("decode")) {
        std::vector<std::string> modes;
        std::vector<std::vector<double>> tokens_per_s;
        for (const auto& [name, mode] : choices) {
            const auto backend = backend_from_name(name, mode);
            modes.push_back(args.has("precision") ? describe(mode) : name);
            tokens_per_s.push_back(bench_decoding(args.get_or("decode", ""), checkpoint, *backend, s.B,
                                                  static_cast<int>(args.integer("src-len", 16, 1, c.max_len)),
                                                  static_cast<int>(args.integer("repeats", 5, 1, 100000)), threads));
        }
        if (modes.size() > 1) print_decoding_summary(args.get_or("decode", ""), modes, tokens_per_s);
        return 0;
    }
    std::vector<BackendRun> runs;
    for (const auto& [name, mode] : choices) {
        BackendRun run;
        run.name = args.has("precision") ? describe(mode) : name;
        run.model = make_model(c, checkpoint.parameters, backend_from_name(name, mode));
        run.model->set_batch(src, tgt);
        time_forward(run, s);
        runs.push_back(std::move(run));
    }
    // Every step's output against the first backend's (the last forward of each: same weights).
    std::vector<std::vector<double>> diffs(runs.size(), std::vector<double>(runs[0].model->step_count(), 0.0));
    for (size_t k = 1; k < runs.size(); ++k)
        for (size_t i = 0; i < runs[0].model->step_count(); ++i)
            if (runs[0].materialised[i])
                diffs[k][i] = max_abs_diff(runs[0].model->step_output(i), runs[k].model->step_output(i));
    if (s.train_repeats > 0)
        for (BackendRun& run : runs) time_training(run, s, targets);

    if (json) {
        for (size_t k = 0; k < runs.size(); ++k)
            print_json(runs[k], c, s, threads, k > 0 ? &diffs[k] : nullptr, runs[0].name);
    } else {
        print_table(runs, diffs, c, s, threads);
    }
    return 0;
}

}  // namespace tx::cli
