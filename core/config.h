// Model configuration: every hyperparameter of the encoder-decoder, its validation and
// its JSON form (stored in a checkpoint's __metadata__ "config", see DESIGN.md §3).
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tx {

enum class NormPlacement { Post, Pre };   // Post: LN(x + f(x)) as the paper; Pre: x + f(LN(x))
// SentencePiece: subword pieces from a model that travels inside the checkpoint (DESIGN.md §3).
enum class TokenizerKind { Word, Char, SentencePiece };

// Special-token ids: one convention for tasks, tokenizers and checkpoints.
struct SpecialTokens {
    int pad = 0;
    int bos = 1;
    int eos = 2;
    int unk = 3;
};

struct ModelConfig {
    int src_vocab = 0;          // V_src (set from the tokenizer's vocabulary)
    int tgt_vocab = 0;          // V_tgt
    int d_model = 64;           // D
    int heads = 4;              // H; dk = D / H
    int d_ff = 256;             // F
    int encoder_layers = 2;
    int decoder_layers = 2;
    int max_len = 128;          // longest sequence, BOS/EOS included
    float dropout = 0.1f;       // used in training mode only
    float ln_eps = 1e-5f;       // inside the square root, as torch.nn.LayerNorm
    NormPlacement norm = NormPlacement::Post;
    bool scale_attention = true;  // divide scores by sqrt(dk); off shows softmax saturation
    uint64_t seed = 1;
    TokenizerKind tokenizer = TokenizerKind::Word;
    SpecialTokens special;

    int d_k() const { return d_model / heads; }
};

// The first broken rule, as a sentence that names the field and the rule, or nullopt.
std::optional<std::string> validate(const ModelConfig& config);
// Throws ConfigError with validate()'s message when the config is invalid.
void check(const ModelConfig& config);

struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string to_json(const ModelConfig& config);
// A float as the shortest decimal that reads back to the same float ("0.1", not
// "0.10000000149011612"), so saved configs stay readable.
double json_float(float value);
// Parses and validates; throws ConfigError naming the bad or missing field.
ModelConfig config_from_json(const std::string& json);

const char* to_string(NormPlacement placement);
const char* to_string(TokenizerKind kind);

}  // namespace tx
