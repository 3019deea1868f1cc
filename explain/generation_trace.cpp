// Computes the GenerationTrace (see generation_trace.h): the cached pass chooses the tokens and
// keeps every layer's attention row; the full pass re-runs the decoder over each prefix of those
// same tokens; each is repeated and timed per token, the best time of the repeats counting (the
// first run of a pass also pays for touching its buffers).
#include "generation_trace.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>

#include "tx/backend.h"
#include "tx/decoding.h"
#include "tx/incremental_decoder.h"
#include "tx/layer_plan.h"
#include "tx/length_limits.h"
#include "tx/model_on_backend.h"
#include "tx/tasks.h"

namespace tx::explain {

namespace {

double since_ms(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Ids most probable first, equal log-probabilities by smaller id first (sampling.h's ranking).
std::vector<int> ranking(const std::vector<float>& log_probs) {
    std::vector<int> order(log_probs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return log_probs[a] > log_probs[b]; });
    return order;
}

}  // namespace

std::vector<GenerationStep> generation_steps(const ModelConfig& config, bool positional_encoding) {
    const bool pre = config.norm == NormPlacement::Pre;
    std::vector<GenerationStep> steps;
    const bool table = config.positional == PositionalKind::Sinusoidal || config.positional == PositionalKind::Learned;
    // The switch acts wherever the scheme puts positions (transformer.cpp, incremental_decoder.cpp):
    // no table added, no RoPE rotation, no ALiBi bias.
    const bool none = config.positional == PositionalKind::None;
    const std::string positions = positional_encoding || none
                                      ? positions_enter(config)
                                      : "no position anywhere: positional encoding is switched off (Positional panel)";
    steps.push_back({GenerationStepKind::Embed, -1, table && positional_encoding ? "tgt_embed + tgt_pos" : "tgt_embed",
                     "embed the input token \xC3\x97 \xE2\x88\x9A" "d_model; " + positions});
    // One decoder layer's sublayers, in the order the model runs them (layer_plan.h).
    const std::vector<SublayerPlan> plan = layer_plan(config, false);
    for (int l = 0; l < config.decoder_layers; ++l) {
        const std::string p = "decoder.layers." + std::to_string(l);
        for (const SublayerPlan& s : plan) {
            std::string what;
            GenerationStepKind kind = GenerationStepKind::FeedForward;
            switch (s.kind) {
                case SublayerKind::SelfAttention:
                    kind = GenerationStepKind::SelfAttention;
                    what = "append this position's k and v to the cache; its q row attends to every cached key";
                    break;
                case SublayerKind::CrossAttention:
                    kind = GenerationStepKind::CrossAttention;
                    what = "the q row attends to the source keys (K, V computed once)";
                    break;
                case SublayerKind::FeedForward:
                    what = "the position-wise feed-forward network on the one row";
                    break;
            }
            what = pre ? s.norm + ", then " + what + "; add" : what + "; add & " + s.norm;
            steps.push_back({kind, l, p + "." + s.name, what});
        }
    }
    steps.push_back({GenerationStepKind::Generator, -1, "generator.log_probs",
                     std::string(config.has_final_norm() ? "decoder.norm, then " : "") + "linear to the vocabulary and log-softmax: the next-token distribution"});
    steps.push_back({GenerationStepKind::Choose, -1, "choose", "choose the next token: it becomes the input of the next token's pass"});
    return steps;
}

GenerationTrace compute_generation(const Transformer& source_model, const std::vector<int>& sentence_ids,
                                   const GenerationSettings& settings, int repeats) {
    using clock = std::chrono::steady_clock;
    GenerationTrace trace;
    trace.stale = false;
    trace.settings = settings;
    const ModelConfig& c = source_model.config();
    trace.decoder_only = c.arch == Arch::DecoderOnly;
    // Decoder-only: BOS + the prompt; the last of them is token 1's input, the others the context.
    std::vector<int> begin{c.special.bos};
    if (trace.decoder_only) {
        begin.insert(begin.end(), sentence_ids.begin(), sentence_ids.end());
        trace.context.assign(begin.begin(), begin.end() - 1);
    } else {
        trace.src = sentence_ids;
    }
    const int P = static_cast<int>(trace.context.size());
    trace.S = static_cast<int>(trace.src.size());
    trace.L = c.decoder_layers;
    trace.H = c.heads;
    trace.G = c.kv_head_count();
    trace.dk = c.d_k();
    trace.V = c.tgt_vocab;
    trace.limit = trace.decoder_only ? continuation_limit(P, c.max_len) : translation_limit(trace.S, c.max_len);
    trace.capacity = std::max(P + trace.limit, 1);
    trace.repeats = std::max(repeats, 1);
    RunOptions options = source_model.options();
    options.fused_attention = false;   // the rows to show must be materialised
    options.training = false;
    if (!IncrementalDecoder::supports(options)) {
        trace.error = "The KV cache needs the causal mask: without it every earlier position attends to the newest one "
                      "too, so the keys and values of earlier positions change at every step and cannot be kept. "
                      "Switch the causal mask back on (Masks panel).";
        return trace;
    }
    if (settings.sample) {
        try {
            validate(settings.sampling);
        } catch (const std::exception& e) {
            trace.error = std::string("Not sampled: ") + e.what() + ".";
            return trace;
        }
    }
    if (trace.limit < 1) {
        trace.error = trace.decoder_only ? "Nothing to generate: BOS + the prompt fill max_len " + std::to_string(c.max_len) +
                                               ", so there is no room to continue it."
                                         : "Nothing to generate: max_len 1 leaves no room after BOS.";
        return trace;
    }

    const ModelOnBackend copy = make_model(c, source_model.download_parameters(), make_cpu_backend());
    Transformer& model = *copy;
    model.options() = options;
    model.set_step_timing(false);
    const int V = c.tgt_vocab, H = c.heads, L = c.decoder_layers;
    // A decoder-only model reads no source; the batch still needs a row (its encoder is empty).
    const std::vector<std::vector<int>> src = {trace.decoder_only ? std::vector<int>{c.special.eos} : sentence_ids};

    // The cached pass: chooses the tokens (first run) and is timed per token.
    std::vector<int> chosen;
    for (int run = 0; run < trace.repeats; ++run) {
        const bool record = run == 0;
        auto start = clock::now();
        model.set_batch(src, {{c.special.bos}});
        model.encode();
        double encode_ms = since_ms(start);
        start = clock::now();
        IncrementalDecoder cache(model, trace.capacity);
        const double cross_ms = since_ms(start);
        start = clock::now();
        for (int id : trace.context) cache.step({id});
        if (trace.decoder_only) encode_ms = since_ms(start);
        cache.keep_attention(record);
        trace.encode_ms = run == 0 ? encode_ms : std::min(trace.encode_ms, encode_ms);
        trace.cross_kv_ms = run == 0 ? cross_ms : std::min(trace.cross_kv_ms, cross_ms);
        Rng stream(sampling_stream(settings.sampling.seed, 0));
        int input = begin.back();
        const size_t count = record ? static_cast<size_t>(trace.limit) : chosen.size();
        for (size_t i = 0; i < count; ++i) {
            start = clock::now();
            const std::vector<float> log_probs = cache.step({input});   // [1, V]
            const double ms = since_ms(start);
            if (!record) {
                trace.tokens[i].cached_ms = std::min(trace.tokens[i].cached_ms, ms);
                input = chosen[i];
                continue;
            }
            GeneratedToken token;
            token.input = input;
            token.cached_ms = ms;
            const int keys = P + static_cast<int>(i) + 1;
            for (int l = 0; l < L; ++l) {
                const std::vector<float> self = cache.attention_probs(l, false);   // [1,H,C]
                std::vector<float> rows(static_cast<size_t>(H) * keys);
                for (int h = 0; h < H; ++h)
                    std::copy_n(self.begin() + static_cast<size_t>(h) * trace.capacity, keys,
                                rows.begin() + static_cast<size_t>(h) * keys);
                token.self_probs.push_back(std::move(rows));
                if (!trace.decoder_only) token.cross_probs.push_back(cache.attention_probs(l, true));   // [1,H,S]
            }
            token.log_probs = log_probs;
            const std::vector<int> order = ranking(log_probs);
            const int top = std::min(GENERATION_TOP, V);
            if (settings.sample) {
                const SamplingDistribution d = sampling_distribution(log_probs.data(), V, settings.sampling);
                token.draw = stream.uniform01();
                token.chosen = draw_token(d.probs, token.draw);
                for (int id = 0; id < token.chosen; ++id) token.interval_start += d.probs[static_cast<size_t>(id)];
                token.chosen_prob = d.probs[static_cast<size_t>(token.chosen)];
                token.kept = d.kept;
                for (int r = 0; r < top; ++r) {
                    token.top_probs.push_back(d.probs[static_cast<size_t>(order[r])]);
                    token.top_cut.push_back(d.cut[static_cast<size_t>(order[r])]);
                }
            } else {
                // max_element's first maximum, as greedy_decode: ties go to the smaller id.
                token.chosen = static_cast<int>(std::max_element(log_probs.begin(), log_probs.end()) - log_probs.begin());
                token.chosen_prob = std::exp(static_cast<double>(log_probs[static_cast<size_t>(token.chosen)]));
                token.kept = V;
                for (int r = 0; r < top; ++r) {
                    token.top_probs.push_back(std::exp(static_cast<double>(log_probs[static_cast<size_t>(order[r])])));
                    token.top_cut.push_back(false);
                }
            }
            for (int r = 0; r < top; ++r) {
                token.top_ids.push_back(order[r]);
                token.top_model_probs.push_back(std::exp(static_cast<double>(log_probs[static_cast<size_t>(order[r])])));
            }
            token.chosen_rank = static_cast<int>(std::find(order.begin(), order.end(), token.chosen) - order.begin());
            chosen.push_back(token.chosen);
            input = token.chosen;
            trace.tokens.push_back(std::move(token));
            if (input == c.special.eos) {
                trace.finished = true;
                break;
            }
        }
    }

    // The full pass: the whole decoder over BOS (+ the prompt) + the first t − 1 chosen tokens, for every t.
    if (settings.compare_full) {
        model.reserve_target(P + static_cast<int>(chosen.size()) + 1);
        for (int run = 0; run < trace.repeats; ++run) {
            model.set_batch(src, {{c.special.bos}});
            model.encode();
            std::vector<int> prefix = begin;
            for (size_t i = 0; i < chosen.size(); ++i) {
                const auto start = clock::now();
                model.set_target({prefix});
                model.decode();
                const std::vector<float> all = model.step_output(model.step_count() - 1);   // [1, t, V]
                const double ms = since_ms(start);
                GeneratedToken& token = trace.tokens[i];
                token.full_ms = run == 0 ? ms : std::min(token.full_ms, ms);
                if (run == 0) {
                    token.full_log_probs.assign(all.end() - V, all.end());
                    for (int v = 0; v < V; ++v)
                        token.max_diff = std::max(token.max_diff, std::abs(static_cast<double>(token.full_log_probs[v]) -
                                                                           token.log_probs[static_cast<size_t>(v)]));
                    trace.max_diff = std::max(trace.max_diff, token.max_diff);
                }
                prefix.push_back(chosen[i]);
            }
        }
    }
    for (const GeneratedToken& token : trace.tokens) {
        trace.cached_total_ms += token.cached_ms;
        trace.full_total_ms += token.full_ms;
    }
    return trace;
}

}  // namespace tx::explain
