// Pronoun probes (pronoun_probe.h): agreement of the translated adjective, and which heads point
// the pronoun, or the adjective being written, at the noun it refers to.
#include "tx/pronoun_probe.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <fstream>
#include <stdexcept>

#include "tx/alignment.h"
#include "tx/bleu.h"
#include "tx/decoding.h"
#include "tx/length_limits.h"

namespace tx {

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> out;
    size_t pos = 0;
    for (;;) {
        const size_t tab = line.find('\t', pos);
        out.push_back(line.substr(pos, tab == std::string::npos ? std::string::npos : tab - pos));
        if (tab == std::string::npos) return out;
        pos = tab + 1;
    }
}

int word_index(const std::string& text, size_t words, const std::string& where, const char* what) {
    size_t used = 0;
    int value = -1;
    try {
        value = std::stoi(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || value < 0 || static_cast<size_t>(value) >= words)
        throw std::runtime_error(where + ": the " + what + " index '" + text + "' is not a word of its sentence (0.." +
                                 std::to_string(words) + ")");
    return value;
}

// Attention summed over the key pieces of `key_word`, averaged over the query pieces of `query_word`.
// probs is one head's [rows, keys] block; query_rows lists the rows that stand for the query word.
double word_weight(const float* probs, int keys, const std::vector<int>& query_rows, const std::vector<int>& key_word_of,
                   int key_word) {
    double total = 0.0;
    for (int row : query_rows)
        for (int k = 0; k < keys && k < static_cast<int>(key_word_of.size()); ++k)
            if (key_word_of[static_cast<size_t>(k)] == key_word) total += probs[static_cast<size_t>(row) * keys + k];
    return query_rows.empty() ? 0.0 : total / static_cast<double>(query_rows.size());
}

// Adds, for each layer and head, whether the referent outweighs the other noun.
void count_wins(Transformer& model, const std::string& step_format, int layers, int heads, int rows, int keys,
                const std::vector<int>& query_rows, const std::vector<int>& key_words, const PronounProbe& p,
                HeadShares& shares) {
    for (int l = 0; l < layers; ++l) {
        std::string name = step_format;
        name.replace(name.find("{}"), 2, std::to_string(l));
        const size_t step = model.find_step(name);
        if (step == model.step_count()) throw std::invalid_argument("the model has no step '" + name + "'");
        const std::vector<float> probs = model.step_output(step);   // [1, H, rows, keys]
        for (int h = 0; h < heads; ++h) {
            const float* block = probs.data() + static_cast<size_t>(h) * rows * keys;
            const double to_referent = word_weight(block, keys, query_rows, key_words, p.referent);
            const double to_other = word_weight(block, keys, query_rows, key_words, p.other);
            shares.referent_wins[static_cast<size_t>(l * heads + h)] += to_referent > to_other;
            shares.margin[static_cast<size_t>(l * heads + h)] += to_referent - to_other;   // a sum until the end
        }
    }
    ++shares.probes;
}

}  // namespace

std::vector<PronounProbe> read_pronoun_probes(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open the pronoun probes '" + path + "'");
    std::vector<PronounProbe> probes;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        const std::string where = path + ":" + std::to_string(number);
        const std::vector<std::string> f = split_tabs(line);
        if (f.size() != 7)
            throw std::runtime_error(where + ": expected 7 tab-separated columns (English, Spanish, pronoun, referent, other, "
                                     "adjective, m|f), found " + std::to_string(f.size()));
        PronounProbe p;
        p.source = f[0];
        p.target = f[1];
        p.line = number;
        const size_t source_words = bleu_words(p.source).size(), target_words = bleu_words(p.target).size();
        p.pronoun = word_index(f[2], source_words, where, "pronoun");
        p.referent = word_index(f[3], source_words, where, "referent");
        p.other = word_index(f[4], source_words, where, "other noun");
        p.target_adjective = word_index(f[5], target_words, where, "adjective");
        if (p.pronoun == p.referent || p.pronoun == p.other || p.referent == p.other)
            throw std::runtime_error(where + ": the pronoun, the referent and the other noun must be three different words");
        if (f[6] != "m" && f[6] != "f") throw std::runtime_error(where + ": the gender must be m or f, not '" + f[6] + "'");
        p.gender = f[6][0];
        probes.push_back(std::move(p));
    }
    if (probes.empty()) throw std::runtime_error(path + ": no pronoun probes");
    return probes;
}

std::string other_gender_form(const std::string& a) {
    const auto ends = [&](const char* tail) {
        const size_t n = std::char_traits<char>::length(tail);
        return a.size() > n && a.compare(a.size() - n, n, tail) == 0;
    };
    if (ends("os")) return a.substr(0, a.size() - 2) + "as";
    if (ends("as")) return a.substr(0, a.size() - 2) + "os";
    if (ends("o")) return a.substr(0, a.size() - 1) + "a";
    if (ends("a")) return a.substr(0, a.size() - 1) + "o";
    return "";
}

namespace {

struct PairGroup {
    std::set<int> referents;   // the word indices "it" refers to across the group
    bool all_agree = true;
};

// The English words without the last one that is not punctuation: "The animal … too tired." and
// "… too wide." share it.
std::string pair_key(const std::string& source) {
    std::vector<std::string> words = bleu_words(source);
    for (size_t i = words.size(); i-- > 0;)
        if (std::isalnum(static_cast<unsigned char>(words[i].front()))) {
            words.erase(words.begin() + static_cast<std::ptrdiff_t>(i));
            break;
        }
    std::string key;
    for (const std::string& w : words) key += w + " ";
    return key;
}

}  // namespace

PronounReport score_pronouns(Transformer& model, const Tokenizer& tokenizer, const std::vector<PronounProbe>& probes,
                             bool decode) {
    const ModelConfig& c = model.config();
    if (c.arch == Arch::DecoderOnly || c.encoder_layers == 0)
        throw std::invalid_argument("pronoun probes need an encoder-decoder model: a decoder-only one reads no source");
    PronounReport r;
    const auto shares = [&](int layers) {
        const auto n = static_cast<size_t>(layers * c.heads);
        return HeadShares{layers, c.heads, std::vector<int>(n, 0), std::vector<double>(n, 0.0), 0};
    };
    r.encoder_self = shares(c.encoder_layers);
    r.cross = shares(c.decoder_layers);
    const bool training = model.options().training;
    model.options().training = false;
    // The pairs: probes whose English differs only in its last word ("…too tired." / "…too wide.").
    std::map<std::string, PairGroup> pairs;
    for (const PronounProbe& p : probes) {
        const std::vector<Token> src_tokens = tokenizer.tokenize(p.source), tgt_tokens = tokenizer.tokenize(p.target);
        const std::vector<int> src_words = piece_words(p.source, src_tokens);
        const std::vector<int> tgt_words = piece_words(p.target, tgt_tokens);
        std::vector<int> src, tgt{c.special.bos};
        for (const Token& t : src_tokens) src.push_back(t.id);
        src.push_back(c.special.eos);
        for (const Token& t : tgt_tokens) tgt.push_back(t.id);
        std::vector<int> key_words = src_words;
        key_words.push_back(-1);   // EOS belongs to no word
        const int S = static_cast<int>(src.size()), T = static_cast<int>(tgt.size());

        // Rows that stand for the pronoun (its pieces) and for the adjective (the row that writes
        // its first piece: its input is the previous piece, BOS for the first).
        std::vector<int> pronoun_rows, adjective_rows;
        for (int i = 0; i < static_cast<int>(src_words.size()); ++i)
            if (src_words[static_cast<size_t>(i)] == p.pronoun) pronoun_rows.push_back(i);
        for (int i = 0; i < static_cast<int>(tgt_words.size()); ++i)
            if (tgt_words[static_cast<size_t>(i)] == p.target_adjective) {
                adjective_rows.push_back(i);
                break;
            }
        model.set_batch({src}, {tgt});
        model.forward();
        count_wins(model, "encoder.layers.{}.self_attn.probs", c.encoder_layers, c.heads, S, S, pronoun_rows, key_words, p,
                   r.encoder_self);
        count_wins(model, "decoder.layers.{}.cross_attn.probs", c.decoder_layers, c.heads, T, S, adjective_rows, key_words,
                   p, r.cross);

        ++r.probes;
        const std::vector<std::string> target_words = bleu_words(p.target);
        const std::string& adjective = target_words[static_cast<size_t>(p.target_adjective)];
        const bool marked = !other_gender_form(adjective).empty();
        r.marked += marked;
        if (decode) {
            const int max_new = translation_limit(S, c.max_len);
            const std::vector<int> out = greedy_decode(model, {src}, max_new).front();
            const std::vector<std::string> words = bleu_words(tokenizer.decode(out));
            const bool agrees = std::find(words.begin(), words.end(), adjective) != words.end();
            r.agreeing += agrees;
            r.marked_agreeing += marked && agrees;
            PairGroup& group = pairs[pair_key(p.source)];
            group.referents.insert(p.referent);
            group.all_agree = group.all_agree && agrees;
        }
    }
    for (const auto& [key, group] : pairs)
        if (group.referents.size() > 1) {
            ++r.pairs;
            r.pairs_agreeing += group.all_agree;
        }
    model.options().training = training;
    for (HeadShares* h : {&r.encoder_self, &r.cross})
        for (double& m : h->margin) m /= std::max(h->probes, 1);
    return r;
}

}  // namespace tx
