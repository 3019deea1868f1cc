// Small model configs that several tests build on: fast to run, big enough to have two layers
// and two heads, so that a wrong layer or head index shows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tx/checkpoint.h"
#include "tx/config.h"
#include "tx/parameters.h"
#include "tx/training_config.h"

namespace tx::test {

// Parameters for `c` that leave no term trivially zero: Xavier matrices from c.seed, and every
// bias and norm parameter moved off 0 and 1 by a uniform draw in ±spread/2 from `state` (a zero
// bias or a unit norm would hide a skipped bias or norm). eos_bias is added to the generator's EOS
// bias: a random model seldom ends a sentence, and a search where nothing finishes tests only
// its fallback.
inline std::vector<float> random_parameters(const ModelConfig& c, uint32_t state, float spread, float eos_bias = 0.0f) {
    const ParameterTable table(c);
    std::vector<float> p = init_parameters(table, c.seed);
    for (const auto& e : table.entries()) {
        if (e.is_matrix()) continue;
        for (int64_t i = 0; i < e.numel(); ++i) {
            state = state * 1664525u + 1013904223u;
            p[e.offset + i] += spread * (static_cast<float>(state >> 8) / 16777216.0f - 0.5f);
        }
    }
    p[table.at("generator.bias").offset + c.special.eos] += eos_bias;
    return p;
}

// The encoder-decoder the decoding tests run: D 16, H 2, F 32, 2 + 2 layers, max_len 12.
inline ModelConfig small_config(int vocab, uint64_t seed) {
    ModelConfig c;
    c.src_vocab = c.tgt_vocab = vocab;
    c.d_model = 16;
    c.heads = 2;
    c.d_ff = 32;
    c.encoder_layers = c.decoder_layers = 2;
    c.max_len = 12;
    c.seed = seed;
    return c;
}

// The tiny preset's model cut to D 16, H 2, F 32, 1 + 1 layers, for training-loop tests: a step
// takes a millisecond. Dropout is left at the preset's value.
inline ModelConfig small_training_model(int max_len) {
    ModelConfig m = preset_model(Preset::Tiny);
    m.d_model = 16;
    m.heads = 2;
    m.d_ff = 32;
    m.encoder_layers = m.decoder_layers = 1;
    m.max_len = max_len;
    return m;
}

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
