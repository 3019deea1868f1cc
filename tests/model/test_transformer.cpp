// Model-level properties of the Transformer's step list, without a reference implementation:
// attention rows are distributions over the keys they may see, masked keys get exactly 0, a
// padded row computes what it computes alone, batches are validated, both norm placements run,
// head ablation silences exactly one head. Shapes: B batch, H heads, T query rows, S key columns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/small_models.h"
#include "tx/backend.h"
#include "tx/parameters.h"
#include "tx/transformer.h"

namespace {

tx::ModelConfig small_config(tx::NormPlacement norm = tx::NormPlacement::Post) {
    tx::ModelConfig c;
    c.src_vocab = 20;
    c.tgt_vocab = 20;
    c.d_model = 16;
    c.heads = 4;
    c.d_ff = 32;
    c.encoder_layers = 2;
    c.decoder_layers = 2;
    c.max_len = 12;
    c.norm = norm;
    c.seed = 7;
    return c;
}

// Xavier weights, plus non-zero biases and LayerNorm parameters so that no term is trivially zero.
std::vector<float> test_parameters(const tx::ModelConfig& c) { return tx::test::random_parameters(c, 12345u, 0.2f); }

struct Model {
    explicit Model(const tx::ModelConfig& c) : backend(tx::make_cpu_backend()), model(c, *backend) {
        model.set_parameters(test_parameters(c));
    }
    std::unique_ptr<tx::Backend> backend;
    tx::Transformer model;
};

// Three rows of different lengths: both sides are padded, in different rows.
const std::vector<std::vector<int>> SRC = {{5, 6, 7, 2}, {8, 9, 10, 11, 12, 13, 2}, {14, 2}};
const std::vector<std::vector<int>> TGT = {{1, 5, 6, 7, 8}, {1, 9}, {1, 10, 11}};

std::vector<float> output(const tx::Transformer& m, const std::string& name) {
    const size_t i = m.find_step(name);
    EXPECT_LT(i, m.step_count()) << "no step " << name;
    return i < m.step_count() ? m.step_output(i) : std::vector<float>{};
}

// Whether key j of batch row b may be seen by query i in the block (from the model's own masks).
bool may_attend(const tx::Transformer& m, tx::AttentionKind kind, int b, int i, int j) {
    const int S = m.src_len(), T = m.tgt_len();
    if (kind == tx::AttentionKind::DecoderSelf) return m.tgt_mask()[(static_cast<size_t>(b) * T + i) * T + j] != 0.0f;
    return m.src_mask()[static_cast<size_t>(b) * S + j] != 0.0f;
}

// Calls f(b, h, i, j, value) for every entry of a block's probabilities [B, H, rows, keys].
template <typename F>
void for_each_prob(const tx::Transformer& m, const tx::AttentionBlock& block, F f) {
    const std::vector<float> p = m.step_output(block.probs);
    const auto& dims = m.steps()[block.probs].shape.dims;
    const int B = static_cast<int>(dims[0]), H = static_cast<int>(dims[1]), R = static_cast<int>(dims[2]),
              C = static_cast<int>(dims[3]);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < R; ++i)
                for (int j = 0; j < C; ++j) f(b, h, i, j, p[((static_cast<size_t>(b) * H + h) * R + i) * C + j]);
}

class BothNorms : public ::testing::TestWithParam<tx::NormPlacement> {};

TEST_P(BothNorms, AttentionRowsSumToOneOverTheKeysTheyMaySee) {
    Model m(small_config(GetParam()));
    m.model.set_batch(SRC, TGT);
    m.model.forward();
    ASSERT_EQ(m.model.attention_blocks().size(), 2u + 2u * 2u);
    for (const auto& block : m.model.attention_blocks()) {
        SCOPED_TRACE(block.prefix);
        const auto& dims = m.model.steps()[block.probs].shape.dims;
        std::vector<double> sums(static_cast<size_t>(dims[0] * dims[1] * dims[2]), 0.0);
        for_each_prob(m.model, block, [&](int b, int h, int i, int j, float p) {
            ASSERT_TRUE(std::isfinite(p));
            ASSERT_GE(p, 0.0f);
            if (may_attend(m.model, block.kind, b, i, j)) {
                sums[(b * dims[1] + h) * dims[2] + i] += p;
            } else {
                EXPECT_EQ(p, 0.0f) << "masked key b=" << b << " h=" << h << " i=" << i << " j=" << j;
            }
        });
        // Every query row here sees at least one key (its own BOS or a real source token).
        for (double s : sums) EXPECT_NEAR(s, 1.0, 1e-5);
    }
}

TEST_P(BothNorms, RunsAndHasTheStepsOfItsNormPlacement) {
    const tx::ModelConfig c = small_config(GetParam());
    Model m(c);
    m.model.set_batch(SRC, TGT);
    m.model.forward();
    for (size_t i = 0; i < m.model.step_count(); ++i)
        for (float v : m.model.step_output(i)) {
            // masked_scores hold -inf by design; everything else is finite
            if (m.model.steps()[i].kind == tx::StepKind::Mask && v == -INFINITY) continue;
            ASSERT_TRUE(std::isfinite(v)) << m.model.steps()[i].name;
        }
    const bool pre = GetParam() == tx::NormPlacement::Pre;
    EXPECT_EQ(m.model.find_step("encoder.norm.out") < m.model.step_count(), pre);
    EXPECT_EQ(m.model.find_step("decoder.norm.out") < m.model.step_count(), pre);
    EXPECT_EQ(m.model.find_step("encoder.layers.0.residual1.out") < m.model.step_count(), pre);
    EXPECT_EQ(m.model.find_step("decoder.layers.1.residual3.out") < m.model.step_count(), pre);
    EXPECT_EQ(m.model.steps().back().name, "generator.log_probs");
    EXPECT_EQ(m.model.steps()[m.model.first_decoder_step()].name, "tgt_embed.out");
    // log-probabilities: each row's probabilities sum to 1
    const std::vector<float> lp = output(m.model, "generator.log_probs");
    const int V = c.tgt_vocab;
    for (size_t r = 0; r < lp.size() / V; ++r) {
        double s = 0.0;
        for (int v = 0; v < V; ++v) s += std::exp(static_cast<double>(lp[r * V + v]));
        EXPECT_NEAR(s, 1.0, 1e-5);
    }
}

// A padded row computes at its real positions what the same sentence computes alone.
TEST_P(BothNorms, PaddedRowEqualsTheSentenceAlone) {
    const tx::ModelConfig c = small_config(GetParam());
    Model batched(c);
    batched.model.set_batch(SRC, TGT);
    batched.model.forward();
    for (size_t b = 0; b < SRC.size(); ++b) {
        Model alone(c);
        alone.model.set_batch({SRC[b]}, {TGT[b]});
        alone.model.forward();
        for (size_t i = 0; i < batched.model.step_count(); ++i) {
            const tx::TensorShape& big = batched.model.steps()[i].shape;
            const tx::TensorShape& one = alone.model.steps()[i].shape;
            SCOPED_TRACE(batched.model.steps()[i].name + " row " + std::to_string(b));
            const std::vector<float> x = batched.model.step_output(i), y = alone.model.step_output(i);
            // Walk the single row's tensor; its index maps into row b of the batched one, whose
            // S and T axes are longer (padding).
            const int rank = one.rank();
            std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
            size_t bad = 0;
            for (size_t flat = 0; flat < y.size(); ++flat) {
                int64_t rem = static_cast<int64_t>(flat);
                for (int d = rank - 1; d >= 0; --d) {
                    idx[d] = rem % one.dims[d];
                    rem /= one.dims[d];
                }
                int64_t off = 0;
                for (int d = 0; d < rank; ++d) off = off * big.dims[d] + (d == 0 ? static_cast<int64_t>(b) : idx[d]);
                const float got = x[static_cast<size_t>(off)], want = y[flat];
                const bool same = std::isfinite(want) ? std::fabs(got - want) <= 1e-5f + 1e-4f * std::fabs(want)
                                                      : got == want;
                if (!same && bad++ < 3)
                    ADD_FAILURE() << "flat index " << flat << ": batched " << got << ", alone " << want;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Norms, BothNorms, ::testing::Values(tx::NormPlacement::Post, tx::NormPlacement::Pre),
                         [](const ::testing::TestParamInfo<tx::NormPlacement>& info) {
                             return std::string(tx::to_string(info.param));
                         });

TEST(Transformer, DecoderSelfAttentionIsExactlyZeroAboveTheDiagonal) {
    Model m(small_config());
    m.model.set_batch(SRC, TGT);
    m.model.forward();
    int blocks = 0;
    for (const auto& block : m.model.attention_blocks()) {
        if (block.kind != tx::AttentionKind::DecoderSelf) continue;
        ++blocks;
        for_each_prob(m.model, block, [&](int b, int h, int i, int j, float p) {
            if (j > i) {
                EXPECT_EQ(p, 0.0f) << block.prefix << " b=" << b << " h=" << h << " i=" << i << " j=" << j;
            } else if (j < static_cast<int>(TGT[b].size())) {
                EXPECT_GT(p, 0.0f);
            }
        });
    }
    EXPECT_EQ(blocks, 2);
}

TEST(Transformer, PadKeysGetExactlyZeroAndMaskedScoresAreMinusInfinity) {
    Model m(small_config());
    m.model.set_batch(SRC, TGT);
    m.model.forward();
    const int S = m.model.src_len(), T = m.model.tgt_len();
    for (const auto& block : m.model.attention_blocks()) {
        SCOPED_TRACE(block.prefix);
        const bool on_target = block.kind == tx::AttentionKind::DecoderSelf;
        const auto& keys = on_target ? TGT : SRC;
        for_each_prob(m.model, block, [&](int b, int, int, int j, float p) {
            if (j >= static_cast<int>(keys[b].size())) {
                EXPECT_EQ(p, 0.0f);
            }
        });
        const std::vector<float> scores = m.model.step_output(block.scores);
        const std::vector<float> masked = m.model.step_output(block.masked_scores);
        const auto& dims = m.model.steps()[block.scores].shape.dims;
        const int H = static_cast<int>(dims[1]), R = static_cast<int>(dims[2]), C = static_cast<int>(dims[3]);
        EXPECT_EQ(C, on_target ? T : S);
        for (int b = 0; b < static_cast<int>(dims[0]); ++b)
            for (int h = 0; h < H; ++h)
                for (int i = 0; i < R; ++i)
                    for (int j = 0; j < C; ++j) {
                        const size_t k = ((static_cast<size_t>(b) * H + h) * R + i) * C + j;
                        if (may_attend(m.model, block.kind, b, i, j)) {
                            EXPECT_EQ(masked[k], scores[k]);
                        } else {
                            EXPECT_EQ(masked[k], -INFINITY);
                        }
                    }
    }
}

// A query row whose every key is masked (a target that starts with PAD) attends to nothing:
// zero probabilities and zero context, never NaN (docs/design.md §3).
TEST(Transformer, FullyMaskedRowGivesZerosNotNaN) {
    Model m(small_config());
    m.model.set_batch({{5, 6, 2}}, {{0, 5, 6}});
    m.model.forward();
    for (size_t i = 0; i < m.model.step_count(); ++i)
        for (float v : m.model.step_output(i))
            ASSERT_FALSE(std::isnan(v)) << m.model.steps()[i].name;
    const auto& block = m.model.attention_blocks()[m.model.config().encoder_layers];   // decoder.layers.0.self_attn
    ASSERT_EQ(block.kind, tx::AttentionKind::DecoderSelf);
    const std::vector<float> ctx = m.model.step_output(block.context);   // [1, H, T, dk]
    const int H = m.model.config().heads, T = 3, dk = m.model.config().d_k();
    for_each_prob(m.model, block, [&](int, int, int i, int, float p) {
        if (i == 0) {
            EXPECT_EQ(p, 0.0f);
        }
    });
    for (int h = 0; h < H; ++h)
        for (int c = 0; c < dk; ++c) EXPECT_EQ(ctx[(static_cast<size_t>(h) * T) * dk + c], 0.0f);
}

TEST(Transformer, CausalMaskOffLetsQueriesSeeLaterTokens) {
    Model m(small_config());
    m.model.set_batch({SRC[0]}, {TGT[0]});
    m.model.options().causal_mask = false;
    m.model.update_masks();
    m.model.forward();
    const auto& block = m.model.attention_blocks()[m.model.config().encoder_layers];
    ASSERT_EQ(block.kind, tx::AttentionKind::DecoderSelf);
    for_each_prob(m.model, block, [&](int, int, int, int, float p) { EXPECT_GT(p, 0.0f); });
}

TEST(Transformer, SetBatchRefusesBadBatches) {
    Model m(small_config());
    const int max_len = m.model.config().max_len, V = m.model.config().src_vocab;
    using Rows = std::vector<std::vector<int>>;
    EXPECT_THROW(m.model.set_batch(Rows{}, Rows{}), std::invalid_argument);                       // empty batch
    EXPECT_THROW(m.model.set_batch(Rows{{}}, Rows{{1}}), std::invalid_argument);                  // empty source row
    EXPECT_THROW(m.model.set_batch(Rows{{5, 2}}, Rows{{}}), std::invalid_argument);               // empty target row
    EXPECT_THROW(m.model.set_batch(Rows{{5, V}}, Rows{{1}}), std::invalid_argument);              // id == vocab
    EXPECT_THROW(m.model.set_batch(Rows{{5, -1}}, Rows{{1}}), std::invalid_argument);             // negative id
    EXPECT_THROW(m.model.set_batch(Rows{{5, 2}}, Rows{{1, V + 3}}), std::invalid_argument);       // bad target id
    EXPECT_THROW(m.model.set_batch(Rows{std::vector<int>(max_len + 1, 5)}, Rows{{1}}), std::invalid_argument);
    EXPECT_THROW(m.model.set_batch(Rows{{5}}, Rows{std::vector<int>(max_len + 1, 5)}), std::invalid_argument);
    EXPECT_THROW(m.model.set_batch(Rows{{5}, {6}}, Rows{{1}}), std::invalid_argument);            // row counts differ
    try {
        m.model.set_batch(Rows{{5, V}}, Rows{{1}});
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(std::to_string(V)), std::string::npos) << e.what();
    }
    // Exactly max_len tokens is fine.
    EXPECT_NO_THROW(m.model.set_batch(Rows{std::vector<int>(max_len, 5)}, Rows{std::vector<int>(max_len, 5)}));
    EXPECT_NO_THROW(m.model.forward());
}

TEST(Transformer, HeadAblationZeroesThatHeadsContextOnly) {
    const tx::ModelConfig c = small_config();
    Model plain(c), ablated(c);
    plain.model.set_batch(SRC, TGT);
    ablated.model.set_batch(SRC, TGT);
    const std::string prefix = "decoder.layers.0.cross_attn";
    const int head = 1;
    ablated.model.options().disabled_heads[prefix] = {head};
    plain.model.forward();
    ablated.model.forward();
    const std::vector<float> ctx = output(ablated.model, prefix + ".context");   // [B, H, T, dk]
    const std::vector<float> ref = output(plain.model, prefix + ".context");
    const int B = ablated.model.batch_size(), H = c.heads, T = ablated.model.tgt_len(), dk = c.d_k();
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int k = 0; k < T * dk; ++k) {
                const size_t i = (static_cast<size_t>(b) * H + h) * T * dk + k;
                if (h == head) {
                    EXPECT_EQ(ctx[i], 0.0f);
                } else {
                    EXPECT_EQ(ctx[i], ref[i]);   // the other heads are untouched
                }
            }
    // The attention weights shown stay what the head computed; the block's output changes.
    EXPECT_EQ(output(ablated.model, prefix + ".probs"), output(plain.model, prefix + ".probs"));
    EXPECT_NE(output(ablated.model, prefix + ".out"), output(plain.model, prefix + ".out"));
    // Earlier blocks are unaffected.
    EXPECT_EQ(output(ablated.model, "decoder.layers.0.self_attn.out"), output(plain.model, "decoder.layers.0.self_attn.out"));
}

// Buffers only grow and are reused: a smaller batch after a larger one gives what a fresh model gives.
TEST(Transformer, ReusingBuffersAcrossBatchShapesChangesNothing) {
    const tx::ModelConfig c = small_config();
    Model reused(c), fresh(c);
    reused.model.set_batch(SRC, TGT);
    reused.model.forward();
    reused.model.set_batch({SRC[2]}, {TGT[2]});
    reused.model.forward();
    fresh.model.set_batch({SRC[2]}, {TGT[2]});
    fresh.model.forward();
    for (size_t i = 0; i < fresh.model.step_count(); ++i) {
        const std::vector<float> a = reused.model.step_output(i), b = fresh.model.step_output(i);
        ASSERT_EQ(a.size(), b.size());
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << fresh.model.steps()[i].name;
    }
}

// Attention by itself ignores order (it is permutation-equivariant); the positional encoding is
// what makes the encoder order-aware (paper §3.5). With PE, permuting the source changes the
// encoder's output beyond a permutation of its rows.
TEST(Transformer, PositionalEncodingMakesTheEncoderOrderAware) {
    const tx::ModelConfig c = small_config();
    Model m(c);
    const std::vector<int> src = {5, 6, 7, 8, 2}, perm = {3, 0, 2, 1, 4};   // EOS stays last
    std::vector<int> permuted(src.size());
    for (size_t i = 0; i < perm.size(); ++i) permuted[i] = src[perm[i]];
    m.model.set_batch({src}, {{1}});
    m.model.encode();
    const std::string last = "encoder.layers.1.norm2.out";
    const std::vector<float> a = output(m.model, last);
    m.model.set_batch({permuted}, {{1}});
    m.model.encode();
    const std::vector<float> b = output(m.model, last);
    const int D = c.d_model;
    double largest = 0.0;
    for (size_t i = 0; i < perm.size(); ++i)
        for (int d = 0; d < D; ++d)
            largest = std::max(largest, std::fabs(double(b[i * D + d]) - a[perm[i] * D + d]));
    EXPECT_GT(largest, 1e-3) << "the encoder output only permuted: positions had no effect";
    // The embedding step itself is exactly equivariant: it looks up rows, position-free.
    m.model.set_batch({src}, {{1}});
    m.model.encode();
    const std::vector<float> ea = output(m.model, "src_embed.out");
    m.model.set_batch({permuted}, {{1}});
    m.model.encode();
    const std::vector<float> eb = output(m.model, "src_embed.out");
    for (size_t i = 0; i < perm.size(); ++i)
        for (int d = 0; d < D; ++d) EXPECT_EQ(eb[i * D + d], ea[perm[i] * D + d]);
}

}  // namespace

// Evaluation passes keep the linear weights packed (weight_cache.h): a write through parameters()
// or set_parameters() must reach the next pass all the same.
TEST(Transformer, EvaluationPassesSeeEveryParameterWrite) {
    const tx::ModelConfig c = small_config();
    Model m(c);
    m.model.set_batch(SRC, TGT);
    m.model.forward();
    const size_t last = m.model.step_count() - 1;
    const std::vector<float> first = m.model.step_output(last);
    const std::vector<float> original = m.model.download_parameters();

    float* params = m.model.parameters();   // one weight of every matrix, in place
    for (const auto& e : m.model.table().entries())
        if (e.is_matrix()) params[e.offset] += 0.25f;
    m.model.forward();
    const std::vector<float> changed = m.model.step_output(last);
    EXPECT_NE(changed, first);
    Model fresh(c);
    fresh.model.set_parameters(m.model.download_parameters());
    fresh.model.set_batch(SRC, TGT);
    fresh.model.forward();
    EXPECT_EQ(changed, fresh.model.step_output(last));

    m.model.set_parameters(original);
    m.model.forward();
    EXPECT_EQ(m.model.step_output(last), first);
}
