// Alignments read off cross-attention (core/include/tx/alignment.h): the probe file's format and its errors,
// the piece-to-word bookkeeping checked on an untrained model against a hand sum of the traced
// probabilities, and the shipped English -> Spanish model on a few probes where the right source
// word is known ("The red car is big." -> "rojo" looks at "red").
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tx/alignment.h"
#include "tx/bleu.h"
#include "tx/checkpoint.h"
#include "tx/decoding.h"
#include "tx/parameters.h"
#include "text/subword_training.h"

namespace tx {
namespace {

namespace fs = std::filesystem;

const std::string MODELS = std::string(TX_SOURCE_DIR) + "/assets/models";

std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = (fs::temp_directory_path() / ("tx_align_" + std::to_string(::getpid()) + "_" + name)).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

std::string error_of(const std::string& text) {
    const std::string path = write_temp("bad.tsv", text);
    std::string message = "no exception";
    try {
        read_alignment_probes(path);
    } catch (const std::runtime_error& e) {
        message = e.what();
    }
    fs::remove(path);
    return message;
}

TEST(Alignment, ReadsProbesAndNamesBadLines) {
    const std::string path = write_temp("good.tsv", "The red car.\tEl coche rojo.\t1-2 2-1\n\nA dog.\tUn perro.\t1-1\r\n");
    const auto probes = read_alignment_probes(path);
    fs::remove(path);
    ASSERT_EQ(probes.size(), 2u);
    EXPECT_EQ(probes[0].target, "El coche rojo.");
    EXPECT_EQ(probes[0].links, (std::vector<std::pair<int, int>>{{1, 2}, {2, 1}}));
    EXPECT_EQ(probes[1].links, (std::vector<std::pair<int, int>>{{1, 1}}));

    EXPECT_NE(error_of("A dog.\tUn perro.\n").find(":1: expected source<TAB>target<TAB>links"), std::string::npos);
    EXPECT_NE(error_of("A.\tB.\t0-0\nA dog.\tUn perro.\t1x1\n").find(":2: link '1x1'"), std::string::npos);
    EXPECT_NE(error_of("A dog.\tUn perro.\t1-\n").find("link '1-'"), std::string::npos);
    EXPECT_NE(error_of("A dog.\tUn perro.\t-1-1\n").find("link '-1-1'"), std::string::npos);
    // "Un perro ." has 3 words: index 3 is outside.
    EXPECT_NE(error_of("A dog.\tUn perro.\t3-0\n").find("link 3-0 is outside the sentences' words"), std::string::npos);
    EXPECT_NE(error_of("").find("no exception"), std::string::npos);   // an empty file is no probe, not an error
}

// On an untrained model, the word matrix must be the traced probabilities summed over a word's
// source pieces, averaged over its target pieces, the heads and the layers.
TEST(Alignment, WordAttentionSumsPiecesOfTheTrace) {
    const std::vector<std::string> sentences = {"The red car is big.", "El coche rojo es grande.",
                                                "Dormirán en la casa blanca pequeña.", "The small white house."};
    const Tokenizer tokenizer = Tokenizer::sentencepiece(train_sentencepiece(sentences, MIN_SUBWORD_VOCAB));
    ModelConfig c;
    c.d_model = 16;
    c.heads = 2;
    c.d_ff = 32;
    c.encoder_layers = c.decoder_layers = 2;
    c.src_vocab = c.tgt_vocab = static_cast<int>(tokenizer.vocabulary().size());
    c.tokenizer = TokenizerKind::SentencePiece;
    c.dropout = 0.0f;
    std::unique_ptr<Backend> backend = make_cpu_backend();
    Transformer model(c, *backend);
    model.set_parameters(init_parameters(ParameterTable(c), 3));

    const std::string source = "The small white house.", target = "Dormirán en la casa blanca.";
    const auto words = word_cross_attention(model, tokenizer, source, target, -1, QueryRow::Producing);
    ASSERT_EQ(words.size(), bleu_words(target).size());
    ASSERT_EQ(words[0].size(), bleu_words(source).size());

    // The reference, by hand: the pieces of each word from the tokens' byte spans.
    const auto src_tokens = tokenizer.tokenize(source), tgt_tokens = tokenizer.tokenize(target);
    ASSERT_GT(tgt_tokens.size(), bleu_words(target).size()) << "the test wants a word split into pieces";
    const auto word_of = [](const std::string& text, const Token& t) {
        // The word whose bytes hold the piece's first non-space byte.
        size_t p = t.begin;
        while (p < t.end && text[p] == ' ') ++p;
        size_t from = 0;
        int index = 0;
        for (const std::string& w : bleu_words(text)) {
            const size_t at = text.find(w, from);
            if (p >= at && p < at + w.size()) return index;
            from = at + w.size();
            ++index;
        }
        ADD_FAILURE() << "piece '" << t.text << "' is in no word";
        return 0;
    };
    const int S = static_cast<int>(src_tokens.size()) + 1, T = static_cast<int>(tgt_tokens.size()) + 1;
    std::vector<std::vector<double>> expected(words.size(), std::vector<double>(words[0].size(), 0.0));
    std::vector<int> pieces(words.size(), 0);
    for (int l = 0; l < c.decoder_layers; ++l) {
        const auto probs = model.step_output(model.find_step("decoder.layers." + std::to_string(l) + ".cross_attn.probs"));
        for (int h = 0; h < c.heads; ++h)
            for (size_t p = 0; p < tgt_tokens.size(); ++p)
                for (size_t k = 0; k < src_tokens.size(); ++k)
                    expected[static_cast<size_t>(word_of(target, tgt_tokens[p]))][static_cast<size_t>(word_of(source, src_tokens[k]))] +=
                        probs[(static_cast<size_t>(h) * T + p) * S + k] / (c.heads * c.decoder_layers);
    }
    for (const Token& t : tgt_tokens) ++pieces[static_cast<size_t>(word_of(target, t))];
    for (size_t w = 0; w < words.size(); ++w)
        for (size_t s = 0; s < words[w].size(); ++s) EXPECT_NEAR(words[w][s], expected[w][s] / pieces[w], 1e-6) << w << "," << s;
}

// The shipped translation model: a few probes where the decode and the right source word are known.
class ShippedTranslation : public ::testing::Test {
protected:
    void SetUp() override {
        checkpoint = load_checkpoint(MODELS + "/grammar.safetensors");
        ASSERT_EQ(checkpoint.config.tokenizer, TokenizerKind::SentencePiece);
        model = std::make_unique<Transformer>(checkpoint.config, *backend);
        model->set_parameters(checkpoint.parameters);
    }
    std::string translate(const std::string& text) {
        std::vector<int> src = tokenizer().encode(text);
        src.push_back(checkpoint.config.special.eos);
        return tokenizer().decode(greedy_decode(*model, {src}, 2 * static_cast<int>(src.size()) + 10)[0]);
    }
    Tokenizer tokenizer() const { return make_tokenizer(checkpoint); }
    // The source word the target word attends to most (all layers and heads, producing rows).
    std::string looks_at(const std::string& source, const std::string& target, const std::string& word) {
        const auto src = bleu_words(source), tgt = bleu_words(target);
        const auto at = std::find(tgt.begin(), tgt.end(), word);
        EXPECT_NE(at, tgt.end()) << word << " is not in " << target;
        if (at == tgt.end()) return "";
        const auto words = word_cross_attention(*model, tokenizer(), source, target, -1, QueryRow::Producing);
        const auto& row = words[static_cast<size_t>(at - tgt.begin())];
        return src[static_cast<size_t>(std::max_element(row.begin(), row.end()) - row.begin())];
    }

    std::unique_ptr<Backend> backend = make_cpu_backend();
    Checkpoint checkpoint;
    std::unique_ptr<Transformer> model;
};

TEST_F(ShippedTranslation, TranslatesAndAlignsProbes) {
    struct Probe {
        const char *source, *target, *word, *source_word;
    };
    // Adjectives move behind their nouns, so the right lines cross.
    const Probe probes[] = {
        {"The red car is big.", "El coche rojo es grande.", "rojo", "red"},
        {"The red car is big.", "El coche rojo es grande.", "coche", "car"},
        {"The small white house is big.", "La casa blanca pequeña es grande.", "casa", "house"},
        {"The small white house is big.", "La casa blanca pequeña es grande.", "pequeña", "small"},
    };
    for (const Probe& p : probes) {
        EXPECT_EQ(translate(p.source), p.target);
        EXPECT_EQ(looks_at(p.source, p.target, p.word), p.source_word) << p.source << " -> " << p.word;
    }
}

// The figure docs/models.md reports, on the first 50 test sentences: the shipped model measured
// 98.2% on all 2000 (txcli evaluate --alignments); 90% leaves room for a retrained model but
// fails one whose cross-attention does not align.
TEST_F(ShippedTranslation, CrossAttentionFindsTheReferenceWords) {
    auto probes = read_alignment_probes(std::string(TX_SOURCE_DIR) + "/assets/corpus/en-es/test.align.tsv");
    ASSERT_GE(probes.size(), 50u);
    probes.resize(50);
    const AlignmentScore score = score_alignments(*model, tokenizer(), probes, -1, QueryRow::Producing);
    EXPECT_GE(score.links, 150);
    EXPECT_GE(score.accuracy(), 0.9) << score.correct << " of " << score.links;
}

}  // namespace
}  // namespace tx
