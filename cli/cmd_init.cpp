// txcli init / info: write a fresh checkpoint; describe one.
#include <cstdio>

#include "commands.h"
#include "model_source.h"
#include "tx/attention_window.h"
#include "tx/parameters.h"

namespace tx::cli {

bool wants_help(const Argv& argv) {
    for (const auto& a : argv)
        if (a == "--help" || a == "-h") return true;
    return false;
}

int cmd_init(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("usage: txcli init --out FILE [model options]\n\nWrites a freshly initialised checkpoint "
                    "(Xavier-uniform weights from --seed).\n\n%s", MODEL_OPTIONS_HELP);
        return 0;
    }
    auto valued = MODEL_OPTIONS;
    valued.erase("checkpoint");
    valued.insert("out");
    const Args args(argv, valued, MODEL_FLAGS);
    const std::string out = args.get("out");
    const Checkpoint checkpoint = model_from_options(args);
    save_checkpoint(out, checkpoint);
    std::printf("wrote %s: %lld parameters, vocabulary %zu (%s tokenizer)\n", out.c_str(),
                static_cast<long long>(checkpoint.parameters.size()), checkpoint.vocabulary.size(),
                to_string(checkpoint.config.tokenizer));
    return 0;
}

int cmd_info(const Argv& argv) {
    if (wants_help(argv)) {
        std::printf("usage: txcli info --checkpoint FILE\n\nPrints the config, the parameter count and the "
                    "tensor table.\n");
        return 0;
    }
    const Args args(argv, {"checkpoint"}, {});
    const Checkpoint checkpoint = load_checkpoint(args.get("checkpoint"));
    const ModelConfig& c = checkpoint.config;
    std::printf("checkpoint   %s\n", args.get("checkpoint").c_str());
    std::printf("vocabulary   %d source / %d target tokens (%s tokenizer; PAD %d, BOS %d, EOS %d, UNK %d)\n",
                c.src_vocab, c.tgt_vocab, to_string(c.tokenizer), c.special.pad, c.special.bos, c.special.eos,
                c.special.unk);
    std::printf("d_model %d, heads %d (dk %d), d_ff %d, layers %d encoder + %d decoder, max_len %d\n", c.d_model,
                c.heads, c.d_k(), c.d_ff, c.encoder_layers, c.decoder_layers, c.max_len);
    std::printf("norm %s-LN%s, attention scaling %s, dropout %g, LayerNorm eps %g, seed %llu\n", to_string(c.norm),
                c.norm == NormPlacement::Post && c.final_norm ? " + a final norm per stack" : "", c.scale_attention ? "1/sqrt(dk)" : "off", c.dropout, c.ln_eps,
                static_cast<unsigned long long>(c.seed));
    std::printf("variants     %s, positions %s, ffn %s (hidden %d), norm kind %s, window %s, key/value heads %s, ffn rank %s\n",
                to_string(c.arch), to_string(c.positional), to_string(c.ffn), c.ffn_width(), to_string(c.norm_kind),
                window_summary(c).c_str(),
                c.kv_head_count() < c.heads ? (std::to_string(c.kv_head_count()) + " (grouped-query)").c_str()
                                            : "one per query head",
                c.ffn_rank > 0 ? std::to_string(c.ffn_rank).c_str() : "full");
    if (!checkpoint.training_json.empty()) std::printf("training     %s\n", checkpoint.training_json.c_str());
    const ParameterTable table(c);
    std::printf("parameters   %lld (%.2f MB as float32)\n\n", static_cast<long long>(table.total()),
                table.total() * 4.0 / 1e6);
    for (const auto& e : table.entries()) {
        std::string shape = "[";
        for (size_t i = 0; i < e.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(e.shape[i]);
        std::printf("  %-48s %-14s %lld\n", e.name.c_str(), (shape + "]").c_str(), static_cast<long long>(e.numel()));
    }
    return 0;
}

}  // namespace tx::cli
