// Session: inputs -> tokens -> greedy decode and beam search -> batch -> steps, with a cursor for stepping.
#include "tx/session.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "tx/decoding.h"
#include "tx/length_limits.h"

namespace tx {

namespace {

// model_version()'s and run_version()'s source: one counter for every Session, so that a new
// Session never repeats a number an earlier one had (a result made from the old model must not
// pass for the new one's).
uint64_t next_version() {
    static std::atomic<uint64_t> last{0};
    return ++last;
}

}  // namespace

Session::Session(Checkpoint checkpoint, std::unique_ptr<Backend> backend)
    : m_checkpoint(std::move(checkpoint)),
      m_tokenizer(make_tokenizer(m_checkpoint)),
      m_backend(std::move(backend)) {
    m_model = std::make_unique<Transformer>(m_checkpoint.config, *m_backend);
    m_model->set_parameters(m_checkpoint.parameters);
    m_checkpoint.parameters.clear();   // the model holds them; checkpoint() downloads a copy
    m_checkpoint.parameters.shrink_to_fit();
    m_model_version = next_version();
}

Session Session::load(const std::string& checkpoint_path) { return Session(load_checkpoint(checkpoint_path)); }

Checkpoint Session::fresh(ModelConfig config, std::vector<std::string> vocabulary, std::string tokenizer_model) {
    config.src_vocab = config.tgt_vocab = static_cast<int>(vocabulary.size());
    check(config);
    Checkpoint checkpoint;
    checkpoint.tokenizer_model = std::move(tokenizer_model);
    checkpoint.parameters = init_parameters(ParameterTable(config), config.seed);
    checkpoint.config = config;
    checkpoint.vocabulary = std::move(vocabulary);
    return checkpoint;
}

Checkpoint Session::checkpoint() const {
    Checkpoint copy = m_checkpoint;
    copy.parameters = m_model->download_parameters();
    return copy;
}

void Session::save(const std::string& path) const { save_checkpoint(path, checkpoint()); }

void Session::set_backend(std::unique_ptr<Backend> backend) {
    const std::vector<float> parameters = m_model->download_parameters();
    const RunOptions options = m_model->options();
    auto model = std::make_unique<Transformer>(m_checkpoint.config, *backend);
    model->set_parameters(parameters);
    model->options() = options;
    m_model.reset();   // the old model's buffers go back to the old backend before it dies
    m_model = std::move(model);
    m_backend = std::move(backend);
    if (!m_sentences.empty()) rerun();
}

void Session::set_parameters(const std::vector<float>& parameters) {
    m_model->set_parameters(parameters);
    m_model_version = next_version();
    if (!m_sentences.empty()) rerun();
}

std::vector<std::vector<int>> Session::source_ids() const {
    std::vector<std::vector<int>> ids;
    for (const auto& tokens : m_source_tokens) {
        std::vector<int> row;
        for (const Token& t : tokens) row.push_back(t.id);
        row.push_back(config().special.eos);
        ids.push_back(std::move(row));
    }
    return ids;
}

void Session::set_input(const std::vector<std::string>& sentences, const std::optional<std::string>& target) {
    if (sentences.empty()) throw std::invalid_argument("type at least one sentence");
    if (sentences.size() > static_cast<size_t>(MAX_BATCH))
        throw std::invalid_argument("at most " + std::to_string(MAX_BATCH) + " sentences form a batch; got " +
                                    std::to_string(sentences.size()));
    std::vector<std::vector<Token>> tokens;
    const auto target_tokens = target ? m_tokenizer.tokenize(*target).size() : 0;
    for (size_t i = 0; i < sentences.size(); ++i) {
        tokens.push_back(m_tokenizer.tokenize(sentences[i]));
        if (decoder_only()) {
            // BOS + the prompt (+ the target text, teacher forced) is the decoder input.
            require_fits(static_cast<int>(tokens.back().size() + target_tokens), Marker::Bos, config().max_len,
                         "prompt " + std::to_string(i + 1) + (target ? " with the target text" : ""));
            continue;
        }
        require_fits(static_cast<int>(tokens.back().size()), Marker::Eos, config().max_len, "sentence " + std::to_string(i + 1));
    }
    if (target) require_fits(static_cast<int>(target_tokens), Marker::Bos, config().max_len, "the target text");
    m_sentences = sentences;
    m_target_text = target;
    m_source_tokens = std::move(tokens);
    rerun();
}

int Session::output_limit(size_t row) const {
    if (!decoder_only()) return decode_limit(source_ids());
    const int prompt = row < m_source_tokens.size() ? static_cast<int>(m_source_tokens[row].size()) : 0;
    return continuation_limit(prompt, config().max_len);
}

std::vector<std::vector<int>> Session::prompt_ids() const {
    std::vector<std::vector<int>> ids;
    if (!decoder_only()) return ids;
    for (const auto& tokens : m_source_tokens) {
        ids.emplace_back();
        for (const Token& t : tokens) ids.back().push_back(t.id);
    }
    return ids;
}

int Session::decode_limit(const std::vector<std::vector<int>>& src) const {
    if (decoder_only()) return CONTINUATION_TOKENS;   // decoding clamps each prompt's continuation to max_len
    size_t longest = 0;
    for (const auto& row : src) longest = std::max(longest, row.size());
    return translation_limit(static_cast<int>(longest), config().max_len);
}

void Session::rerun() {
    m_run_version = next_version();
    const auto src = source_ids();
    const ModelConfig& c = config();
    // Both decodings, whichever is shown: each leaves the model's batch set to its last decoder
    // input, and the shown pass below sets the batch again.
    const int limit = decode_limit(src);
    const std::vector<std::vector<int>> prompts = prompt_ids();   // decoder-only; else none
    std::vector<GreedyScore> scores;
    const std::vector<std::vector<int>> greedy = greedy_decode(*m_model, src, limit, &scores, prompts);
    m_greedy.clear();
    for (size_t b = 0; b < greedy.size(); ++b) {
        const int length = static_cast<int>(greedy[b].size()) + (scores[b].finished ? 1 : 0);
        m_greedy.push_back({greedy[b], scores[b].log_prob,
                            scores[b].log_prob / length_penalty(length, m_decoding.length_penalty), length,
                            scores[b].finished});
    }
    m_beams.clear();
    for (size_t b = 0; b < src.size(); ++b)
        m_beams.push_back(beam_search(*m_model, src[b], limit, {m_decoding.beam_size, m_decoding.length_penalty},
                                      prompts.empty() ? std::vector<int>{} : prompts[b]));
    m_decoded.clear();
    for (size_t b = 0; b < src.size(); ++b) m_decoded.push_back(m_decoding.beam_size > 1 ? m_beams[b].best : greedy[b]);
    // The decoder input of the shown pass. With a target text: BOS + its tokens (teacher forcing).
    // Otherwise BOS + the decoded output, so every position's log-probabilities are the ones the
    // decoding chose from (the last one predicts EOS).
    // Decoder-only: BOS + the prompt + either of those.
    std::vector<std::vector<int>> tgt;
    for (size_t b = 0; b < m_decoded.size(); ++b) {
        const std::vector<int>& out = m_decoded[b];
        std::vector<int> row{c.special.bos};
        if (!prompts.empty()) row.insert(row.end(), prompts[b].begin(), prompts[b].end());
        if (m_target_text)
            for (int id : m_tokenizer.encode(*m_target_text)) row.push_back(id);
        else
            row.insert(row.end(), out.begin(), out.end());
        row.resize(std::min(row.size(), static_cast<size_t>(c.max_len)));
        tgt.push_back(std::move(row));
    }
    m_model->set_batch(src, tgt);
    m_model->forward();
    m_cursor = m_model->step_count();
}

std::vector<std::string> Session::decoded_text() const {
    std::vector<std::string> texts;
    for (const auto& ids : m_decoded) texts.push_back(m_tokenizer.decode(ids));
    return texts;
}

void Session::set_decoding(const Decoding& decoding) {
    if (decoding.beam_size < 1 || decoding.beam_size > 16)
        throw std::invalid_argument("beam size " + std::to_string(decoding.beam_size) + " must be between 1 and 16");
    if (!(decoding.length_penalty >= 0.0 && decoding.length_penalty <= 5.0))
        throw std::invalid_argument("the length penalty must be between 0 and 5");
    m_decoding = decoding;
    if (!m_sentences.empty()) rerun();
}

void Session::set_causal_mask(bool on) {
    m_model->options().causal_mask = on;
    if (!m_sentences.empty()) rerun();
}

void Session::set_padding_mask(bool on) {
    m_model->options().padding_mask = on;
    if (!m_sentences.empty()) rerun();
}

void Session::set_fused_attention(bool on) {
    m_model->options().fused_attention = on;
    if (!m_sentences.empty()) rerun();
}

void Session::set_positional_encoding(bool on) {
    m_model->options().positional_encoding = on;
    if (!m_sentences.empty()) rerun();
}

void Session::set_head_enabled(const std::string& prefix, int head, bool enabled) {
    auto& off = m_model->options().disabled_heads[prefix];
    off.erase(std::remove(off.begin(), off.end(), head), off.end());
    if (!enabled) off.push_back(head);
    if (off.empty()) m_model->options().disabled_heads.erase(prefix);
    if (!m_sentences.empty()) rerun();
}

void Session::set_attention_scaling(bool on) {
    if (m_checkpoint.config.scale_attention == on) return;
    // The Transformer reads its config once (scale, step formulas): rebuild it around the same
    // parameters and options, as set_backend() does.
    const std::vector<float> parameters = m_model->download_parameters();
    const RunOptions options = m_model->options();
    m_checkpoint.config.scale_attention = on;
    m_model.reset();
    m_model = std::make_unique<Transformer>(m_checkpoint.config, *m_backend);
    m_model->set_parameters(parameters);
    m_model->options() = options;
    m_model_version = next_version();
    if (!m_sentences.empty()) rerun();
}

bool Session::head_enabled(const std::string& prefix, int head) const {
    const auto& disabled = m_model->options().disabled_heads;
    const auto it = disabled.find(prefix);
    return it == disabled.end() || std::find(it->second.begin(), it->second.end(), head) == it->second.end();
}

void Session::step_forward() {
    if (m_cursor < step_count()) m_model->run_step(m_cursor++);
}

void Session::step_back() {
    if (m_cursor > 0) --m_cursor;
}

void Session::run_to(size_t step) {
    const size_t target = std::min(step + 1, step_count());
    if (target < m_cursor) m_cursor = target;   // outputs of earlier steps are still valid
    while (m_cursor < target) step_forward();
}

void Session::run_to_end() {
    while (m_cursor < step_count()) step_forward();
}

namespace {

// Steps share a "group" while they belong to the same stack and layer.
bool same_group(const StepInfo& a, const StepInfo& b) { return a.stack == b.stack && a.layer == b.layer; }

}  // namespace

size_t Session::next_layer_boundary() const {
    const auto& steps = m_model->steps();
    if (m_cursor >= steps.size()) return steps.size();
    size_t i = m_cursor;
    while (i < steps.size() && same_group(steps[i], steps[m_cursor])) ++i;
    return i;
}

size_t Session::previous_layer_boundary() const {
    const auto& steps = m_model->steps();
    if (m_cursor == 0) return 0;
    // The start of the group holding the last finished step: mid-layer this rewinds to the
    // layer's start; at a layer's start it goes to the previous layer's start.
    size_t i = m_cursor - 1;
    while (i > 0 && same_group(steps[i - 1], steps[i])) --i;
    return i;
}

double Session::last_forward_ms() const {
    double total = 0.0;
    for (const auto& s : m_model->steps()) total += s.ms;
    return total;
}

}  // namespace tx
