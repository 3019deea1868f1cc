// The reference for a decoder-only model's continuation: BOS + prompt through the whole model
// (B = 1, no padding, no KV cache), the argmax of the last position appended, again, until EOS or
// `limit` tokens. The Session's, the Generate panel's and txcli's continuations must equal it.
#pragma once

#include <algorithm>
#include <vector>

#include "tx/transformer.h"

namespace tx::test {

inline std::vector<int> plain_greedy(Transformer& model, const std::vector<int>& prompt, int limit) {
    const SpecialTokens& sp = model.config().special;
    const int V = model.config().tgt_vocab;
    std::vector<int> seq{sp.bos};
    seq.insert(seq.end(), prompt.begin(), prompt.end());
    std::vector<int> out;
    while (static_cast<int>(out.size()) < limit) {
        model.set_batch({{sp.eos}}, {seq});
        model.forward();
        const std::vector<float> lp = model.step_output(model.step_count() - 1);   // [1, |seq|, V]
        const float* last = lp.data() + (seq.size() - 1) * static_cast<size_t>(V);
        const int next = static_cast<int>(std::max_element(last, last + V) - last);
        if (next == sp.eos) break;
        out.push_back(next);
        seq.push_back(next);
    }
    return out;
}

}  // namespace tx::test
