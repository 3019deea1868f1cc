// Word alignments from cross-attention (alignment.h). Pieces are mapped to words by byte
// offsets: a piece belongs to the word that holds its first non-space byte (a lone "▁" piece to
// the word after it), so "▁dorm" + "irán" both count for "dormirán".
#include "tx/alignment.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "tx/bleu.h"

namespace tx {

namespace {

struct Span {
    size_t begin, end;
};

// The byte spans of bleu_words(text), in order (each word is a substring of the text).
std::vector<Span> word_spans(const std::string& text) {
    std::vector<Span> spans;
    size_t pos = 0;
    for (const std::string& w : bleu_words(text)) {
        const size_t at = text.find(w, pos);
        if (at == std::string::npos) break;   // cannot happen: words are substrings, in order
        spans.push_back({at, at + w.size()});
        pos = at + w.size();
    }
    return spans;
}

// Word index of each token; -1 for a token after the last word.
std::vector<int> token_words(const std::string& text, const std::vector<Token>& tokens, const std::vector<Span>& words) {
    std::vector<int> out;
    for (const Token& t : tokens) {
        size_t p = t.begin;
        while (p < t.end && text[p] == ' ') ++p;
        int word = -1;
        for (size_t w = 0; w < words.size(); ++w)
            if (words[w].end > p) {
                word = static_cast<int>(w);
                break;
            }
        out.push_back(word);
    }
    return out;
}

std::vector<std::pair<int, int>> parse_links(const std::string& text, const std::string& where) {
    std::vector<std::pair<int, int>> links;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t end = std::min(text.find(' ', pos), text.size());
        const std::string link = text.substr(pos, end - pos);
        pos = end + 1;
        if (link.empty()) continue;
        const size_t dash = link.find('-');
        try {
            if (dash == std::string::npos) throw std::invalid_argument(link);
            size_t used = 0;
            const int t = std::stoi(link.substr(0, dash), &used);
            if (used != dash) throw std::invalid_argument(link);
            const int s = std::stoi(link.substr(dash + 1), &used);
            if (used != link.size() - dash - 1 || t < 0 || s < 0) throw std::invalid_argument(link);
            links.emplace_back(t, s);
        } catch (const std::exception&) {
            throw std::runtime_error(where + ": link '" + link + "' is not target-source word indices (as 3-1)");
        }
    }
    return links;
}

}  // namespace

std::vector<int> piece_words(const std::string& text, const std::vector<Token>& tokens) {
    return token_words(text, tokens, word_spans(text));
}

std::vector<AlignmentProbe> read_alignment_probes(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open the alignment probes '" + path + "'");
    std::vector<AlignmentProbe> probes;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        const std::string where = path + ":" + std::to_string(number);
        const size_t a = line.find('\t'), b = a == std::string::npos ? a : line.find('\t', a + 1);
        if (b == std::string::npos) throw std::runtime_error(where + ": expected source<TAB>target<TAB>links");
        AlignmentProbe p{line.substr(0, a), line.substr(a + 1, b - a - 1), parse_links(line.substr(b + 1), where)};
        const size_t source_words = bleu_words(p.source).size(), target_words = bleu_words(p.target).size();
        for (const auto& [t, s] : p.links)
            if (static_cast<size_t>(t) >= target_words || static_cast<size_t>(s) >= source_words)
                throw std::runtime_error(where + ": link " + std::to_string(t) + "-" + std::to_string(s) +
                                         " is outside the sentences' words");
        probes.push_back(std::move(p));
    }
    return probes;
}

std::vector<std::vector<double>> word_cross_attention(Transformer& model, const Tokenizer& tokenizer,
                                                      const std::string& source, const std::string& target,
                                                      int layer, QueryRow rows) {
    const ModelConfig& c = model.config();
    const std::vector<Token> src_tokens = tokenizer.tokenize(source), tgt_tokens = tokenizer.tokenize(target);
    const std::vector<Span> src_words = word_spans(source), tgt_words = word_spans(target);
    const std::vector<int> src_word = token_words(source, src_tokens, src_words);
    const std::vector<int> tgt_word = token_words(target, tgt_tokens, tgt_words);

    std::vector<int> src{}, tgt{c.special.bos};
    for (const Token& t : src_tokens) src.push_back(t.id);
    src.push_back(c.special.eos);
    for (const Token& t : tgt_tokens) tgt.push_back(t.id);
    const bool training = model.options().training;
    model.options().training = false;
    model.set_batch({src}, {tgt});
    model.forward();
    model.options().training = training;

    const int H = c.heads, S = static_cast<int>(src.size()), T = static_cast<int>(tgt.size());
    std::vector<double> attention(static_cast<size_t>(T) * S, 0.0);   // [T, S], averaged over heads and layers
    const int first = layer < 0 ? 0 : layer, last = layer < 0 ? c.decoder_layers - 1 : layer;
    for (int l = first; l <= last; ++l) {
        const size_t step = model.find_step("decoder.layers." + std::to_string(l) + ".cross_attn.probs");
        if (step == model.step_count()) throw std::invalid_argument("no cross-attention in decoder layer " + std::to_string(l));
        const std::vector<float> probs = model.step_output(step);   // [1, H, T, S]
        const double weight = 1.0 / (H * (last - first + 1));
        for (size_t i = 0; i < attention.size(); ++i)
            for (int h = 0; h < H; ++h) attention[i] += weight * probs[static_cast<size_t>(h) * T * S + i];
    }

    std::vector<std::vector<double>> words(tgt_words.size(), std::vector<double>(src_words.size(), 0.0));
    std::vector<int> pieces(tgt_words.size(), 0);
    for (size_t p = 0; p < tgt_tokens.size(); ++p) {
        const int w = tgt_word[p];
        if (w < 0) continue;
        const size_t row = rows == QueryRow::Producing ? p : p + 1;
        ++pieces[static_cast<size_t>(w)];
        for (size_t k = 0; k < src_tokens.size(); ++k)
            if (src_word[k] >= 0) words[static_cast<size_t>(w)][static_cast<size_t>(src_word[k])] += attention[row * S + k];
    }
    for (size_t w = 0; w < words.size(); ++w)
        if (pieces[w] > 0)
            for (double& a : words[w]) a /= pieces[w];
    return words;
}

AlignmentScore score_alignments(Transformer& model, const Tokenizer& tokenizer,
                                const std::vector<AlignmentProbe>& probes, int layer, QueryRow rows) {
    AlignmentScore score;
    for (const AlignmentProbe& p : probes) {
        const auto words = word_cross_attention(model, tokenizer, p.source, p.target, layer, rows);
        for (const auto& [t, s] : p.links) {
            const auto& row = words[static_cast<size_t>(t)];
            ++score.links;
            score.correct += static_cast<int>(std::max_element(row.begin(), row.end()) - row.begin()) == s;
        }
    }
    return score;
}

}  // namespace tx
