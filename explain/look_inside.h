// Look inside: the five look-inside views of one sentence computed together for the explorer's
// Look inside panel (logit lens, activation patching, head importance, attention rollout and
// entropy, direct logit attribution at every target position), on a private InspectModel made
// from a checkpoint copy, so it can run on a thread of its own while the Session draws. Pure: no
// ImGui. Shapes as the views' headers: S source, T decoder positions, H heads, V vocabulary.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "activation_patching.h"
#include "attention_rollout.h"
#include "head_importance.h"
#include "logit_attribution.h"
#include "logit_lens.h"
#include "tx/checkpoint.h"

namespace tx::explain {

// What to compute. The decoder input is BOS + `target`'s tokens (teacher forcing) or BOS + the
// greedy output, as InspectModel::input builds it.
struct LookInsideRequest {
    std::string source;                   // the first sentence (decoder-only: the prompt)
    std::optional<std::string> target;    // the Session's target text, if one is forced
    std::string corrupted;                // patching's corrupted sentence; empty: no patching
    // The patching metric (activation_patching.h): position -1 and empty tokens choose.
    // Tokens are piece texts as InspectModel::token_id reads them ("▁cansado", "cansado", "#12").
    int metric_position = -1;
    std::string metric_token, metric_versus;
    bool operator==(const LookInsideRequest&) const = default;
};

struct LookInside {
    LookInsideRequest request;
    std::string error;                    // the input was refused (empty, too long); no view then
    bool decoder_only = false;
    bool pre_ln = false;                  // Pre-LN (a final norm before the generator) vs Post-LN
    std::vector<std::string> source_tokens, target_tokens;   // [S] (empty decoder-only), [T]
    LogitLens lens;
    ActivationPatching patching;          // error "no corrupted sentence" when request.corrupted is empty
    HeadImportance heads;                 // summed over every target position
    AttentionRollout rollout;
    AttentionEntropy entropy;
    std::vector<LogitAttribution> attribution;   // [T] the chosen token's logit at each position
    double seconds = 0.0;                 // wall time of the whole computation
    std::map<int, std::string> token_texts;   // the display text of every id the lens names
    // The display text of an id the lens names ("▁cansado"); "#id" for another.
    std::string lens_token(int id) const;
};

// Never throws: a refused input or a view that fails sets that view's (or the whole) error. The
// checkpoint is only read: a shared copy (the app's SessionTwin) may be read by others meanwhile.
LookInside compute_look_inside(std::shared_ptr<const Checkpoint> checkpoint, const LookInsideRequest& request);
LookInside compute_look_inside(Checkpoint checkpoint, const LookInsideRequest& request);

}  // namespace tx::explain
