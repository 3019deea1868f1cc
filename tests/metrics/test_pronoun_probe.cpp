// Pronoun probes: the file reader's checks, the gender counterpart of an adjective, and the
// per-head shares against a recomputation written apart from pronoun_probe.cpp (words found with
// std::regex, pieces placed by their own lengths, attention read from the trace by name).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "tx/asset_paths.h"
#include "tx/checkpoint.h"
#include "tx/backend.h"
#include "tx/transformer.h"
#include "tx/pronoun_probe.h"
#include "tx/tasks.h"
#include "support/temp_path.h"

namespace tx {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = tx::test::unique_temp_path("pronoun-" + name);
    std::ofstream(path) << text;
    return path;
}

const char* TIRED = "The animal didn't cross the street because it was too tired.\t"
                    "El animal no cruzó la calle porque estaba demasiado cansado.\t9\t1\t7\t9\tm\n";
const char* WIDE = "The animal didn't cross the street because it was too wide.\t"
                   "El animal no cruzó la calle porque era demasiado ancha.\t9\t7\t1\t9\tf\n";

TEST(PronounProbe, ReadsProbesAndNamesTheBadLine) {
    const auto probes = read_pronoun_probes(write_file("good.tsv", std::string(TIRED) + WIDE));
    ASSERT_EQ(probes.size(), 2u);
    EXPECT_EQ(probes[1].referent, 7);
    EXPECT_EQ(probes[1].other, 1);
    EXPECT_EQ(probes[1].gender, 'f');
    const auto refused = [](const std::string& text, const std::string& expected) {
        const std::string path = write_file("bad.tsv", text);
        try {
            read_pronoun_probes(path);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        }
    };
    refused(std::string(TIRED) + "It was.\tEra.\t0\t1\n", "bad.tsv:2: expected 7 tab-separated columns");
    refused("It was big.\tEra grande.\t0\t1\t9\t1\tm\n", "the other noun index '9' is not a word");
    refused("It was big.\tEra grande.\t0\t0\t1\t1\tm\n", "three different words");
    refused("It was big.\tEra grande.\t0\t1\t2\t1\tx\n", "the gender must be m or f");
    refused("", "no pronoun probes");
}

TEST(PronounProbe, OtherGenderForm) {
    EXPECT_EQ(other_gender_form("cansado"), "cansada");
    EXPECT_EQ(other_gender_form("ancha"), "ancho");
    EXPECT_EQ(other_gender_form("cansados"), "cansadas");
    EXPECT_EQ(other_gender_form("largas"), "largos");
    EXPECT_EQ(other_gender_form("débil"), "");
    EXPECT_EQ(other_gender_form("grande"), "");
}

// Word index of each piece: pieces are laid end to end over " " + the text (a leading "▁" is a space,
// a byte piece "<0x27>" one byte),
// and a piece belongs to the regex word that holds its first non-space character.
std::vector<int> words_of_pieces(const std::string& typed, const std::vector<Token>& tokens) {
    const std::string text = " " + typed;   // SentencePiece's dummy prefix: the first piece is "▁The"
    std::vector<std::pair<size_t, size_t>> spans;
    // Bytes of multi-byte characters count as letters ("cruzó"): true of these sentences, which hold
    // no non-ASCII punctuation such as "¿".
    const std::regex word("[A-Za-z0-9_\x80-\xff]+|[^A-Za-z0-9_\x80-\xff\\s]");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator(); ++it)
        spans.emplace_back(static_cast<size_t>(it->position()), static_cast<size_t>(it->position() + it->length()));
    std::vector<int> out;
    size_t at = 0;
    for (const Token& t : tokens) {
        std::string piece = t.text;
        const std::string space = "\xE2\x96\x81";   // ▁
        if (piece.rfind(space, 0) == 0) piece = " " + piece.substr(space.size());
        if (std::regex_match(piece, std::regex("<0x[0-9A-F]{2}>"))) piece = "?";   // a byte piece covers one byte
        size_t first = at;
        while (first < text.size() && text[first] == ' ') ++first;
        int index = -1;
        for (size_t w = 0; w < spans.size(); ++w)
            if (spans[w].second > first) {
                index = static_cast<int>(w);
                break;
            }
        out.push_back(index);
        at += piece.size();
    }
    return out;
}

TEST(PronounProbe, HeadSharesMatchARecomputation) {
    const Checkpoint c = load_checkpoint(find_asset("assets/models/everyday.safetensors"));
    const Tokenizer tokenizer = make_tokenizer(c);
    auto backend = make_cpu_backend();
    Transformer model(c.config, *backend);
    model.set_parameters(c.parameters);
    const auto probes = read_pronoun_probes(write_file("two.tsv", std::string(TIRED) + WIDE));
    const PronounReport r = score_pronouns(model, tokenizer, probes, false);
    ASSERT_EQ(r.probes, 2);
    EXPECT_EQ(r.marked, 2);   // cansado and ancha both show gender
    const int L = c.config.encoder_layers, H = c.config.heads;
    std::vector<int> encoder_wins(static_cast<size_t>(L * H), 0), cross_wins(static_cast<size_t>(L * H), 0);
    std::vector<double> encoder_margin(static_cast<size_t>(L * H), 0.0), cross_margin(static_cast<size_t>(L * H), 0.0);
    for (const PronounProbe& p : probes) {
        const auto src_tokens = tokenizer.tokenize(p.source), tgt_tokens = tokenizer.tokenize(p.target);
        const auto src_words = words_of_pieces(p.source, src_tokens), tgt_words = words_of_pieces(p.target, tgt_tokens);
        std::vector<int> src, tgt{c.config.special.bos};
        for (const Token& t : src_tokens) src.push_back(t.id);
        src.push_back(c.config.special.eos);
        for (const Token& t : tgt_tokens) tgt.push_back(t.id);
        model.set_batch({src}, {tgt});
        model.forward();
        const int S = static_cast<int>(src.size()), T = static_cast<int>(tgt.size());
        // The pronoun's rows are all its pieces (this model never saw "it" and splits it), averaged;
        // the adjective's first piece is written by the row of the same index.
        std::vector<int> it_rows;
        for (int k = 0; k < static_cast<int>(src_words.size()); ++k)
            if (src_words[static_cast<size_t>(k)] == p.pronoun) it_rows.push_back(k);
        const int adjective_row =
            static_cast<int>(std::find(tgt_words.begin(), tgt_words.end(), p.target_adjective) - tgt_words.begin());
        ASSERT_FALSE(it_rows.empty());
        ASSERT_LT(adjective_row, T);
        for (int l = 0; l < L; ++l) {
            const auto self = model.step_output(model.find_step("encoder.layers." + std::to_string(l) + ".self_attn.probs"));
            const auto cross = model.step_output(model.find_step("decoder.layers." + std::to_string(l) + ".cross_attn.probs"));
            for (int h = 0; h < H; ++h) {
                double e_ref = 0, e_other = 0, c_ref = 0, c_other = 0;
                for (int k = 0; k + 1 < S; ++k) {
                    double e = 0;
                    for (int row : it_rows) e += self[(static_cast<size_t>(h) * S + row) * S + k] / it_rows.size();
                    const double x = cross[(static_cast<size_t>(h) * T + adjective_row) * S + k];
                    if (src_words[static_cast<size_t>(k)] == p.referent) e_ref += e, c_ref += x;
                    if (src_words[static_cast<size_t>(k)] == p.other) e_other += e, c_other += x;
                }
                encoder_wins[static_cast<size_t>(l * H + h)] += e_ref > e_other;
                cross_wins[static_cast<size_t>(l * H + h)] += c_ref > c_other;
                encoder_margin[static_cast<size_t>(l * H + h)] += (e_ref - e_other) / 2;   // two probes
                cross_margin[static_cast<size_t>(l * H + h)] += (c_ref - c_other) / 2;
            }
        }
    }
    EXPECT_EQ(r.encoder_self.referent_wins, encoder_wins);
    EXPECT_EQ(r.cross.referent_wins, cross_wins);
    // The margins are continuous: a wrong row or column moves them even where the wins agree.
    for (size_t i = 0; i < encoder_margin.size(); ++i) {
        EXPECT_NEAR(r.encoder_self.margin[i], encoder_margin[i], 1e-6) << "encoder head " << i;
        EXPECT_NEAR(r.cross.margin[i], cross_margin[i], 1e-6) << "cross head " << i;
    }
}

// A pair is a group of probes that differ only in their last English word and name both nouns;
// it counts as right when every probe of it agrees. The same pair with a wrong reference ("ancho"
// for la calle, which the model writes "ancha") is not right; a probe alone makes no pair.
TEST(PronounProbe, PairsNeedEverySentenceRight) {
    const Checkpoint c = load_checkpoint(find_asset("assets/models/everyday.safetensors"));
    auto backend = make_cpu_backend();
    Transformer model(c.config, *backend);
    model.set_parameters(c.parameters);
    const PronounReport right = score_pronouns(model, make_tokenizer(c), read_pronoun_probes(write_file("pair.tsv", std::string(TIRED) + WIDE)));
    EXPECT_EQ(right.agreeing, 2);
    EXPECT_EQ(right.pairs, 1);
    EXPECT_EQ(right.pairs_agreeing, 1);
    std::string wrong_wide = WIDE;
    wrong_wide.replace(wrong_wide.find("ancha"), 5, "ancho");
    const std::string alone = "The dog didn't eat the soup because it was too hot.\tEl perro no comi\xC3\xB3 la sopa porque estaba demasiado caliente.\t9\t7\t1\t9\tf\n";
    const PronounReport wrong = score_pronouns(model, make_tokenizer(c), read_pronoun_probes(write_file("wrong.tsv", std::string(TIRED) + wrong_wide + alone)));
    EXPECT_EQ(wrong.probes, 3);
    EXPECT_EQ(wrong.pairs, 1);
    EXPECT_EQ(wrong.pairs_agreeing, 0);
}

TEST(PronounProbe, RefusesADecoderOnlyModel) {
    const Checkpoint c = load_checkpoint(find_asset("assets/models/lm.safetensors"));
    auto backend = make_cpu_backend();
    Transformer model(c.config, *backend);
    const auto probes = read_pronoun_probes(write_file("one.tsv", TIRED));
    EXPECT_THROW(score_pronouns(model, make_tokenizer(c), probes), std::invalid_argument);
}

}  // namespace
}  // namespace tx
