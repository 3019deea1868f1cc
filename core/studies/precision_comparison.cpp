// precision_comparison.h: two Transformers on the same weights, one on the FP32 CPU backend and
// one on make_precision_cpu_backend(mode); greedy decoding on each, then a teacher-forced forward pass of
// both on the FP32 output, compared step by step.
#include "tx/precision_comparison.h"

#include <algorithm>
#include <cmath>

#include "tx/decoding.h"
#include "tx/model_on_backend.h"
#include "tx/transformer.h"

namespace tx {

namespace {

StepPrecisionDifference difference(const std::string& name, const std::vector<float>& ref, const std::vector<float>& low) {
    StepPrecisionDifference d;
    d.name = name;
    double largest = 0.0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const bool ref_finite = std::isfinite(ref[i]), low_finite = std::isfinite(low[i]);
        if (ref_finite) largest = std::max(largest, std::fabs(static_cast<double>(ref[i])));
        if (ref_finite && !low_finite) ++d.nonfinite;
        if (ref_finite && low_finite) {
            ++d.finite_pairs;
            d.max_abs = std::max(d.max_abs, std::fabs(static_cast<double>(low[i]) - ref[i]));
        }
    }
    d.relative = largest > 0.0 ? d.max_abs / largest : 0.0;
    return d;
}

int first_difference(const std::vector<int>& a, const std::vector<int>& b) {
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return static_cast<int>(i);
    return a.size() == b.size() ? -1 : static_cast<int>(n);
}

}  // namespace

PrecisionComparison compare_precision(const Checkpoint& checkpoint, PrecisionMode mode,
                                      const std::vector<std::vector<int>>& src, int max_new,
                                      const std::vector<std::vector<int>>& prompts) {
    const ModelOnBackend fp32 = make_model(checkpoint);
    const ModelOnBackend low = make_model(checkpoint, make_precision_cpu_backend(mode));
    return compare_precision(*fp32, *low, mode, src, max_new, prompts);
}

PrecisionComparison compare_precision(Transformer& fp32, Transformer& low, PrecisionMode mode,
                                      const std::vector<std::vector<int>>& src, int max_new,
                                      const std::vector<std::vector<int>>& prompts) {
    PrecisionComparison result;
    result.mode = mode;
    const ModelConfig& config = fp32.config();

    result.fp32_output = greedy_decode(fp32, src, max_new, nullptr, prompts);
    result.low_output = greedy_decode(low, src, max_new, nullptr, prompts);
    for (size_t b = 0; b < src.size(); ++b)
        result.first_change.push_back(first_difference(result.fp32_output[b], result.low_output[b]));

    std::vector<std::vector<int>> tgt(src.size());
    for (size_t b = 0; b < src.size(); ++b) {
        tgt[b].push_back(config.special.bos);
        if (!prompts.empty()) tgt[b].insert(tgt[b].end(), prompts[b].begin(), prompts[b].end());
        tgt[b].insert(tgt[b].end(), result.fp32_output[b].begin(), result.fp32_output[b].end());
        if (static_cast<int>(tgt[b].size()) > config.max_len) tgt[b].resize(config.max_len);
    }
    fp32.set_batch(src, tgt);
    low.set_batch(src, tgt);
    fp32.forward();
    low.forward();
    for (size_t i = 0; i < fp32.step_count(); ++i) {
        const StepInfo& info = fp32.steps()[i];
        if (!info.materialised || !low.steps()[i].materialised) {
            StepPrecisionDifference d;
            d.name = info.name;
            d.materialised = false;
            result.steps.push_back(d);
            continue;
        }
        result.steps.push_back(difference(info.name, fp32.step_output(i), low.step_output(i)));
        if (info.name == "generator.logits") {
            result.logits_max_abs = result.steps.back().max_abs;
            result.logits_relative = result.steps.back().relative;
        }
    }
    return result;
}

}  // namespace tx
