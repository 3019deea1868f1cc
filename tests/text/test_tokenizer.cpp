// Tokenizer and vocabulary tests: the shipped vocabularies (assets/vocab), round trips
// ids -> text -> ids, UNK stays visible, and inputs a person may type or paste (empty,
// whitespace, 10,000 characters, non-ASCII, control characters, invalid UTF-8).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "tx/tokenizer.h"
#include "support/temp_path.h"
#include "support/fixtures.h"

namespace tx {
namespace {

using test::ASSETS;

Tokenizer word_tokenizer() { return Tokenizer(TokenizerKind::Word, load_vocabulary(ASSETS + "/vocab/words.txt")); }
Tokenizer char_tokenizer() { return Tokenizer(TokenizerKind::Char, load_vocabulary(ASSETS + "/vocab/chars.txt")); }

std::vector<std::string> texts(const std::vector<Token>& tokens) {
    std::vector<std::string> out;
    for (const auto& t : tokens) out.push_back(t.text);
    return out;
}

std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::vector<std::string> base_tokens() { return {"<pad>", "<bos>", "<eos>", "<unk>", "the", "cat"}; }

// A file under a fresh temporary folder, removed with it.
struct TempFile {
    std::filesystem::path dir;
    std::filesystem::path path;
    explicit TempFile(const std::string& contents) {
        dir = std::filesystem::path(tx::test::unique_temp_path("tokenizer-" + std::to_string(std::random_device{}())));
        std::filesystem::create_directories(dir);
        path = dir / "vocab.txt";
        std::ofstream(path, std::ios::binary) << contents;
    }
    ~TempFile() { std::filesystem::remove_all(dir); }
};

TEST(WordTokenizer, SplitsTheDefaultSentence) {
    const Tokenizer tok = word_tokenizer();
    const auto tokens = tok.tokenize("The animal didn't cross the street because it was too tired.");
    EXPECT_EQ(texts(tokens), (std::vector<std::string>{"The", "animal", "didn't", "cross", "the", "street", "because",
                                                       "it", "was", "too", "tired", "."}));
    for (const auto& t : tokens) {
        EXPECT_FALSE(t.unknown) << t.text;
        EXPECT_EQ(tok.vocabulary().token(t.id), t.text);
    }
}

TEST(WordTokenizer, ExampleSentencesAreKnownAndRoundTrip) {
    const Tokenizer tok = word_tokenizer();
    const auto sentences = lines_of(ASSETS + "/sentences/examples.txt");
    ASSERT_GE(sentences.size(), 30u);
    EXPECT_EQ(sentences.front(), "The animal didn't cross the street because it was too tired.");
    for (const auto& sentence : sentences) {
        for (const auto& t : tok.tokenize(sentence)) EXPECT_FALSE(t.unknown) << "'" << t.text << "' in: " << sentence;
        const auto ids = tok.encode(sentence);
        EXPECT_EQ(tok.decode(ids), sentence);
        EXPECT_EQ(tok.encode(tok.decode(ids)), ids) << sentence;
    }
}

TEST(WordTokenizer, EveryVocabularyTokenIsOneToken) {
    const Tokenizer tok = word_tokenizer();
    EXPECT_GE(tok.vocabulary().size(), 1500);
    for (int id = 4; id < tok.vocabulary().size(); ++id)
        EXPECT_EQ(tok.encode(tok.vocabulary().token(id)), std::vector<int>{id}) << tok.vocabulary().token(id);
}

TEST(WordTokenizer, RandomIdSequencesRoundTrip) {
    const Tokenizer tok = word_tokenizer();
    std::mt19937 rng(12345);
    std::uniform_int_distribution<int> pick(4, tok.vocabulary().size() - 1);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<int> ids(1 + trial % 20);
        for (int& id : ids) id = pick(rng);
        EXPECT_EQ(tok.encode(tok.decode(ids)), ids) << tok.decode(ids);
    }
}

TEST(WordTokenizer, UnknownWordsBecomeVisibleUnk) {
    const Tokenizer tok = word_tokenizer();
    const auto tokens = tok.tokenize("The zyxwv sat.");
    ASSERT_EQ(tokens.size(), 4u);
    EXPECT_TRUE(tokens[1].unknown);
    EXPECT_EQ(tokens[1].text, "zyxwv");
    EXPECT_EQ(tokens[1].id, tok.special().unk);
    EXPECT_FALSE(tokens[0].unknown);
    EXPECT_EQ(tok.decode(tok.encode("The zyxwv sat.")), "The <unk> sat.");
}

TEST(WordTokenizer, PunctuationAndApostrophes) {
    const Tokenizer tok = word_tokenizer();
    EXPECT_EQ(texts(tok.tokenize("Hello,world!(yes)...")),
              (std::vector<std::string>{"Hello", ",", "world", "!", "(", "yes", ")", ".", ".", "."}));
    EXPECT_EQ(texts(tok.tokenize("'quoted' don't dogs' it's")),
              (std::vector<std::string>{"'", "quoted", "'", "don't", "dogs", "'", "it's"}));
    EXPECT_EQ(texts(tok.tokenize("a-b \"c\" 42")), (std::vector<std::string>{"a", "-", "b", "\"", "c", "\"", "42"}));
    EXPECT_EQ(tok.decode(tok.encode("( the cat ) , yes ; no : maybe ?")), "(the cat), yes; no: maybe?");
}

TEST(WordTokenizer, CaseIsKept) {
    const Tokenizer tok = word_tokenizer();
    EXPECT_NE(tok.encode("The"), tok.encode("the"));
    const auto tokens = tok.tokenize("THE");
    ASSERT_EQ(tokens.size(), 1u);
    EXPECT_TRUE(tokens[0].unknown);
    EXPECT_EQ(tokens[0].text, "THE");
}

TEST(WordTokenizer, DecodeSkipsSpecialsAndShowsUnk) {
    const Tokenizer tok = word_tokenizer();
    const SpecialTokens s = tok.special();
    const int the = tok.vocabulary().id("the"), cat = tok.vocabulary().id("cat");
    EXPECT_EQ(tok.decode({s.bos, the, cat, s.unk, s.eos, s.pad, s.pad}), "the cat <unk>");
    EXPECT_EQ(tok.decode({}), "");
    EXPECT_THROW(tok.decode({the, tok.vocabulary().size()}), std::out_of_range);
    EXPECT_THROW(tok.decode({-1}), std::out_of_range);
}

TEST(WordTokenizer, EmptyAndWhitespaceOnly) {
    const Tokenizer tok = word_tokenizer();
    EXPECT_TRUE(tok.tokenize("").empty());
    EXPECT_TRUE(tok.tokenize(" \t\r\n\v\f  ").empty());
    EXPECT_TRUE(tok.encode("   ").empty());
}

TEST(WordTokenizer, TenThousandCharacters) {
    const Tokenizer tok = word_tokenizer();
    std::string text;
    while (text.size() < 10'000) text += "the cat sat. ";
    text.resize(10'000);
    const auto ids = tok.encode(text);
    EXPECT_GT(ids.size(), 2000u);
    std::string one_word(10'000, 'a');
    const auto tokens = tok.tokenize(one_word);
    ASSERT_EQ(tokens.size(), 1u);
    EXPECT_TRUE(tokens[0].unknown);
    EXPECT_EQ(tokens[0].text.size(), 10'000u);
}

TEST(WordTokenizer, NonAsciiWordsStayWholeAndVisible) {
    const Tokenizer tok = word_tokenizer();
    const auto tokens = tok.tokenize("the café, naïve 日本語");
    EXPECT_EQ(texts(tokens), (std::vector<std::string>{"the", "café", ",", "naïve", "日本語"}));
    EXPECT_TRUE(tokens[1].unknown);
    EXPECT_EQ(tokens[1].id, tok.special().unk);
    // Typographic apostrophes, quotes and non-breaking spaces find the ASCII words.
    const auto curly = tok.tokenize("didn\u2019t\u00a0\u201cthe\u201d");
    EXPECT_EQ(texts(curly), (std::vector<std::string>{"didn\u2019t", "\u201c", "the", "\u201d"}));
    EXPECT_EQ(curly[0].id, tok.vocabulary().id("didn't"));
    EXPECT_EQ(curly[1].id, tok.vocabulary().id("\""));
}

TEST(WordTokenizer, ControlCharactersAreDropped) {
    const Tokenizer tok = word_tokenizer();
    EXPECT_EQ(texts(tok.tokenize(std::string("the\x01 cat\x7f\x1b", 10))), (std::vector<std::string>{"the", "cat"}));
    EXPECT_EQ(texts(tok.tokenize(std::string("\0the\0", 5))), std::vector<std::string>{"the"});
    EXPECT_EQ(texts(tok.tokenize("a\u200bb")), (std::vector<std::string>{"a", "b"}));   // zero-width space
}

TEST(WordTokenizer, InvalidUtf8BecomesUnk) {
    const Tokenizer tok = word_tokenizer();
    const auto tokens = tok.tokenize("the \xff\xfe cat caf\xc3");
    ASSERT_EQ(tokens.size(), 6u);
    EXPECT_EQ(tokens[0].text, "the");
    EXPECT_TRUE(tokens[1].unknown);
    EXPECT_EQ(tokens[1].text, "\uFFFD");
    EXPECT_TRUE(tokens[2].unknown);
    EXPECT_EQ(tokens[3].text, "cat");
    EXPECT_EQ(tokens[4].text, "caf");
    EXPECT_TRUE(tokens[5].unknown);
    // Overlong encodings and surrogates are invalid too (RFC 3629).
    for (const char* bad : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"})
        for (const auto& t : tok.tokenize(bad)) EXPECT_TRUE(t.unknown);
}

TEST(WordTokenizer, Display) {
    const Tokenizer tok = word_tokenizer();
    EXPECT_EQ(tok.display(0), "<pad>");
    EXPECT_EQ(tok.display(1), "<bos>");
    EXPECT_EQ(tok.display(2), "<eos>");
    EXPECT_EQ(tok.display(3), "<unk>");
    EXPECT_EQ(tok.display(tok.vocabulary().id("animal")), "animal");
    EXPECT_THROW(tok.display(-1), std::out_of_range);
}

TEST(CharTokenizer, OneTokenPerCodePoint) {
    const Tokenizer tok = char_tokenizer();
    EXPECT_EQ(tok.vocabulary().size(), 4 + 95);
    const std::string text = "The animal didn't cross the street because it was too tired.";
    const auto tokens = tok.tokenize(text);
    EXPECT_EQ(tokens.size(), text.size());
    for (const auto& t : tokens) EXPECT_FALSE(t.unknown) << t.text;
    EXPECT_EQ(tok.decode(tok.encode(text)), text);
    EXPECT_EQ(tok.encode(tok.decode(tok.encode(text))), tok.encode(text));
    const int space = tok.vocabulary().id(" ");
    EXPECT_EQ(space, 4);
    EXPECT_EQ(tok.display(space), "\u2423");
    EXPECT_EQ(tok.display(tok.vocabulary().id("a")), "a");
}

TEST(CharTokenizer, EdgeInputs) {
    const Tokenizer tok = char_tokenizer();
    const int space = tok.vocabulary().id(" ");
    EXPECT_TRUE(tok.tokenize("").empty());
    EXPECT_EQ(tok.encode("  "), (std::vector<int>{space, space}));
    EXPECT_EQ(tok.encode("\t\n"), (std::vector<int>{space, space}));   // other whitespace reads as a space
    EXPECT_EQ(tok.encode(std::string("a\x01\x7f" "b", 4)), tok.encode("ab"));
    const auto accented = tok.tokenize("café");
    ASSERT_EQ(accented.size(), 4u);
    EXPECT_TRUE(accented[3].unknown);
    EXPECT_EQ(accented[3].text, "é");
    EXPECT_EQ(tok.decode(tok.encode("café")), "caf<unk>");
    const auto invalid = tok.tokenize("a\xff" "b");
    ASSERT_EQ(invalid.size(), 3u);
    EXPECT_TRUE(invalid[1].unknown);
    EXPECT_EQ(tok.encode(std::string(10'000, 'x')).size(), 10'000u);
    EXPECT_EQ(tok.decode({1, tok.vocabulary().id("h"), tok.vocabulary().id("i"), 2, 0}), "hi");
}

TEST(Vocabulary, RefusesDuplicates) {
    auto tokens = base_tokens();
    tokens.push_back("the");
    try {
        Vocabulary v(tokens);
        FAIL() << "duplicate accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'the'"), std::string::npos) << e.what();
    }
}

TEST(Vocabulary, RefusesBadSpecials) {
    EXPECT_THROW(Vocabulary({"<pad>", "<bos>", "<eos>"}), std::invalid_argument);
    EXPECT_THROW(Vocabulary({"<bos>", "<pad>", "<eos>", "<unk>", "a"}), std::invalid_argument);
    EXPECT_THROW(Vocabulary({"<pad>", "<bos>", "<eos>", "<UNK>", "a"}), std::invalid_argument);
    EXPECT_THROW(Vocabulary({"<pad>", "<bos>", "<eos>", "<unk>", ""}), std::invalid_argument);
    EXPECT_THROW(Vocabulary({"<pad>", "<bos>", "<eos>", "<unk>", "a b"}), std::invalid_argument);
    EXPECT_THROW(Vocabulary({"<pad>", "<bos>", "<eos>", "<unk>", "\xff"}), std::invalid_argument);
    EXPECT_THROW(Tokenizer(TokenizerKind::Word, Vocabulary(base_tokens()), SpecialTokens{0, 1, 2, 4}),
                 std::invalid_argument);
    EXPECT_THROW(Tokenizer(TokenizerKind::Word, Vocabulary(base_tokens()), SpecialTokens{0, 1, 2, 99}),
                 std::invalid_argument);
    const Vocabulary v(base_tokens());
    EXPECT_EQ(v.id("cat"), 5);
    EXPECT_EQ(v.id("dog"), -1);
    EXPECT_THROW(v.token(6), std::out_of_range);
}

TEST(Vocabulary, LoadReportsFileAndLine) {
    {
        TempFile f("<pad>\n<bos>\n<eos>\n<unk>\nthe\ncat\nthe\n");
        try {
            load_vocabulary(f.path.string());
            FAIL() << "duplicate accepted";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("vocab.txt"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("'the'"), std::string::npos) << e.what();
        }
    }
    {
        TempFile f("<pad>\n<bos>\n<eos>\n<unk>\nthe\n\ncat\n");
        try {
            load_vocabulary(f.path.string());
            FAIL() << "empty line accepted";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("vocab.txt:6"), std::string::npos) << e.what();
        }
    }
    {
        TempFile f("<pad>\r\n<bos>\r\n<eos>\r\n<unk>\r\nthe\r\n \r\n");
        const Vocabulary v = load_vocabulary(f.path.string());
        EXPECT_EQ(v.size(), 6);
        EXPECT_EQ(v.id(" "), 5);   // a line holding one space is the space token
    }
    EXPECT_THROW(load_vocabulary("/nonexistent/vocab.txt"), std::runtime_error);
}

}  // namespace
}  // namespace tx
