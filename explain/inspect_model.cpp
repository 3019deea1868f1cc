// The look-inside views' private model (see inspect_model.h): inputs built as the Session builds
// them (core/session/session.cpp), checked, and run on one CPU backend at B = 1.
#include "inspect_model.h"

#include <algorithm>
#include <stdexcept>

#include "tx/decoding.h"
#include "tx/layer_plan.h"
#include "tx/length_limits.h"

namespace tx::explain {

InspectModel::InspectModel(Checkpoint checkpoint) : InspectModel(std::make_shared<const Checkpoint>(std::move(checkpoint))) {}

InspectModel::InspectModel(std::shared_ptr<const Checkpoint> checkpoint)
    : m_checkpoint(std::move(checkpoint)),
      m_table(m_checkpoint->config),
      m_tokenizer(make_tokenizer(*m_checkpoint)),
      m_model(make_model(m_checkpoint->config, m_checkpoint->parameters, make_cpu_backend())) {}

const float* InspectModel::param(const std::string& name) const {
    return m_checkpoint->parameters.data() + m_table.at(name).offset;
}

InspectInput InspectModel::input(const std::string& source, const std::optional<std::string>& target) {
    const ModelConfig& c = config();
    std::vector<int> tokens = m_tokenizer.encode(source);
    if (tokens.empty())
        throw std::invalid_argument(decoder_only() ? "the prompt is empty: type a few words to look inside"
                                                   : "the source sentence is empty: type a sentence to look inside");
    std::vector<int> forced;
    if (target) forced = m_tokenizer.encode(*target);
    InspectInput in;
    in.tgt = {c.special.bos};
    if (decoder_only()) {
        require_fits(static_cast<int>(tokens.size() + forced.size()), Marker::Bos, c.max_len,
                     target ? "the prompt with the target text" : "the prompt");
        in.tgt.insert(in.tgt.end(), tokens.begin(), tokens.end());
        if (target) {
            in.tgt.insert(in.tgt.end(), forced.begin(), forced.end());
        } else {
            const int limit = continuation_limit(static_cast<int>(tokens.size()), c.max_len);
            const auto out = greedy_decode(*m_model, {{}}, limit, nullptr, {tokens});
            in.tgt.insert(in.tgt.end(), out[0].begin(), out[0].end());
        }
    } else {
        require_fits(static_cast<int>(tokens.size()), Marker::Eos, c.max_len, "the source sentence");
        in.src = tokens;
        in.src.push_back(c.special.eos);
        if (target) {
            require_fits(static_cast<int>(forced.size()), Marker::Bos, c.max_len, "the target text");
            in.tgt.insert(in.tgt.end(), forced.begin(), forced.end());
        } else {
            const int limit = translation_limit(static_cast<int>(in.src.size()), c.max_len);
            const auto out = greedy_decode(*m_model, {in.src}, limit);
            in.tgt.insert(in.tgt.end(), out[0].begin(), out[0].end());
        }
    }
    return in;
}

void InspectModel::check(const InspectInput& in) const {
    const ModelConfig& c = config();
    if (decoder_only() && !in.src.empty())
        throw std::invalid_argument("a decoder-only model has no encoder: its input is the decoder input alone");
    if (!decoder_only() && in.src.empty())
        throw std::invalid_argument("the source sentence is empty: type a sentence to look inside");
    if (in.tgt.empty() || in.tgt.front() != c.special.bos)
        throw std::invalid_argument("the decoder input must start with BOS");
    for (const auto* side : {&in.src, &in.tgt}) {
        if (static_cast<int>(side->size()) > c.max_len)
            throw std::invalid_argument(std::string(side == &in.src ? "the source" : "the decoder input") + " has " +
                                        std::to_string(side->size()) + " tokens; the model's max_len is " +
                                        std::to_string(c.max_len));
        for (int id : *side)
            if (id < 0 || id >= c.tgt_vocab || id == c.special.pad)
                throw std::invalid_argument("id " + std::to_string(id) + " is PAD or outside the vocabulary (0.." +
                                            std::to_string(c.tgt_vocab - 1) + ")");
    }
}

std::string InspectModel::try_run(const InspectInput& in) {
    try {
        run(in);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

void InspectModel::run(const InspectInput& in) {
    check(in);
    m_model->options().disabled_heads.clear();
    m_model->options().fused_attention = false;   // the views read the probabilities
    if (decoder_only()) m_model->set_batch({{}}, {in.tgt});
    else m_model->set_batch({in.src}, {in.tgt});
    m_model->forward();
}

void InspectModel::run_from(size_t begin) {
    for (size_t i = begin; i < m_model->step_count(); ++i) m_model->run_step(i);
}

size_t InspectModel::step(const std::string& name) const {
    const size_t i = m_model->find_step(name);
    if (i == m_model->step_count()) throw std::logic_error("the model has no step " + name);
    return i;
}

size_t InspectModel::layer_output(Stack stack, int layer) const {
    const bool encoder = stack == Stack::Encoder;
    const std::string side = encoder ? "src" : "tgt";
    if (layer < 0) {
        const size_t pos = m_model->find_step(side + "_pos.out");
        return pos != m_model->step_count() ? pos : step(side + "_embed.out");
    }
    const SublayerPlan last = layer_plan(config(), encoder).back();
    return step((encoder ? "encoder.layers." : "decoder.layers.") + std::to_string(layer) + "." +
                (config().norm == NormPlacement::Pre ? last.residual : last.norm) + ".out");
}

int InspectModel::token_id(const std::string& text) const {
    const Vocabulary& v = m_tokenizer.vocabulary();
    if (const int id = v.id(text); id >= 0) return id;
    if (const int id = v.id("\xE2\x96\x81" + text); id >= 0) return id;
    if (text.size() > 1 && text[0] == '#' && std::all_of(text.begin() + 1, text.end(), ::isdigit) && text.size() < 10) {
        const int id = std::stoi(text.substr(1));
        if (id < v.size()) return id;
    }
    throw std::invalid_argument("no token \"" + text + "\" in the vocabulary (write a piece as shown, e.g. \xE2\x96\x81" +
                                "word, or #id)");
}

std::vector<std::string> InspectModel::token_texts(const std::vector<int>& ids) const {
    std::vector<std::string> texts;
    for (int id : ids) texts.push_back(token_text(id));
    return texts;
}

std::vector<int> argmax_rows(const std::vector<float>& matrix, int rows, int V) {
    std::vector<int> best(static_cast<size_t>(rows));
    for (int r = 0; r < rows; ++r) {
        const float* row = matrix.data() + static_cast<size_t>(r) * V;
        best[r] = static_cast<int>(std::max_element(row, row + V) - row);
    }
    return best;
}

}  // namespace tx::explain
