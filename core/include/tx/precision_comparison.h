// One model run in FP32 and in a lower precision mode (precision.h, docs/precision.md) on the
// same input: per step, the largest absolute difference, the relative error and the non-finite
// values, and where the greedy outputs part. Used by `txcli forward --compare`.
#pragma once
#include <string>
#include <vector>

#include "tx/checkpoint.h"
#include "tx/precision.h"

namespace tx {

class Transformer;

struct StepPrecisionDifference {
    std::string name;
    bool materialised = true;   // false: skipped in both runs (fused attention), no numbers
    double max_abs = 0.0;       // max |low − fp32| over the finite pairs (equal infinities: 0)
    double relative = 0.0;      // max_abs / max |fp32| over finite values (0 when that is 0)
    int64_t nonfinite = 0;      // inf or NaN values in the low run's output where FP32 has a finite one
    int64_t finite_pairs = 0;   // values finite in both runs: what max_abs and relative are taken over
                                // (0: no number to compare; show "–", not a difference of 0)
};

struct PrecisionComparison {
    PrecisionMode mode;
    // Both runs' greedy outputs (ids after BOS, or after the prompt), per source row.
    std::vector<std::vector<int>> fp32_output, low_output;
    // Per row: the index of the first output token where they differ (a shorter output differs
    // where it ends), or -1 where they agree.
    std::vector<int> first_change;
    // Every step, teacher-forced on the FP32 greedy output so that both runs see the same decoder
    // input (and the same shapes).
    std::vector<StepPrecisionDifference> steps;
    double logits_max_abs = 0.0, logits_relative = 0.0;   // generator.logits' row of steps
};

// src: source rows (tokens + EOS), as greedy_decode takes them; prompts: decoder-only prompts or
// empty. Runs the checkpoint on make_cpu_backend() and make_precision_cpu_backend(mode).
PrecisionComparison compare_precision(const Checkpoint& checkpoint, PrecisionMode mode,
                                      const std::vector<std::vector<int>>& src, int max_new,
                                      const std::vector<std::vector<int>>& prompts = {});
// The same on two models of one checkpoint that the caller made: `fp32` on make_cpu_backend(),
// `low` on make_precision_cpu_backend(mode). Afterwards both hold the teacher-forced pass, so the
// caller can read any step of either (explain/precision_view.cpp does).
PrecisionComparison compare_precision(Transformer& fp32, Transformer& low, PrecisionMode mode,
                                      const std::vector<std::vector<int>>& src, int max_new,
                                      const std::vector<std::vector<int>>& prompts = {});

}  // namespace tx
