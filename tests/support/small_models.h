// Small model configs that several tests build on: fast to run, big enough to have two layers
// and two heads, so that a wrong layer or head index shows.
#pragma once

#include "tx/config.h"

namespace tx::test {

// A decoder-only (GPT-style) model: D 16, H 2, F 32, 2 decoder layers, no encoder.
inline ModelConfig small_decoder_only_config(int max_len) {
    ModelConfig c;
    c.arch = Arch::DecoderOnly;
    c.encoder_layers = 0;
    c.decoder_layers = 2;
    c.d_model = 16;
    c.heads = 2;
    c.d_ff = 32;
    c.max_len = max_len;
    return c;
}

}  // namespace tx::test
