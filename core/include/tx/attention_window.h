// The sliding window of self-attention (ModelConfig::window, window_dilation, global_positions):
// which keys a query may see before the causal and padding masks apply. Transformer::update_masks,
// the KV-cached decoder, the Masks panel and the neuron trace all ask here, so the mask the model
// applies and the one the app draws and explains are one rule.
//
// With window W, dilation d and global positions G (Longformer, Beltagy et al. 2020, §3.1):
//   encoder query i sees key j when i or j is in G, or |i − j| = k·d for some k ≤ ⌊W/2⌋;
//   decoder query i sees key j when i or j is in G, or j > i (the causal mask's business), or
//   i − j = k·d for some k < W: its last W keys, d apart (Mistral's window when d = 1).
// Cross-attention has no window. Without a window (W = 0) every key is seen.
#pragma once
#include <string>
#include <vector>

#include "tx/config.h"

namespace tx {

bool is_global_position(const ModelConfig& config, int position);
bool encoder_window_keeps(const ModelConfig& config, int query, int key);
bool decoder_window_keeps(const ModelConfig& config, int query, int key);

// Why the window masks key `key` of query `query`, as a clause for the neuron trace ("sliding
// window: key 4 is 5 positions back, and query 9 sees only 3 keys 2 apart, back to 4 positions"); empty
// when the window keeps it.
std::string window_mask_reason(const ModelConfig& config, bool decoder, int query, int key);

// The window in words for titles and info lines: "full", "4", "4 (dilation 2)", "4 (dilation 2;
// global 0, 3)"; and the global positions alone: "0, 3".
std::string window_summary(const ModelConfig& config);
std::string global_positions_text(const ModelConfig& config);
// The inverse, for txcli --global-positions and the Model panel: "0, 3" or "3 0" -> {0, 3}
// (sorted, repeats dropped; empty text: none). Throws ConfigError naming a piece that is not a
// whole number from 0 up.
std::vector<int> parse_global_positions(const std::string& text);

}  // namespace tx
