// Training settings (saved with the checkpoint as JSON) and the model/training presets.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "tx/config.h"
#include "tx/loss_scaler.h"
#include "tx/precision.h"

namespace tx {

// Translate: sentence pairs from a tab-separated file (English -> Spanish by default).
// Induction and Lm are next-token prediction for decoder-only models (no source side):
// induction = `length` random symbols repeated once (the second half is predictable only by
// copying from the first); lm = the English side of the translation corpus, subword tokens.
enum class TaskKind { Copy, CopyText, Reverse, Sort, Translate, Induction, Lm };
// Induction and Lm: the batch is the target side only, and only a decoder-only model trains on them.
bool next_token_task(TaskKind kind);
const char* to_string(TaskKind kind);
std::optional<TaskKind> task_from_string(const std::string& name);

struct TrainingConfig {
    TaskKind task = TaskKind::Copy;
    // Synthetic tasks (copy, reverse, sort): `symbols` content tokens (ids 4 .. 4+symbols-1,
    // after PAD/BOS/EOS/UNK) in sequences of `length` tokens; the vocabulary is symbols + 4.
    // Induction: n symbols, then the same n again (2n tokens), n drawn uniformly from
    // min_length..length (0: always length). Varying n keeps the repeat at no fixed distance, so
    // only matching content (an induction head) finds it, not a head that looks a fixed offset back.
    int symbols = 10;
    int length = 9;
    int min_length = 0;
    int batch = 80;                // sequences per step
    int batches_per_epoch = 20;
    int epochs = 20;
    float base_lr = 0.5f;          // Noam: lr = base · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)
    int warmup = 400;
    float beta1 = 0.9f, beta2 = 0.98f, adam_eps = 1e-9f;   // paper §5.3
    float clip_norm = 0.0f;        // 0: no gradient-norm clipping
    float label_smoothing = 0.0f;  // the paper uses 0.1; the copy task learns faster without
    int eval_sequences = 200;      // held-out sequences for loss, accuracy and exact match
    uint64_t seed = 1;
    int snapshot_every = 10;       // steps between published snapshots

    // Added for the trainer and txcli train:
    int64_t max_steps = 0;         // 0: epochs · batches_per_epoch
    int eval_every = 0;            // steps between held-out evaluations; 0: at every snapshot
    double target_exact = 0.0;     // finish once held-out exact match >= this (0: off; txcli --until-exact)
    // Finish once the held-out loss is below this (0: off; txcli --until-loss); induction: the
    // loss on the second (predictable) half.
    double target_loss = 0.0;
    std::string variant;           // sort: "ascending" (default), "descending", "unique" (sorted, duplicates dropped)
    // copy-text: the word list (one token a line, specials first) and the sentences (one a line);
    // relative paths are tried against the working directory, then TX_SOURCE_DIR-style roots.
    std::string vocab_path = "assets/vocab/words.txt";
    std::string sentences_path = "assets/sentences/examples.txt";
    float random_fraction = 0.5f;  // copy-text: share of training rows that are random word sequences
    // translate: training pairs (source<TAB>target per line) and held-out pairs; with no
    // valid_path, every 20th pair of data_path is held out instead. The SentencePiece vocabulary
    // (translate, and copy-text with the sentencepiece tokenizer) is trained on both sides of
    // data_path's training pairs with at most subword_vocab pieces.
    std::string data_path = "assets/corpus/en-es/train.tsv";
    std::string valid_path = "assets/corpus/en-es/valid.tsv";
    int subword_vocab = 2000;
    // The input whose cross-attention the trainer's snapshots show (TrainingSnapshot's probe);
    // empty: the first held-out example. Longer inputs are cut to the model's max_len.
    std::string probe;
    // Mixed precision (docs/precision.md): fp32 (the reference), or bf16 / fp16 products forward
    // and backward with FP32 master weights, gradients and Adam state; int8 cannot train. The loss
    // scale (none, dynamic or fixed) is for bf16 and fp16 only. Written to the JSON only when
    // precision is not fp32, so an FP32 run's checkpoint keeps the bytes it had before.
    Precision precision = Precision::Fp32;
    LossScaleSettings loss_scale;
    // Quantization-aware training (Jacob et al. 2018): every step's forward and backward run on the
    // linear weights rounded to INT8 and back (fake_quantize_int8_rows, per output row, as the INT8
    // weight-only mode rounds them), and the gradient, taken at the rounded weights, updates the
    // FP32 weights as if the rounding were not there (the straight-through estimator). The held-out
    // evaluations use the rounded weights too. FP32 only; written to the JSON only when on.
    bool quantization_aware = false;

    int64_t total_steps() const { return max_steps > 0 ? max_steps : static_cast<int64_t>(epochs) * batches_per_epoch; }
};

// One line saying what a model with these training settings was trained to do, for the app's
// always-visible model line: "Trained to translate English into Spanish (...)". An empty or
// unreadable JSON says that the model has no training record.
std::string describe_training(const std::string& training_json);

// Refuses a bad value with a message naming the field and the rule, as config.h's validate().
std::optional<std::string> validate(const TrainingConfig& config);
std::string to_json(const TrainingConfig& config);
TrainingConfig training_config_from_json(const std::string& json);   // throws ConfigError

enum class Preset { Tiny, Annotated, Translate, Everyday };
std::optional<Preset> preset_from_string(const std::string& name);
// The model hyperparameters of a preset (vocab sizes left for the task to set):
// tiny = 64/4/256, 2+2 layers, dropout 0; annotated = 512/8/2048, 2+2, dropout 0.1;
// translate = the small-grammar English -> Spanish model; everyday = the everyday-English one
// (training_config.cpp says how each was chosen).
ModelConfig preset_model(Preset preset);
TrainingConfig preset_training(Preset preset, TaskKind task);
// A preset's model made fit for a task: next-token tasks get the decoder-only stack (as many
// layers as the preset's decoder) and lm subword tokens; other tasks keep it as it is.
ModelConfig model_for_task(ModelConfig model, TaskKind task);

}  // namespace tx
