// Speculative greedy decoding (speculative_decoding.h). Both models keep a KV cache of every
// position but the newest token of the sequence: that token is fed at the start of the next
// pass. A round: the draft is fed what it has not seen and proposes k ids one step at a time;
// the target is fed its unseen token and the k proposals in one extend(), whose row i is the
// target's log-probabilities after proposal i (row 0: after the sequence so far); the kept ids
// are appended, and both caches are cut back to the kept prefix (IncrementalDecoder::truncate).
#include "tx/speculative_decoding.h"

#include <algorithm>
#include <stdexcept>

#include "tx/incremental_decoder.h"

namespace tx {

int SpeculativeResult::proposed() const {
    int n = 0;
    for (const SpeculativeRound& r : rounds) n += static_cast<int>(r.proposed.size());
    return n;
}

int SpeculativeResult::accepted() const {
    int n = 0;
    for (const SpeculativeRound& r : rounds) n += r.accepted;
    return n;
}

double SpeculativeResult::acceptance_rate() const {
    const int p = proposed();
    return p == 0 ? 0.0 : static_cast<double>(accepted()) / p;
}

std::string draft_mismatch(const ModelConfig& target, const ModelConfig& draft) {
    auto differs = [](const char* setting, int t, int d) {
        return std::string("the draft model's ") + setting + " is " + std::to_string(d) + " but the target model's is " +
               std::to_string(t) + ": a draft must read and write the target's ids";
    };
    if (target.arch != draft.arch)
        return "the draft model is " + std::string(draft.arch == Arch::DecoderOnly ? "decoder-only" : "encoder-decoder") +
               " but the target model is " + (target.arch == Arch::DecoderOnly ? "decoder-only" : "encoder-decoder");
    if (target.tgt_vocab != draft.tgt_vocab) return differs("target vocabulary", target.tgt_vocab, draft.tgt_vocab);
    if (target.src_vocab != draft.src_vocab) return differs("source vocabulary", target.src_vocab, draft.src_vocab);
    const SpecialTokens &t = target.special, &d = draft.special;
    if (t.bos != d.bos) return differs("BOS id", t.bos, d.bos);
    if (t.eos != d.eos) return differs("EOS id", t.eos, d.eos);
    if (t.pad != d.pad) return differs("PAD id", t.pad, d.pad);
    if (t.unk != d.unk) return differs("UNK id", t.unk, d.unk);
    return "";
}

namespace {

int argmax(const float* row, int V) { return static_cast<int>(std::max_element(row, row + V) - row); }

}  // namespace

SpeculativeResult speculative_greedy_decode(Transformer& target, Transformer& draft, const std::vector<int>& src,
                                            int max_new, int k, const std::vector<int>& prompt) {
    const ModelConfig& c = target.config();
    if (k < 1) throw std::invalid_argument("speculative decoding: k = " + std::to_string(k) + " proposals; it needs at least 1");
    if (const std::string why = draft_mismatch(c, draft.config()); !why.empty())
        throw std::invalid_argument("speculative decoding: " + why);
    if (!IncrementalDecoder::supports(target) || !IncrementalDecoder::supports(draft))
        throw std::invalid_argument("speculative decoding needs the KV cache: the causal mask on, evaluation mode, "
                                    "and a backend that does not round every step");
    std::vector<int> seq{c.special.bos};
    seq.insert(seq.end(), prompt.begin(), prompt.end());
    const int start = static_cast<int>(seq.size());
    const int max_len = std::min(c.max_len, draft.config().max_len);
    if (start > max_len)
        throw std::invalid_argument("speculative decoding: the prompt has " + std::to_string(start - 1) +
                                    " tokens; with BOS it must fit max_len " + std::to_string(max_len));
    const int room = std::clamp(max_new, 0, max_len - start);
    SpeculativeResult result;
    if (room == 0) return result;
    // Positions either cache may hold: the sequence's final length less its newest token, plus
    // a round's proposals that may be dropped again (at most the room left, by the rule below).
    const int capacity = start - 1 + room;
    const std::vector<std::vector<int>> source{src}, first{{c.special.bos}};
    target.set_batch(source, first);
    target.encode();
    draft.set_batch(source, first);
    draft.encode();
    IncrementalDecoder target_cache(target, capacity), draft_cache(draft, capacity);
    const int V = c.tgt_vocab;
    int generated = 0;
    bool finished = false;
    while (!finished && generated < room) {
        SpeculativeRound round;
        // Proposals: at most k, and one fewer than the room left, so that the target's own
        // token always fits after them.
        const int proposals = std::min(k, room - generated - 1);
        const int length = static_cast<int>(seq.size());
        std::vector<float> lp;
        if (proposals > 0) {
            lp = draft_cache.extend(std::vector<int>(seq.begin() + draft_cache.length(), seq.end()));
            const float* newest = lp.data() + lp.size() - static_cast<size_t>(V);
            int id = argmax(newest, V);
            round.proposed.push_back(id);
            while (static_cast<int>(round.proposed.size()) < proposals && id != c.special.eos) {
                lp = draft_cache.step({id});
                id = argmax(lp.data(), V);
                round.proposed.push_back(id);
            }
        }
        // The target's one pass: the tokens it has not seen (the newest of the sequence) and the
        // proposals; row i of its output follows input i.
        std::vector<int> inputs(seq.begin() + target_cache.length(), seq.end());
        const int unseen = static_cast<int>(inputs.size());
        inputs.insert(inputs.end(), round.proposed.begin(), round.proposed.end());
        round.target_positions = static_cast<int>(inputs.size());
        lp = target_cache.extend(inputs);
        const float* rows = lp.data() + static_cast<size_t>(unseen - 1) * V;   // after the sequence so far
        int choice = argmax(rows, V);
        bool ended = false;   // an accepted EOS: nothing follows it
        while (!ended && round.accepted < static_cast<int>(round.proposed.size()) &&
               choice == round.proposed[static_cast<size_t>(round.accepted)]) {
            ended = choice == c.special.eos;
            ++round.accepted;
            choice = argmax(rows + static_cast<size_t>(round.accepted) * V, V);
        }
        round.target_token = ended ? -1 : choice;
        // Keep the accepted proposals, then the target's token; EOS ends the sentence.
        std::vector<int> kept(round.proposed.begin(), round.proposed.begin() + round.accepted);
        if (!ended) kept.push_back(choice);
        for (int id : kept) {
            seq.push_back(id);
            ++generated;
            if (id == c.special.eos) {
                finished = true;
                break;
            }
            result.tokens.push_back(id);
        }
        // Both caches hold the sequence less its newest token (or less: the draft has not seen
        // the target's token, nor, when it ran no step, anything of this round).
        target_cache.truncate(length + round.accepted);
        draft_cache.truncate(std::min(draft_cache.length(), length + round.accepted));
        result.rounds.push_back(std::move(round));
    }
    // As greedy_decode leaves a model: its batch set to the last decoder input.
    const std::vector<std::vector<int>> last{std::vector<int>(seq.begin(), seq.end() - 1)};
    target.set_batch(source, last);
    draft.set_batch(source, last);
    return result;
}

std::unique_ptr<Transformer> early_exit_draft(Transformer& target, int layers) {
    const ModelConfig& c = target.config();
    if (layers < 1 || layers >= c.decoder_layers)
        throw std::invalid_argument("early-exit draft: " + std::to_string(layers) + " decoder layers; the target has " +
                                    std::to_string(c.decoder_layers) + ", so a draft keeps 1 to " +
                                    std::to_string(c.decoder_layers - 1));
    ModelConfig d = c;
    d.decoder_layers = layers;
    auto draft = std::make_unique<Transformer>(d, target.backend());
    const std::vector<float> weights = target.download_parameters();
    std::vector<float> kept(static_cast<size_t>(draft->table().total()));
    // Every draft tensor is the target's tensor of the same name (layers 0..layers-1 and the rest).
    for (const ParameterInfo& p : draft->table().entries()) {
        const ParameterInfo& from = target.table().at(p.name);
        std::copy_n(weights.begin() + from.offset, p.numel(), kept.begin() + p.offset);
    }
    draft->set_parameters(kept);
    draft->options() = target.options();
    return draft;
}

}  // namespace tx
