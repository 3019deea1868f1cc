// A private copy of a model for the look-inside views (logit lens, activation patching, head
// importance, attention rollout and entropy, logit attribution): its own CPU backend and
// Transformer with the checkpoint's weights, run on one sentence at a time (B = 1), so probing
// never moves the Session's model, batch or toggles. Shapes as transformer.h: S source length,
// T target length, D d_model, H heads, dk = D/H, V vocabulary. Pure: no ImGui.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tx/backend.h"
#include "tx/checkpoint.h"
#include "tx/model_on_backend.h"
#include "tx/parameters.h"
#include "tx/tokenizer.h"
#include "tx/transformer.h"

namespace tx::explain {

// One run's input, B = 1: the encoder input (tokens + EOS; empty for a decoder-only model) and the
// decoder input (BOS + tokens; decoder-only: BOS + the prompt + what follows it).
struct InspectInput {
    std::vector<int> src, tgt;
};

class InspectModel {
public:
    // Takes the checkpoint's config, vocabulary and parameters (Session::checkpoint() gives a copy).
    explicit InspectModel(Checkpoint checkpoint);
    // Shares a copy that others read too (the app's SessionTwin); the weights are only read.
    explicit InspectModel(std::shared_ptr<const Checkpoint> checkpoint);
    InspectModel(const InspectModel&) = delete;
    InspectModel& operator=(const InspectModel&) = delete;

    const ModelConfig& config() const { return m_checkpoint->config; }
    const Tokenizer& tokenizer() const { return m_tokenizer; }
    Transformer& model() { return *m_model; }
    const Transformer& model() const { return *m_model; }
    bool decoder_only() const { return config().arch == Arch::DecoderOnly; }

    // The input of a sentence, as the Session builds it. Encoder-decoder: src = tokens + EOS, tgt =
    // BOS + the target text's tokens (teacher forcing) or BOS + the greedy output. Decoder-only:
    // src empty, tgt = BOS + the prompt + the target text's tokens or the greedy continuation.
    // Throws std::invalid_argument for empty text or a sentence that does not fit max_len.
    InspectInput input(const std::string& source, const std::optional<std::string>& target = std::nullopt);
    // Checks an input built by hand (ids in the vocabulary, lengths within max_len, tgt starts with
    // BOS, src empty exactly for a decoder-only model); throws std::invalid_argument naming the problem.
    void check(const InspectInput& in) const;
    // Sets the batch to `in` and runs every step, no head switched off.
    void run(const InspectInput& in);
    // run(), with the error as text ("" when it ran) for the views that report it in their result.
    std::string try_run(const InspectInput& in);
    // Runs the steps from `begin` to the end (after a step output was replaced or a head switched off).
    void run_from(size_t begin);

    // A step's index by name; throws std::logic_error naming it when the model has no such step.
    size_t step(const std::string& name) const;
    std::vector<float> output(size_t step) const { return m_model->step_output(step); }
    std::vector<float> output(const std::string& name) const { return output(step(name)); }
    // A parameter's values (host memory, ParameterTable layout).
    const float* param(const std::string& name) const;
    bool has_param(const std::string& name) const { return m_table.find(name) != nullptr; }
    int layers(Stack stack) const { return stack == Stack::Encoder ? config().encoder_layers : config().decoder_layers; }
    // The step holding the residual stream after layer `layer` of a stack: Post-LN its last add &
    // norm (normK.out), Pre-LN its last residual (residualK.out); layer -1: the stack's input (the
    // embeddings, plus the positions where a table adds them).
    size_t layer_output(Stack stack, int layer) const;
    // The display text of an id ("▁cat", "<eos>"), and an id from a piece's text: the exact piece,
    // else the piece with SentencePiece's word-start mark "▁", else "#N" for id N. Throws
    // std::invalid_argument naming the text when none is in the vocabulary.
    std::string token_text(int id) const { return m_tokenizer.display(id); }
    int token_id(const std::string& text) const;
    std::vector<std::string> token_texts(const std::vector<int>& ids) const;

private:
    std::shared_ptr<const Checkpoint> m_checkpoint;   // config, vocabulary and a host copy of the parameters
    ParameterTable m_table;
    Tokenizer m_tokenizer;
    ModelOnBackend m_model;   // on the FP32 CPU backend
};

// Per row of a [rows, V] matrix, the index of its largest value (the first on a tie).
std::vector<int> argmax_rows(const std::vector<float>& matrix, int rows, int V);

}  // namespace tx::explain
