// ModelConfig validation: every invalid value is refused with a message naming the field and
// the rule; JSON round trip; malformed JSON refused.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "config.h"

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
