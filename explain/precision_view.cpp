// The Precision panel's computation (see precision_view.h): compare_precision for the step table
// and the greedy outputs, then both runs once more on the same decoder input for the attention
// and the logits, and the weights' rounding errors.
#include "precision_view.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "tx/backend.h"
#include "tx/cpu_isa.h"
#include "tx/decoding.h"
#include "tx/half_float.h"
#include "tx/int8_quantize.h"
#include "tx/length_limits.h"
#include "tx/model_on_backend.h"
#include "tx/parameters.h"

namespace tx::explain {

namespace {

bool is_linear_layer(const StepInfo& step, const ModelConfig& config) {
    using K = StepKind;
    // SwiGLU's ".hidden" is SiLU(gate) ⊙ up, no product; its gate and up steps are linear layers.
    if (step.kind == K::FfnHidden && config.ffn == FfnKind::SwiGlu && step.name.size() >= 7 &&
        step.name.compare(step.name.size() - 7, 7, ".hidden") == 0)
        return false;
    return step.kind == K::Projection || step.kind == K::OutputProjection || step.kind == K::FfnHidden ||
           step.kind == K::FfnOut || step.kind == K::Generator;
}

bool is_product(const StepInfo& step, const ModelConfig& config) {
    return is_linear_layer(step, config) || step.kind == StepKind::Scores || step.kind == StepKind::Context;
}

std::string number(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", x);
    return buffer;
}

}  // namespace

const char* format_name(Precision p) {
    switch (p) {
        case Precision::Fp32: return "FP32";
        case Precision::Bf16: return "BF16";
        case Precision::Fp16: return "FP16";
        case Precision::Int8: return "INT8";
    }
    return "";
}

std::vector<LowStep> low_precision_steps(const std::vector<StepInfo>& steps, const ModelConfig& config,
                                         PrecisionMode mode) {
    std::vector<LowStep> marks;
    for (const StepInfo& s : steps) {
        LowStep how = LowStep::Fp32;
        switch (mode.format) {
            case Precision::Fp32: break;
            case Precision::Int8: how = is_linear_layer(s, config) ? LowStep::Int8Weights : LowStep::Fp32; break;
            case Precision::Bf16:
            case Precision::Fp16:
                how = is_product(s, config) ? LowStep::Product : mode.all_low ? LowStep::Rounded : LowStep::Fp32;
                break;
        }
        marks.push_back(how);
    }
    return marks;
}

std::vector<AttentionPair> attention_pairs(const Transformer& fp32, const Transformer& low, int row) {
    if (row < 0 || row >= fp32.batch_size() || fp32.batch_size() != low.batch_size())
        throw std::out_of_range("batch row " + std::to_string(row) + " is outside the batch");
    std::vector<AttentionPair> pairs;
    for (const AttentionBlock& a : fp32.attention_blocks()) {
        AttentionPair p;
        p.prefix = a.prefix;
        p.kind = a.kind;
        p.layer = a.layer;
        const TensorShape& shape = fp32.steps()[a.probs].shape;   // [B, H, rows, cols]
        p.heads = static_cast<int>(shape.dims.at(1));
        p.rows = static_cast<int>(shape.dims.at(2));
        p.cols = static_cast<int>(shape.dims.at(3));
        const size_t n = static_cast<size_t>(p.heads) * p.rows * p.cols, begin = static_cast<size_t>(row) * n;
        const std::vector<float> a32 = fp32.step_output(a.probs), alow = low.step_output(a.probs);
        p.fp32.assign(a32.begin() + static_cast<std::ptrdiff_t>(begin), a32.begin() + static_cast<std::ptrdiff_t>(begin + n));
        p.low.assign(alow.begin() + static_cast<std::ptrdiff_t>(begin), alow.begin() + static_cast<std::ptrdiff_t>(begin + n));
        pairs.push_back(std::move(p));
    }
    return pairs;
}

AttentionDifference attention_difference(const AttentionPair& pair, int head) {
    if (head < 0 || head >= pair.heads)
        throw std::out_of_range("head " + std::to_string(head) + " is outside 0.." + std::to_string(pair.heads - 1));
    AttentionDifference d;
    d.rows = pair.rows;
    d.cols = pair.cols;
    const size_t n = static_cast<size_t>(pair.rows) * pair.cols, begin = static_cast<size_t>(head) * n;
    d.values.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const float a = pair.fp32.at(begin + i), b = pair.low.at(begin + i);
        if (!std::isfinite(b) && std::isfinite(a)) ++d.nonfinite;
        if (!std::isfinite(a) || !std::isfinite(b)) {
            d.values[i] = std::numeric_limits<float>::quiet_NaN();
            continue;
        }
        d.values[i] = b - a;
        d.max_abs = std::max(d.max_abs, std::fabs(static_cast<double>(b) - a));
    }
    return d;
}

TopTokens top_probabilities(const float* logits, int V, int k) {
    TopTokens top;
    double largest = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < V; ++i) {
        if (!std::isfinite(logits[i])) ++top.nonfinite;
        else largest = std::max(largest, static_cast<double>(logits[i]));
    }
    if (top.nonfinite > 0 || V <= 0) return top;
    double sum = 0.0;
    for (int i = 0; i < V; ++i) sum += std::exp(static_cast<double>(logits[i]) - largest);
    std::vector<int> order(static_cast<size_t>(V));
    std::iota(order.begin(), order.end(), 0);
    const int n = std::min(k, V);
    std::partial_sort(order.begin(), order.begin() + n, order.end(),
                      [logits](int a, int b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
    for (int i = 0; i < n; ++i) {
        top.ids.push_back(order[static_cast<size_t>(i)]);
        top.probabilities.push_back(std::exp(static_cast<double>(logits[order[static_cast<size_t>(i)]]) - largest) / sum);
    }
    return top;
}

LogitsAtPosition logits_at_position(const std::vector<float>& fp32, const std::vector<float>& low, int T, int V,
                                    int position, int k) {
    if (position < 0 || position >= T)
        throw std::out_of_range("position " + std::to_string(position) + " is outside 0.." + std::to_string(T - 1));
    const size_t row = static_cast<size_t>(position) * V;
    if (fp32.size() < row + V || low.size() < row + V) throw std::out_of_range("the logits hold fewer than T·V values");
    LogitsAtPosition r;
    r.fp32 = top_probabilities(fp32.data() + row, V, k);
    r.low = top_probabilities(low.data() + row, V, k);
    for (int v = 0; v < V; ++v) {
        const float a = fp32[row + v], b = low[row + v];
        if (!std::isfinite(b)) ++r.nonfinite;
        if (std::isfinite(a) && std::isfinite(b)) r.max_abs = std::max(r.max_abs, std::fabs(static_cast<double>(b) - a));
    }
    return r;
}

RoundingHistogram rounding_error_histogram(const std::string& parameter, const float* w, int rows, int cols,
                                           Precision format, bool relative, int bins) {
    if (bins < 1) throw std::invalid_argument("a histogram needs at least one bin, got " + std::to_string(bins));
    RoundingHistogram h;
    h.parameter = parameter;
    h.format = format;
    h.relative = relative;
    h.rows = rows;
    h.cols = cols;
    h.counts.assign(static_cast<size_t>(bins), 0);
    const int64_t n = static_cast<int64_t>(rows) * cols;
    if (n > 0) h.first_weight = w[0];
    std::vector<float> rounded(static_cast<size_t>(n));
    double largest_scale = 0.0;
    if (format == Precision::Int8) {
        std::vector<int8_t> q(static_cast<size_t>(n));
        std::vector<float> scale(static_cast<size_t>(rows));
        quantize_int8_rows(q.data(), scale.data(), w, rows, cols);
        dequantize_int8_rows(rounded.data(), q.data(), scale.data(), rows, cols);
        for (float s : scale) largest_scale = std::max(largest_scale, static_cast<double>(s));
    } else {
        round_floats(rounded.data(), w, n, format);
    }
    const double smallest_normal = format == Precision::Bf16 ? std::ldexp(1.0, -126) : format == Precision::Fp16 ? std::ldexp(1.0, -14) : 0.0;
    std::vector<double> errors;
    errors.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const double x = w[i];
        h.max_abs_weight = std::max(h.max_abs_weight, std::fabs(x));
        if (!std::isfinite(rounded[static_cast<size_t>(i)])) {
            ++h.overflowed;
            continue;
        }
        double e = x - rounded[static_cast<size_t>(i)];
        if (relative) {
            if (x == 0.0) {
                ++h.skipped;
                continue;
            }
            if (std::fabs(x) < smallest_normal) {
                ++h.subnormal;
                continue;
            }
            e /= std::fabs(x);
        }
        h.max_abs_error = std::max(h.max_abs_error, std::fabs(e));
        errors.push_back(e);
    }
    h.range = h.max_abs_error > 0.0 ? h.max_abs_error : 1e-30;
    for (double e : errors) {
        const auto bin = static_cast<int64_t>(std::floor((e + h.range) / (2.0 * h.range) * bins));
        ++h.counts[static_cast<size_t>(std::clamp<int64_t>(bin, 0, bins - 1))];
    }
    if (relative) {
        h.step = format == Precision::Bf16 ? std::ldexp(1.0, -7) : format == Precision::Fp16 ? std::ldexp(1.0, -10) : 0.0;
    } else if (format == Precision::Int8) {
        h.step = largest_scale;
    } else if ((format == Precision::Bf16 || format == Precision::Fp16) && h.max_abs_weight > 0.0) {
        int e = 0;
        std::frexp(h.max_abs_weight, &e);   // max|w| = f · 2^e, 0.5 ≤ f < 1: 2^(e−1) ≤ max|w| < 2^e
        h.step = format == Precision::Bf16 ? std::ldexp(1.0, e - 1 - 7) : std::ldexp(1.0, std::max(e - 1, -14) - 10);
    }
    return h;
}

std::vector<std::string> linear_weight_names(const ModelConfig& config) {
    std::vector<std::string> names;
    const ParameterTable table(config);
    for (const ParameterInfo& p : table.entries())
        if (p.is_linear_weight()) names.push_back(p.name);
    return names;
}

std::string nonfinite_reason(const StepInfo& step, LowStep how, Precision format, const std::vector<float>& fp32,
                             const std::vector<float>& low) {
    int64_t infinities = 0, nans = 0;
    double fp32_largest = 0.0;
    for (size_t i = 0; i < fp32.size() && i < low.size(); ++i) {
        if (!std::isfinite(fp32[i])) continue;
        fp32_largest = std::max(fp32_largest, std::fabs(static_cast<double>(fp32[i])));
        if (std::isinf(low[i])) ++infinities;
        if (std::isnan(low[i])) ++nans;
    }
    const std::string fmt = format_name(format);
    const bool rounds = how == LowStep::Product || how == LowStep::Rounded;
    if (infinities > 0 && format == Precision::Fp16 && rounds) {
        const std::string what = how == LowStep::Product ? "its product's output" : "its output";
        if (fp32_largest >= 65520.0)
            return std::to_string(infinities) + " values are \xC2\xB1inf: in FP32 this step reaches " + number(fp32_largest) +
                   ", beyond FP16's largest value 65504, so rounding " + what + " to FP16 gives \xC2\xB1inf.";
        return std::to_string(infinities) + " values are \xC2\xB1inf: in this run they pass 65504, FP16's largest value, "
               "and rounding " + what + " to FP16 gives \xC2\xB1inf.";
    }
    if (infinities > 0)
        return std::to_string(infinities) + " values are \xC2\xB1inf where FP32 has finite ones (largest " + number(fp32_largest) +
               "): " + fmt + " computed " + step.name + " from values that had grown past the range of what follows.";
    if (nans > 0)
        return std::to_string(nans) + " values are NaN: an operation met inf \xE2\x88\x92 inf, 0 \xC2\xB7 inf or inf / inf "
               "(softmax of a row holding inf subtracts inf from inf).";
    return "no inf or NaN in this step.";
}

bool softmax_hides_nonfinite_scores(const PrecisionView& view) {
    for (size_t i = 1; i < view.steps.size(); ++i) {
        const StepPrecisionDifference& probs = view.steps[i].difference;
        const StepPrecisionDifference& scores = view.steps[i - 1].difference;
        const bool is_probs = probs.name.size() >= 6 && probs.name.compare(probs.name.size() - 6, 6, ".probs") == 0;
        if (is_probs && probs.materialised && probs.nonfinite == 0 && scores.materialised && scores.nonfinite > 0 &&
            scores.finite_pairs == 0)
            return true;
    }
    return false;
}

PrecisionView compute_precision_view(Checkpoint checkpoint, const PrecisionRequest& request, int histogram_bins) {
    return compute_precision_view(std::make_shared<const Checkpoint>(std::move(checkpoint)), request, histogram_bins);
}

PrecisionView compute_precision_view(std::shared_ptr<const Checkpoint> shared, const PrecisionRequest& request,
                                     int histogram_bins) {
    const auto start = std::chrono::steady_clock::now();
    PrecisionView r;
    r.request = request;
    if (request.mode.format == Precision::Bf16) r.bf16_products = cpu::bf16_path_name(cpu::bf16_path());
    try {
        if (auto problem = validate(request.mode)) throw std::invalid_argument(*problem);
        if (!std::isfinite(request.embedding_scale) || request.embedding_scale <= 0.0f)
            throw std::invalid_argument("the embedding scale must be a positive number");
        const ParameterTable table(shared->config);
        if (request.embedding_scale != 1.0f) {
            auto scaled = std::make_shared<Checkpoint>(*shared);
            for (const char* name : {"src_embed.weight", "tgt_embed.weight"})
                if (const ParameterInfo* p = table.find(name))
                    for (int64_t i = 0; i < p->numel(); ++i)
                        scaled->parameters[static_cast<size_t>(p->offset + i)] *= request.embedding_scale;
            shared = std::move(scaled);
        }
        const Checkpoint& checkpoint = *shared;   // the shared copy, or the scaled one
        const ModelConfig& c = checkpoint.config;
        r.decoder_only = c.arch == Arch::DecoderOnly;
        const Tokenizer tokenizer = make_tokenizer(checkpoint);
        for (int id = 0; id < c.tgt_vocab; ++id) r.vocabulary.push_back(tokenizer.display(id));

        // The input as txcli forward --compare builds it (cli/precision_report.cpp).
        std::vector<int> ids = tokenizer.encode(request.source);
        if (ids.empty())
            throw std::invalid_argument(r.decoder_only ? "the prompt is empty: type a few words" : "the sentence is empty: type a sentence");
        require_fits(static_cast<int>(ids.size()), r.decoder_only ? Marker::Bos : Marker::Eos, c.max_len,
                     r.decoder_only ? "the prompt" : "the sentence");
        std::vector<std::vector<int>> prompts;
        if (r.decoder_only) prompts.push_back(ids);
        std::vector<int> src = ids;
        src.push_back(c.special.eos);
        const int limit = r.decoder_only ? continuation_limit(static_cast<int>(ids.size()), c.max_len)
                                         : translation_limit(static_cast<int>(src.size()), c.max_len);
        // One pair of models: the comparison decodes on both and leaves them holding the
        // teacher-forced pass read below.
        const ModelOnBackend fp32_model = make_model(checkpoint);
        const ModelOnBackend low_model = make_model(checkpoint, make_precision_cpu_backend(request.mode));
        Transformer& fp32 = *fp32_model;
        Transformer& low = *low_model;
        const PrecisionComparison cmp = compare_precision(fp32, low, request.mode, {src}, limit, prompts);
        for (int id : cmp.fp32_output[0]) r.fp32_output.push_back(tokenizer.display(id));
        for (int id : cmp.low_output[0]) r.low_output.push_back(tokenizer.display(id));
        r.first_change = cmp.first_change[0];

        // The decoder input compare_precision teacher-forced both runs on.
        std::vector<int> tgt = {c.special.bos};
        if (r.decoder_only) tgt.insert(tgt.end(), ids.begin(), ids.end());
        tgt.insert(tgt.end(), cmp.fp32_output[0].begin(), cmp.fp32_output[0].end());
        if (static_cast<int>(tgt.size()) > c.max_len) tgt.resize(static_cast<size_t>(c.max_len));
        if (!r.decoder_only)
            for (int id : src) r.source_tokens.push_back(tokenizer.display(id));
        for (int id : tgt) r.target_tokens.push_back(tokenizer.display(id));

        const std::vector<LowStep> marks = low_precision_steps(fp32.steps(), c, request.mode);
        for (size_t i = 0; i < cmp.steps.size() && i < fp32.step_count(); ++i) {
            r.steps.push_back({cmp.steps[i], fp32.steps()[i].kind, marks[i]});
            if (r.first_nonfinite < 0 && cmp.steps[i].nonfinite > 0) {
                r.first_nonfinite = static_cast<int>(i);
                r.nonfinite_reason = nonfinite_reason(fp32.steps()[i], marks[i], request.mode.format, fp32.step_output(i),
                                                      low.step_output(i));
            }
        }
        r.attention = attention_pairs(fp32, low, 0);
        const size_t logits = fp32.find_step("generator.logits");
        r.vocab = c.tgt_vocab;
        r.fp32_logits = fp32.step_output(logits);
        r.low_logits = low.step_output(logits);
        for (float x : r.low_logits) r.low_nan_logits += std::isnan(x);

        if (request.mode.format != Precision::Fp32)
            for (const std::string& name : linear_weight_names(c)) {
                const ParameterInfo& p = table.at(name);
                const float* w = checkpoint.parameters.data() + p.offset;
                const int rows = static_cast<int>(p.shape[0]), cols = static_cast<int>(p.shape[1]);
                r.absolute.push_back(rounding_error_histogram(name, w, rows, cols, request.mode.format, false, histogram_bins));
                r.relative.push_back(rounding_error_histogram(name, w, rows, cols, request.mode.format, true, histogram_bins));
            }
    } catch (const std::exception& e) {
        r.error = e.what();
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

}  // namespace tx::explain
