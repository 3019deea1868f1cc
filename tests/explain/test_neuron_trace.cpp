// The neuron view's numbers (explain/neuron_trace.h) for the shipped translation model, against a
// recomputation here in double from the traced q, k, v steps: the dot product, the scaled score,
// the softmax row and the weighted sum of values; and a PAD key masked to exactly 0.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tx/checkpoint.h"
#include "tx/ops.h"
#include "neuron_trace.h"
#include "tx/session.h"
#include "session_view.h"
#include "support/trace_recompute.h"

namespace tx::explain {
namespace {

SessionView run_view(Session& session) {
    session.run_to_end();
    SessionView view;
    refresh_view(view, session, "test", true);
    return view;
}

int first_block(const SessionView& view, AttentionKind kind) {
    for (size_t i = 0; i < view.attention.size(); ++i)
        if (view.attention[i].kind == kind) return static_cast<int>(i);
    return -1;
}

// The [B,H,rows,width] step output's row r of head h, batch row b.
std::vector<double> row(const SessionView& view, size_t step, int b, int h, int rows, int r, int width) {
    const std::vector<float>& out = *view.output(step);
    const size_t at = ((static_cast<size_t>(b) * view.config.heads + h) * rows + r) * width;
    return std::vector<double>(out.begin() + static_cast<std::ptrdiff_t>(at),
                               out.begin() + static_cast<std::ptrdiff_t>(at + width));
}

TEST(NeuronTrace, CrossAttentionCellMatchesARecomputation) {
    Session session(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/grammar.safetensors"));
    session.set_fused_attention(false);   // every step materialised
    session.set_input({"The small white dogs will not sleep in the old house."});
    const SessionView view = run_view(session);
    const int block = first_block(view, AttentionKind::Cross);
    ASSERT_GE(block, 0);
    const AttentionBlock& a = view.attention[block];
    const int h = 1, i = 2, j = 3, dk = view.d_k();
    const int R = view.T, C = view.S;
    const NeuronTrace t = trace_neuron(view, {block, 0, h, i, j});
    ASSERT_TRUE(t.error.empty()) << t.error;
    ASSERT_TRUE(t.complete && t.have_qk && t.have_probs && t.have_context);

    const std::vector<double> q = row(view, a.scores_q, 0, h, R, i, dk);
    double dot = 0.0;
    for (int d = 0; d < dk; ++d) dot += q[d] * row(view, a.scores_k, 0, h, C, j, dk)[d];
    EXPECT_NEAR(t.dot, dot, 1e-9 * (1.0 + std::abs(dot)));
    EXPECT_NEAR(t.score, dot / std::sqrt(static_cast<double>(dk)), 1e-9 * (1.0 + std::abs(dot)));
    EXPECT_NEAR(t.traced_score, t.score, 1e-5 * (1.0 + t.dot_abs));

    // Softmax over the row of masked scores, in double.
    const std::vector<double> masked = row(view, a.masked_scores, 0, h, R, i, C);
    double m = -INFINITY, sum = 0.0;
    for (double s : masked) m = std::max(m, s);
    for (double s : masked) sum += std::exp(s - m);
    const std::vector<double> probs = row(view, a.probs, 0, h, R, i, C);
    double total = 0.0;
    for (int k = 0; k < C; ++k) {
        EXPECT_NEAR(t.probs_recomputed[k], std::exp(masked[k] - m) / sum, 1e-6);
        EXPECT_NEAR(probs[k], std::exp(masked[k] - m) / sum, 1e-6);
        total += t.probs_recomputed[k];
    }
    EXPECT_NEAR(total, 1.0, 1e-6);
    EXPECT_NEAR(t.exp_j / t.exp_sum, std::exp(masked[j] - m) / sum, 1e-12);

    // context_i = Σ_j p_ij v_j.
    for (int d = 0; d < dk; ++d) {
        double c = 0.0;
        for (int k = 0; k < C; ++k) c += probs[k] * row(view, a.v, 0, h, C, k, dk)[d];
        EXPECT_NEAR(t.context_sum[d], c, 1e-5);
        EXPECT_NEAR(t.traced_context[d], c, 1e-5);
    }
}

TEST(NeuronTrace, APadKeyIsMaskedToExactlyZero) {
    Session session(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/grammar.safetensors"));
    session.set_fused_attention(false);
    session.set_input({"The cat sat.", "The small white dogs will not sleep in the old house."});
    const SessionView view = run_view(session);
    const int block = first_block(view, AttentionKind::EncoderSelf);
    ASSERT_GE(block, 0);
    const int last_key = view.S - 1;   // row 0 is the short sentence: its last key is PAD
    const NeuronTrace t = trace_neuron(view, {block, 0, 0, 0, last_key});
    ASSERT_TRUE(t.error.empty()) << t.error;
    EXPECT_TRUE(t.key_is_pad);
    EXPECT_TRUE(t.masked);
    EXPECT_EQ(t.traced_prob, 0.0f);
    EXPECT_NE(t.mask_text.find("padding mask"), std::string::npos) << t.mask_text;
}

// A future key of decoder self-attention: masked by the causal mask, for both of its reasons.
TEST(NeuronTrace, AFutureKeyIsMaskedForTrainingAndGeneration) {
    Session session(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/grammar.safetensors"));
    session.set_fused_attention(false);
    session.set_input({"The red car is big."});
    const SessionView view = run_view(session);
    const int block = first_block(view, AttentionKind::DecoderSelf);
    ASSERT_GE(block, 0);
    const NeuronTrace t = trace_neuron(view, {block, 0, 0, 1, 3});
    ASSERT_TRUE(t.error.empty()) << t.error;
    EXPECT_TRUE(t.masked && t.key_is_future);
    EXPECT_NE(t.mask_text.find("in training"), std::string::npos) << t.mask_text;
    EXPECT_NE(t.mask_text.find("at generation time"), std::string::npos) << t.mask_text;
    EXPECT_FALSE(t.rotated);   // sinusoidal positions: q and k are not rotated
}

// Every number of a trace (q, k and their products, the scores and mask rows, the softmax, Σ p·v)
// against tests/support/trace_recompute.h, for the cells the Neuron view is most often opened on.
struct Cell {
    const char* what;
    const char* model;                  // under assets/models
    std::vector<std::string> input;
    AttentionKind kind;
    int row, head, query, key;          // negative query / key: counted from the end of the row
    bool scaled = true;                 // false: the same weights with 1/√dk switched off
};

class EveryNumber : public ::testing::TestWithParam<Cell> {};

TEST_P(EveryNumber, MatchesARecompute) {
    const Cell& cell = GetParam();
    Checkpoint checkpoint = load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/" + cell.model);
    checkpoint.config.scale_attention = cell.scaled;
    Session session(std::move(checkpoint));
    session.set_fused_attention(false);
    session.set_input(cell.input);
    const SessionView view = run_view(session);
    int block = -1;   // the deepest block of the kind
    for (size_t i = 0; i < view.attention.size(); ++i)
        if (view.attention[i].kind == cell.kind) block = static_cast<int>(i);
    ASSERT_GE(block, 0);
    const int rows = cell.kind == AttentionKind::EncoderSelf ? view.S : view.T;
    const int cols = cell.kind == AttentionKind::DecoderSelf ? view.T : view.S;
    const NeuronTrace t = trace_neuron(view, {block, cell.row, cell.head, cell.query < 0 ? rows + cell.query : cell.query,
                                              cell.key < 0 ? cols + cell.key : cell.key});
    for (const std::string& m : test::neuron_mismatches(view, t)) ADD_FAILURE() << cell.what << ": " << m;
    EXPECT_EQ(t.scaled, cell.scaled);
    if (!cell.scaled) {
        EXPECT_EQ(t.score, t.dot) << "unscaled: the score is q·k itself";
    }
}

const Cell CELLS[] = {
    {"cross-attention", "grammar.safetensors", {"The small white dogs will not sleep in the old house."},
     AttentionKind::Cross, 0, 1, 3, 2},
    {"masked decoder self-attention", "grammar.safetensors", {"The small white dogs will not sleep in the old house."},
     AttentionKind::DecoderSelf, 0, 0, 1, 3},
    {"a PAD key of a padded batch", "grammar.safetensors",
     {"The small white dogs will not sleep in the old house.", "I see the dog."}, AttentionKind::Cross, 1, 2, -1, -1},
    {"encoder self-attention", "grammar.safetensors", {"The red car is big."}, AttentionKind::EncoderSelf, 0, 3, 2, 4},
    {"unscaled cross-attention", "grammar.safetensors", {"The red car is big."}, AttentionKind::Cross, 0, 0, 0, 0, false},
    {"decoder-only, the second prompt", "lm.safetensors", {"The cat is sleeping on the", "A dog"},
     AttentionKind::DecoderSelf, 1, 0, 2, 1},
};
INSTANTIATE_TEST_SUITE_P(Cells, EveryNumber, ::testing::ValuesIn(CELLS));

// T5's relative bias (no shipped model has it): the translation model rebuilt with it, fresh
// weights; a cell of each self-attention adds the table's value at the cell's bucket, and every
// number still matches the recompute.
TEST(NeuronTrace, TheRelativeBiasIsTheTablesValueAtTheBucket) {
    Session grammar(load_checkpoint(std::string(TX_SOURCE_DIR) + "/assets/models/grammar.safetensors"));
    grammar.set_input({"The small white dogs will not sleep in the old house."});
    const SessionView gv = run_view(grammar);
    ModelConfig config = grammar.config();
    config.positional = PositionalKind::Relative;
    Session session(Session::fresh(config, gv.vocabulary, grammar.tokenizer().model()));
    session.set_fused_attention(false);
    session.set_input({"The small white dogs will not sleep in the old house."});
    const SessionView view = run_view(session);
    ASSERT_GT(view.T, 3) << "the decoder cell needs 4 positions";
    for (AttentionKind kind : {AttentionKind::EncoderSelf, AttentionKind::DecoderSelf}) {
        const int block = first_block(view, kind);
        ASSERT_GE(block, 0);
        const bool encoder = kind == AttentionKind::EncoderSelf;
        const int query = encoder ? 11 : 3, key = 1;   // 10 back in the encoder: a log bucket
        const NeuronTrace t = trace_neuron(view, {block, 0, 2, query, key});
        ASSERT_TRUE(t.error.empty()) << t.error;
        for (const std::string& m : test::neuron_mismatches(view, t)) ADD_FAILURE() << m;
        EXPECT_TRUE(t.relative);
        EXPECT_EQ(t.relative_bucket, cpu::relative_bucket(query, key, encoder));
        const std::vector<float>& table = encoder ? view.relative_encoder_bias : view.relative_decoder_bias;
        EXPECT_EQ(t.position_bias, table.at(static_cast<size_t>(t.relative_bucket) * view.config.heads + 2));
        EXPECT_NEAR(t.score, t.traced_score, 1e-5);
    }
    EXPECT_EQ(cpu::relative_bucket(11, 1, true), 8);   // 10 back: 8 + ⌊log(10/8)/log(16)·8⌋
}

}  // namespace
}  // namespace tx::explain
