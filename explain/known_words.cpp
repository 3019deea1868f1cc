// Known words (see known_words.h): read once per model from its training corpus, never per frame.
#include "known_words.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "tx/asset_paths.h"
#include "tx/parallel_corpus.h"
#include "tx/tasks.h"
#include "tx/training_config.h"

namespace fs = std::filesystem;

namespace tx::explain {

namespace {

// Punctuation that hugs a word in the corpora: ASCII marks and Spanish ¿ ¡, guillemets, curly quotes.
size_t punct_prefix(const std::string& w, size_t i) {
    const auto c = static_cast<unsigned char>(w[i]);
    if (c < 0x80) return std::isalnum(c) ? 0 : 1;
    static const char* marks[] = {"\xC2\xBF", "\xC2\xA1", "\xC2\xAB", "\xC2\xBB", "\xE2\x80\x9C", "\xE2\x80\x9D",
                                  "\xE2\x80\x98", "\xE2\x80\x99", "\xE2\x80\xA6"};
    for (const char* m : marks)
        if (w.compare(i, std::char_traits<char>::length(m), m) == 0) return std::char_traits<char>::length(m);
    return 0;
}

size_t punct_suffix(const std::string& w, size_t end) {
    const auto c = static_cast<unsigned char>(w[end - 1]);
    if (c < 0x80) return std::isalnum(c) ? 0 : 1;
    for (size_t n : {2u, 3u})
        if (end >= n && punct_prefix(w, end - n) == n) return n;
    return 0;
}

std::string locate(const std::string& path, const std::function<std::string(const std::string&)>& resolve_asset) {
    if (path.empty()) return "";
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) return path;
    // A record written elsewhere ("assets/corpus/...", or another checkout's absolute path): the
    // same file inside this installation's assets.
    if (const size_t at = path.rfind("assets/"); at != std::string::npos) {
        const std::string inside = resolve_asset(path.substr(at + 7));
        if (fs::is_regular_file(inside, ec)) return inside;
    }
    const std::string found = find_asset(path);
    return fs::is_regular_file(found, ec) ? found : "";
}

std::vector<std::string> split_spaces(const std::string& s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        size_t j = i;
        while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

}  // namespace

std::string word_key(const std::string& word) {
    size_t b = 0, e = word.size();
    while (b < e) {
        const size_t n = punct_prefix(word, b);
        if (n == 0) break;
        b += n;
    }
    while (e > b) {
        const size_t n = punct_suffix(word, e);
        if (n == 0 || e - n < b) break;
        e -= n;
    }
    return word.substr(b, e - b);
}

std::vector<WordPieces> group_words(const std::vector<Token>& tokens, const std::string& text) {
    std::vector<WordPieces> words;
    const bool offsets = !tokens.empty() && tokens.back().end > 0 && tokens.back().end <= text.size();
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (words.empty() || tokens[i].word_start) words.emplace_back();
        words.back().pieces.push_back(static_cast<int>(i));
    }
    for (WordPieces& w : words) {
        if (offsets) {
            const Token& first = tokens[static_cast<size_t>(w.pieces.front())];
            const Token& last = tokens[static_cast<size_t>(w.pieces.back())];
            w.text = text.substr(first.begin, last.end - first.begin);
        } else {
            for (int p : w.pieces) w.text += tokens[static_cast<size_t>(p)].text;
        }
        const size_t b = w.text.find_first_not_of(" \t");
        const size_t e = w.text.find_last_not_of(" \t");
        w.text = b == std::string::npos ? std::string() : w.text.substr(b, e - b + 1);
    }
    return words;
}

KnownWords load_known_words(const std::string& training_json, TokenizerKind tokenizer,
                            const std::function<std::string(const std::string&)>& resolve_asset) {
    KnownWords k;
    if (training_json.empty()) {
        k.unavailable = "this model has no training record, so which words it saw cannot be told";
        return k;
    }
    TrainingConfig t;
    try {
        t = training_config_from_json(training_json);
    } catch (const std::exception& e) {
        k.unavailable = std::string("its training record cannot be read (") + e.what() + ")";
        return k;
    }
    if (t.task != TaskKind::Translate && t.task != TaskKind::Lm) {   // lm reads the same source column
        k.unavailable = std::string("it was trained on the ") + to_string(t.task) + " task, not on a corpus of sentences" +
                        (tokenizer == TokenizerKind::SentencePiece ? "" : ": words outside its vocabulary show as UNK (red)");
        return k;
    }
    k.corpus = locate(t.data_path, resolve_asset);
    if (k.corpus.empty()) {
        k.unavailable = "its training corpus (" + t.data_path + ") is not on this computer";
        return k;
    }
    try {
        const std::vector<SentencePair> pairs = read_parallel_corpus(k.corpus);
        for (size_t i = 0; i < pairs.size(); ++i) {
            // As the translate and lm tasks: with no validation file, every 20th pair was held out, not trained on.
            if (t.valid_path.empty() && i % 20 == 19) continue;
            ++k.sentences;
            for (const std::string& w : split_spaces(pairs[i].source)) {
                std::string key = word_key(w);
                if (!key.empty()) k.set.insert(std::move(key));
            }
        }
    } catch (const std::exception& e) {
        k = KnownWords{};
        k.unavailable = std::string("its training corpus cannot be read (") + e.what() + ")";
        return k;
    }
    k.words.assign(k.set.begin(), k.set.end());
    std::sort(k.words.begin(), k.words.end());
    // The corpus's test split, when it sits beside the training file (assets/corpus/en-es/test.tsv,
    // or compressed as the everyday corpus ships it: test.tsv.gz).
    fs::path test = fs::path(k.corpus).parent_path() / "test.tsv";
    std::error_code ec;
    if (!fs::is_regular_file(test, ec)) test += ".gz";
    if (fs::is_regular_file(test, ec)) {
        try {
            for (SentencePair& p : read_parallel_corpus(test.string())) k.test_sentences.push_back(std::move(p.source));
            k.test_file = test.string();
        } catch (const std::exception&) {
            k.test_sentences.clear();   // the button says there is no test split
        }
    }
    return k;
}

}  // namespace tx::explain
