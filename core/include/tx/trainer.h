// Trainer: trains a model on a task on its own thread, which owns its backend. Callers (the
// GUI, txcli train) never wait on it: commands are queued, and a snapshot of progress is
// published under one short lock every `snapshot_every` steps and copied by readers.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tx/backend.h"
#include "tx/checkpoint.h"
#include "tx/loss_scaler.h"
#include "tx/mixed_precision_training.h"
#include "tx/training_config.h"
#include "tx/training_state.h"

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
    double bleu = 0.0;             // held-out corpus BLEU of the greedy decodes, in [0, 1]
    double tokens_per_s = 0.0;     // target tokens per second of training
    // Induction (evaluation.h): held-out loss and accuracy on the random first half and on the
    // repeated, predictable second half; 0 for other tasks.
    double first_half_loss = 0.0, second_half_loss = 0.0;
    double first_half_accuracy = 0.0, second_half_accuracy = 0.0;
    // Mixed precision (docs/precision.md): the loss scale this step's backward used (1: none), the
    // share of the low-precision backward products' non-zero gradient entries that rounding
    // flushed to 0, over the steps since the previous point, for the weights' gradients and for
    // the activations' gradients (0 in FP32, which rounds nothing), and the steps skipped so far
    // because a gradient was inf or NaN.
    double loss_scale = 1.0;
    double grad_underflow = 0.0, activation_grad_underflow = 0.0;
    int64_t skipped_steps = 0;
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
    // Next-token tasks (decoder-only: no cross-attention): the fields above hold the last layer's
    // masked self-attention of the probe sequence instead, [H, T, T], source labels = target labels.
    bool probe_self_attention = false;
    int probe_repeat_from = 0;           // induction: the probe's second half starts at this target index
    std::string probe_input, probe_output;   // the probe's text and its greedy decode
    double elapsed_s = 0.0;              // seconds spent in training steps (evaluation excluded)
    int64_t tokens = 0;                  // target tokens trained on so far
};

class Task;
class Transformer;
class Optimizer;
struct EvalResult;

// Makes the backend a run trains on (make_cpu_backend, or make_cuda_backend from gpu/: core
// never includes gpu/, the caller passes the factory). May throw DeviceError.
using BackendFactory = std::function<std::unique_ptr<Backend>()>;

// The training loop without a thread: what Trainer runs on its thread, and what txcli, tests
// and benchmarks may drive directly. Owns its CPU backend, model, optimizer and task; the loop
// exists once, here. Same seeds, same losses, bit for bit (on one backend and machine).
//
// Fine-tuning: with `start_from`, the run starts from that checkpoint's weights and tokenizer
// instead of fresh weights and a tokenizer made for the task, and reset() returns to them. Its
// config must equal `model` (once the task has set the vocabulary) in every field but dropout and
// seed, and the task's vocabulary must be the checkpoint's: else ConfigError naming the first
// difference.
class TrainingRun {
public:
    // Throws ConfigError for invalid settings, DeviceError when the backend cannot be made.
    TrainingRun(ModelConfig model, TrainingConfig training, const BackendFactory& make_backend = make_cpu_backend,
                const Checkpoint* start_from = nullptr);
    ~TrainingRun();
    TrainingRun(const TrainingRun&) = delete;
    TrainingRun& operator=(const TrainingRun&) = delete;

    struct StepResult {
        double loss = 0.0;        // label-smoothed, per target token
        double grad_norm = 0.0;   // before clipping
        double lr = 0.0;
        int tokens = 0;           // target tokens of the batch
        double seconds = 0.0;     // wall time of the step
        bool diverged = false;    // non-finite loss or gradient norm: the update was not applied
        std::string message;
        // Mixed precision: a gradient was inf or NaN and the loss scaler skipped the update (the
        // weights and Adam's state are as they were; the step and its batch still count).
        bool skipped = false;
        double loss_scale = 1.0;            // the scale this step's backward used
        GradientRoundingCounts rounding;    // this step's low-precision backward products
    };
    // One batch: forward (training mode, dropout seed = mix_seed(seed, step)), loss (times the
    // loss scale), backward, unscaling, clipping, Adam with the Noam learning rate; in bf16/fp16
    // on the mixed-precision backend (mixed_precision_training.h).
    StepResult train_step();
    EvalResult evaluate(bool decode = true);
    std::vector<SampleDecode> samples(const EvalResult& result, int count) const;
    const Backend& backend() const { return *m_backend; }
    // Greedy-decodes the probe input (TrainingConfig::probe, else held-out example 0) in eval mode
    // and fills the snapshot's probe fields with the last decoder layer's cross-attention of that
    // decode. Next-token tasks: one teacher-forced pass over BOS + the probe sequence, its last
    // layer's self-attention, and probe_output = the argmax predictions (induction: of the second half).
    void probe(TrainingSnapshot& snapshot);
    void reset();   // fresh (or the checkpoint's) weights, fresh moments, training stream from its start, step 0

    int64_t step() const { return m_step; }
    int64_t total_steps() const { return m_training.total_steps(); }
    const ModelConfig& model_config() const { return m_model_config; }
    const TrainingConfig& training_config() const { return m_training; }
    const Task& task() const { return *m_task; }
    const LossScaler& loss_scaler() const { return m_scaler; }
    Transformer& model() { return *m_model; }
    std::vector<float> parameters() const;
    Checkpoint checkpoint() const;   // current weights + config, vocabulary, training JSON
    // The optimizer, step and data-stream state that, with checkpoint(), resumes this run.
    TrainingState state() const;
    // Continues a saved run: the weights must be the ones the state was saved with (the run was
    // built with start_from = that checkpoint); then the moments, step and data stream are
    // restored, and the next train_step() is the one the saved run would have taken. Throws
    // ConfigError when the state belongs to other weights or another data stream.
    void resume(const TrainingState& state);

private:
    ModelConfig m_model_config;
    TrainingConfig m_training;
    std::unique_ptr<Task> m_task;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<Transformer> m_model;
    std::unique_ptr<Optimizer> m_optimizer;
    MixedPrecisionTraining* m_mixed = nullptr;   // m_backend's training side in bf16/fp16, else null
    LossScaler m_scaler;
    void probe_next_token(TrainingSnapshot& snapshot);

    std::vector<float> m_start;   // fine-tuning: the checkpoint's parameters; empty: fresh ones from the seed
    int64_t m_step = 0;
};

class Trainer {
public:
    // model: hyperparameters (vocab sizes are set from the task); starts Idle with fresh weights.
    // Throws ConfigError for invalid settings, DeviceError when the backend cannot be made.
    // Only the trainer's thread uses the backend (and so the device) once it has started.
    // start_from: fine-tune that checkpoint (see TrainingRun); reset() returns to its weights.
    // resume_from (with start_from = the checkpoint saved with it): continue that run (TrainingRun::resume).
    Trainer(ModelConfig model, TrainingConfig training, const BackendFactory& make_backend = make_cpu_backend,
            const Checkpoint* start_from = nullptr, const TrainingState* resume_from = nullptr);
    ~Trainer();   // stops and joins the thread
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    void start();       // Idle/Paused -> Running
    void pause();       // Running -> Paused (after the current step)
    void step_once();   // Idle/Paused: one step, then Paused
    void stop();        // Finished; weights kept
    void reset();       // fresh weights from the seed (or the fine-tuned checkpoint's), history cleared, Idle
    TrainingSnapshot snapshot() const;   // a copy, taken under the short lock
    // The current (last good) weights with config, vocabulary and training settings.
    Checkpoint checkpoint() const;
    // Writes the checkpoint (path) and its training state (training_state_path(path)) of one
    // step, between steps on the trainer's thread; both atomically. Returns when they are
    // written: "" on success, else the error's message. Works in every state, Finished included.
    std::string save_resumable(const std::string& path);
    const ModelConfig& model_config() const;
    const TrainingConfig& training_config() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace tx
