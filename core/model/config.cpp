// ModelConfig validation and JSON form. Messages name the field and the rule, so the GUI and
// the CLI can show them as they are.
#include "tx/config.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "io/json_object.h"

namespace tx {

namespace {

std::string describe(const char* field, double value, const char* rule) {
    std::string v = (value == std::floor(value) && std::fabs(value) < 1e15)
                         ? std::to_string(static_cast<long long>(value))
                         : std::to_string(value);
    return std::string(field) + " (" + v + ") " + rule;
}

}  // namespace

double json_float(float value) {
    char text[32];
    for (int digits = 6; digits <= 9; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
        if (std::strtof(text, nullptr) == value) break;
    }
    return std::strtod(text, nullptr);
}

std::optional<std::string> validate(const ModelConfig& c) {
    // Upper bounds keep a typo (d_model 51200) from allocating gigabytes in an explorer.
    if (c.src_vocab < 5 || c.src_vocab > 1'000'000)
        return describe("src_vocab", c.src_vocab, "must be between 5 and 1000000 (4 special tokens + at least one)");
    if (c.tgt_vocab < 5 || c.tgt_vocab > 1'000'000)
        return describe("tgt_vocab", c.tgt_vocab, "must be between 5 and 1000000 (4 special tokens + at least one)");
    if (c.d_model < 1 || c.d_model > 4096) return describe("d_model", c.d_model, "must be between 1 and 4096");
    if (c.heads < 1 || c.heads > 64) return describe("heads", c.heads, "must be between 1 and 64");
    if (c.d_model % c.heads != 0)
        return "d_model (" + std::to_string(c.d_model) + ") must be divisible by heads (" + std::to_string(c.heads) + ")";
    if (c.d_ff < 1 || c.d_ff > 16384) return describe("d_ff", c.d_ff, "must be between 1 and 16384");
    if (c.encoder_layers < 0 || c.encoder_layers > 24)
        return describe("encoder_layers", c.encoder_layers, "must be between 0 and 24");
    if (c.decoder_layers < 1 || c.decoder_layers > 24)
        return describe("decoder_layers", c.decoder_layers, "must be between 1 and 24");
    if (c.max_len < 2 || c.max_len > 4096) return describe("max_len", c.max_len, "must be between 2 and 4096");
    if (!(c.dropout >= 0.0f && c.dropout < 1.0f)) return describe("dropout", c.dropout, "must be in [0, 1)");
    if (!(c.ln_eps > 0.0f && c.ln_eps < 1.0f)) return describe("ln_eps", c.ln_eps, "must be in (0, 1)");
    if (c.arch == Arch::DecoderOnly && c.encoder_layers != 0)
        return describe("encoder_layers", c.encoder_layers, "must be 0 with arch \"decoder-only\" (it has no encoder)");
    if (c.positional == PositionalKind::Rope && c.d_k() % 2 != 0)
        return "positional \"rope\" rotates pairs of each head's dimensions, so d_model / heads (" +
               std::to_string(c.d_k()) + ") must be even";
    if (c.window < 0 || c.window > c.max_len)
        return describe("window", c.window, "must be between 0 (full attention) and max_len");
    if (c.window_dilation < 1 || c.window_dilation > c.max_len)
        return describe("window_dilation", c.window_dilation, "must be between 1 (adjacent keys) and max_len");
    if (c.window_dilation > 1 && c.window == 0)
        return "window_dilation (" + std::to_string(c.window_dilation) +
               ") needs a sliding window, and window is 0 (full attention, where no key is skipped)";
    if (c.global_positions.size() > 64)
        return "global_positions has " + std::to_string(c.global_positions.size()) + " entries: at most 64";
    for (size_t n = 0; n < c.global_positions.size(); ++n) {
        const int g = c.global_positions[n];
        if (g < 0 || g >= c.max_len)
            return "global_positions: " + std::to_string(g) + " must be between 0 and max_len - 1 (" +
                   std::to_string(c.max_len - 1) + ")";
        if (n > 0 && g <= c.global_positions[n - 1])
            return "global_positions must be ascending and distinct (" + std::to_string(c.global_positions[n - 1]) +
                   " then " + std::to_string(g) + ")";
    }
    if (!c.global_positions.empty() && c.window == 0)
        return "global_positions needs a sliding window, and window is 0 (full attention, where every position "
               "already sees and is seen by all)";
    if (c.kv_heads < 0 || c.kv_heads > c.heads)
        return describe("kv_heads", c.kv_heads, ("must be between 0 (one per query head) and heads (" + std::to_string(c.heads) + ")").c_str());
    if (c.kv_heads > 0 && c.heads % c.kv_heads != 0)
        return "kv_heads (" + std::to_string(c.kv_heads) + ") must divide heads (" + std::to_string(c.heads) +
               "): each key/value head serves the same number of query heads";
    if (c.ffn_rank < 0) return describe("ffn_rank", c.ffn_rank, "must be 0 (full FFN matrices) or a positive rank");
    if (c.ffn_rank > 0 && c.ffn_rank >= c.max_ffn_rank())
        return "ffn_rank (" + std::to_string(c.ffn_rank) + ") must be below " + std::to_string(c.max_ffn_rank()) +
               " for d_model " + std::to_string(c.d_model) + " and FFN width " + std::to_string(c.ffn_width()) +
               ": from there the factors U [F, r] and V [r, d_model] hold as many numbers as the full matrix";
    const int ids[] = {c.special.pad, c.special.bos, c.special.eos, c.special.unk};
    const char* names[] = {"special.pad", "special.bos", "special.eos", "special.unk"};
    const int vocab = std::min(c.src_vocab, c.tgt_vocab);
    for (int i = 0; i < 4; ++i) {
        if (ids[i] < 0 || ids[i] >= vocab) return describe(names[i], ids[i], "must be a valid token id (0 .. vocab-1)");
        for (int j = 0; j < i; ++j)
            if (ids[i] == ids[j]) return std::string(names[i]) + " and " + names[j] + " must be different ids";
    }
    return std::nullopt;
}

void check(const ModelConfig& config) {
    if (auto error = validate(config)) throw ConfigError(*error);
}

const char* to_string(NormPlacement placement) { return placement == NormPlacement::Post ? "post" : "pre"; }
const char* to_string(TokenizerKind kind) {
    switch (kind) {
        case TokenizerKind::Word: return "word";
        case TokenizerKind::Char: return "char";
        case TokenizerKind::SentencePiece: return "sentencepiece";
    }
    return "?";
}

int ModelConfig::ffn_width() const {
    if (ffn != FfnKind::SwiGlu) return d_ff;
    const int f = std::max(1, static_cast<int>(std::lround(2.0 * d_ff / 3.0)));
    return f >= 64 ? (f + 4) / 8 * 8 : f;
}

int ModelConfig::max_ffn_rank() const {
    const int64_t D = d_model, F = ffn_width();
    return static_cast<int>((D * F + D + F - 1) / (D + F));
}

const char* to_string(Arch arch) { return arch == Arch::EncoderDecoder ? "encoder-decoder" : "decoder-only"; }
const char* to_string(PositionalKind kind) {
    switch (kind) {
        case PositionalKind::Sinusoidal: return "sinusoidal";
        case PositionalKind::Learned: return "learned";
        case PositionalKind::Rope: return "rope";
        case PositionalKind::Alibi: return "alibi";
        case PositionalKind::None: return "none";
        case PositionalKind::Relative: return "relative";
    }
    return "?";
}
const char* to_string(FfnKind kind) {
    switch (kind) {
        case FfnKind::Relu: return "relu";
        case FfnKind::Gelu: return "gelu";
        case FfnKind::SwiGlu: return "swiglu";
    }
    return "?";
}
const char* to_string(NormKind kind) { return kind == NormKind::LayerNorm ? "layernorm" : "rmsnorm"; }

namespace {

template <typename E, size_t N>
std::optional<E> enum_from_string(const std::string& text, const E (&values)[N]) {
    for (E e : values)
        if (text == to_string(e)) return e;
    return std::nullopt;
}

}  // namespace

std::optional<Arch> arch_from_string(const std::string& text) {
    return enum_from_string(text, {Arch::EncoderDecoder, Arch::DecoderOnly});
}
std::optional<PositionalKind> positional_from_string(const std::string& text) {
    return enum_from_string(text, {PositionalKind::Sinusoidal, PositionalKind::Learned, PositionalKind::Rope,
                                   PositionalKind::Alibi, PositionalKind::None, PositionalKind::Relative});
}
std::optional<FfnKind> ffn_from_string(const std::string& text) {
    return enum_from_string(text, {FfnKind::Relu, FfnKind::Gelu, FfnKind::SwiGlu});
}
std::optional<NormKind> norm_kind_from_string(const std::string& text) {
    return enum_from_string(text, {NormKind::LayerNorm, NormKind::RmsNorm});
}

std::string to_json(const ModelConfig& c) {
    nlohmann::json j;
    j["src_vocab"] = c.src_vocab;
    j["tgt_vocab"] = c.tgt_vocab;
    j["d_model"] = c.d_model;
    j["heads"] = c.heads;
    j["d_ff"] = c.d_ff;
    j["encoder_layers"] = c.encoder_layers;
    j["decoder_layers"] = c.decoder_layers;
    j["max_len"] = c.max_len;
    j["dropout"] = json_float(c.dropout);
    j["ln_eps"] = json_float(c.ln_eps);
    j["norm"] = to_string(c.norm);
    j["scale_attention"] = c.scale_attention;
    j["seed"] = c.seed;
    j["tokenizer"] = to_string(c.tokenizer);
    j["special"] = {{"pad", c.special.pad}, {"bos", c.special.bos}, {"eos", c.special.eos}, {"unk", c.special.unk}};
    j["arch"] = to_string(c.arch);
    j["positional"] = to_string(c.positional);
    j["ffn"] = to_string(c.ffn);
    j["norm_kind"] = to_string(c.norm_kind);
    j["window"] = c.window;
    // Written only when set, so that every other checkpoint's config stays as it was.
    if (c.final_norm) j["final_norm"] = true;
    if (c.kv_heads > 0) j["kv_heads"] = c.kv_heads;
    if (c.ffn_rank > 0) j["ffn_rank"] = c.ffn_rank;
    if (c.window_dilation != 1) j["window_dilation"] = c.window_dilation;
    if (!c.global_positions.empty()) j["global_positions"] = c.global_positions;
    return j.dump();
}

namespace {

template <typename T>
T field(const nlohmann::json& j, const char* name) {
    if (!j.contains(name)) throw ConfigError(std::string("config: missing field '") + name + "'");
    try {
        return j.at(name).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw ConfigError(std::string("config: field '") + name + "' has the wrong type");
    }
}

// Integers must be whole numbers in int range (JSON 64.5 or 1e12 is refused, not truncated).
int int_field(const nlohmann::json& j, const char* name) {
    const auto value = field<nlohmann::json>(j, name);
    if (!value.is_number_integer() || value.get<long long>() < INT32_MIN || value.get<long long>() > INT32_MAX)
        throw ConfigError(std::string("config: field '") + name + "' must be a whole number");
    return value.get<int>();
}

}  // namespace

ModelConfig config_from_json(const std::string& text) {
    const nlohmann::json j = parse_json_object(text, "config");
    ModelConfig c;
    c.src_vocab = int_field(j, "src_vocab");
    c.tgt_vocab = int_field(j, "tgt_vocab");
    c.d_model = int_field(j, "d_model");
    c.heads = int_field(j, "heads");
    c.d_ff = int_field(j, "d_ff");
    c.encoder_layers = int_field(j, "encoder_layers");
    c.decoder_layers = int_field(j, "decoder_layers");
    c.max_len = int_field(j, "max_len");
    c.dropout = field<float>(j, "dropout");
    c.ln_eps = field<float>(j, "ln_eps");
    const auto norm = field<std::string>(j, "norm");
    if (norm == "post") c.norm = NormPlacement::Post;
    else if (norm == "pre") c.norm = NormPlacement::Pre;
    else throw ConfigError("config: norm ('" + norm + "') must be \"post\" or \"pre\"");
    c.scale_attention = field<bool>(j, "scale_attention");
    c.seed = field<uint64_t>(j, "seed");
    const auto tokenizer = field<std::string>(j, "tokenizer");
    if (tokenizer == "word") c.tokenizer = TokenizerKind::Word;
    else if (tokenizer == "char") c.tokenizer = TokenizerKind::Char;
    else if (tokenizer == "sentencepiece") c.tokenizer = TokenizerKind::SentencePiece;
    else throw ConfigError("config: tokenizer ('" + tokenizer + "') must be \"word\", \"char\" or \"sentencepiece\"");
    const auto special = field<nlohmann::json>(j, "special");
    if (!special.is_object()) throw ConfigError("config: field 'special' must be an object");
    c.special.pad = int_field(special, "pad");
    c.special.bos = int_field(special, "bos");
    c.special.eos = int_field(special, "eos");
    c.special.unk = int_field(special, "unk");
    // The variant fields came after the first checkpoints: absent means the 2017 model's value.
    auto variant = [&j](const char* name, auto parse, auto fallback, const char* allowed) {
        if (!j.contains(name)) return fallback;
        const auto text = field<std::string>(j, name);
        if (auto value = parse(text)) return *value;
        throw ConfigError(std::string("config: ") + name + " ('" + text + "') must be " + allowed);
    };
    c.arch = variant("arch", arch_from_string, Arch::EncoderDecoder, "\"encoder-decoder\" or \"decoder-only\"");
    c.positional = variant("positional", positional_from_string, PositionalKind::Sinusoidal,
                           "\"sinusoidal\", \"learned\", \"rope\", \"alibi\", \"none\" or \"relative\"");
    c.ffn = variant("ffn", ffn_from_string, FfnKind::Relu, "\"relu\", \"gelu\" or \"swiglu\"");
    c.norm_kind = variant("norm_kind", norm_kind_from_string, NormKind::LayerNorm, "\"layernorm\" or \"rmsnorm\"");
    if (j.contains("window")) c.window = int_field(j, "window");
    if (j.contains("final_norm")) c.final_norm = field<bool>(j, "final_norm");
    if (j.contains("kv_heads")) c.kv_heads = int_field(j, "kv_heads");
    if (j.contains("ffn_rank")) c.ffn_rank = int_field(j, "ffn_rank");
    if (j.contains("window_dilation")) c.window_dilation = int_field(j, "window_dilation");
    if (j.contains("global_positions")) {
        const auto positions = field<nlohmann::json>(j, "global_positions");
        if (!positions.is_array() || positions.size() > 64)
            throw ConfigError("config: field 'global_positions' must be a list of at most 64 positions");
        for (const auto& p : positions) {
            if (!p.is_number_integer() || p.get<long long>() < 0 || p.get<long long>() > INT32_MAX)
                throw ConfigError("config: field 'global_positions' must hold whole numbers from 0 up");
            c.global_positions.push_back(p.get<int>());
        }
    }
    check(c);
    return c;
}

}  // namespace tx
