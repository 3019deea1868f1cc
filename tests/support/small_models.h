// Small model configs that several tests build on: fast to run, big enough to have two layers
// and two heads, so that a wrong layer or head index shows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tx/checkpoint.h"
#include "tx/config.h"
#include "tx/parameters.h"

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

// A one-layer encoder-decoder checkpoint (D 8, H 2, F 12, max_len 8) over `vocabulary` (its
// size is both vocabularies), with parameters initialised from `seed`: for tests of checkpoint files.
inline Checkpoint small_checkpoint(const std::vector<std::string>& vocabulary, uint64_t seed) {
    Checkpoint c;
    c.config.src_vocab = c.config.tgt_vocab = static_cast<int>(vocabulary.size());
    c.config.d_model = 8;
    c.config.heads = 2;
    c.config.d_ff = 12;
    c.config.encoder_layers = c.config.decoder_layers = 1;
    c.config.max_len = 8;
    c.vocabulary = vocabulary;
    c.parameters = init_parameters(ParameterTable(c.config), seed);
    return c;
}

}  // namespace tx::test
