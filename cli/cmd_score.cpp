// txcli score: translations made elsewhere (Apertium, another model, by hand) against the second
// column of a pairs file: corpus BLEU on bleu_words tokens, as `txcli evaluate` computes it, and
// corpus chrF2 as sacreBLEU does (core/include/tx/chrf.h). No model is loaded.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.h"
#include "tx/bleu.h"
#include "tx/chrf.h"
#include "commands.h"
#include "tx/parallel_corpus.h"

namespace tx::cli {

namespace {

constexpr const char* SCORE_HELP =
    "usage: txcli score --ref FILE.tsv --hyp FILE.txt [--json]\n"
    "\n"
    "Scores one translation per line of --hyp against the target side of --ref, line by line:\n"
    "corpus BLEU (4-gram, brevity penalty; on bleu_words tokens, as txcli evaluate) and corpus chrF2\n"
    "(character 6-grams, beta 2, whitespace removed; sacreBLEU's default chrF).\n"
    "\n"
    "  --ref FILE.tsv   source<TAB>target pairs; the target is the reference (empty lines skipped)\n"
    "  --hyp FILE.txt   one hypothesis per line, in the order of the pairs (an empty line is an\n"
    "                   empty translation); as many lines as --ref has pairs\n"
    "  --json           print one JSON object (bleu and chrf in [0, 1]; the text shows them x100)\n";

// One hypothesis per line; CRLF and a UTF-8 byte-order mark are accepted, and the last line end is
// optional. A tab means a pairs file was given where translations were expected.
std::vector<std::string> read_hypotheses(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
    std::vector<std::string> lines;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (number == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
        if (line.find('\t') != std::string::npos)
            throw std::runtime_error(path + ":" + std::to_string(number) +
                                     ": a tab in a hypothesis (expected one translation per line, not pairs)");
        lines.push_back(line);
    }
    if (in.bad()) throw std::runtime_error("cannot read '" + path + "': " + std::strerror(errno));
    return lines;
}

}  // namespace

int cmd_score(const Argv& argv) {
    if (wants_help(argv)) {
        std::fputs(SCORE_HELP, stdout);
        return 0;
    }
    const Args args(argv, {"ref", "hyp"}, {"json"});
    const std::string ref_path = args.get("ref");
    const std::string hyp_path = args.get("hyp");
    const std::vector<SentencePair> pairs = read_parallel_corpus(ref_path);
    const std::vector<std::string> hyps = read_hypotheses(hyp_path);
    if (hyps.size() < pairs.size())
        throw std::runtime_error(hyp_path + " has " + std::to_string(hyps.size()) + " lines but " + ref_path + " has " +
                                 std::to_string(pairs.size()) + " pairs: no hypothesis for the pairs from " + ref_path + ":" +
                                 std::to_string(pairs[hyps.size()].line) + " on");
    if (hyps.size() > pairs.size())
        throw std::runtime_error(hyp_path + ":" + std::to_string(pairs.size() + 1) + ": a hypothesis with no pair: " +
                                 hyp_path + " has " + std::to_string(hyps.size()) + " lines but " + ref_path +
                                 " has " + std::to_string(pairs.size()) + " pairs");

    std::vector<std::string> refs;
    std::vector<std::vector<std::string>> hyp_words, ref_words;
    for (size_t i = 0; i < pairs.size(); ++i) {
        refs.push_back(pairs[i].target);
        hyp_words.push_back(bleu_words(hyps[i]));
        ref_words.push_back(bleu_words(pairs[i].target));
    }
    const BleuDetails bleu = corpus_bleu_details(hyp_words, ref_words);
    const ChrfDetails chrf = corpus_chrf_details(hyps, refs);
    int exact = 0;
    for (size_t i = 0; i < pairs.size(); ++i) exact += hyps[i] == refs[i];

    if (args.flag("json")) {
        const nlohmann::json out = {
            {"pairs", pairs.size()},
            {"ref", ref_path},
            {"hyp", hyp_path},
            {"bleu", bleu.bleu},
            {"brevity_penalty", bleu.brevity_penalty},
            {"precisions", bleu.precision},
            {"hyp_words", bleu.hyp_length},
            {"ref_words", bleu.ref_length},
            {"chrf", chrf.chrf / 100.0},
            {"chrf_precision", chrf.precision},
            {"chrf_recall", chrf.recall},
            {"exact_match", pairs.empty() ? 0.0 : static_cast<double>(exact) / static_cast<double>(pairs.size())},
        };
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("%zu pairs, %s against %s: BLEU %.2f (brevity penalty %.3f), chrF2 %.2f, exact match %d of %zu\n",
                    pairs.size(), hyp_path.c_str(), ref_path.c_str(), 100 * bleu.bleu, bleu.brevity_penalty,
                    chrf.chrf, exact, pairs.size());
    }
    return 0;
}

}  // namespace tx::cli
