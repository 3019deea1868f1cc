// Model configuration: every hyperparameter of the encoder-decoder, its validation and
// its JSON form (stored in a checkpoint's __metadata__ "config", see docs/design.md §6).
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tx {

enum class NormPlacement { Post, Pre };   // Post: LN(x + f(x)) as the paper; Pre: x + f(LN(x))
// SentencePiece: subword pieces from a model that travels inside the checkpoint (docs/design.md §6).
enum class TokenizerKind { Word, Char, SentencePiece };
// The model variants of docs/design.md §3; the first value of
// each is the 2017 paper's, and a checkpoint without the field means that value.
enum class Arch { EncoderDecoder, DecoderOnly };
// Sinusoidal and Learned add a [max_len, D] table to the embeddings; Rope rotates each
// self-attention's q and k (RoFormer); Alibi adds −m_h·|i − j| to its scores (Press et al.).
// Relative: T5's learned relative position bias on self-attention's scores (Raffel et al. 2020).
enum class PositionalKind { Sinusoidal, Learned, Rope, Alibi, None, Relative };
enum class FfnKind { Relu, Gelu, SwiGlu };   // GELU in its exact erf form; SwiGLU = SiLU(x·Wgᵀ) ⊙ x·Wuᵀ
enum class NormKind { LayerNorm, RmsNorm };

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
    // DecoderOnly (GPT): the decoder's stack of masked self-attention and FFN on the target
    // side alone, next-token prediction; encoder_layers must be 0 and the source is ignored.
    Arch arch = Arch::EncoderDecoder;
    PositionalKind positional = PositionalKind::Sinusoidal;
    FfnKind ffn = FfnKind::Relu;
    NormKind norm_kind = NormKind::LayerNorm;
    // Sliding attention window in keys, 0 = full: decoder self-attention sees keys i−W < j ≤ i
    // (Mistral), encoder self-attention |i − j| ≤ ⌊W/2⌋ (Longformer); cross-attention never.
    // tx/attention_window.h says which keys a query sees, with the two fields below.
    int window = 0;
    // Dilated window (Longformer): the window's keys stand d apart, so the same W keys reach d
    // times as far: the decoder's query i sees j = i, i − d, …, i − (W − 1)·d, the encoder's
    // |i − j| = 0, d, …, ⌊W/2⌋·d. 1: adjacent keys. Needs a window.
    int window_dilation = 1;
    // Global positions (Longformer): a global position's query sees every key and every query
    // sees its key, window or not (the causal and padding masks still apply). The same positions
    // in the encoder and the decoder, ascending, below max_len. Needs a window.
    std::vector<int> global_positions;
    // Post-LN: one more norm at the end of each stack (encoder.norm, decoder.norm), as
    // torch.nn.Transformer adds whatever its norm_first (tools/import_torch.py). Pre-LN always has
    // it, so there the field changes nothing (switching an imported model to Pre keeps its norms).
    bool final_norm = false;
    // Grouped-query attention (Ainslie et al. 2023; LLaMA 2/3, Mistral): the H query heads share
    // kv_heads = G key/value heads, each serving H/G query heads, in every attention block.
    // 0 (or H): one key/value head per query head, the 2017 model; 1: multi-query attention
    // (Shazeer 2019). K and V shrink to G·dk columns, and so does the KV cache.
    int kv_heads = 0;
    // Low-rank FFN: every FFN matrix W [out, in] is a product U·V of U [out, r] and V [r, in],
    // so x·Wᵀ = (x·Vᵀ)·Uᵀ costs r·(in + out) numbers instead of in·out. 0: full matrices.
    // A rank must be below max_ffn_rank(), where the two factors would outgrow the matrix.
    int ffn_rank = 0;

    int d_k() const { return d_model / heads; }
    int kv_head_count() const { return kv_heads > 0 ? kv_heads : heads; }   // G
    // The FFN's hidden width: d_ff, or for SwiGLU F' = round(2/3·d_ff), moved to the nearest
    // multiple of 8 from 64 on (a change of at most 4, about 6%). SwiGLU has three [F', D]
    // matrices and no biases, so 3·D·F' ≈ 2·D·d_ff keeps the parameter count of the two-matrix
    // FFN (LLaMA's choice, Touvron et al. 2023 §2).
    int ffn_width() const;
    // The first rank at which U and V hold as many numbers as the [F, d_model] matrix they
    // replace: ⌈d_model·F / (d_model + F)⌉. ffn_rank must be below it.
    int max_ffn_rank() const;
    bool has_final_norm() const { return norm == NormPlacement::Pre || final_norm; }
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
const char* to_string(Arch arch);
const char* to_string(PositionalKind kind);
const char* to_string(FfnKind kind);
const char* to_string(NormKind kind);
// The spellings of the config and of txcli ("rope", "swiglu", ...); nullopt for anything else.
std::optional<Arch> arch_from_string(const std::string& text);
std::optional<PositionalKind> positional_from_string(const std::string& text);
std::optional<FfnKind> ffn_from_string(const std::string& text);
std::optional<NormKind> norm_kind_from_string(const std::string& text);

}  // namespace tx
