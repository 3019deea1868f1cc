// explain/precision_view.h, the Precision panel's numbers, against references that do not use it:
// the attention difference of BF16 "everything low" against tests/gen_precision_fixtures.py's
// Python run minus the golden FP32 trace; the rounding-error histogram against a scalar rounding
// written here from the formats' definitions (frexp, round half to even) and edges searched one by
// one; the top-5 probabilities against a long-double softmax; the low-precision marks against the
// step names; and the whole view on the golden model (FP32 gives zero differences, BF16 does not,
// FP16 everything-low with embeddings ×10^4 reports inf/NaN with a reason, never throws).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "precision_view.h"
#include "tx/backend.h"
#include "tx/checkpoint.h"
#include "tx/cpu_isa.h"
#include "tx/safetensors.h"
#include "support/fixtures.h"

namespace tx::explain {
namespace {

using test::fixture;
using test::rows_of;

// x rounded to `bits` significant bits, ties to even (nearbyint in the default rounding mode);
// below 2^min_exponent in steps of 2^(min_exponent − bits + 1). No overflow handling: the test
// weights are small.
double reference_round(double x, int bits, int min_exponent) {
    if (x == 0.0) return x;
    int e = 0;
    std::frexp(std::fabs(x), &e);   // 2^(e−1) ≤ |x| < 2^e
    const int exponent = std::max(e - 1, min_exponent);
    const double step = std::ldexp(1.0, exponent - (bits - 1));
    return std::nearbyint(x / step) * step;
}

double reference_rounded(double x, Precision format) {
    return format == Precision::Bf16 ? reference_round(x, 8, -126) : reference_round(x, 11, -14);
}

// The bin whose [edge_i, edge_i+1) holds e, the last bin closed; edges −range + 2·range·i/bins.
int reference_bin(double e, double range, int bins) {
    for (int i = 0; i < bins; ++i) {
        const double hi = -range + 2.0 * range * (i + 1) / bins;
        if (e < hi) return i;
    }
    return bins - 1;
}

std::vector<float> random_weights(int n, float scale, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> w(static_cast<size_t>(n));
    for (float& x : w) x = normal(rng);
    return w;
}

TEST(PrecisionView, AttentionDifferenceMatchesThePythonReference) {
    const Checkpoint checkpoint = test::golden_checkpoint();
    const SafetensorsFile trace = read_safetensors(fixture("golden_post.trace.safetensors"));
    const SafetensorsFile ref = read_safetensors(fixture("precision_post.safetensors"));
    const auto src = rows_of(*trace.find("src_ids")), tgt = rows_of(*trace.find("tgt_ids"));
    auto fp32_backend = make_cpu_backend();
    auto low_backend = make_precision_cpu_backend({Precision::Bf16, true});
    Transformer fp32(checkpoint.config, *fp32_backend), low(checkpoint.config, *low_backend);
    fp32.set_parameters(checkpoint.parameters);
    low.set_parameters(checkpoint.parameters);
    fp32.set_batch(src, tgt);
    low.set_batch(src, tgt);
    fp32.forward();
    low.forward();
    const int B = static_cast<int>(src.size());
    double largest = 0.0;
    for (int row = 0; row < B; ++row) {
        const std::vector<AttentionPair> pairs = attention_pairs(fp32, low, row);
        ASSERT_EQ(pairs.size(), fp32.attention_blocks().size());
        for (const AttentionPair& p : pairs) {
            const NamedTensor* ref_low = ref.find("bf16_all_low/" + p.prefix + ".probs");
            const NamedTensor* ref_fp32 = trace.find(p.prefix + ".probs");
            ASSERT_TRUE(ref_low && ref_fp32) << p.prefix;
            ASSERT_EQ(ref_low->data.size(), static_cast<size_t>(B) * p.heads * p.rows * p.cols) << p.prefix;
            for (int h = 0; h < p.heads; ++h) {
                const AttentionDifference d = attention_difference(p, h);
                ASSERT_EQ(d.rows, p.rows);
                ASSERT_EQ(d.cols, p.cols);
                double max_abs = 0.0;
                for (int i = 0; i < p.rows; ++i)
                    for (int j = 0; j < p.cols; ++j) {
                        const size_t at = ((static_cast<size_t>(row) * p.heads + h) * p.rows + i) * p.cols + j;
                        const double expected = static_cast<double>(ref_low->data[at]) - ref_fp32->data[at];
                        const float got = d.values[static_cast<size_t>(i) * p.cols + j];
                        EXPECT_NEAR(got, expected, 2e-5) << p.prefix << " row " << row << " head " << h << " (" << i << "," << j << ")";
                        max_abs = std::max(max_abs, std::fabs(expected));
                    }
                EXPECT_NEAR(d.max_abs, max_abs, 2e-5) << p.prefix;
                EXPECT_EQ(d.nonfinite, 0);
                largest = std::max(largest, max_abs);
            }
        }
    }
    // BF16's 8 bits move the probabilities visibly, far above the tolerance.
    EXPECT_GT(largest, 1e-3);
    EXPECT_THROW(attention_difference(attention_pairs(fp32, low, 0).front(), checkpoint.config.heads), std::out_of_range);
}

TEST(PrecisionView, HistogramMatchesAScalarReference) {
    const int rows = 37, cols = 53, bins = 41;
    std::vector<float> w = random_weights(rows * cols, 0.2f, 7);
    w[5] = 0.0f;    // no relative error
    w[11] = 0.75f;  // max |w|: BF16's step there is 2^-8, FP16's 2^-11
    w[17] = 3e-5f;  // below FP16's smallest normal 2^-14: subnormal, left out of FP16's relative bins
    for (float& x : w) x = std::clamp(x, -0.74f, 0.75f);
    ASSERT_EQ(std::fegetround(), FE_TONEAREST);
    for (Precision format : {Precision::Bf16, Precision::Fp16, Precision::Int8})
        for (bool relative : {false, true}) {
            const RoundingHistogram h = rounding_error_histogram("w", w.data(), rows, cols, format, relative, bins);
            std::vector<double> errors;
            int64_t skipped = 0, subnormal = 0;
            for (int r = 0; r < rows; ++r) {
                double row_max = 0.0;
                for (int c = 0; c < cols; ++c) row_max = std::max(row_max, std::fabs(static_cast<double>(w[r * cols + c])));
                const float scale = static_cast<float>(row_max) / 127.0f;
                for (int c = 0; c < cols; ++c) {
                    const double x = w[static_cast<size_t>(r) * cols + c];
                    double rounded = 0.0;
                    if (format == Precision::Int8) {
                        const double q = scale == 0.0f ? 0.0 : std::clamp<double>(std::nearbyint(static_cast<float>(x) / scale), -127.0, 127.0);
                        rounded = static_cast<float>(static_cast<float>(q) * scale);
                    } else {
                        rounded = reference_rounded(x, format);
                    }
                    double e = x - rounded;
                    if (relative) {
                        if (x == 0.0) {
                            ++skipped;
                            continue;
                        }
                        if (format == Precision::Fp16 && std::fabs(x) < 1.0 / 16384) {
                            ++subnormal;
                            continue;
                        }
                        e /= std::fabs(x);
                    }
                    errors.push_back(e);
                }
            }
            double max_abs = 0.0;
            for (double e : errors) max_abs = std::max(max_abs, std::fabs(e));
            const std::string what = std::string(to_string(format)) + (relative ? " relative" : " absolute");
            EXPECT_EQ(h.max_abs_error, max_abs) << what;
            EXPECT_EQ(h.skipped, skipped) << what;
            EXPECT_EQ(h.subnormal, subnormal) << what;
            if (relative && format == Precision::Fp16) {
                EXPECT_GE(subnormal, 1) << what;
            }
            EXPECT_EQ(h.overflowed, 0) << what;
            std::vector<int64_t> counts(bins, 0);
            for (double e : errors) ++counts[static_cast<size_t>(reference_bin(e, max_abs, bins))];
            EXPECT_EQ(h.counts, counts) << what;
            EXPECT_EQ(h.max_abs_weight, 0.75) << what;
            // The format's step, and rounding to nearest keeps every error within half of it.
            const double step = format == Precision::Bf16 ? (relative ? 1.0 / 128 : 1.0 / 256)
                                : format == Precision::Fp16 ? (relative ? 1.0 / 1024 : 1.0 / 2048)
                                                            : (relative ? 0.0 : static_cast<double>(0.75f / 127.0f));
            EXPECT_DOUBLE_EQ(h.step, step) << what;
            if (format != Precision::Int8 || !relative) {
                EXPECT_LE(h.max_abs_error, h.step / 2 * (1 + 1e-6)) << what;
            }
            EXPECT_GT(h.max_abs_error, h.step / 8) << what;   // the errors fill the range, not a corner of it
        }
    EXPECT_THROW(rounding_error_histogram("w", w.data(), rows, cols, Precision::Bf16, false, 0), std::invalid_argument);
    const RoundingHistogram fp32 = rounding_error_histogram("w", w.data(), rows, cols, Precision::Fp32, false, bins);
    EXPECT_EQ(fp32.max_abs_error, 0.0);
    EXPECT_EQ(fp32.counts[bins / 2], static_cast<int64_t>(rows) * cols);
}

TEST(PrecisionView, TopProbabilitiesMatchALongDoubleSoftmax) {
    const int V = 300, k = 5;
    const std::vector<float> logits = random_weights(V, 3.0f, 11);
    const TopTokens top = top_probabilities(logits.data(), V, k);
    long double sum = 0.0L;
    for (float x : logits) sum += std::exp(static_cast<long double>(x));
    std::vector<int> order(V);
    for (int i = 0; i < V; ++i) order[static_cast<size_t>(i)] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
    ASSERT_EQ(top.ids.size(), static_cast<size_t>(k));
    for (int i = 0; i < k; ++i) {
        EXPECT_EQ(top.ids[static_cast<size_t>(i)], order[static_cast<size_t>(i)]);
        EXPECT_NEAR(top.probabilities[static_cast<size_t>(i)],
                    static_cast<double>(std::exp(static_cast<long double>(logits[order[static_cast<size_t>(i)]])) / sum), 1e-12);
    }
    std::vector<float> broken = logits;
    broken[3] = INFINITY;
    broken[4] = NAN;
    const TopTokens none = top_probabilities(broken.data(), V, k);
    EXPECT_EQ(none.nonfinite, 2);
    EXPECT_TRUE(none.ids.empty());
    // Two rows: the difference at row 1 only counts row 1.
    std::vector<float> fp32 = logits, low = logits;
    fp32.insert(fp32.end(), logits.begin(), logits.end());
    low.insert(low.end(), logits.begin(), logits.end());
    low[7] += 0.5f;          // row 0
    low[V + 9] -= 0.25f;     // row 1
    low[V + 10] = NAN;
    const LogitsAtPosition at1 = logits_at_position(fp32, low, 2, V, 1, k);
    EXPECT_EQ(at1.max_abs, 0.25);
    EXPECT_EQ(at1.nonfinite, 1);
    EXPECT_TRUE(at1.low.ids.empty());
    EXPECT_EQ(logits_at_position(fp32, low, 2, V, 0, k).max_abs, 0.5);
    EXPECT_THROW(logits_at_position(fp32, low, 2, V, 2, k), std::out_of_range);
}

// The marks against the step names: the products are the q/k/v and output projections, the
// scores, the context, the FFN's linear layers and the generator.
TEST(PrecisionView, LowPrecisionMarksFollowTheSteps) {
    const Checkpoint checkpoint = test::golden_checkpoint();
    auto backend = make_cpu_backend();
    Transformer model(checkpoint.config, *backend);
    auto ends = [](const std::string& s, const std::string& tail) {
        return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
    };
    const auto autocast = low_precision_steps(model.steps(), checkpoint.config, {Precision::Bf16, false});
    const auto all_low = low_precision_steps(model.steps(), checkpoint.config, {Precision::Fp16, true});
    const auto int8 = low_precision_steps(model.steps(), checkpoint.config, {Precision::Int8, false});
    const auto fp32 = low_precision_steps(model.steps(), checkpoint.config, {Precision::Fp32, false});
    int products = 0;
    for (size_t i = 0; i < model.step_count(); ++i) {
        const std::string& n = model.steps()[i].name;
        const bool attention = n.find("attn.") != std::string::npos;
        const bool linear = (attention && (ends(n, ".q") || ends(n, ".k") || ends(n, ".v") || ends(n, "attn.out"))) ||
                            ends(n, "ffn.hidden") || ends(n, "ffn.out") || n == "generator.logits";
        const bool product = linear || ends(n, ".scores") || ends(n, ".context");
        products += product;
        EXPECT_EQ(autocast[i], product ? LowStep::Product : LowStep::Fp32) << n;
        EXPECT_EQ(all_low[i], product ? LowStep::Product : LowStep::Rounded) << n;
        EXPECT_EQ(int8[i], linear ? LowStep::Int8Weights : LowStep::Fp32) << n;
        EXPECT_EQ(fp32[i], LowStep::Fp32) << n;
    }
    // 2+2 layers: encoder 6 products per layer (q k v scores context out) + 2 FFN, decoder twice the attention.
    EXPECT_EQ(products, checkpoint.config.encoder_layers * 8 + checkpoint.config.decoder_layers * 14 + 1);
    // SwiGLU: gate and up are linear layers, SiLU(gate) ⊙ up is not.
    ModelConfig swiglu = checkpoint.config;
    swiglu.ffn = FfnKind::SwiGlu;
    Transformer glu(swiglu, *backend);
    const auto glu_marks = low_precision_steps(glu.steps(), swiglu, {Precision::Int8, false});
    for (size_t i = 0; i < glu.step_count(); ++i) {
        const std::string& n = glu.steps()[i].name;
        if (ends(n, "ffn.gate") || ends(n, "ffn.up")) {
            EXPECT_EQ(glu_marks[i], LowStep::Int8Weights) << n;
        } else if (ends(n, "ffn.hidden")) {
            EXPECT_EQ(glu_marks[i], LowStep::Fp32) << n;
        }
    }
}

TEST(PrecisionView, Fp32IsExactAndBf16IsNot) {
    PrecisionRequest request;
    request.source = "the cat sat on a mat";
    const PrecisionView same = compute_precision_view(test::golden_checkpoint(), request);
    ASSERT_TRUE(same.error.empty()) << same.error;
    ASSERT_FALSE(same.steps.empty());
    for (const PrecisionStepRow& s : same.steps) EXPECT_EQ(s.difference.max_abs, 0.0) << s.difference.name;
    EXPECT_EQ(same.first_change, -1);
    EXPECT_EQ(same.fp32_output, same.low_output);
    EXPECT_EQ(same.first_nonfinite, -1);
    EXPECT_TRUE(same.absolute.empty());
    EXPECT_EQ(same.fp32_logits, same.low_logits);
    EXPECT_EQ(same.target_tokens.size(), same.fp32_output.size() + 1);
    EXPECT_EQ(same.fp32_logits.size(), same.target_tokens.size() * static_cast<size_t>(same.vocab));

    request.mode = {Precision::Bf16, false};
    const PrecisionView bf16 = compute_precision_view(test::golden_checkpoint(), request);
    ASSERT_TRUE(bf16.error.empty()) << bf16.error;
    double largest = 0.0;
    for (const PrecisionStepRow& s : bf16.steps) largest = std::max(largest, s.difference.max_abs);
    EXPECT_GT(largest, 1e-3);
    EXPECT_EQ(bf16.first_nonfinite, -1);
    EXPECT_FALSE(softmax_hides_nonfinite_scores(bf16));
    EXPECT_EQ(bf16.absolute.size(), linear_weight_names(test::golden_checkpoint().config).size());
    EXPECT_NE(bf16.fp32_logits, bf16.low_logits);
}

// The panel names the path the BF16 products took (docs/precision.md, "BF16 by vdpbf16ps"): the
// one in force when the view was computed, and nothing for the other formats.
TEST(PrecisionView, Bf16NamesThePathOfItsProducts) {
    PrecisionRequest request;
    request.source = "the cat sat on a mat";
    EXPECT_EQ(compute_precision_view(test::golden_checkpoint(), request).bf16_products, "");
    request.mode = {Precision::Bf16, false};
    const cpu::Bf16Path before = cpu::bf16_path();
    for (cpu::Bf16Path path : cpu::supported_bf16_paths()) {
        ASSERT_TRUE(cpu::set_bf16_path(path));
        EXPECT_EQ(compute_precision_view(test::golden_checkpoint(), request).bf16_products, cpu::bf16_path_name(path));
    }
    cpu::set_bf16_path(before);
    request.mode = {Precision::Fp16, false};
    EXPECT_EQ(compute_precision_view(test::golden_checkpoint(), request).bf16_products, "");
}

TEST(PrecisionView, Fp16OverflowIsReportedNotThrown) {
    PrecisionRequest request;
    request.source = "the cat sat on a mat";
    request.mode = {Precision::Fp16, true};
    request.embedding_scale = 1e4f;
    const PrecisionView v = compute_precision_view(test::golden_checkpoint(), request);
    ASSERT_TRUE(v.error.empty()) << v.error;
    ASSERT_GE(v.first_nonfinite, 0);
    const PrecisionStepRow& first = v.steps[static_cast<size_t>(v.first_nonfinite)];
    EXPECT_GT(first.difference.nonfinite, 0);
    for (int i = 0; i < v.first_nonfinite; ++i) EXPECT_EQ(v.steps[static_cast<size_t>(i)].difference.nonfinite, 0);
    EXPECT_NE(v.nonfinite_reason.find("65504"), std::string::npos) << v.nonfinite_reason;
    // Later layers' scores are all NaN, and the CPU softmax turns such rows into zeros: the panel's note.
    EXPECT_TRUE(softmax_hides_nonfinite_scores(v));
    // The same scale in FP32 stays finite: the comparison's FP32 side has nothing to report.
    request.mode = {Precision::Fp32, false};
    EXPECT_EQ(compute_precision_view(test::golden_checkpoint(), request).first_nonfinite, -1);
    request.source = "";
    EXPECT_FALSE(compute_precision_view(test::golden_checkpoint(), request).error.empty());
    request.source = "the cat";
    request.mode = {Precision::Int8, true};
    EXPECT_NE(compute_precision_view(test::golden_checkpoint(), request).error.find("needs bf16 or fp16"), std::string::npos);
}

}  // namespace
}  // namespace tx::explain
