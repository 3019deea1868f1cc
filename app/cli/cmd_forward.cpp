// txcli forward / decode: sentences through a Session; forward prints tokens and the step list
// and can dump the trace (every step's output, DESIGN.md §3) as .safetensors.
#include <cstdio>

#include "commands.h"
#include "model_source.h"
#include "safetensors.h"
#include "session.h"

namespace tx::cli {

namespace {

Session open_session(const Args& args) {
    return Session(model_from_options(args), backend_from_name(args.get_or("backend", "cpu")));
}

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
    for (size_t i = 0; i < model.step_count(); ++i)
        trace.tensors.push_back({model.steps()[i].name, model.steps()[i].shape.dims, model.step_output(i)});
    write_safetensors(path, trace);
}

const char* FORWARD_HELP =
    "usage: txcli forward --src TEXT [--src TEXT ...] [--tgt TEXT] [--dump FILE] [--backend cpu|cuda] [model options]\n"
    "\n"
    "Runs one sentence, or a padded batch of up to 4, through the model. Without --tgt the decoder input is\n"
    "BOS + the greedy output; with --tgt it is BOS + the tokens of TEXT (teacher forcing).\n"
    "Prints the tokens and every step with its shape and time; --dump FILE writes every step's output.\n\n";

}  // namespace

int cmd_forward(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("%s%s", FORWARD_HELP, MODEL_OPTIONS_HELP);
        return 0;
    }
    auto valued = MODEL_OPTIONS;
    valued.insert({"src", "tgt", "dump", "backend"});
    const Args args(argv, valued, MODEL_FLAGS);
    const auto sources = args.all("src");
    if (sources.empty()) throw CliError("missing required option --src");
    Session session = open_session(args);
    session.set_input(sources, args.optional("tgt"));
    const Transformer& model = session.model();
    std::printf("backend %s; batch B=%d, source S=%d, target T=%d\n", session.backend().name().c_str(),
                model.batch_size(), model.src_len(), model.tgt_len());
    for (size_t b = 0; b < sources.size(); ++b) {
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
        std::printf("usage: txcli decode --src TEXT [--src TEXT ...] [--backend cpu|cuda] [model options]\n\n"
                    "Greedy decoding from BOS until EOS or max_len; prints one output line per source.\n\n%s",
                    MODEL_OPTIONS_HELP);
        return 0;
    }
    auto valued = MODEL_OPTIONS;
    valued.insert({"src", "backend"});
    const Args args(argv, valued, MODEL_FLAGS);
    const auto sources = args.all("src");
    if (sources.empty()) throw CliError("missing required option --src");
    Session session = open_session(args);
    session.set_input(sources);
    for (const auto& text : session.decoded_text()) std::printf("%s\n", text.c_str());
    return 0;
}

}  // namespace tx::cli
