// Head importance by ablation (Michel, Levy & Neubig 2019, "Are Sixteen Heads Really Better than
// One?"): switch off one head at a time (its context zeroed, the model's own head-ablation toggle,
// docs/design.md §3) and record how the log-probability of the tokens the intact model chose
// changes. Grids: layers × heads H per attention kind, row-major; negative = the head helped.
#pragma once
#include <string>
#include <vector>

#include "inspect_model.h"

namespace tx::explain {

struct HeadGrid {
    std::string name;                  // "encoder.self_attn", "decoder.self_attn", "decoder.cross_attn"
    AttentionKind kind = AttentionKind::EncoderSelf;
    int layers = 0, heads = 0;
    std::vector<double> delta;         // [layers, heads] metric with the head off − metric intact
};

struct HeadImportance {
    std::string error;                 // why there is no result; the rest is empty then
    std::string metric_text;           // what is summed
    int position = -1;                 // -1: the sum over every target position
    std::vector<int> chosen;           // [T] the intact model's most probable token per position
    std::vector<std::string> chosen_text;
    double intact = 0.0;               // the metric with every head on
    std::vector<HeadGrid> grids;
};

// position -1: Σ_t log p(chosen_t) over the T target positions; else log p(chosen) there alone.
HeadImportance head_importance(InspectModel& model, const InspectInput& in, int position = -1);

}  // namespace tx::explain
