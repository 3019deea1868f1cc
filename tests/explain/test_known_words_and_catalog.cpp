// Known words (explain/known_words.h) and the model catalog (explain/model_catalog.h): words as
// SentencePiece groups them, the shipped model's known words from its training record, and clear
// messages for a bad catalog.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tx/asset_paths.h"
#include "tx/checkpoint.h"
#include "known_words.h"
#include "model_catalog.h"
#include "tx/session.h"
#include "support/temp_path.h"

namespace tx::explain {
namespace {

TEST(KnownWords, WordKeyStripsPunctuationOnly) {
    EXPECT_EQ(word_key("big."), "big");
    EXPECT_EQ(word_key("\xC2\xBFWill"), "Will");
    EXPECT_EQ(word_key("didn't"), "didn't");
    EXPECT_EQ(word_key("The"), "The");
}

TEST(KnownWords, TheShippedModelKnowsItsCorpusAndFlagsTheRest) {
    Session session(load_checkpoint(find_asset("assets/models/grammar.safetensors")));
    const KnownWords known = load_known_words(session.training_json(), session.config().tokenizer,
                                              [](const std::string& p) { return find_asset("assets/" + p); });
    ASSERT_TRUE(known.available()) << known.unavailable;
    EXPECT_TRUE(known.knows("dogs"));
    EXPECT_TRUE(known.knows("house"));
    EXPECT_FALSE(known.knows("spaceship"));
    EXPECT_GT(known.sentences, 1000);
    EXPECT_FALSE(known.test_sentences.empty());

    const std::string text = "The dogs sleep.";
    const std::vector<WordPieces> words = group_words(session.tokenizer().tokenize(text), text);
    ASSERT_EQ(words.size(), 3u);
    EXPECT_EQ(words[0].text, "The");
    EXPECT_EQ(words[2].text, "sleep.");
}

TEST(KnownWords, TheEverydayModelKnowsEverydayWords) {
    // The model the app opens: 400,000 training sentences, read from the compressed corpus.
    Session session(load_checkpoint(find_asset(std::string("assets/") + EVERYDAY_MODEL)));
    const KnownWords known = load_known_words(session.training_json(), session.config().tokenizer,
                                              [](const std::string& p) { return find_asset("assets/" + p); });
    ASSERT_TRUE(known.available()) << known.unavailable;
    for (const char* word : {"animal", "street", "tired", "wide", "didn't", "Where", "sleeping"})
        EXPECT_TRUE(known.knows(word)) << word;
    EXPECT_FALSE(known.knows("zorblax"));
    EXPECT_GT(known.sentences, 390000);
    EXPECT_GT(known.test_sentences.size(), 1000u);
}

TEST(KnownWords, AMissingTrainingRecordSaysWhy) {
    const KnownWords none = load_known_words("", TokenizerKind::SentencePiece, [](const std::string& p) { return p; });
    EXPECT_FALSE(none.available());
    EXPECT_FALSE(none.unavailable.empty());
}

TEST(ModelCatalog, TheShippedCatalogListsEveryFile) {
    const std::string path = find_asset("assets/models/catalog.json");
    const std::vector<CatalogModel> models = read_model_catalog(path);
    ASSERT_FALSE(models.empty());
    for (const CatalogModel& m : models) {
        EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(path).parent_path() / m.file)) << m.file;
        EXPECT_FALSE(m.name.empty());
        ASSERT_FALSE(m.examples.empty());
        EXPECT_EQ(m.examples.front(), m.sentence);
    }
}

TEST(ModelCatalog, ABadFileIsNamedInTheError) {
    const std::string path = tx::test::unique_temp_path("bad-catalog.json");
    std::ofstream(path) << "{ \"models\": [ {\"file\": 3} ] ";
    try {
        read_model_catalog(path);
        ADD_FAILURE() << "a broken catalog was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace tx::explain
