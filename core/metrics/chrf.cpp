// Corpus chrF as sacreBLEU 2.x computes it (chrf.h lists its rules): character n-gram statistics
// per sentence, summed over the corpus, then one F-beta of the averaged precision and recall.
#include "tx/chrf.h"

#include <stdexcept>
#include <unordered_map>

namespace tx {

namespace {

using CharNgramCounts = std::unordered_map<std::u32string, long long>;

// Python's str.isspace(), which str.split() uses: sacreBLEU removes these with "".join(line.split()).
bool is_python_space(char32_t cp) {
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
           cp == 0x3000;
}

// The sentence as code points, whitespace dropped. An invalid or truncated UTF-8 sequence gives one
// character per byte, above the Unicode range so that it never equals a real code point.
std::u32string characters_without_space(const std::string& text) {
    std::u32string out;
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    for (size_t i = 0; i < text.size();) {
        const unsigned char b = byte(i);
        size_t len = 0;
        char32_t cp = 0;
        if (b < 0x80) len = 1, cp = b;
        else if ((b & 0xE0) == 0xC0) len = 2, cp = b & 0x1F;
        else if ((b & 0xF0) == 0xE0) len = 3, cp = b & 0x0F;
        else if ((b & 0xF8) == 0xF0) len = 4, cp = b & 0x07;
        bool valid = len > 0 && i + len <= text.size();
        for (size_t k = 1; valid && k < len; ++k) {
            if ((byte(i + k) & 0xC0) != 0x80) valid = false;
            else cp = (cp << 6) | (byte(i + k) & 0x3F);
        }
        if (!valid) {
            out.push_back(0x110000 + b);
            i += 1;
            continue;
        }
        if (!is_python_space(cp)) out.push_back(cp);
        i += len;
    }
    return out;
}

CharNgramCounts count_ngrams(const std::u32string& chars, size_t n) {
    CharNgramCounts counts;
    for (size_t i = 0; i + n <= chars.size(); ++i) ++counts[chars.substr(i, n)];
    return counts;
}

}  // namespace

ChrfDetails corpus_chrf_details(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    if (hypotheses.size() != references.size())
        throw std::invalid_argument("corpus chrF needs one reference per hypothesis; got " +
                                    std::to_string(hypotheses.size()) + " hypotheses and " +
                                    std::to_string(references.size()) + " references");
    ChrfDetails d;
    for (size_t s = 0; s < hypotheses.size(); ++s) {
        const std::u32string hyp = characters_without_space(hypotheses[s]);
        const std::u32string ref = characters_without_space(references[s]);
        for (int n = 1; n <= CHRF_CHAR_ORDER; ++n) {
            const CharNgramCounts hyp_counts = count_ngrams(hyp, static_cast<size_t>(n));
            const CharNgramCounts ref_counts = count_ngrams(ref, static_cast<size_t>(n));
            long long hyp_total = 0, matches = 0, ref_total = 0;
            for (const auto& [ngram, count] : hyp_counts) {
                hyp_total += count;
                const auto it = ref_counts.find(ngram);
                if (it != ref_counts.end()) matches += std::min(count, it->second);
            }
            for (const auto& [ngram, count] : ref_counts) ref_total += count;
            // sacreBLEU's _get_match_statistics: "Don't count hits if no reference exists for that n-gram".
            d.hyp[n - 1] += ref_counts.empty() ? 0 : hyp_total;
            d.ref[n - 1] += ref_total;
            d.match[n - 1] += matches;
        }
    }
    // sacreBLEU's _compute_f_score without eps_smoothing: "effective order" averaging (as before 2.0).
    for (int n = 0; n < CHRF_CHAR_ORDER; ++n) {
        if (d.hyp[n] == 0 || d.ref[n] == 0) continue;
        d.precision += static_cast<double>(d.match[n]) / static_cast<double>(d.hyp[n]);
        d.recall += static_cast<double>(d.match[n]) / static_cast<double>(d.ref[n]);
        ++d.effective_order;
    }
    if (d.effective_order == 0) return d;
    d.precision /= d.effective_order;
    d.recall /= d.effective_order;
    if (d.precision + d.recall == 0.0) return d;
    const double factor = CHRF_BETA * CHRF_BETA;
    d.chrf = 100.0 * ((1.0 + factor) * d.precision * d.recall) / (factor * d.precision + d.recall);
    return d;
}

double corpus_chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
    return corpus_chrf_details(hypotheses, references).chrf;
}

}  // namespace tx
