// Held-out metrics of a model on a task's evaluation set, batched: loss per target token
// (teacher forced, plain cross-entropy), token accuracy (argmax == target over non-PAD
// targets) and exact match of greedy decoding (the whole output reproduced, then EOS). Next-token
// tasks (induction, lm) have their own: teacher forced only, the induction halves apart.
#pragma once
#include <vector>

#include "tx/tasks.h"
#include "tx/transformer.h"

namespace tx {

struct EvalResult {
    double loss = 0.0;             // per target token
    double token_accuracy = 0.0;   // in [0, 1]
    double exact_match = 0.0;      // in [0, 1]; 0 when decoding was skipped
    double bleu = 0.0;             // corpus BLEU of the decodes as text, in [0, 1] (with a tokenizer)
    int sequences = 0;
    int tokens = 0;
    std::vector<std::vector<int>> decoded;   // greedy output per example (empty when skipped)
    // Next-token tasks, induction only: the targets of the first half (random: chance level) and
    // of the second half (a copy of the first: predictable), EOS in neither.
    double first_half_loss = 0.0, first_half_accuracy = 0.0;
    double second_half_loss = 0.0, second_half_accuracy = 0.0;
};

// Runs in eval mode (no dropout; the model's training flag is restored afterwards) in batches of
// at most `batch` examples. Leaves the model's batch set to the last evaluation batch. With a
// tokenizer and decoding, BLEU compares the decoded texts with the expected ones (bleu_words).
EvalResult evaluate(Transformer& model, const std::vector<Example>& examples, bool decode = true, int batch = 200,
                    const Tokenizer* tokenizer = nullptr);

// Next-token tasks: teacher-forced loss and token accuracy over every target (EOS included), with
// `halves` (induction: output = input + input) the first and second half apart (targets
// [0, n) and [n, 2n), n = input.size()), and exact_match = the share of examples whose predicted
// part (second half; else the whole sequence) is argmax-right at every position. decoded holds
// those argmax predictions, each given the true prefix.
EvalResult evaluate_next_token(Transformer& model, const std::vector<Example>& examples, bool halves, int batch = 200);

}  // namespace tx
