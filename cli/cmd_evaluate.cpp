// txcli evaluate: a trained translation (or copy) model on sentence pairs it never trained on:
// corpus BLEU, corpus chrF2, exact match of the decoded text, and, with --alignments, how often each decoder
// layer's cross-attention puts its largest weight on the reference source word.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "tx/alignment.h"
#include "args.h"
#include "tx/asset_paths.h"
#include "tx/beam_search.h"
#include "tx/bleu.h"
#include "tx/checkpoint.h"
#include "tx/chrf.h"
#include "commands.h"
#include "tx/decoding.h"
#include "model_source.h"
#include "tx/length_limits.h"
#include "tx/model_on_backend.h"
#include "tx/parallel_corpus.h"
#include "tx/pronoun_probe.h"
#include "tx/tasks.h"
#include "tx/threads.h"

namespace tx::cli {

namespace {

constexpr const char* EVALUATE_HELP =
    "usage: txcli evaluate --checkpoint FILE [--data FILE.tsv] [--beam N] [--length-penalty A]\n"
    "                      [--limit N] [--alignments FILE] [--pronouns FILE] [--translations FILE] [--threads N]\n"
    "                      [--precision fp32|bf16|fp16|int8 [--all-low]] [--json]\n"
    "\n"
    "Decodes the source side of sentence pairs and compares the text with the target side:\n"
    "corpus BLEU (4-gram, brevity penalty; on bleu_words tokens), corpus chrF2 (character 6-grams, beta 2,\n"
    "as sacreBLEU) and exact match of the whole text. txcli score does the same for translations in a file.\n"
    "\n"
    "  --data FILE.tsv      source<TAB>target pairs (default assets/corpus/en-es/test.tsv)\n"
    "  --beam N             beam search with N beams (default 1: greedy decoding, batched)\n"
    "  --length-penalty A   GNMT length penalty alpha for beam search (default 0.6)\n"
    "  --limit N            only the first N pairs\n"
    "  --alignments FILE    also score cross-attention alignments against reference links\n"
    "                       (source<TAB>target<TAB>t-s ..., e.g. assets/corpus/en-es/test.align.tsv)\n"
    "  --pronouns FILE      also score pronoun probes (e.g. assets/corpus/everyday/pronoun_test.tsv): how often\n"
    "                       the greedy translation's adjective agrees with the noun \"it\" refers to, in how\n"
    "                       many pairs (sentences that differ only in the last word) every sentence agrees, and per\n"
    "                       head the share of probes where the encoder's \"it\" row, and the cross-attention\n"
    "                       row that writes the adjective, weigh the referent above the other noun\n"
    "  --translations FILE  also write the translations there, one line per pair in the pairs' order (an empty\n"
    "                       line for a pair too long for max_len); txcli score and other tools can read them\n"
    "  --threads N          CPU threads for the matrix products (default 1)\n"
    "  --precision P        run the model in P: bf16 or fp16 autocast, or int8 weight-only (default fp32;\n"
    "                       --all-low also rounds every step's output to bf16 or fp16; docs/precision.md)\n"
    "  --json               print one JSON object (bleu and chrf in [0, 1]; the text shows them x100)\n"
    "Decoding stops at EOS or after 2 x the source length + 10 tokens (within max_len).\n";

// One translation a line, in the pairs' order: opened before decoding, so that a path that cannot
// be written is refused at once, and renamed into place only when complete.
class TranslationsFile {
public:
    explicit TranslationsFile(std::string path) : m_path(std::move(path)), m_temporary(m_path + ".tmp") {
        m_out.open(m_temporary, std::ios::binary | std::ios::trunc);
        if (!m_out) throw CliError("--translations: cannot write '" + m_temporary + "'");
    }
    TranslationsFile(const TranslationsFile&) = delete;
    TranslationsFile& operator=(const TranslationsFile&) = delete;
    ~TranslationsFile() {   // a run that failed before write() leaves no temporary file behind
        if (m_renamed) return;
        m_out.close();
        std::error_code ignored;
        std::filesystem::remove(m_temporary, ignored);
    }
    void write(const std::vector<std::string>& lines) {
        for (const std::string& line : lines) m_out << line << '\n';
        m_out.close();
        std::error_code error;
        if (m_out.fail()) throw CliError("--translations: writing '" + m_temporary + "' failed");
        std::filesystem::rename(m_temporary, m_path, error);
        if (error) throw CliError("--translations: cannot rename '" + m_temporary + "' to '" + m_path + "': " + error.message());
        m_renamed = true;
    }

private:
    std::string m_path, m_temporary;
    std::ofstream m_out;
    bool m_renamed = false;
};

// Prints the pronoun report (unless json) and returns its JSON member (", \"pronouns\": {...}").
std::string report_pronouns(Transformer& model, const Tokenizer& tokenizer, const std::string& path, bool json) {
    const std::vector<PronounProbe> probes = read_pronoun_probes(path);
    const PronounReport r = score_pronouns(model, tokenizer, probes);
    const auto percent = [](int a, int b) { return b ? 100.0 * a / b : 0.0; };
    std::string out = ", \"pronouns\": {\"probes\": " + std::to_string(r.probes) +
                      ", \"agreeing\": " + std::to_string(r.agreeing) + ", \"gender_marked\": " + std::to_string(r.marked) +
                      ", \"gender_marked_agreeing\": " + std::to_string(r.marked_agreeing) +
                      ", \"pairs\": " + std::to_string(r.pairs) + ", \"pairs_agreeing\": " + std::to_string(r.pairs_agreeing);
    if (!json) {
        std::printf("pronouns: %d probes from %s; the greedy translation holds the reference adjective in %d (%.1f%%); "
                    "of the %d whose adjective shows gender, %d (%.1f%%)\n",
                    r.probes, path.c_str(), r.agreeing, percent(r.agreeing, r.probes), r.marked, r.marked_agreeing,
                    percent(r.marked_agreeing, r.marked));
        std::printf("  pairs (sentences that differ only in the last word, \"it\" naming each noun): every sentence right "
                    "in %d of %d (%.1f%%)\n", r.pairs_agreeing, r.pairs, percent(r.pairs_agreeing, r.pairs));
    }
    for (const auto& [name, shares] : {std::pair<const char*, const HeadShares*>{"encoder_self_it_row", &r.encoder_self},
                                       std::pair<const char*, const HeadShares*>{"cross_adjective_row", &r.cross}}) {
        if (!json)
            std::printf("  %s: share of probes where the head weighs the referent above the other noun\n",
                        std::string(name) == "encoder_self_it_row" ? "encoder self-attention, the \"it\" row"
                                                                    : "cross-attention, the row that writes the adjective");
        out += std::string(", \"") + name + "\": [";
        int best_layer = 0, best_head = 0;
        for (int l = 0; l < shares->layers; ++l) {
            if (!json) std::printf("    layer %d:", l);
            out += std::string(l ? ", " : "") + "[";
            for (int h = 0; h < shares->heads; ++h) {
                const double share = shares->share(l, h);
                if (share > shares->share(best_layer, best_head)) best_layer = l, best_head = h;
                if (!json) std::printf(" %5.1f%%", 100 * share);
                out += (h ? ", " : "") + std::to_string(share);
            }
            out += "]";
            if (!json) std::printf("\n");
        }
        out += "]";
        if (!json)
            std::printf("    best: layer %d head %d, %.1f%%\n", best_layer, best_head, 100 * shares->share(best_layer, best_head));
    }
    return out + "}";
}

}  // namespace

int cmd_evaluate(const Argv& argv) {
    if (wants_help(argv)) {
        std::fputs(EVALUATE_HELP, stdout);
        return 0;
    }
    const Args args(argv, {"checkpoint", "data", "beam", "length-penalty", "limit", "alignments", "pronouns", "translations",
                           "threads", "precision"},
                    {"json", "all-low"});
    const PrecisionMode precision = precision_from_options(args);
    const std::string path = args.get("checkpoint");
    const int beam = static_cast<int>(args.integer("beam", 1, 1, 64));
    const double alpha = args.real("length-penalty", 0.6, 0.0, 10.0);
    const long long limit = args.integer("limit", 0, 1, 1LL << 40);
    set_cpu_threads(static_cast<int>(args.integer("threads", 1, 1, 1024)));
    const std::string data = args.has("data") ? args.get("data") : find_asset("assets/corpus/en-es/test.tsv");

    const Checkpoint checkpoint = load_checkpoint(path);
    const Tokenizer tokenizer = make_tokenizer(checkpoint);
    const ModelOnBackend on_cpu = make_model(checkpoint, backend_from_name("cpu", precision));
    Transformer& model = *on_cpu;
    const ModelConfig& c = checkpoint.config;

    std::vector<SentencePair> pairs = read_parallel_corpus(data);
    std::optional<TranslationsFile> translations;
    if (args.has("translations")) translations.emplace(args.get("translations"));
    if (limit > 0 && pairs.size() > static_cast<size_t>(limit)) pairs.resize(static_cast<size_t>(limit));

    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> outputs(pairs.size());
    int too_long = 0;
    std::vector<size_t> batch;
    const auto flush = [&] {
        if (batch.empty()) return;
        std::vector<std::vector<int>> src;
        int longest = 0;
        for (size_t i : batch) {
            src.push_back(tokenizer.encode(pairs[i].source));
            src.back().push_back(c.special.eos);
            longest = std::max(longest, static_cast<int>(src.back().size()));
        }
        const auto out = greedy_decode(model, src, translation_limit(longest, c.max_len));
        for (size_t k = 0; k < batch.size(); ++k) outputs[batch[k]] = tokenizer.decode(out[k]);
        batch.clear();
    };
    for (size_t i = 0; i < pairs.size(); ++i) {
        std::vector<int> src = tokenizer.encode(pairs[i].source);
        if (static_cast<int>(src.size()) + 1 > c.max_len) {
            ++too_long;   // counted as an empty translation: nothing is dropped from the score
            continue;
        }
        if (beam > 1) {
            src.push_back(c.special.eos);
            BeamOptions options;
            options.beam_size = beam;
            options.length_penalty = alpha;
            outputs[i] = tokenizer.decode(beam_search(model, src, translation_limit(static_cast<int>(src.size()), c.max_len), options).best);
        } else {
            batch.push_back(i);
            if (batch.size() == 100) flush();
        }
    }
    flush();
    if (translations) translations->write(outputs);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::vector<std::vector<std::string>> hypotheses, references;
    std::vector<std::string> targets;
    int exact = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
        hypotheses.push_back(bleu_words(outputs[i]));
        references.push_back(bleu_words(pairs[i].target));
        targets.push_back(pairs[i].target);
        exact += outputs[i] == pairs[i].target;
    }
    const BleuDetails bleu = corpus_bleu_details(hypotheses, references);
    const double chrf = corpus_chrf(outputs, targets);
    const double exact_match = pairs.empty() ? 0.0 : static_cast<double>(exact) / pairs.size();

    std::string alignment_json;
    if (args.has("alignments")) {
        const std::vector<AlignmentProbe> probes = read_alignment_probes(args.get("alignments"));
        if (!args.flag("json"))
            std::printf("alignments: %zu probe sentences; share of reference links where the target word's largest "
                        "cross-attention is on its source word\n", probes.size());
        alignment_json = ", \"alignments\": {\"probes\": " + std::to_string(probes.size());
        for (int layer = -1; layer < c.decoder_layers; ++layer) {
            for (QueryRow rows : {QueryRow::Producing, QueryRow::Holding}) {
                const AlignmentScore s = score_alignments(model, tokenizer, probes, layer, rows);
                const std::string name = (layer < 0 ? std::string("all layers") : "layer " + std::to_string(layer)) +
                                         (rows == QueryRow::Producing ? ", producing row" : ", holding row");
                if (!args.flag("json"))
                    std::printf("  %-28s %5.1f%%  (%d of %d links)\n", name.c_str(), 100 * s.accuracy(), s.correct, s.links);
                alignment_json += ", \"" + name + "\": " + std::to_string(s.accuracy());
            }
        }
        alignment_json += "}";
    }

    std::string pronoun_json;
    if (args.has("pronouns")) pronoun_json = report_pronouns(model, tokenizer, args.get("pronouns"), args.flag("json"));

    if (args.flag("json")) {
        std::printf("{\"pairs\": %zu, \"bleu\": %.6f, \"chrf\": %.6f, \"exact_match\": %.6f, \"brevity_penalty\": %.6f, "
                    "\"precisions\": [%.6f, %.6f, %.6f, %.6f], \"too_long\": %d, \"beam\": %d, \"seconds\": %.3f%s}\n",
                    pairs.size(), bleu.bleu, chrf / 100, exact_match, bleu.brevity_penalty, bleu.precision[0], bleu.precision[1],
                    bleu.precision[2], bleu.precision[3], too_long, beam, seconds, (alignment_json + pronoun_json).c_str());
    } else {
        std::printf("%zu pairs from %s, %s: BLEU %.2f, chrF2 %.2f, exact match %.1f%% (%d of %zu)%s, %.1f s\n", pairs.size(),
                    data.c_str(), beam > 1 ? ("beam " + std::to_string(beam)).c_str() : "greedy", 100 * bleu.bleu, chrf,
                    100 * exact_match, exact, pairs.size(),
                    too_long ? (", " + std::to_string(too_long) + " too long for max_len").c_str() : "", seconds);
    }
    return 0;
}

}  // namespace tx::cli
