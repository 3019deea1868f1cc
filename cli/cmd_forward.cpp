// txcli forward / decode: sentences through a Session; forward prints tokens and the step list
// and can dump the trace (every step's output, docs/design.md §5) as .safetensors; decode is greedy,
// beam search or sampling. For a decoder-only model each --src is a prompt: the decoder input is
// BOS + its tokens and the output printed is its continuation.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "tx/beam_search.h"
#include "commands.h"
#include "tx/decoding.h"
#include "model_source.h"
#include "tx/length_limits.h"
#include "tx/safetensors.h"
#include "tx/sampling.h"
#include "tx/session.h"

namespace tx::cli {

namespace {

// --no-positional: the teaching toggle that leaves the positional encoding out, so the model
// sees a bag of tokens (the encoder cannot tell word order).
constexpr const char* NO_POSITIONAL_HELP =
    "  --no-positional      run without adding the positional encoding (the encoder then cannot tell word\n"
    "                       order; the decoder keeps what its causal mask implies)\n";

std::string token_line(const Session& session, const std::vector<Token>& tokens) {
    std::string line;
    for (const Token& t : tokens) {
        line += (line.empty() ? "" : " ") + t.text + "/" + std::to_string(t.id);
        if (t.unknown) line += "(UNK)";
    }
    return line + " " + session.tokenizer().display(session.config().special.eos) + "/" +
           std::to_string(session.config().special.eos);
}

void write_trace(const std::string& path, const Session& session) {
    const Transformer& model = session.model();
    SafetensorsFile trace;
    trace.metadata["format"] = "transformer-explorer-trace/1";
    std::string sentences;
    for (const auto& s : session.sentences()) sentences += (sentences.empty() ? "" : "\n") + s;
    trace.metadata["sentences"] = sentences;
    const int64_t B = model.batch_size(), S = model.src_len(), T = model.tgt_len();
    auto ids = [](const std::vector<int32_t>& v) { return std::vector<float>(v.begin(), v.end()); };
    trace.tensors.push_back({"src_ids", {B, S}, ids(model.src_ids())});
    trace.tensors.push_back({"tgt_ids", {B, T}, ids(model.tgt_ids())});
    trace.tensors.push_back({"src_mask", {B, 1, 1, S}, model.src_mask()});
    trace.tensors.push_back({"tgt_mask", {B, 1, T, T}, model.tgt_mask()});
    // A sliding window makes the encoder's mask differ per query row: its [B,1,S,S] matrix too.
    if (model.config().window > 0) trace.tensors.push_back({"src_self_mask", {B, 1, S, S}, model.src_self_mask()});
    for (size_t i = 0; i < model.step_count(); ++i)
        trace.tensors.push_back({model.steps()[i].name, model.steps()[i].shape.dims, model.step_output(i)});
    write_safetensors(path, trace);
}

const char* FORWARD_HELP =
    "usage: txcli forward --src TEXT [--src TEXT ...] [--tgt TEXT] [--dump FILE] [--backend cpu|cuda] [model options]\n"
    "\n"
    "Runs one sentence, or a padded batch of up to 4, through the model. Without --tgt the decoder input is\n"
    "BOS + the greedy output; with --tgt it is BOS + the tokens of TEXT (teacher forcing). A decoder-only model\n"
    "reads each --src as a prompt: its decoder input is BOS + the prompt + the continuation (or + TEXT).\n"
    "Prints the tokens and every step with its shape and time; --dump FILE writes every step's output.\n"
    "--precision P --compare runs FP32 and P on the same input instead and prints each step's max |difference|,\n"
    "its relative error and its inf/NaN count, the logits' difference, and where the greedy output first changes.\n"
    "The model: --checkpoint FILE; or a fresh one when a model option is given; otherwise the shipped\n"
    "English -> Spanish model (assets/models/everyday.safetensors).\n\n";

constexpr int MAX_BEAM = 64;


const char* DECODE_HELP =
    "usage: txcli decode --src TEXT [--src TEXT ...] [--beam N] [--length-penalty A] [--nbest] [--backend cpu|cuda]\n"
    "                    [--sample [--temperature T] [--top-k K] [--top-p P] [--seed N]] [model options]\n"
    "\n"
    "Decodes from BOS until EOS or 2 x the source length + 10 tokens (within max_len); prints one output line\n"
    "per source. Greedy by default (at most 4 sources, one padded batch); with --beam or --nbest, beam search\n"
    "per source; with --sample, each token drawn at random from the model's distribution (one padded batch).\n"
    "A decoder-only model reads each --src as a prompt and prints its continuation: from BOS + the prompt until\n"
    "EOS or 32 more tokens (within max_len).\n"
    "The model: --checkpoint FILE; or a fresh one when a model option is given; otherwise the shipped\n"
    "English -> Spanish model (assets/models/everyday.safetensors).\n"
    "  --beam N             beam size, 1..64 (default 1: greedy decoding)\n"
    "  --length-penalty A   GNMT length penalty, A >= 0 (default 0.6 with --beam > 1): hypotheses are ranked\n"
    "                       by log P(Y) / ((5 + |Y|) / 6)^A, where |Y| counts the output tokens and the EOS\n"
    "  --nbest              print every finished hypothesis instead, one tab-separated line each after a\n"
    "                       header line: source (1-based), rank (1 = best), score, log_prob, length (|Y|),\n"
    "                       status (finished, or cut when none finished within the limit), text\n"
    "  --sample             draw each token from the model's next-token distribution instead of taking the best\n"
    "  --temperature T      with --sample: divide the log-probabilities by T > 0 (default 1; < 1 sharper, > 1 flatter)\n"
    "  --top-k K            with --sample: draw only among the K most probable tokens (default 0: all)\n"
    "  --top-p P            with --sample: draw only among the fewest most probable tokens whose probability adds up\n"
    "                       to P, 0 < P <= 1 (default 1: all)\n"
    "  --seed N             with --sample: the seed of the draws, 0 or more (default 0); the same seed gives the\n"
    "                       same output (it then is not the initialisation seed of a fresh model, which stays 1)\n\n";

// --sample and its settings; the core's check (validate) names the option and its range.
SamplingOptions sampling_options(const Args& args) {
    for (const char* name : {"temperature", "top-k", "top-p"})
        if (args.has(name) && !args.flag("sample")) throw CliError(std::string("option --") + name + " needs --sample");
    // Without --sample, --seed initialises a fresh model, which a checkpoint replaces.
    if (args.has("seed") && args.has("checkpoint") && !args.flag("sample"))
        throw CliError("option --seed with --checkpoint needs --sample (it then seeds the random draws)");
    SamplingOptions o;
    o.temperature = args.real("temperature", o.temperature, -HUGE_VAL, HUGE_VAL);
    o.top_k = static_cast<int>(args.integer("top-k", o.top_k, INT_MIN, INT_MAX));
    o.top_p = args.real("top-p", o.top_p, -HUGE_VAL, HUGE_VAL);
    if (args.flag("sample")) o.seed = static_cast<uint64_t>(args.integer("seed", 0, 0, LLONG_MAX));
    try {
        validate(o);
    } catch (const std::invalid_argument& e) {
        throw CliError(std::string("option --") + e.what());
    }
    return o;
}

}  // namespace

int cmd_forward(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("%s%s%s%s", FORWARD_HELP, NO_POSITIONAL_HELP, PRECISION_HELP, MODEL_OPTIONS_HELP);
        return 0;
    }
    auto valued = MODEL_OPTIONS;
    valued.insert({"src", "tgt", "dump", "backend", "precision"});
    auto flags = MODEL_FLAGS;
    flags.insert({"no-positional", "all-low", "compare"});
    const Args args(argv, valued, flags);
    const auto sources = args.all("src");
    if (sources.empty()) throw CliError("missing required option --src");
    if (args.flag("compare")) {
        if (args.flag("no-positional") || args.has("dump")) throw CliError("--compare takes no --no-positional or --dump");
        return forward_compare_precision(args, model_from_options(args, false, true), precision_from_options(args));
    }
    Session session = open_session(args);
    session.set_input(sources, args.optional("tgt"));
    const Transformer& model = session.model();
    std::printf("backend %s; batch B=%d, source S=%d, target T=%d\n", session.backend().name().c_str(),
                model.batch_size(), model.src_len(), model.tgt_len());
    if (session.backend().precision().format != Precision::Fp32)
        std::printf("precision %s (docs/precision.md)\n", describe(session.backend().precision()).c_str());
    for (size_t b = 0; b < sources.size(); ++b) {
        if (session.decoder_only()) {   // the prompt follows BOS; no EOS ends it
            std::string line = session.tokenizer().display(session.config().special.bos) + "/" +
                               std::to_string(session.config().special.bos);
            for (const Token& t : session.source_tokens()[b])
                line += " " + t.text + "/" + std::to_string(t.id) + (t.unknown ? "(UNK)" : "");
            std::printf("prompt %zu: %s\n", b + 1, line.c_str());
            std::printf("continuation %zu: %s\n", b + 1, session.decoded_text()[b].c_str());
            continue;
        }
        std::printf("source %zu: %s\n", b + 1, token_line(session, session.source_tokens()[b]).c_str());
        std::printf("output %zu: %s\n", b + 1, session.decoded_text()[b].c_str());
    }
    std::printf("\n%-4s %-46s %-18s %-24s %9s\n", "#", "step", "kind", "shape", "ms");
    for (size_t i = 0; i < model.step_count(); ++i) {
        const StepInfo& s = model.steps()[i];
        std::printf("%-4zu %-46s %-18s %-24s %9.4f\n", i, s.name.c_str(), to_string(s.kind), s.shape.str().c_str(), s.ms);
    }
    std::printf("total %.3f ms\n", session.last_forward_ms());
    if (const auto dump = args.optional("dump")) {
        write_trace(*dump, session);
        std::printf("wrote trace %s (%zu steps)\n", dump->c_str(), model.step_count());
    }
    return 0;
}

int cmd_decode(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("%s%s%s%s", DECODE_HELP, NO_POSITIONAL_HELP, PRECISION_HELP, MODEL_OPTIONS_HELP);
        return 0;
    }
    auto valued = MODEL_OPTIONS;
    valued.insert({"src", "backend", "beam", "length-penalty", "temperature", "top-k", "top-p", "precision"});
    auto flags = MODEL_FLAGS;
    flags.insert({"nbest", "no-positional", "sample", "all-low"});
    const Args args(argv, valued, flags);
    const auto sources = args.all("src");
    if (sources.empty()) throw CliError("missing required option --src");
    BeamOptions beam;
    beam.beam_size = static_cast<int>(args.integer("beam", 1, 1, MAX_BEAM));
    beam.length_penalty = args.real("length-penalty", beam.beam_size > 1 ? 0.6 : 0.0, 0.0, 100.0);
    const SamplingOptions sampling = sampling_options(args);
    if (args.flag("sample") && (args.has("beam") || args.has("length-penalty") || args.flag("nbest")))
        throw CliError("--sample draws one output per source; it cannot be combined with --beam, --length-penalty or --nbest");
    Session session = open_session(args);
    if (args.flag("sample")) {
        if (sources.size() > static_cast<size_t>(Session::MAX_BATCH))
            throw CliError("at most " + std::to_string(Session::MAX_BATCH) + " sources are sampled in one batch; got " +
                           std::to_string(sources.size()));
        const std::vector<std::vector<int>> src = source_rows(session, sources);
        const std::vector<std::vector<int>> out =
            sample_decode(session.model(), src, session.decode_limit(src), sampling, prompt_rows(session, src));
        for (const auto& ids : out) std::printf("%s\n", session.tokenizer().decode(ids).c_str());
        return 0;
    }
    if (beam.beam_size == 1 && !args.flag("nbest")) {
        session.set_input(sources);
        for (const auto& text : session.decoded_text()) std::printf("%s\n", text.c_str());
        return 0;
    }
    if (args.flag("nbest")) std::printf("source\trank\tscore\tlog_prob\tlength\tstatus\ttext\n");
    const std::vector<std::vector<int>> rows = source_rows(session, sources);
    for (size_t i = 0; i < rows.size(); ++i) {
        const auto prompt = prompt_rows(session, {rows[i]});
        const BeamResult result = beam_search(session.model(), rows[i], session.decode_limit({rows[i]}), beam,
                                              prompt.empty() ? std::vector<int>{} : prompt.front());
        if (!args.flag("nbest")) {
            std::printf("%s\n", session.tokenizer().decode(result.best).c_str());
            continue;
        }
        for (size_t r = 0; r < result.hypotheses.size(); ++r) {
            const BeamHypothesis& h = result.hypotheses[r];
            std::printf("%zu\t%zu\t%.6f\t%.6f\t%d\t%s\t%s\n", i + 1, r + 1, h.score, h.log_prob, h.length,
                        h.finished ? "finished" : "cut", session.tokenizer().decode(h.ids).c_str());
        }
    }
    return 0;
}

}  // namespace tx::cli
