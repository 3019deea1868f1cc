// The Precision panel's numbers: the first sentence run in FP32 and in a lower precision mode
// (tx/precision.h, docs/precision.md) on a private copy of the checkpoint, so it can run on a
// thread of its own. Per step the difference against FP32 and how the step ran; each attention
// block's probabilities in both runs; the logits of every decoder position in both; the greedy
// outputs; the rounding error of each linear weight matrix. Pure: no ImGui. B = 1 everywhere;
// S source length, T decoder positions, H heads, V vocabulary.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tx/checkpoint.h"
#include "tx/precision.h"
#include "tx/precision_comparison.h"
#include "tx/transformer.h"

namespace tx::explain {

// How a step ran in the low-precision run (docs/precision.md, "The modes").
enum class LowStep {
    Fp32,          // computed in FP32 (on the values the steps before it produced)
    Product,       // its matrix product ran in the format: inputs and output rounded (BF16/FP16)
    Rounded,       // "everything low": computed in FP32, then its output rounded to the format
    Int8Weights,   // its linear layer used the INT8-quantised weights
};

// Per step of `steps` (a model with `config`), how it runs in `mode`: autocast marks the products
// (the projections, scores, context, output projection, the FFN's linear layers, the generator),
// "everything low" marks every other step Rounded too, INT8 marks the linear layers.
std::vector<LowStep> low_precision_steps(const std::vector<StepInfo>& steps, const ModelConfig& config,
                                         PrecisionMode mode);

// One attention block's probabilities in both runs, B = 1.
struct AttentionPair {
    std::string prefix;          // "decoder.layers.1.cross_attn"
    AttentionKind kind = AttentionKind::EncoderSelf;
    int layer = 0;
    int heads = 0, rows = 0, cols = 0;   // H, query rows, key columns
    std::vector<float> fp32, low;        // [H, rows, cols]
};

// Every attention block's probabilities of batch row `row` from two models that ran forward() on
// the same batch (probs [B, H, rows, cols] -> [H, rows, cols]), in model order.
std::vector<AttentionPair> attention_pairs(const Transformer& fp32, const Transformer& low, int row);

// One head's low − FP32 matrix [rows, cols]; NaN where either run is not finite.
struct AttentionDifference {
    int rows = 0, cols = 0;
    std::vector<float> values;   // [rows, cols]
    double max_abs = 0.0;        // over the finite cells (the colour scale: ±max_abs)
    int64_t nonfinite = 0;       // cells where the low run is inf or NaN
};
// Throws std::out_of_range for a head outside 0..H-1.
AttentionDifference attention_difference(const AttentionPair& pair, int head);

// The k most probable tokens of one logits row [V] (softmax in double), most probable first.
struct TopTokens {
    std::vector<int> ids;
    std::vector<double> probabilities;
    int64_t nonfinite = 0;       // inf/NaN logits in the row: then no probabilities (ids, probabilities empty)
};
TopTokens top_probabilities(const float* logits, int V, int k);

// The logits at one decoder position in both runs: fp32 and low are [T, V].
struct LogitsAtPosition {
    TopTokens fp32, low;
    double max_abs = 0.0;        // max |low − fp32| over the finite pairs of the row
    int64_t nonfinite = 0;       // inf/NaN logits of the low run in the row
};
// Throws std::out_of_range for a position outside 0..T-1.
LogitsAtPosition logits_at_position(const std::vector<float>& fp32, const std::vector<float>& low, int T, int V,
                                    int position, int k);

// A weight matrix's rounding error in a format: error = w − round(w) (absolute) or
// (w − round(w)) / |w| for w ≠ 0 (relative), in `bins` equal bins over [−range, range].
// round(w): BF16/FP16 to nearest even (half_float.h); INT8 per output row, q·scale (int8_quantize.h).
struct RoundingHistogram {
    std::string parameter;       // "encoder.layers.0.self_attn.q_proj.weight"
    Precision format = Precision::Fp32;
    bool relative = false;
    int rows = 0, cols = 0;      // [out, in]
    double range = 0.0;          // the bins cover [−range, range]: max |error|, or 1e-30 when every error is 0
    std::vector<int64_t> counts; // [bins]; a value on an inner edge counts in the bin above it
    double max_abs_error = 0.0;  // max |error|
    double max_abs_weight = 0.0; // max |w|
    // The format's step: absolute, the spacing of the format's values at max |w| (BF16 2^(e−7),
    // FP16 2^(e−10) for 2^e ≤ max|w| < 2^(e+1), never below 2^-24; INT8 the largest row's
    // scale max|w_row| / 127); relative, the spacing just above 1 (BF16 2^-7, FP16 2^-10; INT8 0:
    // it has none, a weight rounded to 0 has relative error 1). Rounding to nearest keeps every
    // absolute error within step / 2 (relative: within step / 2 for normal values).
    double step = 0.0;
    int64_t skipped = 0;         // relative: the zero weights (no relative error)
    // Relative, BF16/FP16: weights below the format's smallest normal (BF16 2^-126, FP16 2^-14) round
    // to a subnormal with a fixed step and can err by more than step / 2; left out of the bins.
    int64_t subnormal = 0;
    int64_t overflowed = 0;      // FP16: weights that round to ±inf (not binned)
    float first_weight = 0.0f;   // w[0, 0], as trained: the panel writes it in FP32, BF16 and FP16 bits
};
// w is [rows, cols], finite. bins ≥ 1. FP32 gives zero errors in one bin.
RoundingHistogram rounding_error_histogram(const std::string& parameter, const float* w, int rows, int cols,
                                           Precision format, bool relative, int bins);

// The names of the linear layers' weight matrices (every matrix but the embedding and position tables).
std::vector<std::string> linear_weight_names(const ModelConfig& config);

// Why a step's low output holds inf or NaN, in one line, from its values: fp32 and low the step's
// outputs in both runs (same size).
std::string nonfinite_reason(const StepInfo& step, LowStep how, Precision format, const std::vector<float>& fp32,
                             const std::vector<float>& low);

struct PrecisionRequest {
    std::string source;          // the first sentence (decoder-only: the prompt)
    PrecisionMode mode;
    // Both embedding tables multiplied by this in both runs (1: the model as trained); a large
    // factor makes the activations large enough to overflow FP16.
    float embedding_scale = 1.0f;
    bool operator==(const PrecisionRequest& o) const {   // PrecisionMode has no operator==
        return source == o.source && mode.format == o.mode.format && mode.all_low == o.mode.all_low &&
               embedding_scale == o.embedding_scale;
    }
};

struct PrecisionStepRow {
    StepPrecisionDifference difference;   // against FP32 (precision_comparison.h)
    StepKind kind = StepKind::Embed;
    LowStep how = LowStep::Fp32;
};

struct PrecisionView {
    PrecisionRequest request;
    std::string error;                     // the input was refused (empty, too long); nothing else then
    std::string bf16_products;             // BF16: the CPU path of the linear layers' products, as
                                           // cpu::bf16_path_name names it ("vdpbf16ps", "widened"); else 
    bool decoder_only = false;
    std::vector<std::string> source_tokens, target_tokens;   // [S] (empty decoder-only), [T]: BOS + FP32's greedy output
    std::vector<std::string> fp32_output, low_output;       // the greedy outputs' pieces
    int first_change = -1;                 // first output token that differs; -1: the same
    std::vector<PrecisionStepRow> steps;   // teacher-forced on FP32's greedy output
    int first_nonfinite = -1;              // the first step with inf/NaN in the low run; -1: none
    std::string nonfinite_reason;
    std::vector<AttentionPair> attention;  // every attention block, in model order
    int vocab = 0;
    std::vector<float> fp32_logits, low_logits;   // [T, V] generator.logits
    int64_t low_nan_logits = 0;                   // NaN values in low_logits
    std::vector<std::string> vocabulary;          // display texts, index = id
    std::vector<RoundingHistogram> absolute, relative;   // per linear_weight_names (empty for FP32)
    double seconds = 0.0;
};

// "FP32", "BF16", "FP16", "INT8": a format as the panel and its texts write it.
const char* format_name(Precision p);

// True where a probabilities step shows no inf/NaN although the scores it read (the step before)
// had no finite value: the CPU softmax gives such a row zeros, as a row whose every key is masked
// (docs/design.md), where PyTorch's would give NaN. The panel says so next to the table.
bool softmax_hides_nonfinite_scores(const PrecisionView& view);

// Never throws: a refused input or a failed run sets `error`. The checkpoint is only read (an
// embedding scale other than 1 works on a scaled copy): a shared copy (the app's SessionTwin) may be
// read by others meanwhile.
PrecisionView compute_precision_view(std::shared_ptr<const Checkpoint> checkpoint, const PrecisionRequest& request,
                                     int histogram_bins = 41);
PrecisionView compute_precision_view(Checkpoint checkpoint, const PrecisionRequest& request, int histogram_bins = 41);

}  // namespace tx::explain
