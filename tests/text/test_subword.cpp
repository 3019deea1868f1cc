// Subword tokens and translation data: SentencePiece training and round trips (any typed text,
// characters never seen in training included), the model inside a checkpoint and every way a
// broken one is refused, tab-separated corpora with bad lines, and the translate task's
// held-out split and length-grouped batches.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <set>

#include "tx/checkpoint.h"
#include "tx/parallel_corpus.h"
#include "tx/parameters.h"
#include "text/subword_training.h"
#include "tx/tasks.h"
#include "support/fixtures.h"

namespace tx {
namespace {

namespace fs = std::filesystem;

using test::ASSETS;

std::vector<std::string> training_sentences() {
    std::vector<std::string> out;
    std::ifstream in(ASSETS + "/sentences/examples.txt");
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) out.push_back(line);
    // A little Spanish, so accented letters are pieces of their own.
    for (const char* s : {"El coche rojo es grande.", "Veo el perro.", "Dormirán en la casa blanca pequeña.",
                          "¿Leyó el profesor las cartas?", "No comemos manzanas."})
        out.push_back(s);
    return out;
}

// One model for the whole file: training takes a fraction of a second, but need not repeat.
const std::string& shared_model() {
    static const std::string model = train_sentencepiece(training_sentences(), 400);
    return model;
}

Tokenizer shared_tokenizer() { return Tokenizer::sentencepiece(shared_model()); }

std::string subword_temp_path(const std::string& name) {
    return (fs::temp_directory_path() / ("tx_subword_" + std::to_string(::getpid()) + "_" + name)).string();
}

void write_text_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "no exception";
}

TEST(Subword, SpecialPiecesComeFirst) {
    const Tokenizer tok = shared_tokenizer();
    EXPECT_EQ(tok.kind(), TokenizerKind::SentencePiece);
    ASSERT_GE(tok.vocabulary().size(), 300);
    EXPECT_LE(tok.vocabulary().size(), 400);
    EXPECT_EQ(tok.vocabulary().token(0), "<pad>");
    EXPECT_EQ(tok.vocabulary().token(1), "<bos>");
    EXPECT_EQ(tok.vocabulary().token(2), "<eos>");
    EXPECT_EQ(tok.vocabulary().token(3), "<unk>");
    EXPECT_EQ(tok.model(), shared_model());
}

TEST(Subword, TrainingIsDeterministic) {
    EXPECT_EQ(train_sentencepiece(training_sentences(), 400), shared_model());
}

// Too few pieces for the text's characters: said in the option's terms, with the count it needs.
TEST(Subword, TooSmallAVocabularyIsNamedWithWhatItNeeds) {
    std::vector<std::string> sentences = training_sentences();
    std::string many;   // 80 more distinct characters (Greek and Cyrillic letters)
    for (char32_t c = 0x3B1; c < 0x3B1 + 40; ++c) many += std::string{char(0xCE | ((c >> 6) & 1)), char(0x80 | (c & 0x3F))};
    for (char32_t c = 0x430; c < 0x430 + 40; ++c) many += std::string{char(0xD0 | ((c >> 6) & 1)), char(0x80 | (c & 0x3F))};
    sentences.push_back(many);
    try {
        train_sentencepiece(sentences, 300);
        FAIL() << "300 pieces were accepted for text with more characters than that holds";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("a subword vocabulary of 300 pieces is too small"), std::string::npos) << what;
        EXPECT_NE(what.find("need at least 3"), std::string::npos) << what;
    }
}

TEST(Subword, AnyTypedTextRoundTrips) {
    const Tokenizer tok = shared_tokenizer();
    for (const std::string text :
         {"The animal didn't cross the street because it was too tired.", "Seven quiet foxes jumped over two lazy dogs.",
          "Zyxwvut Qorbanov met Siobhán in Łódź.", "日本語 and emoji 🦊 too", "¿Dónde está el niño?", "x", "1234567",
          "tabs\tand\nnewlines", "NUL\x01byte"}) {
        const std::vector<int> ids = tok.encode(text);
        ASSERT_FALSE(ids.empty()) << text;
        for (int id : ids) EXPECT_NE(id, 3) << "byte fallback should leave nothing as UNK: " << text;
        EXPECT_EQ(tok.decode(ids), text);
    }
}

TEST(Subword, UnseenCharactersBecomeVisibleBytePieces) {
    const Tokenizer tok = shared_tokenizer();
    const std::vector<Token> tokens = tok.tokenize("a 🦊");
    // "🦊" is 4 UTF-8 bytes, none seen in training: four byte pieces, each marked unknown.
    int bytes = 0;
    for (const Token& t : tokens) {
        if (t.text.rfind("<0x", 0) == 0) {
            ++bytes;
            EXPECT_TRUE(t.unknown);
        }
    }
    EXPECT_EQ(bytes, 4);
    EXPECT_EQ(tokens.front().text.substr(0, 3), "\xE2\x96\x81");   // "▁a": the piece shows its word mark
}

TEST(Subword, WordStartsAreMarked) {
    const Tokenizer tok = shared_tokenizer();
    const std::vector<Token> tokens = tok.tokenize("The animal didn't cross");
    int starts = 0;
    for (const Token& t : tokens) starts += t.word_start;
    EXPECT_EQ(starts, 4);   // The · animal · didn't · cross
    EXPECT_TRUE(tokens.front().word_start);
}

TEST(Subword, DecodeShowsUnkAndSkipsSpecials) {
    const Tokenizer tok = shared_tokenizer();
    std::vector<int> ids = tok.encode("the cat");
    ids.insert(ids.begin(), 1);
    ids.insert(ids.begin() + 2, 3);
    ids.push_back(2);
    ids.push_back(0);
    const std::string text = tok.decode(ids);
    EXPECT_NE(text.find("<unk>"), std::string::npos) << text;
    EXPECT_EQ(text.find("<bos>"), std::string::npos) << text;
    EXPECT_THROW(tok.decode({100000}), std::out_of_range);
}

TEST(Subword, LoneBytePiecesDecodeAsReplacementCharacter) {
    const Tokenizer tok = shared_tokenizer();
    const int first_byte_of_fox = tok.vocabulary().id("<0xF0>");
    ASSERT_GE(first_byte_of_fox, 0);
    EXPECT_EQ(tok.decode({first_byte_of_fox}), "\xEF\xBF\xBD");
}

TEST(Subword, BadModelsAreRefused) {
    EXPECT_NE(message_of([] { Tokenizer::sentencepiece(""); }).find("empty"), std::string::npos);
    EXPECT_NE(message_of([] { Tokenizer::sentencepiece("not a model"); }).find("not a valid SentencePiece model"),
              std::string::npos);
    EXPECT_THROW(Tokenizer(TokenizerKind::SentencePiece, Vocabulary({"<pad>", "<bos>", "<eos>", "<unk>"})),
                 std::invalid_argument);
    EXPECT_THROW(train_sentencepiece({}, 400), std::invalid_argument);
    EXPECT_THROW(train_sentencepiece(training_sentences(), 10), std::invalid_argument);
}

Checkpoint subword_checkpoint() {
    const Tokenizer tok = shared_tokenizer();
    Checkpoint c;
    c.vocabulary = tok.vocabulary().tokens();
    c.tokenizer_model = tok.model();
    c.config.tokenizer = TokenizerKind::SentencePiece;
    c.config.src_vocab = c.config.tgt_vocab = tok.vocabulary().size();
    c.config.d_model = 8;
    c.config.heads = 2;
    c.config.d_ff = 16;
    c.config.encoder_layers = c.config.decoder_layers = 1;
    c.config.max_len = 16;
    c.parameters = init_parameters(ParameterTable(c.config), 3);
    return c;
}

TEST(Subword, CheckpointCarriesTheModel) {
    const std::string path = subword_temp_path("ok.safetensors");
    const Checkpoint saved = subword_checkpoint();
    save_checkpoint(path, saved);
    const Checkpoint loaded = load_checkpoint(path);
    EXPECT_EQ(loaded.tokenizer_model, saved.tokenizer_model);
    EXPECT_EQ(loaded.vocabulary, saved.vocabulary);
    EXPECT_EQ(loaded.parameters, saved.parameters);
    const Tokenizer tok = make_tokenizer(loaded);
    EXPECT_EQ(tok.decode(tok.encode("Seven quiet foxes")), "Seven quiet foxes");
    // Stored as the documented U8 tensor, readable by any safetensors reader.
    const SafetensorsFile file = read_safetensors(path);
    const NamedTensor* model = file.find(TOKENIZER_MODEL_TENSOR);
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->dtype, "U8");
    EXPECT_EQ(model->shape, (std::vector<int64_t>{static_cast<int64_t>(saved.tokenizer_model.size())}));
    fs::remove(path);
}

// Writes the checkpoint's tensors as they are, bypassing save_checkpoint's checks.
void write_raw(const std::string& path, const Checkpoint& c, bool with_model, const std::string& model_bytes) {
    Checkpoint valid = c;
    valid.tokenizer_model = shared_model();
    const std::string good = subword_temp_path("good.safetensors");
    save_checkpoint(good, valid);
    SafetensorsFile file = read_safetensors(good);
    fs::remove(good);
    auto it = std::find_if(file.tensors.begin(), file.tensors.end(),
                           [](const NamedTensor& t) { return t.name == TOKENIZER_MODEL_TENSOR; });
    if (!with_model) {
        file.tensors.erase(it);
    } else {
        it->bytes.assign(model_bytes.begin(), model_bytes.end());
        it->shape = {static_cast<int64_t>(model_bytes.size())};
    }
    write_safetensors(path, file);
}

TEST(Subword, BrokenCheckpointsNameTheProblem) {
    const std::string path = subword_temp_path("bad.safetensors");
    const Checkpoint c = subword_checkpoint();

    write_raw(path, c, false, "");
    EXPECT_NE(message_of([&] { load_checkpoint(path); }).find("no 'tokenizer.model' tensor"), std::string::npos);

    write_raw(path, c, true, "garbage bytes");
    const std::string corrupt = message_of([&] { load_checkpoint(path); });
    EXPECT_NE(corrupt.find(path), std::string::npos) << corrupt;
    EXPECT_NE(corrupt.find("not a valid SentencePiece model"), std::string::npos) << corrupt;

    // A model whose pieces are not the vocabulary (another size).
    const std::string other = train_sentencepiece(training_sentences(), 350);
    write_raw(path, c, true, other);
    const std::string mismatch = message_of([&] { load_checkpoint(path); });
    EXPECT_NE(mismatch.find("pieces but the vocabulary has"), std::string::npos) << mismatch;

    // Saving refuses the same mistakes before anything is written.
    Checkpoint no_model = c;
    no_model.tokenizer_model.clear();
    EXPECT_THROW(save_checkpoint(path + ".2", no_model), SafetensorsError);
    EXPECT_FALSE(fs::exists(path + ".2"));
    fs::remove(path);
}

TEST(ParallelCorpus, ReadsPairsAndNamesBadLines) {
    const std::string path = subword_temp_path("pairs.tsv");
    write_text_file(path, "\xEF\xBB\xBFThe cat.\tEl gato.\r\n\nI see.\tVeo.\n");
    const auto pairs = read_parallel_corpus(path);
    ASSERT_EQ(pairs.size(), 2u);
    EXPECT_EQ(pairs[0].source, "The cat.");
    EXPECT_EQ(pairs[0].target, "El gato.");
    EXPECT_EQ(pairs[1].line, 3);

    const std::pair<std::string, std::string> bad[] = {
        {"a\tb\nno tab here\n", ":2: no tab"},
        {"a\tb\tc\n", ":1: more than one tab"},
        {"a\tb\n \tb\n", ":2: the source sentence"},
        {"a\t\n", ":1: the target sentence"},
        {"a\t\xFF\n", ":1: not valid UTF-8"},
        {"a\x01\tb\n", ":1: a control character"},
        {"\n\n", "no sentence pairs"},
    };
    for (const auto& [text, expected] : bad) {
        write_text_file(path, text);
        const std::string message = message_of([&] { read_parallel_corpus(path); });
        EXPECT_NE(message.find(expected), std::string::npos) << message;
        EXPECT_NE(message.find(path), std::string::npos) << message;
    }
    EXPECT_NE(message_of([] { read_parallel_corpus("/nonexistent/pairs.tsv"); }).find("cannot open"), std::string::npos);
    fs::remove(path);
}

// A small corpus of made-up pairs of different lengths, for the task tests.
std::string write_toy_corpus(int pairs) {
    const std::string path = subword_temp_path("toy.tsv");
    std::ofstream out(path);
    const char* words[] = {"red", "car", "house", "dog", "sees", "small", "white", "the", "big", "reads"};
    Rng rng(7);
    for (int i = 0; i < pairs; ++i) {
        std::string en, es;
        const int n = 1 + static_cast<int>(rng.uniform(8));
        for (int k = 0; k < n; ++k) {
            en += std::string(k ? " " : "") + words[rng.uniform(10)];
            es = words[rng.uniform(10)] + std::string(k ? " " : "") + es;
        }
        out << en << " " << i << "\t" << es << "\n";
    }
    return path;
}

TrainingConfig toy_translate(const std::string& data) {
    TrainingConfig t;
    t.task = TaskKind::Translate;
    t.data_path = data;
    t.valid_path.clear();
    t.subword_vocab = 300;
    t.eval_sequences = 30;
    return t;
}

TEST(TranslateTask, HoldsOutEveryTwentiethPair) {
    const std::string data = write_toy_corpus(1000);
    const Task task(toy_translate(data), 64);
    EXPECT_EQ(task.tokenizer().kind(), TokenizerKind::SentencePiece);
    EXPECT_EQ(task.held_out().size(), 30u);
    EXPECT_EQ(task.training_pairs().size(), 950u);
    for (const Example& e : task.training_pairs()) EXPECT_FALSE(task.in_held_out(e.input));
    // Pair 19 (the first held out) is "<words> 19".
    EXPECT_NE(task.text(task.held_out().front().input).find(" 19"), std::string::npos);
    fs::remove(data);
}

TEST(TranslateTask, BatchesAreGroupedByLengthAndCoverAnEpoch) {
    const std::string data = write_toy_corpus(2000);
    Task task(toy_translate(data), 64);
    const size_t pairs = task.training_pairs().size();
    const int rows = 10;
    std::multiset<std::vector<int>> seen;
    double spread_grouped = 0;
    int batches = 0;
    while (seen.size() < pairs) {
        const Batch b = task.next_batch(rows);
        size_t lo = 1000, hi = 0;
        for (const auto& src : b.src) {
            seen.insert(std::vector<int>(src.begin(), src.end() - 1));
            lo = std::min(lo, src.size());
            hi = std::max(hi, src.size());
        }
        spread_grouped += static_cast<double>(hi - lo);
        ++batches;
    }
    // One epoch: every training pair exactly once.
    std::multiset<std::vector<int>> expected;
    for (const Example& e : task.training_pairs()) expected.insert(e.input);
    EXPECT_EQ(seen, expected);
    // Sources in a batch differ in length by about a token, against ~10 for random batches.
    EXPECT_LT(spread_grouped / batches, 2.0);
    // Same seed, same stream.
    task.restart();
    Task again(toy_translate(data), 64);
    EXPECT_EQ(task.next_batch(rows).src, again.next_batch(rows).src);
    fs::remove(data);
}

TEST(TranslateTask, ReportsBadDataByLine) {
    const std::string path = subword_temp_path("broken.tsv");
    write_text_file(path, "one\tuno\ntwo dos\n");
    const std::string message = message_of([&] { Task(toy_translate(path), 64); });
    EXPECT_NE(message.find(":2: no tab"), std::string::npos) << message;
    write_text_file(path, "one\tuno\n");
    EXPECT_NE(message_of([&] { Task(toy_translate(path), 64); }).find("fewer than 20 pairs"), std::string::npos);
    fs::remove(path);
}

}  // namespace
}  // namespace tx
