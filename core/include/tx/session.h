// Session: what the GUI and the CLI drive. It holds the config, tokenizer, parameters, a
// backend and the Transformer, the current batch of sentences, and a cursor over the step
// list. Neither front end re-implements the model: they set inputs, move the cursor and read.
// With a decoder-only (GPT) model each sentence is a prompt: the decoder input is BOS + the
// prompt's tokens, decoding continues it, and the shown pass runs on BOS + prompt + continuation.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tx/backend.h"
#include "tx/beam_search.h"
#include "tx/checkpoint.h"
#include "tx/tokenizer.h"
#include "tx/transformer.h"

namespace tx {

class Session {
public:
    // Takes a loaded or freshly initialised checkpoint and a backend (the CPU one by default).
    explicit Session(Checkpoint checkpoint, std::unique_ptr<Backend> backend = make_cpu_backend());
    static Session load(const std::string& checkpoint_path);   // throws SafetensorsError
    // A fresh model: the config's vocab sizes are taken from the vocabulary; Xavier init from
    // config.seed. A SentencePiece config needs the tokenizer's serialized model.
    static Checkpoint fresh(ModelConfig config, std::vector<std::string> vocabulary, std::string tokenizer_model = {});

    const ModelConfig& config() const { return m_checkpoint.config; }
    const Tokenizer& tokenizer() const { return m_tokenizer; }
    Transformer& model() { return *m_model; }
    const Transformer& model() const { return *m_model; }
    Backend& backend() { return *m_backend; }
    // The training settings as JSON ("" when the checkpoint has no training record).
    const std::string& training_json() const { return m_checkpoint.training_json; }
    // A copy of the current parameters with config, vocabulary and training settings.
    Checkpoint checkpoint() const;
    void save(const std::string& path) const;
    // Replaces the backend (CPU <-> CUDA) keeping parameters, inputs and options; re-runs.
    void set_backend(std::unique_ptr<Backend> backend);
    // Replaces the parameters (e.g. from the trainer), keeping the config; re-runs.
    void set_parameters(const std::vector<float>& parameters);
    // What checkpoint() would return, as a number: a new one, never used before in this process by
    // any Session, on construction and whenever the parameters or the config change
    // (set_parameters, set_attention_scaling). Copies of the model key on it (app/session_twin.h).
    // Inputs, toggles and the backend leave it as it is: they change no weight.
    uint64_t model_version() const { return m_model_version; }
    // What the shown run is of, as a number: a new one on every re-run, i.e. whenever the input,
    // the decoding, a teaching toggle, the backend or the model changes. Stepping the cursor
    // leaves it as it is. Results computed from the run (app/derived.h) key on it.
    uint64_t run_version() const { return m_run_version; }

    // Inputs. 1..MAX_BATCH sentences; several form a padded batch. Tokenizes, decodes (unless a
    // target text is given: then the decoder input is BOS + its tokens, teacher forcing), sets
    // the batch and runs every step. Throws std::invalid_argument with a clear reason
    // (too many sentences, a sentence too long for max_len); the previous input stays.
    // Decoder-only: each sentence is a prompt, the decoder input BOS + prompt + continuation (or +
    // the target text's tokens: what follows the prompt, teacher forced); rows of different
    // lengths are padded on the right, so every row's positions start at 0.
    static constexpr int MAX_BATCH = 4;
    void set_input(const std::vector<std::string>& sentences, const std::optional<std::string>& target = std::nullopt);
    const std::vector<std::string>& sentences() const { return m_sentences; }
    const std::optional<std::string>& target_text() const { return m_target_text; }
    const std::vector<std::vector<Token>>& source_tokens() const { return m_source_tokens; }   // without EOS
    // Arch::DecoderOnly: source_tokens() are the prompts and decoded_ids() their continuations.
    bool decoder_only() const { return config().arch == Arch::DecoderOnly; }
    // The most tokens decoding may produce for sentence `row` (EOS included): decoder-only, the
    // prompt's continuation, min(CONTINUATION_TOKENS, max_len - 1 - prompt tokens); otherwise
    // decode_limit() of the batch, the same for every row.
    int output_limit(size_t row) const;
    // The output of the chosen decoding per sentence (ids without BOS/EOS) and as text: greedy's,
    // or beam search's best when the beam size is above 1; see decode_limit().
    const std::vector<std::vector<int>>& decoded_ids() const { return m_decoded; }
    std::vector<std::string> decoded_text() const;

    // How outputs are decoded: greedy (beam_size 1, the default) or beam search with GNMT's length
    // penalty (the paper used beam 4, alpha 0.6). Throws std::invalid_argument for beam_size
    // outside 1..16 or a length penalty outside [0, 5]; changing it re-decodes and re-runs.
    struct Decoding {
        int beam_size = 1;
        double length_penalty = 0.6;
    };
    void set_decoding(const Decoding& decoding);
    const Decoding& decoding() const { return m_decoding; }
    // Both decodings of every sentence, whichever one is chosen, so that they can be compared:
    // greedy_decode's output scored as a hypothesis (log P of the chosen tokens, EOS included when
    // chosen; score = log P / lp with the length penalty above), and beam search with the beam size
    // and length penalty above, trace included (with beam size 1 it finds greedy's output).
    const std::vector<BeamHypothesis>& greedy_results() const { return m_greedy; }
    const std::vector<BeamResult>& beam_results() const { return m_beams; }

    // The teaching toggles (masks, head ablation); changing them re-decodes and re-runs.
    const RunOptions& options() const { return m_model->options(); }
    void set_causal_mask(bool on);
    void set_padding_mask(bool on);
    void set_positional_encoding(bool on);
    // Fused attention (evaluation): contexts without the (T,S) scores/probabilities steps.
    void set_fused_attention(bool on);   // off shows that attention alone ignores word order
    void set_head_enabled(const std::string& attention_prefix, int head, bool enabled);
    bool head_enabled(const std::string& attention_prefix, int head) const;
    // ModelConfig::scale_attention on the same weights: scores = QKᵀ/√dk (on) or QKᵀ (off, to
    // show softmax saturation). The config is the model's own (a save records it); re-runs.
    void set_attention_scaling(bool on);

    // Stepping: cursor = number of finished steps (0 .. step_count()).
    size_t cursor() const { return m_cursor; }
    size_t step_count() const { return m_model->step_count(); }
    bool finished(size_t step) const { return step < m_cursor; }
    void restart() { m_cursor = 0; }
    void step_forward();                  // runs step `cursor`
    void step_back();                     // the last finished step becomes unfinished
    void run_to(size_t step);             // runs until `step` is finished
    void run_to_end();
    // The step index that begins the next / previous layer (or stack part) after the cursor.
    size_t next_layer_boundary() const;
    size_t previous_layer_boundary() const;

    // Total forward time of the last full run, in ms, and per step (StepInfo::ms).
    double last_forward_ms() const;

    // The output limit of decoding the rows src (ids with EOS): translation_limit of the longest
    // (output_limit.h); an untrained model rarely emits EOS, and a 127-token output would bury every
    // view. A decoder-only prompt's continuation: CONTINUATION_TOKENS (decoding keeps each prompt's
    // within max_len).
    int decode_limit(const std::vector<std::vector<int>>& src) const;

private:
    void rerun();                         // decode + set batch + run all steps, cursor at end
    std::vector<std::vector<int>> source_ids() const;
    std::vector<std::vector<int>> prompt_ids() const;   // decoder-only: each prompt's ids; else empty

    Checkpoint m_checkpoint;              // config, vocabulary, training settings (parameters live in the model)
    uint64_t m_model_version = 0;         // see model_version()
    uint64_t m_run_version = 0;           // see run_version()
    Tokenizer m_tokenizer;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<Transformer> m_model;
    std::vector<std::string> m_sentences;
    std::optional<std::string> m_target_text;
    std::vector<std::vector<Token>> m_source_tokens;
    std::vector<std::vector<int>> m_decoded;
    Decoding m_decoding;
    std::vector<BeamHypothesis> m_greedy;
    std::vector<BeamResult> m_beams;
    size_t m_cursor = 0;
};

}  // namespace tx
