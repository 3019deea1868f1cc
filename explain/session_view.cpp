// Builds the SessionView snapshot from a Session (see session_view.h).
#include "session_view.h"

#include "tx/training_config.h"

#include "tx/ops.h"
#include "tx/session.h"

namespace tx::explain {

std::string SessionView::token_text(int id) const {
    if (id >= 0 && id < static_cast<int>(vocabulary.size())) {
        if (config.tokenizer == TokenizerKind::Char && vocabulary[static_cast<size_t>(id)] == " ") return "\xE2\x90\xA3";
        return vocabulary[static_cast<size_t>(id)];
    }
    return "<id " + std::to_string(id) + ">";
}

std::vector<std::string> SessionView::src_labels(int row) const {
    std::vector<std::string> labels;
    if (row < 0 || row >= B) return labels;
    for (int s = 0; s < S; ++s) labels.push_back(token_text(src_ids[static_cast<size_t>(row * S + s)]));
    return labels;
}

std::vector<std::string> SessionView::tgt_labels(int row) const {
    std::vector<std::string> labels;
    if (row < 0 || row >= B) return labels;
    for (int t = 0; t < T; ++t) labels.push_back(token_text(tgt_ids[static_cast<size_t>(row * T + t)]));
    return labels;
}

std::string SessionView::missing_reason(size_t step) const {
    if (step < steps.size() && finished(step) && !steps[step].materialised)
        return "Not materialised: fused attention computes each context in one pass over key tiles, without the "
               "(T,S) scores and probabilities. Switch fused attention off in the Backend panel to see " +
               steps[step].name + ".";
    return "Not computed yet: run up to " + (step < steps.size() ? steps[step].name : std::string("this step")) +
           " to see its values.";
}

int SessionView::attention_block_of(size_t step) const {
    for (size_t i = 0; i < attention.size(); ++i) {
        const AttentionBlock& a = attention[i];
        if (step >= a.q && step <= a.out) return static_cast<int>(i);
    }
    return -1;
}

const char* attention_kind_title(AttentionKind kind) {
    switch (kind) {
        case AttentionKind::EncoderSelf: return "encoder self-attention";
        case AttentionKind::DecoderSelf: return "decoder masked self-attention";
        case AttentionKind::Cross: return "cross-attention (decoder \xE2\x86\x92 encoder)";
    }
    return "";
}

const char* attention_kind_short(AttentionKind kind) {
    switch (kind) {
        case AttentionKind::EncoderSelf: return "enc self";
        case AttentionKind::DecoderSelf: return "dec self";
        case AttentionKind::Cross: return "cross";
    }
    return "";
}

void refresh_view(SessionView& view, const Session& session, const std::string& model_source, bool full) {
    const Transformer& model = session.model();
    ++view.version;
    view.valid = true;
    if (full) {
        view.model_source = model_source;
        view.model_description = describe_training(session.training_json());
        view.label_smoothing = 0.0f;
        if (!session.training_json().empty()) {
            try {
                view.label_smoothing = training_config_from_json(session.training_json()).label_smoothing;
            } catch (const ConfigError&) {   // describe_training says the record cannot be read
            }
        }
        view.config = session.config();
        const size_t pe_size = static_cast<size_t>(view.config.max_len) * view.config.d_model;
        if (view.positional_table.size() != pe_size) {   // depends on max_len and d_model only
            view.positional_table.assign(pe_size, 0.0f);
            cpu::positional_encoding_table<float>(view.positional_table.data(), view.config.max_len, view.config.d_model);
        }
        view.vocabulary = session.tokenizer().vocabulary().tokens();
        view.vocab_size = static_cast<int>(view.vocabulary.size());
        view.sentences = session.sentences();
        view.target_text = session.target_text();
        view.source_tokens = session.source_tokens();
        view.decoded_ids = session.decoded_ids();
        view.decoded_text = session.decoded_text();
        view.beam_size = session.decoding().beam_size;
        view.length_penalty = session.decoding().length_penalty;
        view.beams = session.beam_results();
        view.greedy = session.greedy_results();
        const Tokenizer& tokenizer = session.tokenizer();
        view.greedy_text.clear();
        for (const BeamHypothesis& h : view.greedy) view.greedy_text.push_back(tokenizer.decode(h.ids));
        view.hypothesis_text.assign(view.beams.size(), {});
        view.prefix_text.assign(view.beams.size(), {});
        for (size_t b = 0; b < view.beams.size(); ++b) {
            for (const BeamHypothesis& h : view.beams[b].hypotheses) view.hypothesis_text[b].push_back(tokenizer.decode(h.ids));
            for (const BeamStep& step : view.beams[b].trace) {
                view.prefix_text[b].emplace_back();
                for (const auto& prefix : step.prefixes) view.prefix_text[b].back().push_back(tokenizer.decode(prefix));
            }
        }
        view.B = model.batch_size();
        view.S = model.src_len();
        view.T = model.tgt_len();
        view.src_ids = model.src_ids();
        view.tgt_ids = model.tgt_ids();
        view.src_mask = model.src_mask();
        view.tgt_mask = model.tgt_mask();
        view.src_self_mask = model.src_self_mask();
        view.options = session.options();
        view.attention = model.attention_blocks();
        view.first_decoder_step = model.first_decoder_step();
        view.forward_ms = session.last_forward_ms();
        view.learned_src_positions.clear();
        view.learned_tgt_positions.clear();
        view.relative_encoder_bias.clear();
        view.relative_decoder_bias.clear();
        if (view.config.positional == PositionalKind::Learned || view.config.positional == PositionalKind::Relative) {
            const std::vector<float> parameters = model.download_parameters();
            auto copy_table = [&](const char* name, std::vector<float>& to) {
                if (const ParameterInfo* p = model.table().find(name))
                    to.assign(parameters.begin() + p->offset, parameters.begin() + p->offset + p->numel());
            };
            copy_table("src_pos.weight", view.learned_src_positions);
            copy_table("tgt_pos.weight", view.learned_tgt_positions);
            copy_table("encoder.relative_bias.weight", view.relative_encoder_bias);
            copy_table("decoder.relative_bias.weight", view.relative_decoder_bias);
        }
        view.decoder_only = session.decoder_only();
        view.output_limit.clear();
        for (size_t b = 0; b < view.sentences.size(); ++b) view.output_limit.push_back(session.output_limit(b));
    }
    // Step infos carry the times of the last run; outputs follow the cursor.
    view.steps = model.steps();
    const size_t n = model.step_count();
    view.cursor = session.cursor();
    view.outputs.resize(n);
    for (size_t i = 0; i < n; ++i) {
        if (i < view.cursor && view.steps[i].materialised) {
            if (full || view.outputs[i].empty()) view.outputs[i] = model.step_output(i);
        } else {
            view.outputs[i].clear();
        }
    }
}

}  // namespace tx::explain
