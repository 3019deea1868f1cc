// Activation patching (Meng et al. 2022, "causal tracing"): run a clean and a corrupted input of
// the same length, re-run the corrupted one with one activation copied from the clean run, and
// measure how much of the clean behaviour returns: log p(token) (− log p(versus)) at one target
// position, normalised (patched − corrupted) / (clean − corrupted), 0 = corrupted, 1 = clean. The
// decoder input is held fixed (decoder-only: only the prompt differs). Grids, row-major: layers ×
// positions (S encoder, T decoder) per stack and sublayer, layers × heads H per attention kind.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "inspect_model.h"

namespace tx::explain {

// Where a sublayer patch goes: the attention or FFN output step (before the residual), or the
// layer's output (the residual stream after the layer, InspectModel::layer_output).
enum class PatchPoint { SelfAttention, CrossAttention, Ffn, Layer };
const char* to_string(PatchPoint point);   // "self_attn", "cross_attn", "ffn", "layer"

// The metric's target position and tokens; -1 chooses: the first position where the two runs'
// most probable tokens differ, token = the clean run's and versus = the corrupted run's there (no
// such position: the position where the clean token's log-prob moves most, and no versus).
struct PatchMetric {
    int position = -1;
    int token = -1;
    int versus = -1;
};

struct PatchGrid {
    std::string name;             // "encoder.self_attn" (positions) or "heads.decoder.cross_attn" (heads)
    Stack stack = Stack::Encoder;
    PatchPoint point = PatchPoint::Layer;
    bool heads = false;           // columns are heads (each head's context, all positions) not positions
    int rows = 0, cols = 0;       // layers × positions, or layers × heads
    std::vector<double> metric;       // [rows, cols] the metric after the patch
    std::vector<double> normalised;   // [rows, cols] (metric − corrupted) / (clean − corrupted); NaN if undefined
};

struct ActivationPatching {
    std::string error;                          // why there is no result; the rest is empty then
    std::string note;                           // e.g. the clean and corrupted metric are equal
    std::vector<std::string> clean_tokens, corrupted_tokens, target_tokens;
    PatchMetric metric;                         // as used (resolved from -1)
    std::string metric_text;                    // "log p(▁cansado) − log p(▁ancha) at target position 3"
    double clean = 0.0, corrupted = 0.0;        // the metric on the two unpatched runs
    std::vector<PatchGrid> grids;
};

// The two runs and single patches; used by activation_patching() and by tests. The model belongs
// to the Patcher while it lives. Encoder-decoder: the two inputs share the decoder input and
// differ in the source; decoder-only: they differ in the decoder input (the prompt), same length.
class Patcher {
public:
    // Throws std::invalid_argument naming both lengths when they differ, or what check() refuses.
    Patcher(InspectModel& model, const InspectInput& clean, const InspectInput& corrupted);
    // The corrupted run with rows `positions` of step `step` ([1, L, D]) taken from the clean run,
    // re-run from there; returns generator.log_probs [T, V]. No positions: the corrupted run.
    std::vector<float> patch_rows(size_t step, const std::vector<int>& positions);
    // The same with head `head`'s slice [L, dk] of a context step [1, H, L, dk], all positions.
    std::vector<float> patch_head(size_t context_step, int head);
    const std::vector<float>& clean_log_probs() const { return m_clean.back(); }
    const std::vector<float>& corrupted_log_probs() const { return m_corrupted.back(); }
    int target_len() const { return m_T; }

private:
    std::vector<float> patch(size_t step, std::vector<float> value);
    InspectModel& m_model;
    std::vector<std::vector<float>> m_clean, m_corrupted;   // every step's output of each run
    size_t m_dirty;   // the first step whose output differs from the corrupted run's (step_count: none)
    int m_T = 0;
};

ActivationPatching activation_patching(InspectModel& model, const InspectInput& clean, const InspectInput& corrupted,
                                       PatchMetric metric = {});

}  // namespace tx::explain
