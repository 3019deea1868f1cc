// Held-out evaluation: one teacher-forced forward per batch for loss and token accuracy, then
// batched greedy decoding for exact match; next-token tasks: the same forward, read per position.
#include "tx/evaluation.h"

#include <algorithm>

#include "tx/bleu.h"
#include "tx/decoding.h"

namespace tx {

EvalResult evaluate(Transformer& model, const std::vector<Example>& examples, bool decode, int batch,
                    const Tokenizer* tokenizer) {
    EvalResult r;
    const bool training = model.options().training;
    model.options().training = false;
    const SpecialTokens& special = model.config().special;
    const int V = model.config().tgt_vocab;
    double loss_sum = 0.0;
    int correct_tokens = 0, exact = 0;
    batch = std::max(batch, 1);
    for (size_t begin = 0; begin < examples.size(); begin += static_cast<size_t>(batch)) {
        const size_t end = std::min(examples.size(), begin + static_cast<size_t>(batch));
        const std::vector<Example> part(examples.begin() + static_cast<std::ptrdiff_t>(begin),
                                        examples.begin() + static_cast<std::ptrdiff_t>(end));
        const Batch b = make_batch(part, special);
        model.set_batch(b.src, b.tgt);
        model.forward();
        int tokens = 0;
        loss_sum += model.loss(b.targets, 0.0f, &tokens) * tokens;
        r.tokens += tokens;
        const std::vector<float> lp = model.step_output(model.step_count() - 1);   // [B, T, V]
        for (size_t i = 0; i < b.targets.size(); ++i) {
            if (b.targets[i] == special.pad) continue;
            const float* row = lp.data() + i * static_cast<size_t>(V);
            correct_tokens += static_cast<int>(std::max_element(row, row + V) - row) == b.targets[i];
        }
        if (decode) {
            int longest = 0;
            for (const Example& e : part) longest = std::max(longest, static_cast<int>(e.output.size()));
            // One more than the longest output: a model that does not stop fails exact match.
            std::vector<std::vector<int>> out = greedy_decode(model, b.src, longest + 1);
            for (size_t i = 0; i < part.size(); ++i) exact += out[i] == part[i].output;
            for (auto& o : out) r.decoded.push_back(std::move(o));
        }
    }
    model.options().training = training;
    r.sequences = static_cast<int>(examples.size());
    if (r.tokens > 0) {
        r.loss = loss_sum / r.tokens;
        r.token_accuracy = static_cast<double>(correct_tokens) / r.tokens;
    }
    if (decode && r.sequences > 0) r.exact_match = static_cast<double>(exact) / r.sequences;
    if (decode && tokenizer) {
        std::vector<std::vector<std::string>> hypotheses, references;
        for (size_t i = 0; i < examples.size(); ++i) {
            hypotheses.push_back(bleu_words(tokenizer->decode(r.decoded[i])));
            references.push_back(bleu_words(tokenizer->decode(examples[i].output)));
        }
        r.bleu = corpus_bleu(hypotheses, references);
    }
    return r;
}

EvalResult evaluate_next_token(Transformer& model, const std::vector<Example>& examples, bool halves, int batch) {
    EvalResult r;
    const bool training = model.options().training;
    model.options().training = false;
    const SpecialTokens& special = model.config().special;
    const size_t V = static_cast<size_t>(model.config().tgt_vocab);
    double loss_sum = 0.0, half_loss[2] = {0.0, 0.0};
    int correct = 0, half_correct[2] = {0, 0}, half_tokens[2] = {0, 0}, exact = 0;
    batch = std::max(batch, 1);
    for (size_t begin = 0; begin < examples.size(); begin += static_cast<size_t>(batch)) {
        const size_t end = std::min(examples.size(), begin + static_cast<size_t>(batch));
        const std::vector<Example> part(examples.begin() + static_cast<std::ptrdiff_t>(begin),
                                        examples.begin() + static_cast<std::ptrdiff_t>(end));
        const Batch b = make_next_token_batch(part, special);
        model.set_batch(b.src, b.tgt);
        model.forward();
        const size_t T = b.targets.size() / part.size();
        const std::vector<float> lp = model.step_output(model.step_count() - 1);   // [B, T, V]
        for (size_t i = 0; i < part.size(); ++i) {
            const std::vector<int>& out = part[i].output;
            const int repeat_from = halves ? static_cast<int>(part[i].input.size()) : 0;
            std::vector<int> predicted;
            bool all_right = true;
            for (size_t t = 0; t <= out.size(); ++t) {
                const int target = b.targets[i * T + t];
                const float* row = lp.data() + (i * T + t) * V;
                const int argmax = static_cast<int>(std::max_element(row, row + V) - row);
                const double nll = -static_cast<double>(row[target]);
                loss_sum += nll;
                correct += argmax == target;
                ++r.tokens;
                if (t == out.size()) break;   // EOS: in the totals, in neither half
                const int half = repeat_from > 0 ? (static_cast<int>(t) >= repeat_from ? 1 : 0) : -1;
                if (half >= 0) {
                    half_loss[half] += nll;
                    half_correct[half] += argmax == target;
                    ++half_tokens[half];
                }
                if (half != 0) {
                    predicted.push_back(argmax);
                    all_right = all_right && argmax == target;
                }
            }
            exact += all_right;
            r.decoded.push_back(std::move(predicted));
        }
    }
    model.options().training = training;
    r.sequences = static_cast<int>(examples.size());
    if (r.tokens > 0) {
        r.loss = loss_sum / r.tokens;
        r.token_accuracy = static_cast<double>(correct) / r.tokens;
    }
    if (r.sequences > 0) r.exact_match = static_cast<double>(exact) / r.sequences;
    if (half_tokens[0] > 0) {
        r.first_half_loss = half_loss[0] / half_tokens[0];
        r.first_half_accuracy = static_cast<double>(half_correct[0]) / half_tokens[0];
    }
    if (half_tokens[1] > 0) {
        r.second_half_loss = half_loss[1] / half_tokens[1];
        r.second_half_accuracy = static_cast<double>(half_correct[1]) / half_tokens[1];
    }
    return r;
}

}  // namespace tx
