// The dilated window and global positions (tx/attention_window.h, Longformer): the rule against
// the key sets written out from the definition, the masks the model applies, its attention
// probabilities against a recompute in double with those key sets, the config's checks and JSON,
// and the texts that explain a masked cell. Gradients (test_model_gradient), cached decoding
// (test_incremental_decoding) and the CUDA parity (tests/gpu) run the variant too.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "support/small_models.h"
#include "tx/attention_window.h"
#include "tx/model_on_backend.h"
#include "tx/transformer.h"

namespace tx::attention_window_test {
namespace {

ModelConfig windowed(int window, int dilation, std::vector<int> global, Arch arch = Arch::EncoderDecoder) {
    ModelConfig c = test::small_config(24, 7);
    c.max_len = 24;
    c.window = window;
    c.window_dilation = dilation;
    c.global_positions = std::move(global);
    if (arch == Arch::DecoderOnly) {
        c.arch = arch;
        c.encoder_layers = 0;
    }
    return c;
}

// The keys each query sees, listed from the definition rather than tested by arithmetic: the
// encoder's i ± k·d for k ≤ ⌊W/2⌋, the decoder's i − k·d for k < W (and every later key, which
// the causal mask handles), and a global position's whole row and column.
std::set<int> listed_keys(const ModelConfig& c, bool decoder, int i, int n) {
    std::set<int> keys;
    const bool global_query = std::count(c.global_positions.begin(), c.global_positions.end(), i) > 0;
    for (int j = 0; j < n; ++j)
        if (c.window == 0 || global_query) keys.insert(j);
    for (int g : c.global_positions) keys.insert(g);
    if (decoder) {
        for (int k = 0; k < c.window; ++k) keys.insert(i - k * c.window_dilation);
        for (int j = i + 1; j < n; ++j) keys.insert(j);
    } else {
        for (int k = 0; k <= c.window / 2; ++k) {
            keys.insert(i - k * c.window_dilation);
            keys.insert(i + k * c.window_dilation);
        }
    }
    return keys;
}

const std::vector<ModelConfig> CONFIGS = {
    windowed(3, 1, {}),       windowed(4, 2, {}),     windowed(2, 3, {0}),
    windowed(5, 2, {0, 7}),   windowed(1, 1, {4}),    windowed(6, 4, {1, 2, 3}),
};

TEST(AttentionWindow, KeepsTheKeysTheDefinitionLists) {
    const int n = 20;
    for (const ModelConfig& c : CONFIGS) {
        SCOPED_TRACE(window_summary(c));
        for (bool decoder : {false, true})
            for (int i = 0; i < n; ++i) {
                const std::set<int> keys = listed_keys(c, decoder, i, n);
                for (int j = 0; j < n; ++j)
                    EXPECT_EQ(decoder ? decoder_window_keeps(c, i, j) : encoder_window_keeps(c, i, j), keys.count(j) > 0)
                        << (decoder ? "decoder" : "encoder") << " query " << i << " key " << j;
            }
    }
}

// Two sentences of different lengths, long enough for the window to matter (EOS 2, BOS 1).
const std::vector<std::vector<int>> SRC = {{4, 5, 6, 7, 8, 9, 10, 11, 12, 2}, {13, 14, 15, 2}};
const std::vector<std::vector<int>> TGT = {{1, 16, 17, 18, 19, 20, 21, 22, 23}, {1, 16, 17}};

// The mask the model applies is the listed keys AND causal AND not PAD; its probabilities are the
// softmax of its scores over exactly those keys, recomputed in double.
void check_model(const ModelConfig& c) {
    ModelOnBackend m = make_model(c, test::random_parameters(c, 99u, 0.4f), make_cpu_backend());
    m->set_batch(c.arch == Arch::DecoderOnly ? std::vector<std::vector<int>>(2) : SRC, TGT);
    m->forward();
    const int B = 2, S = c.arch == Arch::DecoderOnly ? 0 : static_cast<int>(SRC[0].size()), T = static_cast<int>(TGT[0].size());
    auto open = [&](const std::vector<std::vector<int>>& rows, int b, int j) { return j < static_cast<int>(rows[b].size()); };
    auto expected_keep = [&](AttentionKind kind, int b, int i, int j) {
        if (kind == AttentionKind::EncoderSelf) return open(SRC, b, j) && listed_keys(c, false, i, S).count(j) > 0;
        if (kind == AttentionKind::Cross) return open(SRC, b, j);
        return j <= i && open(TGT, b, j) && listed_keys(c, true, i, T).count(j) > 0;
    };
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < T; ++i)
            for (int j = 0; j < T; ++j)
                ASSERT_EQ(m->tgt_mask()[(static_cast<size_t>(b) * T + i) * T + j] != 0.0f,
                          expected_keep(AttentionKind::DecoderSelf, b, i, j))
                    << "tgt_mask row " << b << " query " << i << " key " << j;
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < S; ++i)
            for (int j = 0; j < S; ++j)
                ASSERT_EQ(m->src_self_mask()[(static_cast<size_t>(b) * S + i) * S + j] != 0.0f,
                          expected_keep(AttentionKind::EncoderSelf, b, i, j))
                    << "src_self_mask row " << b << " query " << i << " key " << j;
    int blocks = 0;
    for (const AttentionBlock& a : m->attention_blocks()) {
        SCOPED_TRACE(a.prefix);
        ++blocks;
        const std::vector<float> scores = m->step_output(a.scores), probs = m->step_output(a.probs);
        const int R = a.kind == AttentionKind::EncoderSelf ? S : T, C = a.kind == AttentionKind::DecoderSelf ? T : S;
        for (int b = 0; b < B; ++b)
            for (int h = 0; h < c.heads; ++h)
                for (int i = 0; i < R; ++i) {
                    const size_t row = ((static_cast<size_t>(b) * c.heads + h) * R + i) * C;
                    double top = -INFINITY, sum = 0.0;
                    for (int j = 0; j < C; ++j)
                        if (expected_keep(a.kind, b, i, j)) top = std::max(top, static_cast<double>(scores[row + j]));
                    for (int j = 0; j < C; ++j)
                        if (expected_keep(a.kind, b, i, j)) sum += std::exp(scores[row + j] - top);
                    for (int j = 0; j < C; ++j) {
                        const double want = expected_keep(a.kind, b, i, j) ? std::exp(scores[row + j] - top) / sum : 0.0;
                        ASSERT_NEAR(probs[row + j], want, 1e-6) << "row " << b << " head " << h << " query " << i << " key " << j;
                        if (!expected_keep(a.kind, b, i, j)) {
                            ASSERT_EQ(probs[row + j], 0.0f);   // exactly: a masked score is −∞
                        }
                    }
                }
    }
    EXPECT_EQ(blocks, c.arch == Arch::DecoderOnly ? c.decoder_layers : c.encoder_layers + 2 * c.decoder_layers);
}

TEST(AttentionWindow, MasksAndProbabilitiesFollowTheListedKeys) {
    for (const ModelConfig& c : CONFIGS) {
        SCOPED_TRACE(window_summary(c));
        check_model(c);
    }
    SCOPED_TRACE("decoder-only");
    check_model(windowed(3, 2, {0}, Arch::DecoderOnly));
}

// A global position reads the whole sentence in one layer; with the same window, a position
// outside it does not: changing the first word changes the last token's encoder output in layer
// 0 only when the last position is global.
TEST(AttentionWindow, AGlobalPositionSeesPastItsWindowInOneLayer) {
    auto last_changes = [](std::vector<int> global) {
        ModelConfig c = windowed(2, 1, std::move(global));
        ModelOnBackend m = make_model(c, test::random_parameters(c, 5u, 0.4f), make_cpu_backend());
        const std::vector<std::vector<int>> a = {{4, 5, 6, 7, 8, 2}}, b = {{9, 5, 6, 7, 8, 2}};
        const size_t out = m->find_step("encoder.layers.0.self_attn.out");
        const int D = c.d_model, last = 5;
        std::vector<float> outputs[2];
        for (int n = 0; n < 2; ++n) {
            m->set_batch(n == 0 ? a : b, {{1, 10}});
            m->forward();
            outputs[n] = m->step_output(out);
        }
        double change = 0.0;
        for (int d = 0; d < D; ++d) change += std::fabs(outputs[0][last * D + d] - outputs[1][last * D + d]);
        return change;
    };
    EXPECT_EQ(last_changes({}), 0.0);
    EXPECT_GT(last_changes({5}), 1e-4);
}

TEST(AttentionWindow, BadSettingsAreRefusedNamingThem) {
    struct Case {
        const char* what;
        ModelConfig config;
        const char* expected;
    };
    const Case cases[] = {
        {"dilation 0", windowed(3, 0, {}), "window_dilation (0) must be between 1"},
        {"dilation past max_len", windowed(3, 25, {}), "window_dilation (25)"},
        {"dilation without a window", windowed(0, 2, {}), "window_dilation (2) needs a sliding window, and window is 0"},
        {"global without a window", windowed(0, 1, {0}), "global_positions needs a sliding window, and window is 0"},
        {"global past max_len", windowed(3, 1, {24}), "global_positions: 24 must be between 0 and max_len - 1 (23)"},
        {"global negative", windowed(3, 1, {-1}), "global_positions: -1"},
        {"global not ascending", windowed(3, 1, {4, 2}), "must be ascending and distinct (4 then 2)"},
        {"global repeated", windowed(3, 1, {2, 2}), "must be ascending and distinct (2 then 2)"},
    };
    for (const Case& k : cases) {
        const auto error = validate(k.config);
        ASSERT_TRUE(error.has_value()) << k.what;
        EXPECT_NE(error->find(k.expected), std::string::npos) << k.what << ": " << *error;
        EXPECT_THROW(Transformer(k.config, *make_cpu_backend()), ConfigError) << k.what;
    }
}

TEST(AttentionWindow, ConfigJsonRoundTripsAndOmitsTheDefaults) {
    const ModelConfig c = windowed(4, 2, {0, 3});
    const ModelConfig back = config_from_json(to_json(c));
    EXPECT_EQ(back.window_dilation, 2);
    EXPECT_EQ(back.global_positions, (std::vector<int>{0, 3}));
    EXPECT_EQ(to_json(back), to_json(c));
    const std::string plain = to_json(windowed(4, 1, {}));
    EXPECT_EQ(plain.find("window_dilation"), std::string::npos);
    EXPECT_EQ(plain.find("global_positions"), std::string::npos);
    EXPECT_EQ(config_from_json(plain).window_dilation, 1);
    // A hand-edited file: the field's problem, named.
    std::string bad = to_json(c);
    bad.replace(bad.find("[0,3]"), 5, "[0,\"x\"]");
    try {
        config_from_json(bad);
        ADD_FAILURE() << "a position that is not a number was accepted";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("global_positions"), std::string::npos) << e.what();
    }
}

TEST(AttentionWindow, TypedPositionsAreParsedOrRefused) {
    EXPECT_EQ(parse_global_positions("3, 0 3"), (std::vector<int>{0, 3}));
    EXPECT_EQ(parse_global_positions(""), std::vector<int>{});
    EXPECT_EQ(parse_global_positions(" 7 "), std::vector<int>{7});
    for (const char* bad : {"-1", "a", "1.5", "2,x", "99999999999"}) {
        try {
            parse_global_positions(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find("is not a position"), std::string::npos) << e.what();
        }
    }
}

TEST(AttentionWindow, TheReasonNamesTheDilationAndTheReach) {
    const ModelConfig c = windowed(3, 2, {0});
    EXPECT_EQ(window_mask_reason(c, true, 9, 7), "");      // 9 − 7 = 2 = 1·d
    EXPECT_EQ(window_mask_reason(c, true, 9, 0), "");      // global
    EXPECT_EQ(window_mask_reason(c, true, 9, 10), "");     // later: the causal mask's business
    EXPECT_EQ(window_mask_reason(c, true, 9, 4),
              "sliding window: key 4 is 5 positions back, and query 9 sees only 3 keys 2 apart, back to 4 positions; "
              "neither is a global position");
    EXPECT_EQ(window_mask_reason(c, true, 9, 8),
              "sliding window: key 8 is 1 position back, and query 9 sees only 3 keys 2 apart, back to 4 positions; 1 "
              "is not a multiple of the dilation 2; neither is a global position");
    EXPECT_EQ(window_mask_reason(windowed(4, 1, {}), false, 1, 5),
              "sliding window: key 5 is 4 positions away, and query 1 sees only keys at most \xE2\x8C\x8AW/2\xE2\x8C\x8B = 2 away");
    EXPECT_EQ(window_summary(c), "3 (dilation 2; global 0)");
    EXPECT_EQ(window_summary(windowed(0, 1, {})), "full");
}

}  // namespace
}  // namespace tx::attention_window_test
