// Corpus BLEU as NLTK computes it (bleu.h lists its rules), and the word split used for it.
#include "tx/bleu.h"

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace tx {

namespace {

constexpr int MAX_ORDER = 4;

using WordNgramCounts = std::map<std::vector<std::string>, long long>;

WordNgramCounts count_ngrams(const std::vector<std::string>& words, size_t n) {
    WordNgramCounts counts;
    for (size_t i = 0; i + n <= words.size(); ++i)
        ++counts[std::vector<std::string>(words.begin() + static_cast<std::ptrdiff_t>(i),
                                          words.begin() + static_cast<std::ptrdiff_t>(i + n))];
    return counts;
}

// One code point of UTF-8 starting at text[i]: its value and byte length. An invalid or
// truncated sequence is one byte long with value -1.
std::pair<long, size_t> next_code_point(const std::string& text, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b = byte(i);
    if (b < 0x80) return {b, 1};
    size_t len = 0;
    long cp = 0;
    if ((b & 0xE0) == 0xC0) len = 2, cp = b & 0x1F;
    else if ((b & 0xF0) == 0xE0) len = 3, cp = b & 0x0F;
    else if ((b & 0xF8) == 0xF0) len = 4, cp = b & 0x07;
    else return {-1, 1};
    if (i + len > text.size()) return {-1, 1};
    for (size_t k = 1; k < len; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return {-1, 1};
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    return {cp, len};
}

enum class CharClass { Space, Word, Punct };

CharClass classify(long cp) {
    if (cp < 0) return CharClass::Word;   // an invalid byte stays inside its word
    if (cp <= 0x20 || cp == 0x7F) return CharClass::Space;
    if (cp < 0x80) {
        const bool alnum = (cp >= '0' && cp <= '9') || (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z');
        return alnum ? CharClass::Word : CharClass::Punct;
    }
    switch (cp) {
        case 0xA1: case 0xBF:       // ¡ ¿
        case 0xAB: case 0xBB:       // « »
        case 0x2013: case 0x2014:   // – —
        case 0x2018: case 0x2019:   // ‘ ’
        case 0x201C: case 0x201D:   // “ ”
        case 0x2026:                // …
            return CharClass::Punct;
        default:
            return CharClass::Word;
    }
}

}  // namespace

BleuDetails corpus_bleu_details(const std::vector<std::vector<std::string>>& hypotheses,
                                const std::vector<std::vector<std::string>>& references) {
    if (hypotheses.size() != references.size())
        throw std::invalid_argument("corpus BLEU needs one reference per hypothesis; got " +
                                    std::to_string(hypotheses.size()) + " hypotheses and " +
                                    std::to_string(references.size()) + " references");
    BleuDetails d;
    for (size_t s = 0; s < hypotheses.size(); ++s) {
        const auto& hyp = hypotheses[s];
        const auto& ref = references[s];
        for (int n = 1; n <= MAX_ORDER; ++n) {
            const WordNgramCounts hyp_counts = count_ngrams(hyp, static_cast<size_t>(n));
            const WordNgramCounts ref_counts = count_ngrams(ref, static_cast<size_t>(n));
            long long hyp_total = 0;
            for (const auto& [ngram, count] : hyp_counts) {
                hyp_total += count;
                const auto it = ref_counts.find(ngram);
                if (it != ref_counts.end()) d.matches[n - 1] += std::min(count, it->second);
            }
            // NLTK's modified_precision: "denominator is minimum 1 to avoid ZeroDivisionError".
            d.total[n - 1] += std::max(1LL, hyp_total);
        }
        d.hyp_length += static_cast<long long>(hyp.size());
        d.ref_length += static_cast<long long>(ref.size());
    }
    for (int n = 0; n < MAX_ORDER; ++n)
        d.precision[n] = d.total[n] > 0 ? static_cast<double>(d.matches[n]) / static_cast<double>(d.total[n]) : 0.0;
    if (d.hyp_length > d.ref_length) d.brevity_penalty = 1.0;
    else if (d.hyp_length == 0) d.brevity_penalty = 0.0;
    else d.brevity_penalty = std::exp(1.0 - static_cast<double>(d.ref_length) / static_cast<double>(d.hyp_length));
    if (d.matches[0] == 0) return d;   // NLTK: "Returns 0 if there's no matching n-grams"
    double log_sum = 0.0;
    for (int n = 0; n < MAX_ORDER; ++n) {
        // NLTK's SmoothingFunction.method0 stands in the smallest positive double for a zero precision.
        const double p = d.matches[n] > 0 ? d.precision[n] : std::numeric_limits<double>::min();
        log_sum += std::log(p) / MAX_ORDER;
    }
    d.bleu = d.brevity_penalty * std::exp(log_sum);
    return d;
}

double corpus_bleu(const std::vector<std::vector<std::string>>& hypotheses,
                   const std::vector<std::vector<std::string>>& references) {
    return corpus_bleu_details(hypotheses, references).bleu;
}

std::vector<std::string> bleu_words(const std::string& text) {
    std::vector<std::string> words;
    std::string word;
    const auto flush = [&] {
        if (!word.empty()) words.push_back(std::move(word));
        word.clear();
    };
    for (size_t i = 0; i < text.size();) {
        const auto [cp, len] = next_code_point(text, i);
        switch (classify(cp)) {
            case CharClass::Space: flush(); break;
            case CharClass::Word: word.append(text, i, len); break;
            case CharClass::Punct:
                flush();
                words.push_back(text.substr(i, len));
                break;
        }
        i += len;
    }
    flush();
    return words;
}

}  // namespace tx
