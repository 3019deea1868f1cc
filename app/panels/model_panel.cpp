// Model panel (see model_panel.h).
#include "panels/model_panel.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "imgui_stdlib.h"
#include "tx/attention_window.h"
#include "tx/parameters.h"
#include "widgets/ui.h"

namespace tx::app {

const char* preset_name(ModelPreset preset) {
    switch (preset) {
        case ModelPreset::Transformer2017: return "2017 Transformer";
        case ModelPreset::Gpt2Like: return "GPT-2-like";
        case ModelPreset::LlamaLike: return "LLaMA-like";
    }
    return "";
}

const char* preset_description(ModelPreset preset) {
    switch (preset) {
        case ModelPreset::Transformer2017:
            return "Vaswani et al. 2017: encoder-decoder, sinusoidal positions, ReLU feed-forward, LayerNorm after each "
                   "residual sum (Post-LN).";
        case ModelPreset::Gpt2Like:
            return "Radford et al. 2019: decoder-only, a learned position table, GELU, LayerNorm before each sublayer "
                   "(Pre-LN) and a final one. Only these parts change: embeddings \xC3\x97 \xE2\x88\x9A" "d_model, biases in "
                   "attention, and a separate output layer stay as in 2017 (GPT-2 shares its input and output "
                   "embeddings and does not scale them).";
        case ModelPreset::LlamaLike:
            return "Touvron et al. 2023: decoder-only, RoPE on q and k, SwiGLU feed-forward, RMSNorm before each "
                   "sublayer (pre-norm) and a final one. Only these parts change: embeddings \xC3\x97 \xE2\x88\x9A" "d_model, "
                   "biases in attention, and a separate output layer stay as in 2017 (LLaMA has no biases and no "
                   "scaling).";
    }
    return "";
}

namespace {

struct PresetFields {
    Arch arch;
    PositionalKind positional;
    FfnKind ffn;
    NormKind norm_kind;
    NormPlacement norm;
};

PresetFields preset_fields(ModelPreset preset) {
    switch (preset) {
        case ModelPreset::Transformer2017:
            return {Arch::EncoderDecoder, PositionalKind::Sinusoidal, FfnKind::Relu, NormKind::LayerNorm, NormPlacement::Post};
        case ModelPreset::Gpt2Like:
            return {Arch::DecoderOnly, PositionalKind::Learned, FfnKind::Gelu, NormKind::LayerNorm, NormPlacement::Pre};
        case ModelPreset::LlamaLike:
            return {Arch::DecoderOnly, PositionalKind::Rope, FfnKind::SwiGlu, NormKind::RmsNorm, NormPlacement::Pre};
    }
    return {Arch::EncoderDecoder, PositionalKind::Sinusoidal, FfnKind::Relu, NormKind::LayerNorm, NormPlacement::Post};
}

}  // namespace

ModelConfig apply_preset(ModelConfig config, ModelPreset preset) {
    const PresetFields f = preset_fields(preset);
    config.arch = f.arch;
    config.positional = f.positional;
    config.ffn = f.ffn;
    config.norm_kind = f.norm_kind;
    config.norm = f.norm;
    config.window = 0;   // all three attend over the whole sequence
    config.window_dilation = 1;
    config.global_positions.clear();
    config.kv_heads = 0;   // and give every query head its own keys and values
    config.ffn_rank = 0;   // with full FFN matrices
    // As the architecture combo: decoder-only has no encoder; back to encoder-decoder, as many
    // encoder layers as decoder ones.
    if (f.arch == Arch::DecoderOnly)
        config.encoder_layers = 0;
    else if (config.encoder_layers == 0)
        config.encoder_layers = std::max(1, config.decoder_layers);
    return config;
}

bool matches_preset(const ModelConfig& config, ModelPreset preset) {
    const PresetFields f = preset_fields(preset);
    return config.arch == f.arch && config.positional == f.positional && config.ffn == f.ffn &&
           config.norm_kind == f.norm_kind && config.norm == f.norm && config.window == 0 &&
           config.window_dilation == 1 && config.global_positions.empty() &&
           config.kv_head_count() == config.heads && config.ffn_rank == 0;
}

ModelPanel::ModelPanel()
    : Panel("The model's hyperparameters. Edit them (or start from a preset), then press Rebuild: that builds a new model with "
            "fresh random weights (Xavier, from the seed); d_model must split evenly into heads (dk = d_model / heads).") {}

// The modern variants (docs/design.md §3): one combo per field, each choice with a one-line
// explanation of what it changes; the window as a number of keys. Returns whether one changed.
bool ModelPanel::variant_fields() {
    bool changed = false;
    int arch = static_cast<int>(m_edit.arch);
    ImGui::SetNextItemWidth(260);
    if (ImGui::Combo("architecture", &arch, "encoder-decoder (paper)\0decoder-only (GPT)\0")) {
        m_edit.arch = static_cast<Arch>(arch);
        // A decoder-only model has no encoder; back to encoder-decoder, as many encoder layers as decoder ones.
        m_edit.encoder_layers = m_edit.arch == Arch::DecoderOnly ? 0 : std::max(1, m_edit.decoder_layers);
        changed = true;
    }
    help_marker("Decoder-only keeps the decoder's masked self-attention and FFN and drops the encoder and "
                "cross-attention (GPT): the source sentence is not read, and the model predicts each next token of "
                "the decoder input from the tokens before it.");
    int positional = static_cast<int>(m_edit.positional);
    ImGui::SetNextItemWidth(260);
    if (ImGui::Combo("positions", &positional,
                     "sinusoidal (paper)\0learned table\0RoPE (rotate q, k)\0ALiBi (bias on scores)\0none\0"
                     "T5 relative bias (learned, on scores)\0")) {
        m_edit.positional = static_cast<PositionalKind>(positional);
        changed = true;
    }
    help_marker("Where word order enters. Sinusoidal: a fixed sin/cos code added to the embeddings (paper \xC2\xA7" "3.5). "
                "Learned: a trained [max length, d_model] table added instead. RoPE: self-attention's q and k are "
                "rotated by their position, so position enters the scores only through the offset i \xE2\x88\x92 j. "
                "ALiBi: self-attention's scores get a distance penalty, one fixed slope per head: the paper's "
                "\xE2\x88\x92m\xE2\x82\x95\xC2\xB7(i \xE2\x88\x92 j) for causal attention, and in the encoder this app's "
                "symmetric \xE2\x88\x92m\xE2\x82\x95\xC2\xB7|i \xE2\x88\x92 j|. None: the encoder cannot tell word "
                "order; the decoder keeps what its causal mask implies. T5 relative bias: self-attention's scores get "
                "a learned number per head for the key's offset from the query, offsets grouped into 32 buckets "
                "(CPU only). Cross-attention never gets a position term.");
    int ffn = static_cast<int>(m_edit.ffn);
    ImGui::SetNextItemWidth(260);
    if (ImGui::Combo("feed-forward", &ffn, "ReLU (paper)\0GELU\0SwiGLU (3 matrices)\0")) {
        m_edit.ffn = static_cast<FfnKind>(ffn);
        changed = true;
    }
    help_marker(m_edit.ffn == FfnKind::SwiGlu
                    ? ("SwiGLU: SiLU(x\xC2\xB7W\xE2\x82\x81\xE1\xB5\x80) \xE2\x8A\x99 (x\xC2\xB7W\xE2\x82\x83\xE1\xB5\x80), "
                       "then \xC2\xB7W\xE2\x82\x82\xE1\xB5\x80, no biases (LLaMA). Its hidden width is " +
                       std::to_string(m_edit.ffn_width()) +
                       " = round(2/3 \xC2\xB7 d_ff), to a multiple of 8 from 64 on, so its three matrices hold about as "
                       "many weights as ReLU's two.").c_str()
                    : "ReLU zeroes negatives (paper). GELU weights each value by the normal CDF \xCE\xA6(x), a smooth "
                      "ReLU (BERT, GPT-2). SwiGLU gates one projection with SiLU of another (LLaMA).");
    int norm_kind = static_cast<int>(m_edit.norm_kind);
    ImGui::SetNextItemWidth(260);
    if (ImGui::Combo("norm kind", &norm_kind, "LayerNorm (paper)\0RMSNorm\0")) {
        m_edit.norm_kind = static_cast<NormKind>(norm_kind);
        changed = true;
    }
    help_marker("LayerNorm subtracts each row's mean and divides by its standard deviation, then \xCE\xB3, \xCE\xB2. "
                "RMSNorm only divides by the root mean square and has \xCE\xB3 alone (LLaMA); placement is set above.");
    changed |= ImGui::InputInt("attention window", &m_edit.window);
    help_marker("0 = full attention. W > 0: decoder self-attention sees only the last W positions "
                "(i \xE2\x88\x92 W < j \xE2\x89\xA4 i, Mistral), encoder self-attention |i \xE2\x88\x92 j| "
                "\xE2\x89\xA4 \xE2\x8C\x8AW/2\xE2\x8C\x8B; cross-attention stays full. It shows in the Masks panel.");
    changed |= ImGui::InputInt("window dilation", &m_edit.window_dilation);
    help_marker("Dilated window (Longformer): the window's W keys stand d apart, so decoder query i sees i, i \xE2\x88\x92 d, "
                "\xE2\x80\xA6, i \xE2\x88\x92 (W \xE2\x88\x92 1)\xC2\xB7" "d and encoder query i sees "
                "|i \xE2\x88\x92 j| = k\xC2\xB7" "d for k \xE2\x89\xA4 \xE2\x8C\x8AW/2\xE2\x8C\x8B: as many keys, d "
                "times as far. 1 = adjacent keys. Needs a window.");
    if (ImGui::InputText("global positions", &m_global_text)) {
        try {
            m_edit.global_positions = parse_global_positions(m_global_text);
            m_global_error.clear();
        } catch (const ConfigError& e) {
            m_global_error = std::string("global positions: ") + e.what();
        }
        changed = true;
    }
    help_marker("Global attention (Longformer): positions, such as 0 (the first token; BOS in the decoder), whose query "
                "sees every key and whose key every query sees, outside the window; the causal and padding masks still "
                "apply. The same positions in the encoder and the decoder, separated by commas. Needs a window.");
    changed |= ImGui::InputInt("key/value heads", &m_edit.kv_heads);
    help_marker("Grouped-query attention (LLaMA 2/3, Mistral): G key/value heads shared by the query heads, each serving "
                "heads / G of them; G must divide heads. 0 (or as many as heads) = one per query head, as in the paper; "
                "1 = multi-query attention. K and V get G\xC2\xB7" "dk columns instead of d_model, and the KV cache "
                "(Generate panel) shrinks by heads / G. The steps k_repeat and v_repeat copy each shared head to its "
                "query heads.");
    changed |= ImGui::InputInt("FFN rank", &m_edit.ffn_rank);
    help_marker("Low-rank FFN: every FFN matrix W is stored as a product U\xC2\xB7V of rank r, so each position is "
                "first squeezed to r numbers (the steps rank1, rank2, and rank3 with SwiGLU) and then widened by U. The "
                "two factors hold r\xC2\xB7(in + out) weights instead of in\xC2\xB7out; r must stay below "
                "d_model\xC2\xB7" "F / (d_model + F), where they would hold more. 0 = full matrices, as in the paper.");
    return changed;
}

void ModelPanel::show_config(const ModelConfig& config) {
    m_edit = config;
    m_global_text = global_positions_text(config);
    m_global_error.clear();
}

void ModelPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    if (m_synced_version != v.version && !m_edited) {
        show_config(v.config);
        m_synced_version = v.version;
    }
    if (m_path.empty()) {
        const char* home = std::getenv("HOME");
        m_path = std::string(home ? home : "/tmp") + "/transformer-explorer-model.safetensors";
    }
    ImGui::Text("Weights: %s", v.model_source.c_str());
    ImGui::Separator();

    bool changed = false;
    if (ImGui::Button("Presets...")) ImGui::OpenPopup("presets");
    ImGui::SameLine();
    const char* matched = nullptr;
    for (ModelPreset p : MODEL_PRESETS)
        if (matches_preset(m_edit, p)) matched = preset_name(p);
    if (matched)
        ImGui::TextDisabled("the fields below match the %s preset", matched);
    else
        ImGui::TextDisabled("the fields below match no preset");
    if (ImGui::BeginPopup("presets")) {
        ImGui::TextDisabled("Sets architecture, positions, feed-forward, norm kind and placement, full attention; sizes stay.");
        for (ModelPreset p : MODEL_PRESETS) {
            if (ImGui::MenuItem(preset_name(p))) {
                show_config(apply_preset(m_edit, p));
                changed = true;
            }
            ImGui::Indent();
            ImGui::TextDisabled("%s", preset_description(p));
            ImGui::Unindent();
        }
        ImGui::EndPopup();
    }
    ImGui::PushItemWidth(160);
    changed |= ImGui::InputInt("d_model", &m_edit.d_model);
    help_marker("Width of every token vector (D). The embeddings are multiplied by \xE2\x88\x9A" "d_model.");
    changed |= ImGui::InputInt("heads", &m_edit.heads);
    help_marker("H parallel attention heads, each of width dk = d_model / H.");
    changed |= ImGui::InputInt("d_ff", &m_edit.d_ff);
    help_marker("Hidden width F of the position-wise feed-forward network, e.g. ReLU(x\xC2\xB7W\xE2\x82\x81\xE1\xB5\x80 + b\xE2\x82\x81)\xC2\xB7W\xE2\x82\x82\xE1\xB5\x80 + b\xE2\x82\x82 "
                "(SwiGLU uses 2/3 of it, see feed-forward below).");
    // A decoder-only model has no encoder: its count stays 0.
    ImGui::BeginDisabled(m_edit.arch == Arch::DecoderOnly);
    changed |= ImGui::InputInt("encoder layers", &m_edit.encoder_layers);
    ImGui::EndDisabled();
    changed |= ImGui::InputInt("decoder layers", &m_edit.decoder_layers);
    changed |= ImGui::InputInt("max length", &m_edit.max_len);
    help_marker("Longest sequence, BOS/EOS included; also the length of the positional-encoding table.");
    changed |= ImGui::InputFloat("dropout", &m_edit.dropout, 0.05f, 0.1f, "%.2f");
    help_marker("Stored with the model and used only when it is trained (txcli train); the explorer always runs in "
                "eval mode, so what you see has no dropout, and the Training panel's tasks use their own settings.");
    int seed = static_cast<int>(m_edit.seed);
    if (ImGui::InputInt("seed", &seed)) {
        m_edit.seed = static_cast<uint64_t>(std::max(seed, 0));
        changed = true;
    }
    int norm = m_edit.norm == NormPlacement::Post ? 0 : 1;
    ImGui::SetNextItemWidth(260);
    if (ImGui::Combo("norm placement", &norm, "Post-LN: LN(x + f(x)) (paper)\0Pre-LN: x + f(LN(x))\0")) {
        m_edit.norm = norm == 0 ? NormPlacement::Post : NormPlacement::Pre;
        changed = true;
    }
    help_marker("Post-LN normalises after the residual sum, as the paper. Pre-LN normalises each sublayer's input and "
                "adds a final LayerNorm; it trains more stably in deep stacks.");
    changed |= ImGui::Checkbox("scale scores by 1/\xE2\x88\x9A" "dk", &m_edit.scale_attention);
    help_marker("Dot products of dk-wide vectors grow like \xE2\x88\x9A" "dk; without the scaling, softmax saturates "
                "(one weight near 1, the rest near 0) and its gradients vanish. Switch it off and look at the attention.");
    changed |= variant_fields();
    ImGui::PopItemWidth();
    ImGui::TextDisabled("tokenizer: %s (fixed by the vocabulary)", to_string(v.config.tokenizer));
    if (changed) m_edited = true;

    const auto why = m_global_error.empty() ? validate(m_edit) : std::optional<std::string>(m_global_error);
    if (why) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "Not applied: %s", why->c_str());
        ImGui::PopTextWrapPos();
    } else {
        int64_t params = 0;
        try {
            ModelConfig c = m_edit;
            c.src_vocab = c.tgt_vocab = v.vocab_size;
            params = ParameterTable(c).total();
        } catch (const std::exception&) {
        }
        ImGui::TextDisabled("dk = %d \xC2\xB7 %lld parameters (%s)", m_edit.d_k(), static_cast<long long>(params),
                            format_bytes(static_cast<double>(params) * 4.0).c_str());
    }
    const bool trained = v.model_source.rfind("untrained", 0) != 0;
    ImGui::BeginDisabled(why.has_value() || !m_edited);
    if (ImGui::Button("Rebuild the model")) {
        if (trained && !ctx.driven) {
            ImGui::OpenPopup("Discard trained weights?");
        } else {
            ctx.commands.send(RebuildModel{m_edit});
            m_edited = false;
        }
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(!m_edited);
    if (ImGui::Button("Revert")) {
        show_config(v.config);
        m_edited = false;
    }
    ImGui::EndDisabled();
    if (ImGui::BeginPopupModal("Discard trained weights?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::Text("The current weights come from %s.", v.model_source.c_str());
        ImGui::TextUnformatted("Rebuilding starts from fresh random weights; save a checkpoint first to keep them.");
        if (ImGui::Button("Rebuild anyway")) {
            ctx.commands.send(RebuildModel{m_edit});
            m_edited = false;
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }

    ImGui::Separator();
    ImGui::TextUnformatted("Checkpoint (.safetensors)");
    help_marker("One safetensors file with every parameter under its PyTorch-style name and the config in its "
                "metadata; it loads in Python's safetensors and PyTorch as is.");
    ImGui::SetNextItemWidth(-1);
    ImGui::InputText("##path", &m_path);
    if (ImGui::Button("Load")) ctx.commands.send(LoadCheckpoint{m_path});
    ImGui::SameLine();
    if (ImGui::Button("Save")) ctx.commands.send(SaveCheckpoint{m_path});
    ImGui::SameLine();
    ImGui::TextDisabled("errors appear in the status line at the bottom");
}

}  // namespace tx::app
