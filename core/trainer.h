// Trainer: trains a model on a task on its own thread, which owns its backend. Callers (the
// GUI, txcli train) never wait on it: commands are queued, and a snapshot of progress is
// published under one short lock every `snapshot_every` steps and copied by readers.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "checkpoint.h"
#include "training_config.h"

namespace tx {

enum class TrainerState { Idle, Running, Paused, Finished, Diverged };
const char* to_string(TrainerState state);

struct TrainingPoint {          // one row of the history, also one row of --log CSV
    int64_t step = 0;
    double loss = 0.0;          // training loss per target token (label-smoothed KL)
    double eval_loss = 0.0;     // held-out loss per token (smoothing 0: plain cross-entropy)
    double lr = 0.0;
    double token_accuracy = 0.0;   // held-out, teacher forced: argmax == target
    double exact_match = 0.0;      // held-out greedy decodes equal to the whole target
    double tokens_per_s = 0.0;     // target tokens per second of training
};

struct SampleDecode {
    std::string input, expected, output;
    bool correct = false;
};

struct TrainingSnapshot {
    TrainerState state = TrainerState::Idle;
    std::string message;                 // why it stopped, or an error
    int64_t step = 0;
    int64_t total_steps = 0;             // epochs · batches_per_epoch
    int epoch = 0;
    TrainingPoint latest;
    std::vector<TrainingPoint> history;  // one point per snapshot
    std::vector<SampleDecode> samples;   // a few held-out decodes
    // Attention of a fixed probe input, eval mode, pre-dropout: the last decoder layer's
    // cross-attention per head, [H, T, S] (query rows = decoder positions, key columns = source).
    std::vector<std::string> probe_source;   // S labels
    std::vector<std::string> probe_target;   // T labels (decoder input: BOS + output)
    int probe_heads = 0;
    std::vector<float> probe_cross_attention;
    double elapsed_s = 0.0;
};

class Trainer {
public:
    // model: hyperparameters (vocab sizes are set from the task); starts Idle with fresh weights.
    // Throws ConfigError for invalid settings.
    Trainer(ModelConfig model, TrainingConfig training);
    ~Trainer();   // stops and joins the thread
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    void start();       // Idle/Paused -> Running
    void pause();       // Running -> Paused (after the current step)
    void step_once();   // Idle/Paused: one step, then Paused
    void stop();        // Finished; weights kept
    void reset();       // fresh weights from the seed, history cleared, Idle
    TrainingSnapshot snapshot() const;   // a copy, taken under the short lock
    // The current (last good) weights with config, vocabulary and training settings.
    Checkpoint checkpoint() const;
    const ModelConfig& model_config() const;
    const TrainingConfig& training_config() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace tx
