// GenerationTrace: the Generate panel's data, one output token at a time with the KV cache, for
// one source sentence (batch row 0 of its own run, B = 1). Shapes: S source length (with EOS),
// L decoder layers, H heads, dk = D/H, C cache capacity, V target vocabulary, t = 1 … T the
// generated token (its query is decoder position P + t − 1, P = context.size()). A decoder-only
// model continues a prompt: BOS and the prompt are read into the cache first (no source, no
// cross-attention). Computed by the app (never a panel) on a CPU copy of the session's model, so
// the session's own step-through state is left alone.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tx/sampling.h"
#include "tx/transformer.h"

namespace tx::explain {

struct GenerationSettings {
    bool sample = false;              // false: greedy (the argmax); true: draw from sampling_distribution
    SamplingOptions sampling;         // temperature, top-k, top-p, seed (validate()d before use)
    bool compare_full = true;         // also run the full decoder pass over the prefix for every token
    bool operator==(const GenerationSettings&) const = default;
};

// The decoder's steps for one query row, in order: the cursor's second coordinate.
enum class GenerationStepKind { Embed, SelfAttention, CrossAttention, FeedForward, Generator, Choose };
struct GenerationStep {
    GenerationStepKind kind;
    int layer = -1;                   // the decoder layer, or -1
    std::string name;                 // "decoder.layers.0.self_attn"
    std::string what;                 // one line: what it computes for the new row
};
// `positional_encoding`: the run's switch (RunOptions, the Positional panel's checkbox); off, the
// embed step says that no position is added and no RoPE rotation or ALiBi bias is applied.
std::vector<GenerationStep> generation_steps(const ModelConfig& config, bool positional_encoding);

struct GeneratedToken {
    int input = 0;                    // the decoder input at position t − 1 (BOS for t = 1)
    int chosen = 0;                   // the token chosen from this position's distribution
    std::vector<std::vector<float>> self_probs;    // [L][H·(P+t)]: the new row against the P + t cached keys
    std::vector<std::vector<float>> cross_probs;   // [L][H·S]: the new row against the source keys (encoder-decoder)
    std::vector<float> log_probs;                  // [V] the cached path's next-token log-probabilities
    std::vector<float> full_log_probs;             // [V] the full pass's at position t − 1 (compare_full)
    double max_diff = 0.0;            // max |cached − full| over V (compare_full)
    // The bar chart: the most probable tokens under the model, most probable first (ties by id).
    std::vector<int> top_ids;
    std::vector<double> top_model_probs;           // exp(log p), before the sampling transform
    std::vector<double> top_probs;                 // what the token is drawn from (greedy: the model's)
    std::vector<bool> top_cut;                     // removed by top-k / top-p
    int kept = 0;                     // tokens not cut (V when nothing is cut)
    int chosen_rank = 0;              // 0 = the most probable token
    double chosen_prob = 0.0;         // under the distribution drawn from
    double draw = -1.0;               // sampling: the uniform u in [0, 1); -1 for greedy
    double interval_start = 0.0;      // sampling: the chosen token owns [start, start + p) of [0, 1), ids in order
    double cached_ms = 0.0;           // one cached step (best of the repeats)
    double full_ms = 0.0;             // one full decoder pass over the t-token prefix (best of the repeats)
};

struct GenerationTrace {
    bool stale = true;                // the input, model or options changed since it was computed
    std::string error;                // why there is nothing to show ("" when tokens are filled)
    GenerationSettings settings;
    std::string sentence;
    std::vector<int> src;             // [S] source ids + EOS (encoder-decoder)
    bool decoder_only = false;        // no source: the sentence is a prompt
    // Decoder-only: the decoder inputs before token 1's, BOS + the prompt but its last token (that
    // one is token 1's input); read into the cache before the first choice. Empty otherwise.
    std::vector<int> context;
    int S = 0, L = 0, H = 0, dk = 0, V = 0;
    int G = 0;                        // key/value heads the cache holds (H but with grouped-query attention)
    int capacity = 0;                 // C: positions the cache holds = the output length limit
    int limit = 0;                    // tokens it may generate: min(max_len − 1, 2·S + 10), as the Decoding panel;
                                      // decoder-only min(CONTINUATION_TOKENS, max_len − 1 − prompt)
    std::vector<GeneratedToken> tokens;
    bool finished = false;            // EOS was chosen (it is the last token)
    std::string text;                 // the output as the tokenizer writes it (EOS left out; set by the app)
    double encode_ms = 0.0;           // the encoder, once; decoder-only: reading the context into the cache
    double cross_kv_ms = 0.0;         // cross-attention K, V of every layer, once per source
    double cached_total_ms = 0.0;     // Σ cached_ms
    double full_total_ms = 0.0;       // Σ full_ms
    double max_diff = 0.0;            // max over tokens
    int repeats = 0;                  // each way was timed this many times; the best counts
    // The cursor: token t (1 … tokens.size()) and the step within its pass (0 … steps − 1).
    int token = 1;
    int step = 0;
};

// The number of bar-chart entries per token.
constexpr int GENERATION_TOP = 15;

// Runs the generation of `sentence_ids` (tokens + EOS; a decoder-only model's prompt: its tokens,
// without EOS, which the generation continues) on a copy of the model's weights and
// options (fused attention off, so every attention row is materialised). On an impossible
// setting (the causal mask off, sampling options out of range) returns a trace with `error` set.
GenerationTrace compute_generation(const Transformer& model, const std::vector<int>& sentence_ids,
                                   const GenerationSettings& settings, int repeats = 3);

}  // namespace tx::explain
