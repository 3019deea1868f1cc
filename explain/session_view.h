// SessionView: the snapshot of the Session that panels read (config, tokens, masks, steps,
// finished step outputs as host copies). The app rebuilds it when the session changes; panels
// never hold the Session, a backend or Eigen. Shapes as transformer.h: B, S, T, D, H, dk, V.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tx/backend_comparison.h"
#include "tx/beam_search.h"
#include "tx/config.h"
#include "generation_bench.h"
#include "tx/generation_timing.h"
#include "generation_trace.h"
#include "tx/tokenizer.h"
#include "tx/transformer.h"

namespace tx {
class Session;
}

namespace tx::explain {

struct KnownWords;
struct LookInside;
struct PrecisionView;
struct SpeculativeView;

struct SessionView {
    uint64_t version = 0;                    // grows on every change; widgets key caches on it
    bool valid = false;                      // false until a model is loaded
    std::string model_source;                // where the weights came from (file, "untrained", "trainer")
    std::vector<std::string> examples;       // inputs that suit a shipped model (its catalog entry); else empty
    std::string model_description;           // what the model was trained to do (describe_training)
    float label_smoothing = 0.0f;            // ε of its training record (0: none, or no record)
    ModelConfig config;
    std::vector<float> positional_table;     // [max_len, D] the sinusoidal table the model adds (paper §3.5)
    int vocab_size = 0;
    std::vector<std::string> vocabulary;     // index = id
    std::string backend;                     // "cpu", "cuda"
    std::string cuda_unavailable;            // why CUDA cannot be used; "" when it can
    std::string cuda_device;                 // "NVIDIA H100 ... (sm_90, 79.1 GiB)" when it can
    std::shared_ptr<const BackendComparison> comparison;   // the CPU-vs-CUDA run of this run, if one was made

    std::vector<std::string> sentences;
    std::optional<std::string> target_text;
    std::vector<std::vector<Token>> source_tokens;   // per sentence, without EOS
    std::vector<std::vector<int>> decoded_ids;
    std::vector<std::string> decoded_text;
    int beam_size = 1;                       // 1: greedy decoding
    double length_penalty = 0.6;             // GNMT alpha, beam search only
    // Both decodings of every sentence, whichever is chosen (Session::greedy_results/beam_results),
    // and their texts as the tokenizer writes them.
    std::vector<BeamResult> beams;           // per sentence: beam search with beam_size, length_penalty
    std::vector<BeamHypothesis> greedy;      // per sentence: greedy's output, scored with length_penalty
    std::vector<std::string> greedy_text;    // per sentence
    std::vector<std::vector<std::string>> hypothesis_text;        // [sentence][rank] beams[].hypotheses
    std::vector<std::vector<std::vector<std::string>>> prefix_text;   // [sentence][step][beam] trace prefixes

    int B = 0, S = 0, T = 0;
    std::vector<int32_t> src_ids;            // [B,S] encoder input: tokens + EOS, PAD-padded
    std::vector<int32_t> tgt_ids;            // [B,T] decoder input: BOS + output, PAD-padded
    std::vector<float> src_mask;             // [B,1,1,S] 1 = key may be attended
    std::vector<float> tgt_mask;             // [B,1,T,T] causal and padding combined
    std::vector<float> src_self_mask;        // [B,1,S,S] encoder self-attention: padding and the sliding window
    RunOptions options;

    std::vector<StepInfo> steps;
    std::vector<AttentionBlock> attention;
    size_t cursor = 0;                       // finished steps
    size_t first_decoder_step = 0;
    double forward_ms = 0.0;
    std::vector<std::vector<float>> outputs; // per step; empty when the step is not finished
    // The words the model saw in training and its test sentences (known_words.h); made once per model.
    std::shared_ptr<const KnownWords> known_words;
    bool known_words_loading = false;   // being read on a thread (a large corpus takes about a second)
    // The Generate panel's token-by-token run of the first sentence and its cursor; stale (empty)
    // until the panel asks for it (UpdateGeneration), so closed panels cost nothing.
    GenerationTrace generation;
    // The learned position tables (config positional "learned"), src_pos.weight and tgt_pos.weight
    // [max_len, D] as the model holds them now; empty for other schemes and for a table the
    // architecture lacks (decoder-only has no src_pos).
    std::vector<float> learned_src_positions, learned_tgt_positions;
    // T5's relative bias tables (config positional "relative"), encoder.relative_bias.weight and
    // decoder.relative_bias.weight [buckets, H]; empty otherwise (decoder-only: no encoder table).
    std::vector<float> relative_encoder_bias, relative_decoder_bias;

    // Arch::DecoderOnly: each sentence is a prompt (source_tokens), decoded_ids its continuation,
    // the decoder input BOS + prompt + continuation (or + the target text), padded on the right;
    // src_ids then only carry the batch size and no panel shows them.
    bool decoder_only = false;
    std::vector<int> output_limit;           // per sentence: the most tokens decoding may add (Session::output_limit)
    // The Backend panel's measurement: generation with and without the KV cache (MeasureGeneration).
    std::shared_ptr<const GenerationTiming> generation_timing;
    // The Backend panel's plot of a benchmark file (--generation-bench), or why it could not be read.
    std::shared_ptr<const GenerationBench> generation_bench;
    std::string generation_bench_error;
    // The Look inside panel's views of the first sentence (look_inside.h), computed on request
    // (ComputeLookInside) on a thread of their own. `current`: made for the model, sentence and
    // settings of now; otherwise an older result of the same model and sentence, shown meanwhile.
    std::shared_ptr<const LookInside> look_inside;
    bool look_inside_current = false;
    bool look_inside_computing = false;      // a computation is running
    // The Precision panel's FP32-versus-low-precision runs of the first sentence (precision_view.h),
    // computed on request (ComputePrecision) as the Look inside views are.
    std::shared_ptr<const PrecisionView> precision;
    bool precision_current = false;
    bool precision_computing = false;
    // The Decoding panel's speculative decoding of the selected sentence (speculative_view.h), made on
    // request (UpdateSpeculative) while its section is open; null until then. Its settings and
    // whether the section is open (SetSpeculative).
    std::shared_ptr<const SpeculativeView> speculative;
    int speculative_k = 4, speculative_draft_layers = 0;
    bool speculative_open = false;

    // Display text of an id ("<pad>", "animal").
    std::string token_text(int id) const;
    // Token labels of one batch row of the encoder input [S] / decoder input [T].
    std::vector<std::string> src_labels(int row) const;
    std::vector<std::string> tgt_labels(int row) const;
    // Why a step has no output to show: not reached by the cursor yet, or skipped by fused attention.
    std::string missing_reason(size_t step) const;
    const std::vector<float>* output(size_t step) const {
        return step < outputs.size() && !outputs[step].empty() ? &outputs[step] : nullptr;
    }
    bool finished(size_t step) const { return step < cursor; }
    // The attention block index whose steps include `step`, or -1.
    int attention_block_of(size_t step) const;
    int d_k() const { return config.d_k(); }
};

// How the panels name an attention block's kind: "cross-attention (decoder → encoder)", and the
// short form of the layers × heads grid and the block lists ("enc self", "dec self", "cross").
const char* attention_kind_title(AttentionKind kind);
const char* attention_kind_short(AttentionKind kind);

// Refreshes `view` from the session: everything when `full`, else only cursor and outputs.
void refresh_view(SessionView& view, const Session& session, const std::string& model_source, bool full);

}  // namespace tx::explain
