// txcli speculative: speculative greedy decoding (tx/speculative_decoding.h) of sentences with a
// draft made of the model's first decoder layers (--draft-layers) or another checkpoint of the
// same vocabulary (--draft). Prints each output, its rounds with --rounds, and a summary: the
// acceptance rate, the target's passes against greedy decoding's steps, whether every output
// equals greedy decoding's, and the time of both on this machine (--repeat runs of each).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "commands.h"
#include "model_source.h"
#include "tx/decoding.h"
#include "tx/speculative_decoding.h"

namespace tx::cli {

namespace {

const char* SPECULATIVE_HELP =
    "usage: txcli speculative (--src TEXT [--src TEXT ...] | --file FILE) [--draft-layers L | --draft FILE]\n"
    "                         [--k K] [--rounds] [--repeat N] [--checkpoint FILE]\n"
    "\n"
    "Speculative decoding: each round the draft model proposes K tokens one at a time, the model checks all of\n"
    "them in one pass over its KV cache, keeps the longest prefix it agrees with and adds its own next token.\n"
    "With greedy choices the output is the model's own greedy output; the draft only changes how many passes\n"
    "the model runs. Prints each output, then the acceptance rate, the model's passes against greedy\n"
    "decoding's steps, how many outputs equal greedy decoding's, and the time of both on this CPU.\n"
    "The model: --checkpoint FILE, else the shipped English -> Spanish model.\n"
    "  --src TEXT           a sentence (a decoder-only model's prompt); repeatable\n"
    "  --file FILE          sentences, one per line (a tab-separated line: its first column)\n"
    "  --draft-layers L     the draft is the model's own first L decoder layers, then its final norm and\n"
    "                       generator (default: one layer fewer than the model has)\n"
    "  --draft FILE         the draft is this checkpoint (same vocabulary and special ids as the model)\n"
    "  --k K                proposals per round, 1..16 (default 4)\n"
    "  --rounds             print each round: the proposals, how many were accepted, the model's own token\n"
    "  --repeat N           time N runs of each decoding, 1..100 (default 3); the summary gives the total\n";

constexpr int MAX_K = 16;

std::vector<std::string> file_sentences(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CliError("cannot read --file " + path);
    std::vector<std::string> sentences;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (const size_t tab = line.find('\t'); tab != std::string::npos) line.resize(tab);
        if (!line.empty()) sentences.push_back(line);
    }
    if (sentences.empty()) throw CliError("--file " + path + " has no sentences");
    return sentences;
}

std::string pieces(const Session& session, const std::vector<int>& ids) {
    std::string text;
    for (int id : ids) {
        if (!text.empty()) text += ' ';
        text += session.tokenizer().display(id);
    }
    return text;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int cmd_speculative(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("%s", SPECULATIVE_HELP);
        return 0;
    }
    const Args args(argv, {"src", "file", "draft-layers", "draft", "k", "repeat", "checkpoint"}, {"rounds"});
    std::vector<std::string> sentences = args.all("src");
    if (args.has("file")) {
        if (!sentences.empty()) throw CliError("--src and --file both give sentences: use one of them");
        sentences = file_sentences(args.get("file"));
    }
    if (sentences.empty()) throw CliError("missing --src or --file");
    if (args.has("draft") && args.has("draft-layers"))
        throw CliError("--draft FILE and --draft-layers L both choose the draft: use one of them");
    const int k = static_cast<int>(args.integer("k", 4, 1, MAX_K));
    const int repeat = static_cast<int>(args.integer("repeat", 3, 1, 100));
    Session session = open_session(args);
    Transformer& target = session.model();
    std::unique_ptr<Transformer> draft;
    std::string draft_name;
    if (args.has("draft")) {
        const Checkpoint checkpoint = load_checkpoint(args.get("draft"));
        if (const std::string why = draft_mismatch(target.config(), checkpoint.config); !why.empty())
            throw CliError("--draft " + args.get("draft") + ": " + why);
        draft = std::make_unique<Transformer>(checkpoint.config, target.backend());
        draft->set_parameters(checkpoint.parameters);
        draft_name = args.get("draft");
    } else {
        const int layers = target.config().decoder_layers;
        if (layers < 2) throw CliError("the model has one decoder layer, so it has no shorter draft: give --draft FILE");
        const int keep = static_cast<int>(args.integer("draft-layers", layers - 1, 1, layers - 1));
        draft = early_exit_draft(target, keep);
        draft_name = "the model's first " + std::to_string(keep) + " of " + std::to_string(layers) + " decoder layers";
    }
    const std::vector<std::vector<int>> rows = source_rows(session, sentences);
    const std::vector<std::vector<int>> prompts = prompt_rows(session, rows);
    int tokens = 0, passes = 0, greedy_steps = 0, proposed = 0, accepted = 0, equal = 0;
    double greedy_seconds = 0.0, speculative_seconds = 0.0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const std::vector<int> prompt = prompts.empty() ? std::vector<int>{} : prompts[i];
        const std::vector<int> src = prompts.empty() ? rows[i] : std::vector<int>{};
        const int limit = session.decode_limit({rows[i]});
        std::vector<int> greedy;
        auto start = std::chrono::steady_clock::now();
        for (int r = 0; r < repeat; ++r)
            greedy = greedy_decode(target, {src}, limit, nullptr,
                                   prompt.empty() ? std::vector<std::vector<int>>{} : std::vector<std::vector<int>>{prompt})[0];
        greedy_seconds += seconds_since(start);
        SpeculativeResult result;
        start = std::chrono::steady_clock::now();
        for (int r = 0; r < repeat; ++r) result = speculative_greedy_decode(target, *draft, src, limit, k, prompt);
        speculative_seconds += seconds_since(start);
        std::printf("%s\n", session.tokenizer().decode(result.tokens).c_str());
        if (args.flag("rounds"))
            for (size_t r = 0; r < result.rounds.size(); ++r) {
                const SpeculativeRound& round = result.rounds[r];
                std::printf("  round %zu: proposed [%s], accepted %d, the model's token %s\n", r + 1,
                            pieces(session, round.proposed).c_str(), round.accepted,
                            round.target_token < 0 ? "(none: EOS was accepted)"
                                                   : session.tokenizer().display(round.target_token).c_str());
            }
        tokens += static_cast<int>(result.tokens.size());
        passes += result.target_passes();
        // greedy decoding runs one step per token it chooses: its tokens, and EOS when it ended
        greedy_steps += static_cast<int>(greedy.size()) + (static_cast<int>(greedy.size()) < limit ? 1 : 0);
        proposed += result.proposed();
        accepted += result.accepted();
        equal += result.tokens == greedy ? 1 : 0;
    }
    std::printf("\ndraft: %s; k = %d\n", draft_name.c_str(), k);
    std::printf("sentences: %zu, output tokens: %d\n", rows.size(), tokens);
    std::printf("proposals accepted: %d of %d (%.1f%%)\n", accepted, proposed,
                proposed == 0 ? 0.0 : 100.0 * accepted / proposed);
    std::printf("model passes: %d speculative against %d greedy steps (%.2f tokens per pass)\n", passes, greedy_steps,
                passes == 0 ? 0.0 : static_cast<double>(greedy_steps) / passes);
    std::printf("outputs equal to greedy decoding's: %d of %zu\n", equal, rows.size());
    std::printf("time (%d runs each, 1 thread): greedy with KV cache %.1f ms, speculative %.1f ms: %.2fx\n", repeat,
                1e3 * greedy_seconds, 1e3 * speculative_seconds,
                speculative_seconds > 0.0 ? greedy_seconds / speculative_seconds : 0.0);
    return 0;
}

}  // namespace tx::cli
