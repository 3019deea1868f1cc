// Setting texts: the sentences of the panels whose truth depends on the current settings (the
// teaching toggles of RunOptions, and the config's architecture, position scheme, norm, scaling
// and window), built here without ImGui so tests/explain/test_setting_texts.cpp can generate them
// under every setting and check their claims. The panels only print them.
#pragma once
#include <string>

#include "tx/config.h"
#include "tx/transformer.h"

namespace tx::explain {

// The Step-through list's group header of a step outside the layers ("Encoder: embedding",
// "Decoder: final LayerNorm (after Post-LN layers)", "Output: generator"); layers: "Encoder layer 0".
std::string step_group_name(const StepInfo& step, const ModelConfig& config);
// What the teaching toggles change about a step ("Now: ..."), so its text follows the settings;
// "" when the step runs as its formula says.
std::string step_toggle_note(const StepInfo& step, const RunOptions& options, const ModelConfig& config);
// A note on the generator's log_probs step when the model was trained with label smoothing ε > 0
// (its top probability stays below 1 even when it is right); "" otherwise.
std::string step_training_note(const StepInfo& step, float label_smoothing);

// The Positional panel's tooltip on its on/off switch: what switching positions off does.
std::string positional_off_text(const ModelConfig& config);
// The Attention panel's "raw scores" tooltip: what the scores step holds under this config.
std::string raw_scores_text(const ModelConfig& config, const RunOptions& options);

// The Masks panel's decoder maps: the causal and target-padding maps are drawn from their
// definitions (j ≤ i; id ≠ PAD) whatever the toggles say; their titles say so, and a note says when
// the model does not apply one ("" while it does).
const char* causal_map_title();
std::string target_padding_map_title(bool decoder_only);
std::string causal_map_note(const RunOptions& options);
std::string target_padding_map_note(const RunOptions& options);

}  // namespace tx::explain
