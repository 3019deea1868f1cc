// The step list of the encoder-decoder: build() appends every step with its forward and
// backward closures; backward() walks the steps in exact reverse. Closures read the batch
// sizes (m_B, m_S, m_T) and buffer pointers when they run, so one step list serves every
// batch shape. Buffers only grow (docs/design.md §10: allocate once per shape, reuse).
#include "tx/transformer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tx/attention_window.h"
#include "tx/layer_plan.h"
#include "tx/ops.h"
#include "model/step_explanations.h"

namespace tx {

const char* to_string(StepKind kind) {
    switch (kind) {
        case StepKind::Embed: return "embed";
        case StepKind::Positional: return "positional";
        case StepKind::Projection: return "projection";
        case StepKind::Scores: return "scores";
        case StepKind::Mask: return "mask";
        case StepKind::Softmax: return "softmax";
        case StepKind::Context: return "context";
        case StepKind::OutputProjection: return "output projection";
        case StepKind::AddNorm: return "add & norm";
        case StepKind::Norm: return "norm";
        case StepKind::Residual: return "residual";
        case StepKind::FfnHidden: return "ffn hidden";
        case StepKind::FfnOut: return "ffn out";
        case StepKind::Generator: return "generator";
        case StepKind::LogSoftmax: return "log-softmax";
    }
    return "?";
}

const char* to_string(Stack stack) {
    switch (stack) {
        case Stack::Encoder: return "encoder";
        case Stack::Decoder: return "decoder";
        case Stack::Output: return "output";
    }
    return "?";
}

const char* to_string(AttentionKind kind) {
    switch (kind) {
        case AttentionKind::EncoderSelf: return "encoder self-attention";
        case AttentionKind::DecoderSelf: return "decoder masked self-attention";
        case AttentionKind::Cross: return "cross-attention";
    }
    return "?";
}

namespace {

// A variant whose op this backend lacks is refused before anything is allocated.
void check_backend(const ModelConfig& config, const Backend& backend) {
    if (config.positional == PositionalKind::Relative && !backend.has_relative_bias())
        throw ConfigError("positional \"relative\" (T5's relative bias) has no op on the " + backend.name() +
                          " backend yet: run this model on the CPU");
}

}  // namespace

Transformer::Transformer(const ModelConfig& config, Backend& backend)
    : m_config((check(config), check_backend(config, backend), config)), m_table(config), m_backend(backend),
      m_params(backend, static_cast<size_t>(m_table.total())),
      m_grads(backend, static_cast<size_t>(m_table.total())),
      m_pe(backend, static_cast<size_t>(config.max_len) * config.d_model) {
    std::vector<float> pe(m_pe.size());
    cpu::positional_encoding_table(pe.data(), config.max_len, config.d_model);
    m_backend.upload(m_pe.data(), pe.data(), pe.size() * sizeof(float));
    build();
}

void Transformer::set_parameters(const std::vector<float>& host) {
    if (host.size() != m_params.size())
        throw std::invalid_argument("parameter count " + std::to_string(host.size()) + " does not match the model's " +
                                    std::to_string(m_params.size()));
    m_weight_cache.clear();
    m_backend.parameters_changed();
    m_backend.upload(m_params.data(), host.data(), host.size() * sizeof(float));
}

std::vector<float> Transformer::download_parameters() const {
    std::vector<float> host(m_params.size());
    m_backend.download(host.data(), m_params.data(), host.size() * sizeof(float));
    return host;
}

std::vector<float> Transformer::download_gradients() const {
    std::vector<float> host(m_grads.size());
    m_backend.download(host.data(), m_grads.data(), host.size() * sizeof(float));
    return host;
}

const float* Transformer::param(const std::string& name) const {
    return m_params.data() + m_table.at(name).offset;
}

float* Transformer::grad(const std::string& name) { return m_grads.data() + m_table.at(name).offset; }

void Transformer::linear_forward(float* out, const float* inp, const float* w, const float* b, int N, int C, int OC) {
    if (m_options.training) m_backend.linear_forward(out, inp, w, b, N, C, OC);
    else m_backend.linear_forward_fixed_weight(out, inp, w, b, N, C, OC, m_weight_cache);
}

// ---------------------------------------------------------------------------------------------
// Batch, masks, buffers

namespace {

// Pads rows with PAD to the longest; checks ids and lengths. Returns [rows, len] row-major.
std::vector<int32_t> pad_rows(const std::vector<std::vector<int>>& rows, const ModelConfig& c, int vocab,
                              const char* side, int* len) {
    if (rows.empty()) throw std::invalid_argument(std::string("the ") + side + " batch is empty");
    size_t longest = 0;
    for (size_t b = 0; b < rows.size(); ++b) {
        if (rows[b].empty())
            throw std::invalid_argument(std::string(side) + " sequence " + std::to_string(b + 1) + " is empty");
        if (rows[b].size() > static_cast<size_t>(c.max_len))
            throw std::invalid_argument(std::string(side) + " sequence " + std::to_string(b + 1) + " has " +
                                        std::to_string(rows[b].size()) + " tokens; the model's max_len is " +
                                        std::to_string(c.max_len));
        for (int id : rows[b])
            if (id < 0 || id >= vocab)
                throw std::invalid_argument(std::string(side) + " sequence " + std::to_string(b + 1) + " has id " +
                                            std::to_string(id) + " outside the vocabulary (0.." +
                                            std::to_string(vocab - 1) + ")");
        longest = std::max(longest, rows[b].size());
    }
    *len = static_cast<int>(longest);
    std::vector<int32_t> ids(rows.size() * longest, c.special.pad);
    for (size_t b = 0; b < rows.size(); ++b) std::copy(rows[b].begin(), rows[b].end(), ids.begin() + b * longest);
    return ids;
}

template <typename T>
void upload_vector(Backend& backend, BackendArray<T>& array, const std::vector<T>& host) {
    if (array.size() < host.size()) array = BackendArray<T>(backend, host.size());
    backend.upload(array.data(), host.data(), host.size() * sizeof(T));
}

}  // namespace

void Transformer::set_batch(const std::vector<std::vector<int>>& src, const std::vector<std::vector<int>>& tgt) {
    if (src.size() != tgt.size())
        throw std::invalid_argument("the source batch has " + std::to_string(src.size()) +
                                    " rows but the target batch has " + std::to_string(tgt.size()));
    int S = 0;
    // A decoder-only model never reads the source, so next-token batches leave its rows empty;
    // one PAD per row keeps the source-side shapes non-empty.
    const bool no_source = m_config.arch == Arch::DecoderOnly && !src.empty() &&
                           std::all_of(src.begin(), src.end(), [](const std::vector<int>& row) { return row.empty(); });
    if (no_source) m_src_host.assign(src.size(), m_config.special.pad), S = 1;
    else m_src_host = pad_rows(src, m_config, m_config.src_vocab, "source", &S);
    m_B = static_cast<int>(src.size());
    m_S = S;
    upload_vector(m_backend, m_src_ids, m_src_host);
    set_target(tgt);
}

void Transformer::set_target(const std::vector<std::vector<int>>& tgt) {
    if (static_cast<int>(tgt.size()) != m_B)
        throw std::invalid_argument("the target batch has " + std::to_string(tgt.size()) + " rows but the source has " +
                                    std::to_string(m_B));
    int T = 0;
    m_tgt_host = pad_rows(tgt, m_config, m_config.tgt_vocab, "target", &T);
    m_T = T;
    upload_vector(m_backend, m_tgt_ids, m_tgt_host);
    update_masks();
    ensure_buffers();
}

void Transformer::reserve_target(int T) {
    const int current = m_T;
    m_T = std::max(T, current);
    ensure_buffers();
    m_T = current;
    for (size_t i = 0; i < m_steps.size(); ++i) m_info[i].shape = m_steps[i].shape();
}

void Transformer::update_masks() {
    const int B = m_B, S = m_S, T = m_T, pad = m_config.special.pad;
    const bool padding = m_options.padding_mask, causal = m_options.causal_mask;
    // A key position may be attended to unless padding masking is on and it holds PAD.
    auto src_open = [&](int b, int j) { return !padding || m_src_host[b * S + j] != pad; };
    auto tgt_open = [&](int b, int j) { return !padding || m_tgt_host[b * T + j] != pad; };
    std::vector<float> src_keep(static_cast<size_t>(B) * S * S), tgt_keep(static_cast<size_t>(B) * T * T),
        cross_keep(static_cast<size_t>(B) * T * S);
    m_src_mask_host.assign(static_cast<size_t>(B) * S, 0.0f);
    // The sliding window (config.window > 0, with its dilation and global positions) limits
    // self-attention only, by tx/attention_window.h's rule; cross-attention is full.
    auto src_near = [this](int i, int j) { return encoder_window_keeps(m_config, i, j); };
    auto tgt_near = [this](int i, int j) { return decoder_window_keeps(m_config, i, j); };
    for (int b = 0; b < B; ++b) {
        for (int j = 0; j < S; ++j) m_src_mask_host[b * S + j] = src_open(b, j) ? 1.0f : 0.0f;
        for (int i = 0; i < S; ++i)
            for (int j = 0; j < S; ++j)
                src_keep[(static_cast<size_t>(b) * S + i) * S + j] = src_near(i, j) ? m_src_mask_host[b * S + j] : 0.0f;
        for (int i = 0; i < T; ++i) {
            for (int j = 0; j < T; ++j)
                tgt_keep[(static_cast<size_t>(b) * T + i) * T + j] =
                    ((!causal || j <= i) && tgt_near(i, j) && tgt_open(b, j)) ? 1.0f : 0.0f;
            for (int j = 0; j < S; ++j) cross_keep[(static_cast<size_t>(b) * T + i) * S + j] = m_src_mask_host[b * S + j];
        }
    }
    m_tgt_mask_host = tgt_keep;
    m_src_self_mask_host = src_keep;
    upload_vector(m_backend, m_src_keep, src_keep);
    upload_vector(m_backend, m_tgt_keep, tgt_keep);
    upload_vector(m_backend, m_cross_keep, cross_keep);
}

void Transformer::ensure_buffers() {
    m_loss_set = false;   // a new batch: the last loss's targets are not its
    for (size_t i = 0; i < m_steps.size(); ++i) {
        Step& step = m_steps[i];
        m_info[i].shape = step.shape();
        const auto numel = static_cast<size_t>(m_info[i].shape.numel());
        if (step.out.size() < numel) {
            step.out = Array(m_backend, numel);
            step.grad = Array(m_backend, numel);
            m_backend.fill_zero(step.grad.data(), numel * sizeof(float));   // backward()'s invariant
        }
    }
    for (Buffer& buffer : m_buffers) {
        const auto n = static_cast<size_t>(buffer.numel());
        if (buffer.array.size() < n) buffer.array = Array(m_backend, n);
    }
    const auto rows = static_cast<size_t>(m_B) * m_T;
    if (m_losses.size() < rows) {
        m_losses = Array(m_backend, rows);
        m_dlosses = Array(m_backend, rows);
        m_targets = BackendArray<int32_t>(m_backend, rows);
    }
}

// ---------------------------------------------------------------------------------------------
// Running

size_t Transformer::find_step(const std::string& name) const {
    for (size_t i = 0; i < m_info.size(); ++i)
        if (m_info[i].name == name) return i;
    return m_info.size();
}

void Transformer::run_step(size_t index) {
    if (m_B == 0) throw std::logic_error("run_step before set_batch");
    try {
        if (m_step_timing) m_backend.timer_start();
        m_steps[index].forward();
        if (m_step_timing) m_info[index].ms = m_backend.timer_stop();
    } catch (const DeviceError& e) {
        throw DeviceError("step " + m_info[index].name + ": " + e.what());   // which step, for the user
    }
    const StepKind kind = m_info[index].kind;
    m_info[index].materialised =
        !(fused_attention_active() && (kind == StepKind::Scores || kind == StepKind::Mask || kind == StepKind::Softmax)) &&
        !(fused_softmax_active() && kind == StepKind::Mask);
    // "Everything in low precision" (docs/precision.md): each materialised step's output is rounded
    // to the backend's format before the next step reads it; a no-op on every other backend.
    if (m_info[index].materialised) m_backend.round_step_output(out(index), m_info[index].shape.numel());
}

void Transformer::run_range(size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) run_step(i);
}

void Transformer::forward() { run_range(0, m_steps.size()); }
void Transformer::encode() { run_range(0, m_first_decoder_step); }
void Transformer::decode() { run_range(m_first_decoder_step, m_steps.size()); }

std::vector<float> Transformer::step_output(size_t index) const {
    std::vector<float> host(static_cast<size_t>(m_info.at(index).shape.numel()));
    m_backend.download(host.data(), m_steps[index].out.data(), host.size() * sizeof(float));
    return host;
}

void Transformer::set_step_output(size_t index, const std::vector<float>& host) {
    const size_t n = static_cast<size_t>(m_info.at(index).shape.numel());
    if (host.size() != n)
        throw std::invalid_argument("step " + m_info[index].name + " holds " + std::to_string(n) + " values, not " +
                                    std::to_string(host.size()));
    m_backend.upload(m_steps[index].out.data(), host.data(), n * sizeof(float));
}

double Transformer::loss(const std::vector<int32_t>& targets, float smoothing, int* tokens) {
    const int rows = m_B * m_T, V = m_config.tgt_vocab;
    if (targets.size() != static_cast<size_t>(rows))
        throw std::invalid_argument("loss: " + std::to_string(targets.size()) + " targets for " + std::to_string(rows) +
                                    " decoder positions");
    int count = 0;
    for (int32_t t : targets) {
        if (t < 0 || t >= V) throw std::invalid_argument("loss: target id " + std::to_string(t) + " outside the vocabulary");
        count += t != m_config.special.pad;
    }
    if (tokens) *tokens = count;
    m_loss_smoothing = smoothing;
    m_loss_set = count > 0;   // no target token: no loss, and backward() adds no gradient
    if (count == 0) return 0.0;
    m_backend.upload(m_targets.data(), targets.data(), targets.size() * sizeof(int32_t));
    const size_t log_probs = m_steps.size() - 1;
    m_backend.cross_entropy_forward(m_losses.data(), out(log_probs), m_targets.data(), rows, V, smoothing,
                                    m_config.special.pad);
    std::vector<float> losses(static_cast<size_t>(rows));
    m_backend.download(losses.data(), m_losses.data(), losses.size() * sizeof(float));
    double sum = 0.0;
    for (float l : losses) sum += l;
    // Mean over target tokens: d(loss)/d(loss_r) = 1/count for every row (PAD rows give 0 anyway).
    const std::vector<float> dlosses(static_cast<size_t>(rows), 1.0f / static_cast<float>(count));
    m_backend.upload(m_dlosses.data(), dlosses.data(), dlosses.size() * sizeof(float));
    return sum / count;
}

void Transformer::zero_gradients() {
    // Parameter gradients only: loss() sets d(log_probs) and backward() zeroes the other activation
    // gradients itself (zeroing them here too cost a third of a training step's memory clearing).
    m_backend.fill_zero(m_grads.data(), m_grads.size() * sizeof(float));
}

void Transformer::backward() {
    // Activation gradients start from zero on every backward (the loss's gradient enters at the
    // last step from what loss() kept); parameter gradients accumulate (+=). So forward/loss/
    // backward over several batches sums their gradients, and backward twice gives twice the
    // gradient. Invariant: outside backward() every activation gradient is all zeros
    // (ensure_buffers zeroes new buffers). A step's gradient is cleared right after its own
    // backward has read it, while it is still in cache: clearing them all up front streamed the
    // whole activation memory through DRAM once more per step (4% of a translation step).
    // d(log_probs), the last step's, is never written (the loss's gradient goes to the logits).
    for (size_t i = m_steps.size(); i-- > 0;) {
        m_steps[i].backward();
        if (i + 1 < m_steps.size())
            m_backend.fill_zero(dout(i), static_cast<size_t>(m_info[i].shape.numel()) * sizeof(float));
    }
}

// ---------------------------------------------------------------------------------------------
// Dropout (training mode only)

// Dropout streams per step: the output projection's is 1, every other dropping step's 0 (the
// numbers the streams have always had, so a seed gives the same masks as before).
constexpr uint64_t DROPOUT_STREAM = 0;
constexpr uint64_t DROPOUT_STREAM_ATTENTION_OUT = 1;

uint64_t Transformer::dropout_seed(size_t step, uint64_t stream) const {
    // Distinct streams per step and role, changing with the trainer's seed every step.
    uint64_t z = m_options.dropout_seed * 0x9E3779B97F4A7C15ull + step * 0xBF58476D1CE4E5B9ull + stream;
    z = (z ^ (z >> 31)) * 0x94D049BB133111EBull;
    return z ^ (z >> 29);
}

bool Transformer::dropout_in_connection(size_t step) const {
    return fused_add_norm_active() &&
           std::find(m_connection_dropout.begin(), m_connection_dropout.end(), step) != m_connection_dropout.end();
}

// The dropout stream of a sublayer's output step, for the fused connection that draws its mask.
static uint64_t sublayer_dropout_stream(StepKind kind) {
    return kind == StepKind::OutputProjection ? DROPOUT_STREAM_ATTENTION_OUT : DROPOUT_STREAM;
}

void Transformer::apply_dropout(size_t step, Buffer* mask, uint64_t stream, int64_t n) {
    if (!dropping() || dropout_in_connection(step)) return;
    m_backend.dropout_forward(out(step), mask->data(), out(step), static_cast<int>(n), m_config.dropout,
                              dropout_seed(step, stream));
}

const float* Transformer::through_dropout(size_t step, Buffer* mask, Buffer* scratch, int64_t n) {
    if (!dropping() || dropout_in_connection(step)) return dout(step);
    m_backend.fill_zero(scratch->data(), static_cast<size_t>(n) * sizeof(float));
    m_backend.dropout_backward(scratch->data(), dout(step), mask->data(), static_cast<int>(n));
    return scratch->data();
}

// ---------------------------------------------------------------------------------------------
// Building the step list

size_t Transformer::add_step(StepInfo info, std::function<TensorShape()> shape, std::function<void()> forward,
                             std::function<void()> backward) {
    Step step;
    step.shape = std::move(shape);
    step.forward = std::move(forward);
    step.backward = std::move(backward);
    m_steps.push_back(std::move(step));
    m_info.push_back(std::move(info));
    return m_steps.size() - 1;
}

Transformer::Buffer* Transformer::buffer(std::function<int64_t()> numel) {
    m_buffers.push_back(Buffer{std::move(numel), Array()});
    return &m_buffers.back();
}

Transformer::PositionEntry Transformer::position_entry(PositionalKind kind) {
    switch (kind) {
        case PositionalKind::Sinusoidal:
        case PositionalKind::Learned: return PositionEntry::Embeddings;
        case PositionalKind::Rope: return PositionEntry::RotateQK;
        case PositionalKind::Alibi:
        case PositionalKind::Relative: return PositionEntry::ScoreBias;
        case PositionalKind::None: return PositionEntry::Nowhere;
    }
    return PositionEntry::Nowhere;
}

void Transformer::build() {
    const ModelConfig& c = m_config;
    const bool encoder = c.arch == Arch::EncoderDecoder;
    // One layer: the sublayers of its plan in order (layer_plan.h), each wrapped as the norm
    // placement says. Post-LN: x = normK(x + sublayer(x)); Pre-LN: x = x + sublayer(normK(x)).
    size_t memory = SIZE_MAX;
    auto layer = [&](Stack stack, int i, size_t x) {
        const bool in_encoder = stack == Stack::Encoder;
        const std::string p = (in_encoder ? "encoder.layers." : "decoder.layers.") + std::to_string(i);
        const auto sublayer = [&](const SublayerPlan& s, size_t in) {
            const std::string name = p + "." + s.name;
            switch (s.kind) {
                case SublayerKind::SelfAttention:
                    return build_attention(name, in_encoder ? AttentionKind::EncoderSelf : AttentionKind::DecoderSelf, i,
                                           stack, in, in);
                case SublayerKind::CrossAttention:
                    return build_attention(name, AttentionKind::Cross, i, stack, in, memory);
                case SublayerKind::FeedForward: break;
            }
            return build_ffn(name, stack, i, in);
        };
        for (const SublayerPlan& s : layer_plan(c, in_encoder)) {
            if (c.norm == NormPlacement::Post) {
                const size_t a = sublayer(s, x);
                x = build_norm(p + "." + s.norm, stack, i, a, x, StepKind::AddNorm);
            } else {
                const size_t normed = build_norm(p + "." + s.norm, stack, i, x, SIZE_MAX, StepKind::Norm);
                x = build_residual(p + "." + s.residual, stack, i, x, sublayer(s, normed));
            }
        }
        return x;
    };
    if (encoder) {
        size_t x = build_positions(Stack::Encoder, true, build_embedding(Stack::Encoder, true));
        for (int i = 0; i < c.encoder_layers; ++i) x = layer(Stack::Encoder, i, x);
        if (c.has_final_norm())
            x = build_norm("encoder.norm", Stack::Encoder, -1, x, SIZE_MAX, StepKind::Norm);
        memory = x;
    }

    m_first_decoder_step = m_steps.size();
    size_t y = build_positions(Stack::Decoder, false, build_embedding(Stack::Decoder, false));
    for (int i = 0; i < c.decoder_layers; ++i) y = layer(Stack::Decoder, i, y);
    if (c.has_final_norm()) y = build_norm("decoder.norm", Stack::Decoder, -1, y, SIZE_MAX, StepKind::Norm);
    build_generator(y);
}

size_t Transformer::build_embedding(Stack stack, bool source) {
    const int D = m_config.d_model;
    const float embed_scale = std::sqrt(static_cast<float>(D));
    const std::string prefix = source ? "src" : "tgt";
    const float* weight = param(prefix + "_embed.weight");
    float* dweight = grad(prefix + "_embed.weight");
    auto rows = [this, source] { return source ? m_S : m_T; };
    auto ids = [this, source] { return source ? m_src_ids.data() : m_tgt_ids.data(); };
    const std::string len = source ? "S" : "T";
    const StepText text = embed_text(m_config, source ? "source" : "target");
    const size_t n = m_steps.size();
    return add_step(
        {prefix + "_embed.out", StepKind::Embed, stack, -1, text.formula, text.explanation},
        [this, rows, D, len] { return TensorShape({m_B, rows(), D}, {"B", len, "D"}); },
        [this, weight, ids, rows, D, embed_scale, n] {
            m_backend.embedding_forward(out(n), ids(), weight, m_B * rows(), D, embed_scale);
        },
        [this, dweight, ids, rows, D, embed_scale, n] {
            m_backend.embedding_backward(dweight, dout(n), ids(), m_B * rows(), D, embed_scale);
        });
}

// The position hook, first place: where positions are a table added to the embeddings
// (sinusoidal, learned) this step adds it; with RoPE, ALiBi or none nothing is added here and
// the embeddings go to the first layer as they are (build_attention holds the other places).
size_t Transformer::build_positions(Stack stack, bool source, size_t embedded) {
    if (position_entry(m_config.positional) != PositionEntry::Embeddings) return embedded;
    const int D = m_config.d_model;
    const std::string prefix = source ? "src" : "tgt";
    auto rows = [this, source] { return source ? m_S : m_T; };
    auto bd = [this, rows, D] { return static_cast<int64_t>(m_B) * rows() * D; };
    const std::string len = source ? "S" : "T";
    const PositionCache cache{buffer(bd), buffer(bd)};
    const StepText text = positional_text(m_config);
    // Learned positions add a trained table of the same shape as the sinusoidal one: the same
    // forward op, plus the table's gradient in backward.
    const bool learned = m_config.positional == PositionalKind::Learned;
    const float* table = learned ? param(prefix + "_pos.weight") : m_pe.data();
    float* dtable = learned ? grad(prefix + "_pos.weight") : nullptr;
    const size_t n = m_steps.size();
    return add_step(
        {prefix + "_pos.out", StepKind::Positional, stack, -1, text.formula, text.explanation},
        [this, rows, D, len] { return TensorShape({m_B, rows(), D}, {"B", len, "D"}); },
        [this, embedded, table, rows, D, bd, cache, n] {
            if (m_options.positional_encoding)
                m_backend.positional_forward(out(n), out(embedded), table, m_B, rows(), D);
            else
                m_backend.copy(out(n), out(embedded), static_cast<size_t>(bd()) * sizeof(float));
            apply_dropout(n, cache.dropout_mask, DROPOUT_STREAM, bd());
        },
        [this, embedded, dtable, rows, D, bd, cache, n] {
            const float* g = through_dropout(n, cache.dropout_mask, cache.dropped_grad, bd());
            m_backend.positional_backward(dout(embedded), g, m_B, rows(), D);
            if (dtable && m_options.positional_encoding) m_backend.learned_positional_backward(dtable, g, m_B, rows(), D);
        });
}

void Transformer::build_generator(size_t y) {
    const int D = m_config.d_model, V = m_config.tgt_vocab;
    const float* wg = param("generator.weight");
    const float* bg = param("generator.bias");
    float* gwg = grad("generator.weight");
    float* gbg = grad("generator.bias");
    auto btv = [this, V] { return TensorShape({m_B, m_T, V}, {"B", "T", "V"}); };
    const StepText logits_info = logits_text(), log_probs_info = log_probs_text();
    const size_t logits = add_step(
        {"generator.logits", StepKind::Generator, Stack::Output, -1, logits_info.formula, logits_info.explanation},
        btv,
        [this, y, wg, bg, D, V, n = m_steps.size()] { linear_forward(out(n), out(y), wg, bg, m_B * m_T, D, V); },
        [this, y, wg, gwg, gbg, D, V, n = m_steps.size()] {
            m_backend.linear_backward(dout(y), gwg, gbg, dout(n), out(y), wg, m_B * m_T, D, V);
        });
    add_step({"generator.log_probs", StepKind::LogSoftmax, Stack::Output, -1, log_probs_info.formula,
              log_probs_info.explanation},
             btv,
             [this, logits, V, n = m_steps.size()] {
                 m_backend.log_softmax_forward(out(n), out(logits), m_B * m_T, V);
             },
             [this, logits, V, n = m_steps.size()] {
                 // The loss's gradient enters here, fused with log-softmax's (loss() keeps the
                 // targets and d(loss)/d(loss_r)): d(log_probs) itself is never needed.
                 if (m_loss_set)
                     m_backend.cross_entropy_log_softmax_backward(dout(logits), m_dlosses.data(), out(n), m_targets.data(),
                                                                  m_B * m_T, V, m_loss_smoothing, m_config.special.pad);
             });
}

// An attention block: its steps in order, each built by one function below. Where positions
// enter (position_entry) and which attention path runs (attention_path) are the two branch points.
size_t Transformer::build_attention(const std::string& prefix, AttentionKind kind, int layer, Stack stack,
                                    size_t query_input, size_t kv_input) {
    const bool decoder = stack == Stack::Decoder, on_source = kind != AttentionKind::DecoderSelf;
    AttentionGeometry g{prefix, kind, stack, layer,
                        [this, decoder] { return decoder ? m_T : m_S; },
                        [this, on_source] { return on_source ? m_S : m_T; },
                        decoder ? "T" : "S", on_source ? "S" : "T",
                        [this, kind]() -> const float* {
                            switch (kind) {
                                case AttentionKind::EncoderSelf: return m_src_keep.data();
                                case AttentionKind::DecoderSelf: return m_tgt_keep.data();
                                case AttentionKind::Cross: return m_cross_keep.data();
                            }
                            return nullptr;
                        }};
    AttentionBlock block{prefix, kind, layer, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const bool grouped = m_config.kv_head_count() < m_config.heads;
    // The position hook's second place: RoPE rotates self-attention's q and k right after their
    // projections. Cross-attention gets no position term: a source and a target position have
    // no distance between them.
    const bool rotate = kind != AttentionKind::Cross && position_entry(m_config.positional) == PositionEntry::RotateQK;
    block.q = build_head_projection(g, 'q', query_input, true);
    block.scores_q = rotate ? build_rotation(g, 'q', block.q, true) : block.q;
    block.k_shared = build_head_projection(g, 'k', kv_input, false);
    block.k = grouped ? build_repeat_heads(g, 'k', block.k_shared) : block.k_shared;
    block.scores_k = rotate ? build_rotation(g, 'k', block.k, false) : block.k;
    block.v_shared = build_head_projection(g, 'v', kv_input, false);
    block.v = grouped ? build_repeat_heads(g, 'v', block.v_shared) : block.v_shared;
    block.scores = build_scores(g, block.scores_q, block.scores_k);
    block.masked_scores = build_mask(g, block.scores);
    // In training, dropout acts on a copy of the probabilities (`dropped`); the step output stays
    // the pre-dropout attention that learners see.
    const int H = m_config.heads;
    auto bhtk = [this, g, H] { return static_cast<int64_t>(m_B) * H * g.rows() * g.keys(); };
    const ProbsCache probs_cache{buffer(bhtk), buffer(bhtk), buffer(bhtk)};
    block.probs = build_probs(g, block.scores, block.masked_scores, probs_cache);
    block.context = build_context(g, block, probs_cache);
    block.out = build_attention_out(g, block.context);
    m_attention.push_back(block);
    return block.out;
}

// Q [B,H,L,dk], or K or V [B,G,L,dk]: a projection of the input [B,L,D], split into heads of dk
// columns (G = H but with grouped-query attention).
size_t Transformer::build_head_projection(const AttentionGeometry& g, char role, size_t input, bool query) {
    const int D = m_config.d_model, dk = m_config.d_k();
    const int H = role == 'q' ? m_config.heads : m_config.kv_head_count(), OC = H * dk;
    const std::string proj = g.prefix + "." + role + "_proj";
    const float* w = param(proj + ".weight");
    const float* b = param(proj + ".bias");
    float* gw = grad(proj + ".weight");
    float* gb = grad(proj + ".bias");
    const std::function<int()> len = query ? g.rows : g.keys;
    const std::string letter = query ? g.q_letter : g.k_letter;
    auto bd = [this, len, D] { return static_cast<int64_t>(m_B) * len() * D; };
    const ProjectionCache cache{buffer(bd), buffer(bd)};
    const StepText text = projection_text(m_config, g.kind, role);
    const size_t n = m_steps.size();
    return add_step(
        {g.prefix + "." + role, StepKind::Projection, g.stack, g.layer, text.formula, text.explanation, {}, true},
        [this, len, H, dk, letter, heads = H < m_config.heads ? "G" : "H"] {
            return TensorShape({m_B, H, len(), dk}, {"B", heads, letter, "dk"});
        },
        [this, n, input, w, b, len, D, H, dk, OC, cache] {
            linear_forward(cache.flat->data(), out(input), w, b, m_B * len(), D, OC);
            m_backend.split_heads_forward(out(n), cache.flat->data(), m_B, len(), H, dk);
        },
        [this, n, input, w, gw, gb, len, D, H, dk, OC, cache] {
            const int rows_n = m_B * len();
            m_backend.fill_zero(cache.dflat->data(), static_cast<size_t>(rows_n) * OC * sizeof(float));
            m_backend.split_heads_backward(cache.dflat->data(), dout(n), m_B, len(), H, dk);
            m_backend.linear_backward(dout(input), gw, gb, cache.dflat->data(), out(input), w, rows_n, D, OC);
        });
}

// Grouped-query attention: K or V [B,G,L,dk] repeated to [B,H,L,dk], query head h reading shared
// head h / (H/G), as LLaMA's repeat_kv. Plain copies forward; backward each shared head gathers
// the sum of its H/G copies' gradients. Built from copy and residual_forward, so every backend
// runs it.
size_t Transformer::build_repeat_heads(const AttentionGeometry& g, char role, size_t shared) {
    const int H = m_config.heads, G = m_config.kv_head_count(), dk = m_config.d_k(), group = H / G;
    const std::function<int()> len = g.keys;
    const StepText text = repeat_heads_text(m_config, role);
    const size_t n = m_steps.size();
    return add_step(
        {g.prefix + "." + role + "_repeat", StepKind::Projection, g.stack, g.layer, text.formula, text.explanation, {}, true},
        [this, len, H, dk, g] { return TensorShape({m_B, H, len(), dk}, {"B", "H", g.k_letter, "dk"}); },
        [this, n, shared, len, H, G, dk, group] {
            const size_t head = static_cast<size_t>(len()) * dk;
            for (int b = 0; b < m_B; ++b)
                for (int h = 0; h < H; ++h)
                    m_backend.copy(out(n) + (static_cast<size_t>(b) * H + h) * head,
                                   out(shared) + (static_cast<size_t>(b) * G + h / group) * head, head * sizeof(float));
        },
        [this, n, shared, len, H, G, dk, group] {
            const size_t head = static_cast<size_t>(len()) * dk;
            for (int b = 0; b < m_B; ++b)
                for (int h = 0; h < H; ++h) {
                    float* d = dout(shared) + (static_cast<size_t>(b) * G + h / group) * head;
                    m_backend.residual_forward(d, d, dout(n) + (static_cast<size_t>(b) * H + h) * head, static_cast<int>(head));
                }
        });
}

// RoPE on q or k [B,H,L,dk]; with the positional encoding switched off, the identity.
size_t Transformer::build_rotation(const AttentionGeometry& g, char role, size_t projected, bool query) {
    const int H = m_config.heads, dk = m_config.d_k();
    const std::function<int()> len = query ? g.rows : g.keys;
    const std::string letter = query ? g.q_letter : g.k_letter;
    const StepText text = rotation_text(role);
    const size_t n = m_steps.size();
    return add_step(
        {g.prefix + "." + role + "_rot", StepKind::Positional, g.stack, g.layer, text.formula, text.explanation, {}, true},
        [this, len, H, dk, letter] { return TensorShape({m_B, H, len(), dk}, {"B", "H", letter, "dk"}); },
        [this, n, projected, len, H, dk] {
            if (m_options.positional_encoding)
                m_backend.rope_forward(out(n), out(projected), m_B, H, len(), dk, 0);
            else
                m_backend.copy(out(n), out(projected), static_cast<size_t>(m_B) * H * len() * dk * sizeof(float));
        },
        [this, n, projected, len, H, dk] {
            if (m_options.positional_encoding)
                m_backend.rope_backward(dout(projected), dout(n), m_B, H, len(), dk, 0);
            else   // the identity's gradient, += (positional_backward adds dout to dinp)
                m_backend.positional_backward(dout(projected), dout(n), m_B * H, len(), dk);
        });
}

// The shape of every [B,H,rows,keys] attention step.
std::function<TensorShape()> Transformer::attention_map_shape(const AttentionGeometry& g) const {
    return [this, g, H = m_config.heads] { return TensorShape({m_B, H, g.rows(), g.keys()}, {"B", "H", g.q_letter, g.k_letter}); };
}

// scores = QKᵀ·scale [B,H,rows,keys]. The position hook's third place: ALiBi's distance bias or
// T5's learned relative bias on self-attention's scores, inside this step (scores = QKᵀ/√dk +
// bias), the scores' gradient passed through (in `dscores` for ALiBi).
size_t Transformer::build_scores(const AttentionGeometry& g, size_t q, size_t k) {
    const int H = m_config.heads, dk = m_config.d_k();
    const float scale = m_config.scale_attention ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;
    auto bhtk = [this, g, H] { return static_cast<int64_t>(m_B) * H * g.rows() * g.keys(); };
    const bool self = g.kind != AttentionKind::Cross;
    const bool alibi = self && m_config.positional == PositionalKind::Alibi;
    Buffer* dscores = alibi ? buffer(bhtk) : nullptr;
    // T5's relative bias: the stack's table [buckets, H]; bidirectional in the encoder, causal in
    // the decoder. Its gradient is accumulated here, the scores' own passes through unchanged.
    const bool relative = self && m_config.positional == PositionalKind::Relative;
    const bool bidirectional = g.kind == AttentionKind::EncoderSelf;
    const std::string table = bidirectional ? "encoder.relative_bias.weight" : "decoder.relative_bias.weight";
    const float* bias_table = relative ? param(table) : nullptr;
    float* dbias_table = relative ? grad(table) : nullptr;
    const StepText text = scores_text(m_config, g.kind);
    const size_t n = m_steps.size();
    return add_step(
        {g.prefix + ".scores", StepKind::Scores, g.stack, g.layer, text.formula, text.explanation, {}, true},
        attention_map_shape(g),
        [this, g, q, k, dscores, bias_table, bidirectional, H, dk, scale, n] {
            switch (attention_path()) {
                case AttentionPath::Fused: return;   // the context step computes from q and k itself
                case AttentionPath::Steps:
                case AttentionPath::FusedSoftmax:
                    m_backend.scores_forward(out(n), out(q), out(k), m_B, H, g.rows(), g.keys(), dk, scale);
                    if (dscores && m_options.positional_encoding)
                        m_backend.alibi_forward(out(n), out(n), m_B, H, g.rows(), g.keys(), 0);
                    if (bias_table && m_options.positional_encoding)
                        m_backend.relative_bias_forward(out(n), out(n), bias_table, m_B, H, g.rows(), g.keys(), 0,
                                                        bidirectional);
                    return;
            }
        },
        [this, g, q, k, dscores, dbias_table, bidirectional, bhtk, H, dk, scale, n] {
            const float* d = dout(n);
            if (dscores) {
                m_backend.fill_zero(dscores->data(), static_cast<size_t>(bhtk()) * sizeof(float));
                m_backend.alibi_backward(dscores->data(), dout(n), m_B, H, g.rows(), g.keys());
                d = dscores->data();
            }
            if (dbias_table && m_options.positional_encoding)
                m_backend.relative_bias_backward(dbias_table, dout(n), m_B, H, g.rows(), g.keys(), 0, bidirectional);
            m_backend.scores_backward(dout(q), dout(k), d, out(q), out(k), m_B, H, g.rows(), g.keys(), dk, scale);
        });
}

// The masked scores [B,H,rows,keys]: −∞ (a large negative) where the keep matrix is 0.
size_t Transformer::build_mask(const AttentionGeometry& g, size_t scores) {
    const int H = m_config.heads;
    const StepText text = mask_text(m_config, g.kind);
    const size_t n = m_steps.size();
    return add_step(
        {g.prefix + ".masked_scores", StepKind::Mask, g.stack, g.layer, text.formula, text.explanation, {}, true},
        attention_map_shape(g),
        [this, g, H, scores, n] {
            switch (attention_path()) {
                case AttentionPath::Fused:          // the context step masks
                case AttentionPath::FusedSoftmax:   // the softmax step masks
                    return;
                case AttentionPath::Steps:
                    m_backend.attention_mask_forward(out(n), out(scores), g.keep(), m_B, H, g.rows(), g.keys());
                    return;
            }
        },
        [this, g, H, scores, n] {
            // Backward runs in training only: Steps or FusedSoftmax.
            if (attention_path() == AttentionPath::FusedSoftmax) return;   // the softmax step's backward wrote dscores
            m_backend.attention_mask_backward(dout(scores), dout(n), g.keep(), m_B, H, g.rows(), g.keys());
        });
}

// The attention probabilities [B,H,rows,keys]: softmax over each row of keys; then, in training,
// dropout on a copy (cache.dropped).
size_t Transformer::build_probs(const AttentionGeometry& g, size_t scores, size_t masked, ProbsCache cache) {
    const int H = m_config.heads;
    const StepText text = probs_text();
    const size_t n = m_steps.size();
    return add_step(
        {g.prefix + ".probs", StepKind::Softmax, g.stack, g.layer, text.formula, text.explanation, {}, true},
        attention_map_shape(g),
        [this, g, H, scores, masked, cache, n] {
            const int R = m_B * H * g.rows(), C = g.keys();
            switch (attention_path()) {
                case AttentionPath::Fused: return;   // the context step normalises
                case AttentionPath::FusedSoftmax:    // from the scores, scaled already: scale 1
                    m_backend.masked_softmax_forward(out(n), out(scores), g.keep(), m_B, H, g.rows(), g.keys(), 1.0f);
                    break;
                case AttentionPath::Steps:
                    m_backend.softmax_forward(out(n), out(masked), R, C);
                    break;
            }
            if (dropping())
                m_backend.dropout_forward(cache.dropped->data(), cache.dropout_mask->data(), out(n), R * C,
                                          m_config.dropout, dropout_seed(n, DROPOUT_STREAM));
        },
        [this, g, H, scores, masked, cache, n] {
            // Backward runs in training only: Steps or FusedSoftmax.
            const int R = m_B * H * g.rows(), C = g.keys();
            if (dropping()) m_backend.dropout_backward(dout(n), cache.ddropped->data(), cache.dropout_mask->data(), R * C);
            if (attention_path() == AttentionPath::FusedSoftmax)
                m_backend.masked_softmax_backward(dout(scores), dout(n), out(n), g.keep(), m_B, H, g.rows(), g.keys(), 1.0f);
            else
                m_backend.softmax_backward(dout(masked), dout(n), out(n), R, C);
        });
}

// The context [B,H,rows,dk]: the probabilities (after dropout) times V; switched-off heads give 0.
size_t Transformer::build_context(const AttentionGeometry& g, const AttentionBlock& block, ProbsCache cache) {
    const int H = m_config.heads, dk = m_config.d_k();
    const float scale = m_config.scale_attention ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;
    const StepText text = context_text();
    const size_t n = m_steps.size();
    return add_step(
        {g.prefix + ".context", StepKind::Context, g.stack, g.layer, text.formula, text.explanation, {}, true},
        [this, g, H, dk] { return TensorShape({m_B, H, g.rows(), dk}, {"B", "H", g.q_letter, "dk"}); },
        [this, g, H, dk, scale, q = block.scores_q, k = block.scores_k, v = block.v, probs = block.probs, cache, n] {
            switch (attention_path()) {
                case AttentionPath::Fused:
                    m_backend.fused_attention_forward(out(n), out(q), out(k), out(v), g.keep(), m_B, H, g.rows(), g.keys(),
                                                      dk, scale);
                    break;
                case AttentionPath::Steps:
                case AttentionPath::FusedSoftmax:
                    m_backend.context_forward(out(n), dropping() ? cache.dropped->data() : out(probs), out(v), m_B, H,
                                              g.rows(), g.keys(), dk);
                    break;
            }
            // Head ablation: a switched-off head contributes nothing (eval-mode teaching toggle).
            const auto off = m_options.disabled_heads.find(g.prefix);
            if (off != m_options.disabled_heads.end() && !m_options.training)
                for (int h : off->second)
                    if (h >= 0 && h < H)
                        for (int b = 0; b < m_B; ++b)
                            m_backend.fill_zero(out(n) + (static_cast<size_t>(b) * H + h) * g.rows() * dk,
                                                static_cast<size_t>(g.rows()) * dk * sizeof(float));
        },
        [this, g, H, dk, v = block.v, probs = block.probs, cache, n] {
            const bool d = dropping();
            const size_t count = static_cast<size_t>(m_B) * H * g.rows() * g.keys();
            if (d) m_backend.fill_zero(cache.ddropped->data(), count * sizeof(float));
            m_backend.context_backward(d ? cache.ddropped->data() : dout(probs), dout(v), dout(n),
                                       d ? cache.dropped->data() : out(probs), out(v), m_B, H, g.rows(), g.keys(), dk);
        });
}

// The block's output [B,rows,D]: the heads merged back into D columns, then W_o (and dropout).
size_t Transformer::build_attention_out(const AttentionGeometry& g, size_t context) {
    const int D = m_config.d_model, H = m_config.heads, dk = m_config.d_k();
    const float* wo = param(g.prefix + ".out_proj.weight");
    const float* bo = param(g.prefix + ".out_proj.bias");
    float* gwo = grad(g.prefix + ".out_proj.weight");
    float* gbo = grad(g.prefix + ".out_proj.bias");
    auto bd = [this, g, D] { return static_cast<int64_t>(m_B) * g.rows() * D; };
    const AttentionOutCache cache{buffer(bd), buffer(bd), buffer(bd), buffer(bd)};
    const StepText text = attention_out_text(g.kind);
    const size_t n = m_steps.size();
    return add_step(
        {g.prefix + ".out", StepKind::OutputProjection, g.stack, g.layer, text.formula, text.explanation, {}, false},
        [this, g, D] { return TensorShape({m_B, g.rows(), D}, {"B", g.q_letter, "D"}); },
        [this, g, H, dk, D, wo, bo, bd, context, cache, n] {
            m_backend.merge_heads_forward(cache.merged->data(), out(context), m_B, g.rows(), H, dk);
            linear_forward(out(n), cache.merged->data(), wo, bo, m_B * g.rows(), D, D);
            apply_dropout(n, cache.dropout_mask, DROPOUT_STREAM_ATTENTION_OUT, bd());
        },
        [this, g, H, dk, D, wo, gwo, gbo, bd, context, cache, n] {
            const int N = m_B * g.rows();
            const float* d = through_dropout(n, cache.dropout_mask, cache.dropped_grad, bd());
            m_backend.fill_zero(cache.dmerged->data(), static_cast<size_t>(bd()) * sizeof(float));
            m_backend.linear_backward(cache.dmerged->data(), gwo, gbo, d, cache.merged->data(), wo, N, D, D);
            m_backend.merge_heads_backward(dout(context), cache.dmerged->data(), m_B, g.rows(), H, dk);
        });
}

size_t Transformer::build_norm(const std::string& name, Stack stack, int layer, size_t input, size_t residual,
                               StepKind kind) {
    const int D = m_config.d_model;
    const float eps = m_config.ln_eps;
    const bool decoder = stack == Stack::Decoder;
    auto rows = [this, decoder] { return decoder ? m_T : m_S; };
    const std::string letter = decoder ? "T" : "S";
    const bool rms = m_config.norm_kind == NormKind::RmsNorm;   // RMSNorm: a gain, no bias, no mean
    const float* w = param(name + ".weight");
    const float* b = rms ? nullptr : param(name + ".bias");
    float* gw = grad(name + ".weight");
    float* gb = rms ? nullptr : grad(name + ".bias");
    auto bd = [this, rows, D] { return static_cast<int64_t>(m_B) * rows() * D; };
    auto n_rows = [this, rows] { return static_cast<int64_t>(m_B) * rows(); };
    // The norm of the config: out = norm(x) with its statistics in mean (LayerNorm) and rstd.
    auto normalise = [this, rms, w, b, D, eps](float* o, Buffer* mean, Buffer* rstd, const float* x, int N) {
        if (rms) m_backend.rmsnorm_forward(o, rstd->data(), x, w, N, D, eps);
        else m_backend.layernorm_forward(o, mean->data(), rstd->data(), x, w, b, N, D, eps);
    };
    auto normalise_backward = [this, rms, w, gw, gb, D](float* dx, const float* g, const float* x, Buffer* mean,
                                                        Buffer* rstd, int N) {
        if (rms) m_backend.rmsnorm_backward(dx, gw, g, x, w, rstd->data(), N, D);
        else m_backend.layernorm_backward(dx, gw, gb, g, x, w, mean->data(), rstd->data(), N, D);
    };
    auto shape = [this, rows, D, letter] { return TensorShape({m_B, rows(), D}, {"B", letter, "D"}); };
    const size_t n = m_steps.size();
    if (kind == StepKind::AddNorm) {
        // Post-LN: out = LayerNorm(x + sublayer(x)).
        const AddNormCache cache{buffer(bd), rms ? nullptr : buffer(n_rows), buffer(n_rows), buffer(bd)};
        const StepText text = add_norm_text(m_config);
        // Fused (training on the CPU): the sublayer's dropout mask is drawn here, into dsum's buffer,
        // which the fused backward does not need (it writes both branches' gradients itself).
        const StepKind sub_kind = m_info[input].kind;
        const bool connection = sub_kind == StepKind::OutputProjection || sub_kind == StepKind::FfnOut;
        if (connection) m_connection_dropout.push_back(input);
        const uint64_t stream = sublayer_dropout_stream(sub_kind);
        return add_step(
            {name + ".out", kind, stack, layer, text.formula, text.explanation},
            shape,
            [this, n, input, residual, normalise, rows, bd, cache, connection, stream, w, b, D, eps] {
                if (fused_add_norm_active()) {
                    const bool drop = connection && dropping();
                    m_backend.residual_dropout_norm_forward(
                        out(n), cache.sum->data(), drop ? cache.dsum->data() : nullptr,
                        cache.mean ? cache.mean->data() : nullptr, cache.rstd->data(), out(residual), out(input), w, b,
                        m_B * rows(), D, m_config.dropout, drop ? dropout_seed(input, stream) : 0, eps);
                    return;
                }
                m_backend.residual_forward(cache.sum->data(), out(residual), out(input), static_cast<int>(bd()));
                normalise(out(n), cache.mean, cache.rstd, cache.sum->data(), m_B * rows());
            },
            [this, n, input, residual, normalise_backward, rows, bd, cache, connection, w, gw, gb, D] {
                if (fused_add_norm_active()) {
                    const bool drop = connection && dropping();
                    m_backend.residual_dropout_norm_backward(
                        dout(residual), dout(input), gw, gb, dout(n), cache.sum->data(),
                        drop ? cache.dsum->data() : nullptr, w, cache.mean ? cache.mean->data() : nullptr,
                        cache.rstd->data(), m_B * rows(), D);
                    return;
                }
                m_backend.fill_zero(cache.dsum->data(), static_cast<size_t>(bd()) * sizeof(float));
                normalise_backward(cache.dsum->data(), dout(n), cache.sum->data(), cache.mean, cache.rstd, m_B * rows());
                m_backend.residual_backward(dout(residual), dout(input), cache.dsum->data(), static_cast<int>(bd()));
            });
    }
    const NormCache cache{rms ? nullptr : buffer(n_rows), buffer(n_rows)};
    const StepText text = norm_text(m_config, layer < 0);
    return add_step(
        {name + ".out", kind, stack, layer, text.formula, text.explanation},
        shape,
        [this, n, input, normalise, rows, cache] {
            normalise(out(n), cache.mean, cache.rstd, out(input), m_B * rows());
        },
        [this, n, input, normalise_backward, rows, cache] {
            normalise_backward(dout(input), dout(n), out(input), cache.mean, cache.rstd, m_B * rows());
        });
}

size_t Transformer::build_residual(const std::string& name, Stack stack, int layer, size_t a, size_t b) {
    const int D = m_config.d_model;
    const bool decoder = stack == Stack::Decoder;
    auto rows = [this, decoder] { return decoder ? m_T : m_S; };
    const std::string letter = decoder ? "T" : "S";
    const StepText text = residual_text(m_config);
    // Fused (training on the CPU): b's dropout and the sum in one pass, its mask kept here.
    const StepKind sub_kind = m_info[b].kind;
    const bool connection = sub_kind == StepKind::OutputProjection || sub_kind == StepKind::FfnOut;
    if (connection) m_connection_dropout.push_back(b);
    const uint64_t stream = sublayer_dropout_stream(sub_kind);
    Buffer* mask = buffer([this, rows, D] { return static_cast<int64_t>(m_B) * rows() * D; });
    return add_step(
        {name + ".out", StepKind::Residual, stack, layer, text.formula, text.explanation},
        [this, rows, D, letter] { return TensorShape({m_B, rows(), D}, {"B", letter, "D"}); },
        [this, a, b, rows, D, connection, stream, mask, n = m_steps.size()] {
            if (fused_add_norm_active()) {
                const bool drop = connection && dropping();
                m_backend.residual_dropout_forward(out(n), drop ? mask->data() : nullptr, out(a), out(b), m_B * rows() * D,
                                                   m_config.dropout, drop ? dropout_seed(b, stream) : 0);
                return;
            }
            m_backend.residual_forward(out(n), out(a), out(b), m_B * rows() * D);
        },
        [this, a, b, rows, D, connection, mask, n = m_steps.size()] {
            if (fused_add_norm_active()) {
                const bool drop = connection && dropping();
                m_backend.residual_dropout_backward(dout(a), dout(b), dout(n), drop ? mask->data() : nullptr,
                                                    m_B * rows() * D);
                return;
            }
            m_backend.residual_backward(dout(a), dout(b), dout(n), m_B * rows() * D);
        });
}

size_t Transformer::build_ffn(const std::string& prefix, Stack stack, int layer, size_t input) {
    const int D = m_config.d_model, F = m_config.ffn_width(), r = m_config.ffn_rank;
    const FfnKind ffn = m_config.ffn;
    const bool swiglu = ffn == FfnKind::SwiGlu;   // SwiGLU's matrices have no biases (LLaMA)
    const bool decoder = stack == Stack::Decoder;
    auto rows = [this, decoder] { return decoder ? m_T : m_S; };
    const std::string letter = decoder ? "T" : "S";
    const float* b1 = swiglu ? nullptr : param(prefix + ".linear1.bias");
    const float* b2 = swiglu ? nullptr : param(prefix + ".linear2.bias");
    float* gb1 = swiglu ? nullptr : grad(prefix + ".linear1.bias");
    float* gb2 = swiglu ? nullptr : grad(prefix + ".linear2.bias");
    auto bf = [this, rows, F] { return static_cast<int64_t>(m_B) * rows() * F; };
    auto bd = [this, rows, D] { return static_cast<int64_t>(m_B) * rows() * D; };
    auto blf = [this, rows, F, letter] { return TensorShape({m_B, rows(), F}, {"B", letter, "F"}); };

    // What an FFN matrix (linear1, 2 or 3) multiplies: the step `from` [B, rows, in] and the
    // weight [out, in]. A low-rank FFN's matrix is U·V: x·Vᵀ is a step of its own, "rank1/2/3"
    // [B, rows, r], and the matrix's step multiplies that by U [out, r].
    struct MatrixInput {
        size_t step;
        int width;
        const float* w;
        float* gw;
    };
    auto matrix_input = [&](int index, size_t from, int in) -> MatrixInput {
        const std::string matrix = prefix + ".linear" + std::to_string(index);
        if (r == 0) return {from, in, param(matrix + ".weight"), grad(matrix + ".weight")};
        const float* v = param(matrix + ".v.weight");
        float* gv = grad(matrix + ".v.weight");
        const StepText text = ffn_rank_text(m_config, index);
        const size_t n = m_steps.size();
        add_step({prefix + ".rank" + std::to_string(index), StepKind::FfnHidden, stack, layer, text.formula, text.explanation},
                 [this, rows, r, letter] { return TensorShape({m_B, rows(), r}, {"B", letter, "r"}); },
                 [this, from, v, rows, in, r, n] { linear_forward(out(n), out(from), v, nullptr, m_B * rows(), in, r); },
                 [this, from, v, gv, rows, in, r, n] {
                     m_backend.linear_backward(dout(from), gv, nullptr, dout(n), out(from), v, m_B * rows(), in, r);
                 });
        return {n, r, param(matrix + ".u.weight"), grad(matrix + ".u.weight")};
    };

    const FfnHiddenCache hidden_cache{buffer(bf), buffer(bf), ffn == FfnKind::Gelu ? buffer(bf) : nullptr,
                                      swiglu ? nullptr : buffer(bf)};
    const StepText hidden_info = with_low_rank(ffn_hidden_text(m_config), m_config, 1);
    size_t hidden = 0;
    if (swiglu) {
        // SwiGLU: gate = x·W1ᵀ and up = x·W3ᵀ are steps of their own, then h = SiLU(gate) ⊙ up.
        auto projection = [&](const std::string& role, int index, const StepText& text) {
            const MatrixInput m = matrix_input(index, input, D);
            const size_t n = m_steps.size();
            return add_step(
                {prefix + "." + role, StepKind::FfnHidden, stack, layer, text.formula, text.explanation}, blf,
                [this, m, rows, F, n] { linear_forward(out(n), out(m.step), m.w, nullptr, m_B * rows(), m.width, F); },
                [this, m, rows, F, n] {
                    m_backend.linear_backward(dout(m.step), m.gw, nullptr, dout(n), out(m.step), m.w, m_B * rows(), m.width, F);
                });
        };
        const size_t gate = projection("gate", 1, with_low_rank(ffn_gate_text(), m_config, 1));
        const size_t up = projection("up", 3, with_low_rank(ffn_up_text(), m_config, 3));
        hidden = add_step(
            {prefix + ".hidden", StepKind::FfnHidden, stack, layer, hidden_info.formula, hidden_info.explanation}, blf,
            [this, gate, up, bf, cache = hidden_cache, n = m_steps.size()] {
                m_backend.swiglu_forward(out(n), out(gate), out(up), static_cast<int>(bf()));
                apply_dropout(n, cache.dropout_mask, DROPOUT_STREAM, bf());
            },
            [this, gate, up, bf, cache = hidden_cache, n = m_steps.size()] {
                const float* g = through_dropout(n, cache.dropout_mask, cache.dropped_grad, bf());
                m_backend.swiglu_backward(dout(gate), dout(up), g, out(gate), out(up), static_cast<int>(bf()));
            });
    } else {
        // ReLU's backward reads its output (dropout in place zeroes or scales it, which keeps
        // the sign wherever a gradient flows); GELU's reads its input, kept in `pre`.
        const MatrixInput m = matrix_input(1, input, D);
        hidden = add_step(
            {prefix + ".hidden", StepKind::FfnHidden, stack, layer, hidden_info.formula, hidden_info.explanation}, blf,
            [this, ffn, m, b1, rows, F, bf, cache = hidden_cache, n = m_steps.size()] {
                if (ffn == FfnKind::Gelu) {
                    linear_forward(cache.pre->data(), out(m.step), m.w, b1, m_B * rows(), m.width, F);
                    m_backend.gelu_forward(out(n), cache.pre->data(), static_cast<int>(bf()));
                } else {
                    linear_forward(out(n), out(m.step), m.w, b1, m_B * rows(), m.width, F);
                    m_backend.relu_forward(out(n), out(n), static_cast<int>(bf()));
                }
                apply_dropout(n, cache.dropout_mask, DROPOUT_STREAM, bf());
            },
            [this, ffn, m, gb1, rows, F, bf, cache = hidden_cache, n = m_steps.size()] {
                const float* g = through_dropout(n, cache.dropout_mask, cache.dropped_grad, bf());
                m_backend.fill_zero(cache.dpre->data(), static_cast<size_t>(bf()) * sizeof(float));
                if (ffn == FfnKind::Gelu)
                    m_backend.gelu_backward(cache.dpre->data(), g, cache.pre->data(), static_cast<int>(bf()));
                else
                    m_backend.relu_backward(cache.dpre->data(), g, out(n), static_cast<int>(bf()));
                m_backend.linear_backward(dout(m.step), m.gw, gb1, cache.dpre->data(), out(m.step), m.w, m_B * rows(),
                                          m.width, F);
            });
    }
    const MatrixInput m = matrix_input(2, hidden, F);
    const FfnOutCache out_cache{buffer(bd), buffer(bd)};
    const StepText out_info = with_low_rank(ffn_out_text(m_config), m_config, 2);
    return add_step(
        {prefix + ".out", StepKind::FfnOut, stack, layer, out_info.formula, out_info.explanation},
        [this, rows, D, letter] { return TensorShape({m_B, rows(), D}, {"B", letter, "D"}); },
        [this, m, b2, rows, D, bd, cache = out_cache, n = m_steps.size()] {
            linear_forward(out(n), out(m.step), m.w, b2, m_B * rows(), m.width, D);
            apply_dropout(n, cache.dropout_mask, DROPOUT_STREAM, bd());
        },
        [this, m, gb2, rows, D, bd, cache = out_cache, n = m_steps.size()] {
            const float* g = through_dropout(n, cache.dropout_mask, cache.dropped_grad, bd());
            m_backend.linear_backward(dout(m.step), m.gw, gb2, g, out(m.step), m.w, m_B * rows(), m.width, D);
        });
}

}  // namespace tx
