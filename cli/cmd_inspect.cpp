// txcli inspect: the look-inside views of explain/ (logit lens, activation patching, head
// importance, attention rollout, attention entropy, direct logit attribution) for one sentence, as
// text tables or one JSON object, so every number the panel will show can be checked outside the
// GUI; `inspect bench` times head importance and a full patching grid (docs/look-inside.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "activation_patching.h"
#include "args.h"
#include "attention_rollout.h"
#include "commands.h"
#include "head_importance.h"
#include "inspect_model.h"
#include "logit_attribution.h"
#include "logit_lens.h"
#include "model_source.h"
#include "tx/cpu_isa.h"
#include "tx/threads.h"

namespace tx::cli {

namespace {

using explain::InspectInput;
using explain::InspectModel;
using nlohmann::json;

constexpr const char* INSPECT_HELP =
    "usage: txcli inspect lens|patch|heads|rollout|entropy|attribution|bench --src TEXT [--tgt TEXT] [options]\n"
    "\n"
    "Looks inside one run (docs/look-inside.md). The decoder input is BOS + --tgt's tokens (teacher forcing) or\n"
    "BOS + the greedy output; a decoder-only model reads --src as a prompt. The model: --checkpoint FILE, a fresh\n"
    "model from the model options, or the shipped default model.\n"
    "  lens         each decoder layer's residual stream read out through the final norm and generator: top-k\n"
    "               tokens and the probability of the finally chosen token, layers x positions\n"
    "  patch        activation patching from --src (clean) into --corrupt (same number of pieces): the metric\n"
    "               after each patch, normalised 0 = corrupted, 1 = clean; layers x positions per sublayer and\n"
    "               layers x heads per attention kind\n"
    "  heads        head importance: the change in log p(chosen tokens) with each head switched off\n"
    "  rollout      attention rollout (Abnar & Zuidema 2020) of the encoder (decoder-only: decoder) self-attention,\n"
    "               and decoder positions over source tokens through cross-attention\n"
    "  entropy      per-head attention entropy (nats), layers x heads, with the uniform maximum\n"
    "  attribution  direct logit attribution of the chosen token at one position\n"
    "  bench        times `heads` and the full `patch` grids (one thread unless --threads)\n"
    "\n"
    "  --src TEXT           the sentence (patch: the clean one)\n"
    "  --corrupt TEXT       patch, bench: the corrupted sentence, with as many pieces as --src\n"
    "  --tgt TEXT           teacher-force this decoder input (patch: shared by both runs; default: the clean\n"
    "                       run's greedy output)\n"
    "  --position N         the target position (patch, heads, attribution; default: see docs/look-inside.md)\n"
    "  --token PIECE        patch, attribution: the token measured (a piece as shown, e.g. \xE2\x96\x81" "cansado, or #id)\n"
    "  --versus PIECE       patch: measure log p(token) - log p(versus)\n"
    "  --top-k K            lens: tokens per cell (default 3)\n"
    "  --repeats N          bench: timed rounds (default 3)\n"
    "  --threads N          CPU threads (default 1)\n"
    "  --json               print one JSON object\n";

std::string joined(const std::vector<std::string>& pieces) {
    std::string s;
    for (const auto& p : pieces) s += (s.empty() ? "" : " ") + p;
    return s;
}

// A layers x columns grid, one line per layer; NaN prints as "-".
void print_grid(const std::string& title, int rows, int cols, const std::vector<double>& v,
                const std::vector<std::string>& columns) {
    std::printf("\n%s\n%-8s", title.c_str(), "");
    for (int c = 0; c < cols; ++c) std::printf(" %9.9s", c < static_cast<int>(columns.size()) ? columns[c].c_str() : std::to_string(c).c_str());
    std::printf("\n");
    for (int r = 0; r < rows; ++r) {
        std::printf("layer %-2d", r);
        for (int c = 0; c < cols; ++c) {
            const double x = v[static_cast<size_t>(r) * cols + c];
            if (std::isnan(x)) std::printf(" %9s", "-");
            else std::printf(" %9.4f", x);
        }
        std::printf("\n");
    }
}

std::vector<std::string> head_names(int H) {
    std::vector<std::string> names;
    for (int h = 0; h < H; ++h) names.push_back("head " + std::to_string(h));
    return names;
}

void fail_on(const std::string& error) {
    if (!error.empty()) throw std::runtime_error(error);
}

int lens(InspectModel& model, const InspectInput& in, const Args& args) {
    const explain::LogitLens r = explain::logit_lens(model, in, static_cast<int>(args.integer("top-k", 3, 1, 100)));
    fail_on(r.error);
    if (args.flag("json")) {
        json j{{"view", "lens"}, {"readout", r.readout}, {"caveat", r.caveat}, {"layers", r.layers},
               {"positions", r.positions}, {"position_tokens", r.position_tokens}, {"chosen", r.chosen}};
        json cells = json::array();
        for (int l = 0; l < r.layers; ++l)
            for (int t = 0; t < r.positions; ++t) {
                const explain::LensCell& c = r.cells[static_cast<size_t>(l) * r.positions + t];
                cells.push_back({{"layer", l}, {"position", t}, {"top", c.top}, {"top_tokens", model.token_texts(c.top)},
                                 {"top_log_probs", c.top_log_probs}, {"chosen_prob", std::exp(c.chosen_log_prob)}});
            }
        j["cells"] = cells;
        std::printf("%s\n", j.dump(1).c_str());
        return 0;
    }
    std::printf("decoder input: %s\nreadout: %s\n%s\n", joined(r.position_tokens).c_str(), r.readout.c_str(), r.caveat.c_str());
    for (int t = 0; t < r.positions; ++t) {
        std::printf("\nposition %d (input %s), finally chosen %s\n", t, r.position_tokens[t].c_str(),
                    model.token_text(r.chosen[t]).c_str());
        for (int l = 0; l < r.layers; ++l) {
            const explain::LensCell& c = r.cells[static_cast<size_t>(l) * r.positions + t];
            std::printf("  layer %d: p(chosen) %.4f  top:", l, std::exp(c.chosen_log_prob));
            for (size_t k = 0; k < c.top.size(); ++k)
                std::printf(" %s %.3f", model.token_text(c.top[k]).c_str(), std::exp(c.top_log_probs[k]));
            std::printf("\n");
        }
    }
    return 0;
}

explain::PatchMetric patch_metric(const InspectModel& model, const Args& args) {
    explain::PatchMetric m;
    m.position = static_cast<int>(args.integer("position", -1, 0, 1 << 20));
    if (const auto t = args.optional("token")) m.token = model.token_id(*t);
    if (const auto t = args.optional("versus")) m.versus = model.token_id(*t);
    return m;
}

// The clean and corrupted inputs: the corrupted run keeps the clean run's decoder input
// (decoder-only: its continuation after the prompt).
std::pair<InspectInput, InspectInput> patch_inputs(InspectModel& model, const Args& args) {
    const auto corrupt = args.optional("corrupt");
    if (!corrupt) throw CliError("patch needs --corrupt TEXT, the corrupted sentence");
    const InspectInput clean = model.input(args.get("src"), args.optional("tgt"));
    if (!model.decoder_only()) {
        InspectInput corrupted = model.input(*corrupt, std::string());
        corrupted.tgt = clean.tgt;
        return {clean, corrupted};
    }
    const size_t prompt = model.tokenizer().encode(args.get("src")).size();
    const std::vector<int> rest(clean.tgt.begin() + 1 + static_cast<std::ptrdiff_t>(prompt), clean.tgt.end());
    InspectInput corrupted = model.input(*corrupt, std::string());
    corrupted.tgt.insert(corrupted.tgt.end(), rest.begin(), rest.end());
    return {clean, corrupted};
}

int patch(InspectModel& model, const Args& args) {
    const auto [clean, corrupted] = patch_inputs(model, args);
    const explain::ActivationPatching r = explain::activation_patching(model, clean, corrupted, patch_metric(model, args));
    fail_on(r.error);
    if (args.flag("json")) {
        json j{{"view", "patch"}, {"metric", r.metric_text}, {"position", r.metric.position}, {"token", r.metric.token},
               {"versus", r.metric.versus}, {"clean", r.clean}, {"corrupted", r.corrupted}, {"note", r.note},
               {"clean_tokens", r.clean_tokens}, {"corrupted_tokens", r.corrupted_tokens}, {"target_tokens", r.target_tokens}};
        json grids = json::array();
        for (const explain::PatchGrid& g : r.grids)
            grids.push_back({{"name", g.name}, {"rows", g.rows}, {"cols", g.cols}, {"heads", g.heads},
                             {"metric", g.metric}, {"normalised", g.normalised}});   // NaN prints as null
        j["grids"] = grids;
        std::printf("%s\n", j.dump(1).c_str());
        return 0;
    }
    std::printf("clean:     %s\ncorrupted: %s\ndecoder input: %s\nmetric: %s\nclean %.4f, corrupted %.4f\n",
                joined(r.clean_tokens).c_str(), joined(r.corrupted_tokens).c_str(), joined(r.target_tokens).c_str(),
                r.metric_text.c_str(), r.clean, r.corrupted);
    if (!r.note.empty()) std::printf("%s\n", r.note.c_str());
    for (const explain::PatchGrid& g : r.grids) {
        const bool defined = r.note.empty();
        const std::vector<std::string> cols = g.heads ? head_names(g.cols)
                                              : g.stack == Stack::Encoder || model.decoder_only() ? r.clean_tokens
                                                                                                 : r.target_tokens;
        print_grid(g.name + (defined ? " (normalised: 0 corrupted, 1 clean)" : " (metric)"), g.rows, g.cols,
                   defined ? g.normalised : g.metric, cols);
    }
    return 0;
}

int heads(InspectModel& model, const InspectInput& in, const Args& args) {
    const explain::HeadImportance r = explain::head_importance(model, in, static_cast<int>(args.integer("position", -1, 0, 1 << 20)));
    fail_on(r.error);
    if (args.flag("json")) {
        json j{{"view", "heads"}, {"metric", r.metric_text}, {"position", r.position}, {"chosen", r.chosen},
               {"chosen_tokens", r.chosen_text}, {"intact", r.intact}};
        json grids = json::array();
        for (const explain::HeadGrid& g : r.grids)
            grids.push_back({{"name", g.name}, {"layers", g.layers}, {"heads", g.heads}, {"delta", g.delta}});
        j["grids"] = grids;
        std::printf("%s\n", j.dump(1).c_str());
        return 0;
    }
    std::printf("chosen: %s\nmetric: %s = %.4f\n(change with one head off; negative = the head helped)\n",
                joined(r.chosen_text).c_str(), r.metric_text.c_str(), r.intact);
    for (const explain::HeadGrid& g : r.grids) print_grid(g.name, g.layers, g.heads, g.delta, head_names(g.heads));
    return 0;
}

int rollout(InspectModel& model, const InspectInput& in, const Args& args) {
    const explain::AttentionRollout r = explain::attention_rollout(model, in);
    fail_on(r.error);
    const size_t NN = static_cast<size_t>(r.positions) * r.positions;
    const std::vector<double> last(r.per_layer.end() - static_cast<std::ptrdiff_t>(NN), r.per_layer.end());
    if (args.flag("json")) {
        json j{{"view", "rollout"}, {"method", r.method}, {"stack", r.stack}, {"layers", r.layers},
               {"positions", r.positions}, {"tokens", r.tokens}, {"per_layer", r.per_layer}, {"rollout", last},
               {"cross_layers", r.cross_layers}, {"target_positions", r.target_positions},
               {"target_tokens", r.target_tokens}, {"cross", r.cross}};
        std::printf("%s\n", j.dump(1).c_str());
        return 0;
    }
    std::printf("%s\n", r.method.c_str());
    std::printf("\nrollout of the %s (rows: positions after the last layer; columns: input tokens)\n", r.stack.c_str());
    std::printf("%-12s", "");
    for (const auto& t : r.tokens) std::printf(" %8.8s", t.c_str());
    std::printf("\n");
    for (int i = 0; i < r.positions; ++i) {
        std::printf("%-12.12s", r.tokens[i].c_str());
        for (int k = 0; k < r.positions; ++k) std::printf(" %8.4f", last[static_cast<size_t>(i) * r.positions + k]);
        std::printf("\n");
    }
    if (r.cross_layers > 0) {
        const size_t TS = static_cast<size_t>(r.target_positions) * r.positions;
        std::printf("\ndecoder positions over source tokens, last decoder layer's cross-attention x encoder rollout\n%-12s", "");
        for (const auto& t : r.tokens) std::printf(" %8.8s", t.c_str());
        std::printf("\n");
        for (int i = 0; i < r.target_positions; ++i) {
            std::printf("%-12.12s", r.target_tokens[i].c_str());
            for (int k = 0; k < r.positions; ++k)
                std::printf(" %8.4f", r.cross[(r.cross_layers - 1) * TS + static_cast<size_t>(i) * r.positions + k]);
            std::printf("\n");
        }
    }
    return 0;
}

int entropy(InspectModel& model, const InspectInput& in, const Args& args) {
    const explain::AttentionEntropy r = explain::attention_entropy(model, in);
    fail_on(r.error);
    if (args.flag("json")) {
        json grids = json::array();
        for (const explain::EntropyGrid& g : r.grids)
            grids.push_back({{"name", g.name}, {"layers", g.layers}, {"heads", g.heads}, {"entropy", g.entropy},
                             {"max_entropy", g.max_entropy}});
        std::printf("%s\n", json{{"view", "entropy"}, {"note", r.note}, {"grids", grids}}.dump(1).c_str());
        return 0;
    }
    std::printf("%s\n", r.note.c_str());
    for (const explain::EntropyGrid& g : r.grids)
        print_grid(g.name + " (uniform maximum " + std::to_string(g.max_entropy) + " nats)", g.layers, g.heads, g.entropy,
                   head_names(g.heads));
    return 0;
}

int attribution(InspectModel& model, const InspectInput& in, const Args& args) {
    const int token = args.has("token") ? model.token_id(args.get("token")) : -1;
    const explain::LogitAttribution r =
        explain::logit_attribution(model, in, static_cast<int>(args.integer("position", -1, 0, 1 << 20)), token);
    fail_on(r.error);
    double sum = r.remainder;
    for (const auto& p : r.parts) sum += p.value;
    if (args.flag("json")) {
        json parts = json::array();
        for (const auto& p : r.parts) parts.push_back({{"name", p.name}, {"layer", p.layer}, {"head", p.head}, {"value", p.value}});
        std::printf("%s\n", json{{"view", "attribution"}, {"method", r.method}, {"position", r.position}, {"token", r.token},
                                 {"token_text", r.token_text}, {"logit", r.logit}, {"remainder", r.remainder},
                                 {"sum", sum}, {"parts", parts}}.dump(1).c_str());
        return 0;
    }
    std::printf("%s\n\nlogit of %s at target position %d: %.5f\n", r.method.c_str(), r.token_text.c_str(), r.position, r.logit);
    for (const auto& p : r.parts) std::printf("  %-40s %10.5f\n", p.name.c_str(), p.value);
    std::printf("  %-40s %10.5f\n  %-40s %10.5f\n", "remainder (biases)", r.remainder, "sum", sum);
    return 0;
}

// Times head importance and the full patching grids; prints the median and range of `repeats` rounds.
int bench(InspectModel& model, const Args& args) {
    const int repeats = static_cast<int>(args.integer("repeats", 3, 1, 1000));
    const auto [clean, corrupted] = patch_inputs(model, args);
    auto time = [&](auto&& body) {
        std::vector<double> ms;
        for (int i = 0; i < repeats; ++i) {
            const auto start = std::chrono::steady_clock::now();
            body();
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(ms.begin(), ms.end());
        return std::vector<double>{ms[ms.size() / 2], ms.front(), ms.back()};
    };
    size_t heads_runs = 0, patch_runs = 0;
    const auto h = time([&] {
        const explain::HeadImportance r = explain::head_importance(model, clean);
        fail_on(r.error);
        heads_runs = 0;
        for (const auto& g : r.grids) heads_runs += g.delta.size();
    });
    const auto p = time([&] {
        const explain::ActivationPatching r = explain::activation_patching(model, clean, corrupted);
        fail_on(r.error);
        patch_runs = 0;
        for (const auto& g : r.grids) patch_runs += g.metric.size();
    });
    const json j{{"cpu", cpu::machine_summary()}, {"threads", cpu_threads()}, {"repeats", repeats},
                 {"source_pieces", clean.src.empty() ? clean.tgt.size() : clean.src.size()},
                 {"target_positions", clean.tgt.size()},
                 {"heads_ms", {{"median", h[0]}, {"min", h[1]}, {"max", h[2]}}}, {"heads_ablations", heads_runs},
                 {"patch_ms", {{"median", p[0]}, {"min", p[1]}, {"max", p[2]}}}, {"patches", patch_runs}};
    if (args.flag("json")) {
        std::printf("%s\n", j.dump().c_str());
        return 0;
    }
    std::printf("%s\n%d thread(s), %d rounds; source %zu pieces, decoder input %zu positions\n", cpu::machine_summary().c_str(),
                cpu_threads(), repeats, clean.src.size(), clean.tgt.size());
    std::printf("head importance: %zu ablations, median %.1f ms (min %.1f, max %.1f)\n", heads_runs, h[0], h[1], h[2]);
    std::printf("patching grids:  %zu patches, median %.1f ms (min %.1f, max %.1f)\n", patch_runs, p[0],
                p[1], p[2]);
    return 0;
}

}  // namespace

int cmd_inspect(const Argv& argv) {
    if (argv.empty() || wants_help(argv)) {
        std::printf("%s%s", INSPECT_HELP, MODEL_OPTIONS_HELP);
        return argv.empty() ? 2 : 0;
    }
    const std::string view = argv.front();
    const Argv rest(argv.begin() + 1, argv.end());
    auto valued = MODEL_OPTIONS;
    valued.insert({"src", "corrupt", "tgt", "position", "token", "versus", "top-k", "repeats", "threads"});
    auto flags = MODEL_FLAGS;
    flags.insert("json");
    const Args args(rest, valued, flags);
    const std::vector<std::string> views{"lens", "patch", "heads", "rollout", "entropy", "attribution", "bench"};
    if (std::find(views.begin(), views.end(), view) == views.end())
        throw CliError("unknown view '" + view + "' (lens, patch, heads, rollout, entropy, attribution or bench)");
    if (args.all("src").size() != 1) throw CliError("give exactly one --src (the sentence to look inside)");
    set_cpu_threads(static_cast<int>(args.integer("threads", 1, 1, 1024)));
    InspectModel model(model_from_options(args, false, true));
    if (view == "patch") return patch(model, args);
    if (view == "bench") return bench(model, args);
    const InspectInput in = model.input(args.get("src"), args.optional("tgt"));
    if (view == "lens") return lens(model, in, args);
    if (view == "heads") return heads(model, in, args);
    if (view == "rollout") return rollout(model, in, args);
    if (view == "entropy") return entropy(model, in, args);
    return attribution(model, in, args);
}

}  // namespace tx::cli
