// Head importance (see head_importance.h). Each ablation re-runs from the head's context step
// only; blocks go in decreasing step order, so the steps before each one are still the intact
// run's (an earlier ablation only changed later steps), and one last run restores the model.
#include "head_importance.h"

#include <algorithm>
#include <stdexcept>

namespace tx::explain {

HeadImportance head_importance(InspectModel& model, const InspectInput& in, int position) {
    HeadImportance r;
    const ModelConfig& c = model.config();
    const int V = c.tgt_vocab, H = c.heads;
    try {
        model.run(in);
        const int T = static_cast<int>(in.tgt.size());
        if (position >= T)
            throw std::invalid_argument("target position " + std::to_string(position) + " is outside 0.." +
                                        std::to_string(T - 1));
        r.position = position < 0 ? -1 : position;
        Transformer& t = model.model();
        const size_t log_probs = t.step_count() - 1;
        r.chosen = argmax_rows(model.output(log_probs), T, V);
        r.chosen_text = model.token_texts(r.chosen);
        auto metric = [&](const std::vector<float>& lp) {
            double sum = 0.0;
            for (int p = 0; p < T; ++p)
                if (r.position < 0 || p == r.position) sum += lp[static_cast<size_t>(p) * V + r.chosen[p]];
            return sum;
        };
        r.metric_text = r.position < 0 ? "the sum over the " + std::to_string(T) +
                                             " target positions of log p(the intact model's chosen token)"
                                       : "log p(" + r.chosen_text[r.position] + ") at target position " +
                                             std::to_string(r.position);
        r.intact = metric(model.output(log_probs));
        struct Block { size_t context; std::string prefix; size_t grid; int layer; };
        std::vector<Block> blocks;
        for (AttentionKind kind : {AttentionKind::EncoderSelf, AttentionKind::DecoderSelf, AttentionKind::Cross}) {
            HeadGrid g;
            g.kind = kind;
            g.name = kind == AttentionKind::EncoderSelf ? "encoder.self_attn"
                     : kind == AttentionKind::DecoderSelf ? "decoder.self_attn" : "decoder.cross_attn";
            g.heads = H;
            for (const AttentionBlock& b : t.attention_blocks())
                if (b.kind == kind) {
                    blocks.push_back({b.context, b.prefix, r.grids.size(), b.layer});
                    g.layers = std::max(g.layers, b.layer + 1);
                }
            if (g.layers == 0) continue;
            g.delta.assign(static_cast<size_t>(g.layers) * H, 0.0);
            r.grids.push_back(std::move(g));
        }
        std::sort(blocks.begin(), blocks.end(), [](const Block& a, const Block& b) { return a.context > b.context; });
        size_t dirty = t.step_count();   // the first step that differs from the intact run
        for (const Block& b : blocks)
            for (int h = 0; h < H; ++h) {
                t.options().disabled_heads = {{b.prefix, {h}}};
                model.run_from(std::min(dirty, b.context));
                dirty = b.context;
                r.grids[b.grid].delta[static_cast<size_t>(b.layer) * H + h] = metric(model.output(log_probs)) - r.intact;
            }
        t.options().disabled_heads.clear();
        model.run_from(std::min(dirty, t.step_count()));
    } catch (const std::exception& e) {
        model.model().options().disabled_heads.clear();
        HeadImportance failed;
        failed.error = e.what();
        return failed;
    }
    return r;
}

}  // namespace tx::explain
