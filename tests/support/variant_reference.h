// A model variant against its independent reference (a 2017 model with weights made to match):
// the padded batch both run, its next-token targets, and how far two outputs are apart.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "support/small_models.h"
#include "tx/backend.h"
#include "tx/model_on_backend.h"
#include "tx/transformer.h"

namespace tx::test {

// A variant model with random parameters, and its reference: a model of another config whose
// parameters `to_reference` makes from the variant's (repeated, multiplied out, ...).
struct VariantPair {
    ModelConfig variant, reference;
    std::vector<float> params;   // the variant's
    ModelOnBackend v, r;
};

inline VariantPair variant_pair(const ModelConfig& variant, const ModelConfig& reference,
                                const std::function<std::vector<float>(const std::vector<float>&)>& to_reference) {
    VariantPair p;
    p.variant = variant;
    p.reference = reference;
    p.params = random_parameters(variant, 4242u, 0.4f);
    p.v = make_model(variant, p.params, make_cpu_backend());
    p.r = make_model(reference, to_reference(p.params), make_cpu_backend());
    return p;
}

// Two sentences of different lengths, so that padding and masks take part (EOS 2, BOS 1).
inline const std::vector<std::vector<int>> VARIANT_SRC = {{4, 5, 6, 7, 2}, {8, 9, 2}};
inline const std::vector<std::vector<int>> VARIANT_TGT = {{1, 10, 11, 12, 13}, {1, 14, 15}};

// Each decoder position's target: the next input token, PAD 0 past a row's end, EOS 2 last.
inline std::vector<int32_t> next_token_targets(const std::vector<std::vector<int>>& tgt) {
    std::vector<int32_t> targets;
    for (const auto& row : tgt) {
        for (size_t t = 1; t < tgt.front().size(); ++t) targets.push_back(t < row.size() ? row[t] : 0);
        targets.push_back(2);
    }
    return targets;
}

// The model's parameter gradients for the cross-entropy of that batch (no label smoothing).
inline std::vector<float> batch_gradients(Transformer& m) {
    m.set_batch(VARIANT_SRC, VARIANT_TGT);
    m.forward();
    m.zero_gradients();
    m.loss(next_token_targets(VARIANT_TGT), 0.0f);
    m.backward();
    return m.download_gradients();
}

inline double largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    double d = 0.0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, static_cast<double>(std::fabs(a[i] - b[i])));
    return d;
}

}  // namespace tx::test
