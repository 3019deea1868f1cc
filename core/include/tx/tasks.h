// Training tasks: seeded generators of examples and batches, with a fixed held-out evaluation
// set that the training stream never repeats. One convention (config.h SpecialTokens): the
// encoder input is tokens + EOS, the decoder input BOS + tokens, the targets tokens + EOS,
// rows padded with PAD; decoding always starts from BOS. Next-token tasks (induction, lm) for
// decoder-only models have no source: src rows are empty, the decoder input is BOS + sequence and
// the targets sequence + EOS (each position predicts the next token).
#pragma once
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "tx/config.h"
#include "tx/parallel_corpus.h"
#include "tx/tokenizer.h"
#include "tx/training_config.h"

namespace tx {

// A fixed 64-bit generator (splitmix64): same seed, same stream on every machine and compiler
// (std::uniform_int_distribution is implementation-defined).
class Rng {
public:
    explicit Rng(uint64_t seed) : m_state(seed) {}
    uint64_t next();
    uint64_t uniform(uint64_t n);   // in [0, n), n >= 1
    double uniform01();             // in [0, 1)
    uint64_t state() const { return m_state; }   // Rng(state()) continues the same stream

private:
    uint64_t m_state;
};

uint64_t mix_seed(uint64_t a, uint64_t b);   // a hash of two values, for derived streams

// Where a task's training stream stands, so that a resumed run draws the batches an
// uninterrupted one would have drawn. Length-batched tasks (translate, lm) keep an epoch's queue
// of batches: the generator's state before that queue was filled and how many batches were taken
// from it rebuild it; other tasks need only the generator's state.
struct TaskStreamPosition {
    uint64_t rng_state = 0;         // the training generator now
    bool queued = false;            // a length-batch queue is in use
    uint64_t refill_rng_state = 0;  // queued: the generator before the queue was filled
    int64_t batches_taken = 0;      // queued: batches taken from that queue
    int batch_rows = 0;             // queued: the rows of those batches
};

struct Example {
    std::vector<int> input;    // content ids, no specials
    std::vector<int> output;   // content ids, no specials
};

struct Batch {
    std::vector<std::vector<int>> src;   // B rows: input + EOS
    std::vector<std::vector<int>> tgt;   // B rows: BOS + output (decoder input)
    std::vector<int32_t> targets;        // [B, T]: output + EOS, PAD after; T = longest tgt row
    int tokens = 0;                      // non-PAD targets
};
Batch make_batch(const std::vector<Example>& examples, const SpecialTokens& special);
// Next-token prediction: src rows empty, tgt = BOS + output, targets = output + EOS.
Batch make_next_token_batch(const std::vector<Example>& examples, const SpecialTokens& special);

class Task {
public:
    // max_len: the model's longest sequence (BOS/EOS included); sentences that do not fit are
    // skipped. Throws ConfigError when the task cannot be built (missing file, a malformed line,
    // too small a sequence space for a disjoint held-out set). A SentencePiece tokenizer uses
    // tokenizer_model when given (fine-tuning a checkpoint), else one is trained on the data.
    Task(const TrainingConfig& config, int max_len, TokenizerKind tokenizer = TokenizerKind::Word,
         SpecialTokens special = {}, const std::string& tokenizer_model = {});

    TaskKind kind() const { return m_config.task; }
    const Tokenizer& tokenizer() const { return m_tokenizer; }
    const std::vector<std::string>& vocabulary() const { return m_tokenizer.vocabulary().tokens(); }
    int vocab_size() const { return m_tokenizer.vocabulary().size(); }
    int max_tokens() const { return m_max_tokens; }        // longest input or output, specials excluded
    const std::vector<Example>& held_out() const { return m_held_out; }
    bool in_held_out(const std::vector<int>& input) const { return m_held_out_inputs.count(input) > 0; }
    const std::vector<std::vector<int>>& sentences() const { return m_sentences; }   // copy-text only
    const std::vector<Example>& training_pairs() const { return m_pairs; }   // translate (pairs), lm (sentences)
    int skipped_pairs() const { return m_skipped; }   // translate, lm: examples too long for max_len
    // Induction: the output is input + input; the targets from index input.size() on are the
    // predictable half.
    bool repeats() const { return m_config.task == TaskKind::Induction; }

    Example next_example();          // the training stream: never an input of the held-out set
    // Translate, lm: batches of pairs of similar lengths (less padding), in a seeded order: each
    // epoch shuffles the pairs, sorts pools of 50 batches by length and shuffles the batches.
    // Induction and lm batches are next-token batches (make_next_token_batch).
    Batch next_batch(int rows);
    Batch batch_of(const std::vector<Example>& examples) const;   // make_batch or make_next_token_batch, by task
    void restart();                  // the training stream from its first example again
    TaskStreamPosition stream_position() const;
    // Puts the stream where `position` says (from stream_position() of a task built from the same
    // data and settings). Throws ConfigError when the position cannot be this task's.
    void seek(const TaskStreamPosition& position);
    std::string text(const std::vector<int>& ids) const { return m_tokenizer.decode(ids); }

private:
    Example draw(Rng& rng);
    Example draw_random_text(Rng& rng) const;
    Example from_input(std::vector<int> input) const;
    void load_pairs(int fit);
    void load_sentences(int fit);
    // Reads data_path (and valid_path) into m_pairs and m_held_out; encode makes an Example of a
    // pair and says whether it fits. unit names what the file holds, for messages.
    void load_corpus(int fit, const char* unit, const std::function<bool(const SentencePair&, Example&)>& encode);
    void refill_length_batches(int rows);

    TrainingConfig m_config;
    SpecialTokens m_special;
    Tokenizer m_tokenizer;
    int m_max_tokens = 0;
    std::vector<std::vector<int>> m_sentences;   // copy-text: tokenized sentences that fit
    std::vector<Example> m_pairs;                 // translate: training pairs that fit; lm: sentences (input = output)
    int m_skipped = 0;
    std::vector<std::vector<size_t>> m_batch_queue;   // translate: the epoch's batches left (pair indices)
    Rng m_train;
    uint64_t m_refill_rng_state = 0;   // m_train's state before the queue was last filled
    int64_t m_batches_taken = 0;       // taken from the queue since it was filled
    int m_batch_rows = 0;              // the rows of the queue's batches
    std::vector<Example> m_held_out;
    std::set<std::vector<int>> m_held_out_inputs;
};

}  // namespace tx
