// Logit lens (see logit_lens.h). Layer l's output is written into the last layer's output step
// and the steps after it (final norm, generator, log-softmax) run again: the same code, weights
// and rounding as the real read-out, and no second implementation of the norm to drift apart.
#include "logit_lens.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace tx::explain {

LogitLens logit_lens(InspectModel& model, const InspectInput& in, int top_k) {
    LogitLens lens;
    lens.error = model.try_run(in);
    if (!lens.error.empty()) return lens;
    const ModelConfig& c = model.config();
    const int L = c.decoder_layers, T = static_cast<int>(in.tgt.size()), V = c.tgt_vocab;
    const int k = std::clamp(top_k, 1, V);
    lens.layers = L;
    lens.positions = T;
    lens.vocab = V;
    lens.position_tokens = model.token_texts(in.tgt);
    lens.readout = c.has_final_norm() ? "the final norm decoder.norm, then the generator and log-softmax"
                                      : "the generator and log-softmax (Post-LN: each layer ends in its own add & norm, "
                                        "and the model has no final norm)";
    lens.caveat = "Only the last layer was trained to be read by the generator; the rows of earlier layers show what "
                  "the same read-out makes of their residual stream, not what those layers \"think\".";
    const size_t last = model.layer_output(Stack::Decoder, L - 1);
    const size_t log_probs = model.model().step_count() - 1;
    const std::vector<float> final_stream = model.output(last);
    const std::vector<float> final_log_probs = model.output(log_probs);
    lens.log_probs.resize(static_cast<size_t>(L) * T * V);
    for (int l = 0; l < L; ++l) {
        std::vector<float> row = final_log_probs;
        if (l < L - 1) {
            model.model().set_step_output(last, model.output(model.layer_output(Stack::Decoder, l)));
            model.run_from(last + 1);
            row = model.output(log_probs);
        }
        std::copy(row.begin(), row.end(), lens.log_probs.begin() + static_cast<std::ptrdiff_t>(l) * T * V);
    }
    model.model().set_step_output(last, final_stream);   // the model's state is the real run again
    model.run_from(last + 1);
    lens.chosen = argmax_rows(final_log_probs, T, V);
    std::vector<int> order(static_cast<size_t>(V));
    for (int l = 0; l < L; ++l)
        for (int t = 0; t < T; ++t) {
            const float* p = lens.log_probs.data() + (static_cast<size_t>(l) * T + t) * V;
            std::iota(order.begin(), order.end(), 0);
            std::partial_sort(order.begin(), order.begin() + k, order.end(),
                              [p](int a, int b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
            LensCell cell;
            cell.top.assign(order.begin(), order.begin() + k);
            for (int id : cell.top) cell.top_log_probs.push_back(p[id]);
            cell.chosen_log_prob = p[lens.chosen[t]];
            lens.cells.push_back(std::move(cell));
        }
    return lens;
}

}  // namespace tx::explain
