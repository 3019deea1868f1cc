// Model and backend selection shared by txcli's commands.
#include "model_source.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "tx/asset_paths.h"
#include "tx/attention_window.h"
#include "backend_names.h"
#include "tx/session.h"
#include "tx/tokenizer.h"

namespace tx::cli {

const std::set<std::string> VARIANT_OPTIONS = {"arch",   "positional",      "ffn",              "norm-kind", "window",
                                               "window-dilation", "global-positions", "kv-heads", "ffn-rank"};
const std::set<std::string> MODEL_OPTIONS = [] {
    std::set<std::string> names = {"checkpoint", "d-model", "heads", "d-ff", "layers", "max-len",
                                   "dropout",    "norm",    "tokenizer", "seed", "vocab"};
    names.insert(VARIANT_OPTIONS.begin(), VARIANT_OPTIONS.end());
    return names;
}();
const std::set<std::string> MODEL_FLAGS = {"no-scale"};
const char* MODEL_OPTIONS_HELP =
    "  --checkpoint FILE    a .safetensors checkpoint (otherwise a fresh model from the options below)\n"
    "  --d-model N          model width D (default 64)\n"
    "  --heads N            attention heads H; D must be divisible by H (default 4)\n"
    "  --d-ff N             feed-forward width F (default 256)\n"
    "  --layers N           N encoder and N decoder layers (default 2)\n"
    "  --max-len N          longest sequence, BOS/EOS included (default 128)\n"
    "  --dropout P          dropout in training (default 0.1)\n"
    "  --norm post|pre      LayerNorm placement (default post, as the paper)\n"
    "  --no-scale           do not divide attention scores by sqrt(dk)\n"
    "  --tokenizer word|char  (default word)\n"
    "  --vocab FILE         vocabulary, one token per line (default: the shipped one for the tokenizer)\n"
    "  --seed N             initialisation seed (default 1)\n"
    "  --arch encoder-decoder|decoder-only  decoder-only: GPT's stack on the target side alone\n"
    "  --positional sinusoidal|learned|rope|alibi|none|relative   where positions enter (default\n"
    "                       sinusoidal; relative: T5's learned bias on the scores, CPU only)\n"
    "  --ffn relu|gelu|swiglu  feed-forward activation (default relu; swiglu: 3 matrices of 2/3 d_ff)\n"
    "  --norm-kind layernorm|rmsnorm  the norm (default layernorm); --norm says where it goes\n"
    "  --window W           sliding self-attention window in keys, 0 = full (default 0)\n"
    "  --window-dilation D  the window's keys D apart, reaching D times as far (Longformer; default 1)\n"
    "  --global-positions P,Q  positions that see and are seen by every position, outside the window\n"
    "                       (Longformer's global attention; e.g. 0 for the first token)\n"
    "  --kv-heads G         grouped-query attention: G key/value heads shared by the H query heads;\n"
    "                       G must divide H; 1 = multi-query; 0 = one per query head (default 0)\n"
    "  --ffn-rank R         low-rank FFN: every FFN matrix W is a product U·V of rank R, below\n"
    "                       d_model·F/(d_model + F); 0 = full matrices (default 0)\n";

void apply_variant_options(const Args& args, ModelConfig& config) {
    const std::string arch = args.get_or("arch", to_string(config.arch));
    if (!arch_from_string(arch)) throw CliError("--arch must be encoder-decoder or decoder-only, got '" + arch + "'");
    config.arch = *arch_from_string(arch);
    if (config.arch == Arch::DecoderOnly) config.encoder_layers = 0;   // --layers N: N decoder layers
    const std::string positional = args.get_or("positional", to_string(config.positional));
    if (!positional_from_string(positional))
        throw CliError("--positional must be sinusoidal, learned, rope, alibi, none or relative, got '" + positional + "'");
    config.positional = *positional_from_string(positional);
    const std::string ffn = args.get_or("ffn", to_string(config.ffn));
    if (!ffn_from_string(ffn)) throw CliError("--ffn must be relu, gelu or swiglu, got '" + ffn + "'");
    config.ffn = *ffn_from_string(ffn);
    const std::string norm_kind = args.get_or("norm-kind", to_string(config.norm_kind));
    if (!norm_kind_from_string(norm_kind))
        throw CliError("--norm-kind must be layernorm or rmsnorm, got '" + norm_kind + "'");
    config.norm_kind = *norm_kind_from_string(norm_kind);
    config.window = static_cast<int>(args.integer("window", config.window, 0, 4096));
    config.window_dilation = static_cast<int>(args.integer("window-dilation", config.window_dilation, 1, 4096));
    if (args.has("global-positions")) {
        try {
            config.global_positions = parse_global_positions(args.get("global-positions"));
        } catch (const ConfigError& e) {
            throw CliError(std::string("--global-positions: ") + e.what());
        }
    }
    config.kv_heads = static_cast<int>(args.integer("kv-heads", config.kv_heads, 0, 64));
    config.ffn_rank = static_cast<int>(args.integer("ffn-rank", config.ffn_rank, 0, 16384));
}

Checkpoint model_from_options(const Args& args, bool command_seed, bool shipped_by_default) {
    // The options that shape a fresh model (--seed is the command's own when command_seed).
    const auto shaping_option = [&]() -> std::string {
        for (const auto& name : MODEL_OPTIONS)
            if (name != "checkpoint" && !(command_seed && name == "seed") && args.has(name)) return name;
        return args.flag("no-scale") ? "no-scale" : "";
    };
    if (args.has("checkpoint")) {
        if (const std::string name = shaping_option(); !name.empty())
            throw CliError("--" + name + " cannot be combined with --checkpoint (the checkpoint holds the config)");
        return load_checkpoint(args.get("checkpoint"));
    }
    if (shipped_by_default && shaping_option().empty()) {
        const std::string shipped = std::string("assets/") + EVERYDAY_MODEL;
        const std::string path = find_asset(shipped);
        if (!std::filesystem::exists(path))
            throw CliError(std::string("no --checkpoint given, and the shipped model '") + shipped +
                           "' is not found (set TX_ASSETS_DIR to the assets folder, or give --checkpoint FILE)");
        return load_checkpoint(path);
    }
    ModelConfig config;
    config.d_model = static_cast<int>(args.integer("d-model", 64, 1, 4096));
    config.heads = static_cast<int>(args.integer("heads", 4, 1, 64));
    config.d_ff = static_cast<int>(args.integer("d-ff", 256, 1, 16384));
    config.encoder_layers = config.decoder_layers = static_cast<int>(args.integer("layers", 2, 1, 24));
    config.max_len = static_cast<int>(args.integer("max-len", 128, 2, 4096));
    config.dropout = static_cast<float>(args.real("dropout", 0.1, 0.0, 0.99));
    config.seed = command_seed ? 1 : static_cast<uint64_t>(args.integer("seed", 1, 0, INT64_MAX));
    const std::string norm = args.get_or("norm", "post");
    if (norm != "post" && norm != "pre") throw CliError("--norm must be post or pre, got '" + norm + "'");
    config.norm = norm == "post" ? NormPlacement::Post : NormPlacement::Pre;
    config.scale_attention = !args.flag("no-scale");
    apply_variant_options(args, config);
    const std::string tokenizer = args.get_or("tokenizer", "word");
    if (tokenizer != "word" && tokenizer != "char")
        throw CliError("--tokenizer must be word or char, got '" + tokenizer + "'");
    config.tokenizer = tokenizer == "word" ? TokenizerKind::Word : TokenizerKind::Char;
    const std::string vocab_path =
        args.get_or("vocab", assets_root() + (tokenizer == "word" ? "/vocab/words.txt" : "/vocab/chars.txt"));
    const Vocabulary vocabulary = load_vocabulary(vocab_path);
    if (config.d_model % config.heads != 0)
        throw CliError("d_model (" + std::to_string(config.d_model) + ") must be divisible by heads (" +
                       std::to_string(config.heads) + ")");
    return Session::fresh(config, vocabulary.tokens());
}

BackendFactory backend_factory(const std::string& name) {
    const auto& names = app::backend_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
        throw CliError("--backend must be cpu or cuda, got '" + name + "'");
    if (const std::string reason = app::backend_unavailable_reason(name); !reason.empty())
        throw CliError("the " + name + " backend is unavailable: " + reason);
    return [name] { return app::make_backend(name); };
}

std::unique_ptr<Backend> backend_from_name(const std::string& name) {
    const BackendFactory make = backend_factory(name);
    try {
        return make();
    } catch (const DeviceError& e) {
        throw CliError(std::string("cannot start the ") + name + " backend: " + e.what());
    }
}

const char* PRECISION_HELP =
    "  --precision P        fp32 (default), bf16 or fp16 (autocast: the linear layers' weights and every matrix\n"
    "                       product's inputs and output rounded to P, sums, softmax and norms in fp32), or int8\n"
    "                       (weight-only: linear weights quantised per output channel); docs/precision.md\n"
    "  --all-low            with bf16 or fp16: also round every step's output to P (a teaching switch)\n";

PrecisionMode precision_from_options(const Args& args) {
    PrecisionMode mode;
    const std::string name = args.get_or("precision", "fp32");
    const auto format = precision_from_string(name);
    if (!format) throw CliError("--precision must be fp32, bf16, fp16 or int8, got '" + name + "'");
    mode.format = *format;
    mode.all_low = args.flag("all-low");
    if (auto error = validate(mode)) throw CliError("--all-low: " + *error);
    return mode;
}

std::unique_ptr<Backend> backend_from_name(const std::string& name, PrecisionMode mode) {
    if (mode.format == Precision::Fp32) return backend_from_name(name);
    if (name != "cpu")
        throw CliError("--precision " + std::string(to_string(mode.format)) + " runs on the cpu backend only, not " + name);
    return make_precision_cpu_backend(mode);
}

}  // namespace tx::cli
