// ModelConfig validation: every invalid value is refused with a message naming the field and
// the rule; JSON round trip; malformed JSON refused.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "tx/config.h"

namespace tx {
namespace {

ModelConfig valid() {
    ModelConfig c;
    c.src_vocab = c.tgt_vocab = 20;
    return c;
}

struct Case {
    const char* what;
    std::function<void(ModelConfig&)> change;
    const char* expected;   // a fragment of the message
};

TEST(Config, DefaultWithVocabularyIsValid) { EXPECT_FALSE(validate(valid()).has_value()); }

TEST(Config, EveryInvalidValueIsRefusedWithFieldAndRule) {
    const std::vector<Case> cases = {
        {"heads divide", [](ModelConfig& c) { c.d_model = 100; c.heads = 3; }, "d_model (100) must be divisible by heads (3)"},
        {"d_model 0", [](ModelConfig& c) { c.d_model = 0; }, "d_model (0)"},
        {"d_model huge", [](ModelConfig& c) { c.d_model = 100000; }, "d_model (100000) must be between"},
        {"heads 0", [](ModelConfig& c) { c.heads = 0; }, "heads (0)"},
        {"d_ff 0", [](ModelConfig& c) { c.d_ff = 0; }, "d_ff (0)"},
        {"encoder layers", [](ModelConfig& c) { c.encoder_layers = -1; }, "encoder_layers (-1)"},
        {"decoder layers", [](ModelConfig& c) { c.decoder_layers = 0; }, "decoder_layers (0)"},
        {"max_len", [](ModelConfig& c) { c.max_len = 1; }, "max_len (1)"},
        {"dropout 1", [](ModelConfig& c) { c.dropout = 1.0f; }, "dropout"},
        {"dropout negative", [](ModelConfig& c) { c.dropout = -0.1f; }, "dropout"},
        {"dropout NaN", [](ModelConfig& c) { c.dropout = std::nanf(""); }, "dropout"},
        {"eps", [](ModelConfig& c) { c.ln_eps = 0.0f; }, "ln_eps"},
        {"src vocab", [](ModelConfig& c) { c.src_vocab = 3; }, "src_vocab (3)"},
        {"tgt vocab", [](ModelConfig& c) { c.tgt_vocab = 2; }, "tgt_vocab (2)"},
        {"pad id", [](ModelConfig& c) { c.special.pad = 99; }, "special.pad (99)"},
        {"same ids", [](ModelConfig& c) { c.special.eos = c.special.bos; }, "special.eos and special.bos must be different"},
        {"window negative", [](ModelConfig& c) { c.window = -1; }, "window (-1) must be between 0"},
        {"window past max_len", [](ModelConfig& c) { c.max_len = 16; c.window = 17; }, "window (17)"},
        {"rope odd dk", [](ModelConfig& c) { c.d_model = 12; c.heads = 4; c.positional = PositionalKind::Rope; },
         "d_model / heads (3) must be even"},
        {"decoder-only with an encoder", [](ModelConfig& c) { c.arch = Arch::DecoderOnly; c.encoder_layers = 2; },
         "encoder_layers (2) must be 0 with arch \"decoder-only\""},
    };
    for (const Case& k : cases) {
        ModelConfig c = valid();
        k.change(c);
        const auto error = validate(c);
        ASSERT_TRUE(error.has_value()) << k.what;
        EXPECT_NE(error->find(k.expected), std::string::npos) << k.what << ": got '" << *error << "'";
        EXPECT_THROW(check(c), ConfigError) << k.what;
    }
}

TEST(Config, JsonRoundTrip) {
    ModelConfig c = valid();
    c.d_model = 48;
    c.heads = 6;
    c.norm = NormPlacement::Pre;
    c.scale_attention = false;
    c.tokenizer = TokenizerKind::Char;
    c.seed = 1234567890123ull;
    c.dropout = 0.25f;
    const ModelConfig back = config_from_json(to_json(c));
    EXPECT_EQ(to_json(back), to_json(c));
    EXPECT_EQ(back.heads, 6);
    EXPECT_EQ(back.norm, NormPlacement::Pre);
    EXPECT_FALSE(back.scale_attention);
    EXPECT_EQ(back.seed, 1234567890123ull);
}

TEST(Config, VariantFieldsRoundTripAndDefaultWhenAbsent) {
    ModelConfig c = valid();
    c.positional = PositionalKind::Alibi;
    c.ffn = FfnKind::SwiGlu;
    c.norm_kind = NormKind::RmsNorm;
    c.window = 5;
    const ModelConfig back = config_from_json(to_json(c));
    EXPECT_EQ(to_json(back), to_json(c));
    EXPECT_EQ(back.positional, PositionalKind::Alibi);
    EXPECT_EQ(back.ffn, FfnKind::SwiGlu);
    EXPECT_EQ(back.norm_kind, NormKind::RmsNorm);
    EXPECT_EQ(back.window, 5);
    // A checkpoint written before the variants: every field means the 2017 model.
    nlohmann::json old = nlohmann::json::parse(to_json(c));
    for (const char* field : {"arch", "positional", "ffn", "norm_kind", "window"}) old.erase(field);
    const ModelConfig today = config_from_json(old.dump());
    EXPECT_EQ(today.arch, Arch::EncoderDecoder);
    EXPECT_EQ(today.positional, PositionalKind::Sinusoidal);
    EXPECT_EQ(today.ffn, FfnKind::Relu);
    EXPECT_EQ(today.norm_kind, NormKind::LayerNorm);
    EXPECT_EQ(today.window, 0);
}

TEST(Config, UnknownVariantSpellingsAreRefusedWithTheChoices) {
    auto message = [](const char* field, const nlohmann::json& value) {
        nlohmann::json j = nlohmann::json::parse(to_json(valid()));
        j[field] = value;
        try {
            config_from_json(j.dump());
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message("positional", "rotary").find("\"sinusoidal\", \"learned\", \"rope\", \"alibi\", \"none\" or \"relative\""),
              std::string::npos);
    EXPECT_NE(message("ffn", "tanh").find("ffn ('tanh') must be"), std::string::npos);
    EXPECT_NE(message("norm_kind", "batchnorm").find("norm_kind ('batchnorm')"), std::string::npos);
    EXPECT_NE(message("arch", "encoder-only").find("arch ('encoder-only')"), std::string::npos);
    EXPECT_NE(message("window", 2.5).find("'window' must be a whole number"), std::string::npos);
    EXPECT_NE(message("ffn", 3).find("'ffn' has the wrong type"), std::string::npos);
}

// SwiGLU's hidden width: round(2/3·d_ff), to the nearest multiple of 8 from 64 on, so that its
// three bias-free matrices hold about the two-matrix FFN's weights.
TEST(Config, SwigluWidthKeepsTheParameterCountClose) {
    ModelConfig c = valid();
    c.ffn = FfnKind::SwiGlu;
    for (auto [d_ff, width] : {std::pair{512, 344}, {256, 168}, {16, 11}, {96, 64}, {3, 2}, {1, 1}}) {
        c.d_ff = d_ff;
        EXPECT_EQ(c.ffn_width(), width) << "d_ff " << d_ff;
        EXPECT_LE(std::abs(3.0 * c.ffn_width() - 2.0 * d_ff), std::max(12.0, 0.07 * 2 * d_ff)) << "d_ff " << d_ff;
    }
    c.ffn = FfnKind::Gelu;
    EXPECT_EQ(c.ffn_width(), c.d_ff);
}

TEST(Config, MalformedJsonIsRefusedWithTheReason) {
    auto message = [](const std::string& json) {
        try {
            config_from_json(json);
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message("{").find("not valid JSON"), std::string::npos);
    EXPECT_NE(message("[1,2]").find("must be a JSON object"), std::string::npos);
    std::string json = to_json(valid());
    EXPECT_NE(message(json.replace(json.find("\"d_ff\""), 6, "\"d_fx\"")).find("missing field 'd_ff'"), std::string::npos);
    json = to_json(valid());
    const auto at = json.find("\"heads\":") + 8;
    EXPECT_NE(message(json.substr(0, at) + "\"four\"" + json.substr(json.find(',', at))).find("'heads'"), std::string::npos);
    json = to_json(valid());
    const auto norm = json.find("\"post\"");
    EXPECT_NE(message(json.replace(norm, 6, "\"mid\"")).find("norm"), std::string::npos);
    json = to_json(valid());
    const auto heads = json.find("\"heads\":") + 8;
    EXPECT_NE(message(json.substr(0, heads) + "3" + json.substr(json.find(',', heads))).find("divisible"), std::string::npos);
}

}  // namespace
}  // namespace tx
