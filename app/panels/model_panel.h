// Model panel: the hyperparameters (editing rebuilds the model with fresh weights, after a
// warning when trained weights would be lost; invalid values are explained, never applied) and
// loading / saving a checkpoint (.safetensors).
#pragma once
#include "panel.h"

namespace tx::app {

// Presets: the variant fields of three well-known models set together; the sizes (d_model,
// heads, d_ff, layers, max length) stay as they are.
enum class ModelPreset { Transformer2017, Gpt2Like, LlamaLike };
constexpr ModelPreset MODEL_PRESETS[] = {ModelPreset::Transformer2017, ModelPreset::Gpt2Like, ModelPreset::LlamaLike};
const char* preset_name(ModelPreset preset);          // "2017 Transformer", "GPT-2-like", "LLaMA-like"
const char* preset_description(ModelPreset preset);   // one line: what it sets and after which paper
// config with the preset's arch, positions, FFN, norm kind and placement, and full attention
// (window 0); a decoder-only preset drops the encoder layers, an encoder-decoder one gets as
// many encoder layers as decoder layers when it had none.
ModelConfig apply_preset(ModelConfig config, ModelPreset preset);
// Whether config's variant fields are the preset's (sizes aside).
bool matches_preset(const ModelConfig& config, ModelPreset preset);

class ModelPanel final : public Panel {
public:
    ModelPanel();

protected:
    void draw_content(PanelContext& ctx) override;

private:
    bool variant_fields();
    void show_config(const ModelConfig& config);   // the fields show config, text fields included
    ModelConfig m_edit;
    std::string m_global_text;    // the global positions as typed ("0, 3")
    std::string m_global_error;   // why that text is not a list of positions; empty when it is
    uint64_t m_synced_version = 0;
    bool m_edited = false;
    std::string m_path;
};

}  // namespace tx::app
