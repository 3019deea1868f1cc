// A resumable training run's state beside its checkpoint: Adam's moments and step count, the
// trainer's step, and where the training data stream stands. `txcli train --save F --save-every N`
// writes F (the checkpoint) and F.state (this); `--resume` continues from the pair as if the run
// had never stopped. The state is a safetensors file: tensors "optimizer.m" and "optimizer.v"
// [n] (F32, the flat parameter layout of parameters.h) and __metadata__ {"format":
// "transformer-explorer-train-state/1", "state": JSON}.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tx/tasks.h"

namespace tx {

inline constexpr const char* TRAINING_STATE_FORMAT = "transformer-explorer-train-state/1";

struct TrainingState {
    int64_t step = 0;                // training steps done
    int64_t adam_steps = 0;          // Adam's bias-correction count (equal to step unless a step diverged)
    TaskStreamPosition stream;
    std::vector<float> adam_m, adam_v;   // [n] each
    double elapsed_s = 0.0;          // seconds of training so far (evaluation excluded)
    int64_t tokens = 0;              // target tokens trained on so far
    // FNV-1a of the checkpoint's parameter bytes: ties the state to the checkpoint saved with it,
    // so a state file beside another step's weights is refused instead of silently mixed.
    uint64_t parameters_hash = 0;
    // The loss scaler (loss_scaler.h) of a bf16/fp16 run with a loss scale: its scale, its good
    // steps in a row and the steps it skipped. loss_scale 0: the run has none (FP32, or scaling
    // off); the file then holds none of the three, as before.
    double loss_scale = 0.0;
    int64_t loss_scale_good_steps = 0, skipped_steps = 0;
};

// The state file of a checkpoint path: path + ".state".
std::string training_state_path(const std::string& checkpoint_path);
uint64_t parameters_hash(const std::vector<float>& parameters);

// Atomic write (temporary name, then rename). Throws SafetensorsError.
void save_training_state(const std::string& path, const TrainingState& state);
// Throws SafetensorsError naming the file and the problem: not a state file, missing or
// mis-shaped moments, unreadable or out-of-range fields.
TrainingState load_training_state(const std::string& path);
// The same from a parsed file (the fuzz target's entry); `what` names it in messages.
struct SafetensorsFile;
TrainingState training_state_from_safetensors(const SafetensorsFile& file, const std::string& what);

}  // namespace tx
