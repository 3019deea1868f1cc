// Where a command's model comes from: --checkpoint FILE, a fresh model from the model options
// (--d-model, --heads, --d-ff, --layers, --max-len, --dropout, --norm, --no-scale, --tokenizer,
// --seed) over the shipped vocabulary, or the shipped model. Also the backend choice (--backend).
#pragma once
#include <memory>
#include <set>
#include <string>

#include "args.h"
#include "tx/backend.h"
#include "tx/trainer.h"
#include "tx/checkpoint.h"

namespace tx::cli {

// The option names that model_from_options reads, to merge into a command's accepted set.
extern const std::set<std::string> MODEL_OPTIONS;
extern const std::set<std::string> MODEL_FLAGS;
// The help lines describing them.
extern const char* MODEL_OPTIONS_HELP;
// The variant options (--arch, --positional, --ffn, --norm-kind, --window, --window-dilation,
// --global-positions, --kv-heads, --ffn-rank; docs/variants.md), part of MODEL_OPTIONS: the
// commands that refuse them together (train --resume, --init, --compare-row) list them from here.
extern const std::set<std::string> VARIANT_OPTIONS;
// Sets the variant options on a config, refusing unknown spellings; decoder-only sets
// encoder_layers to 0.
void apply_variant_options(const Args& args, ModelConfig& config);


// --checkpoint FILE when given (other model options are then refused), else a fresh model from the
// options, or, with shipped_by_default and no model option at all, the shipped model (EVERYDAY_MODEL in tx/asset_paths.h).
// command_seed: --seed belongs to the command (decode --sample's random draws), not to the model:
// it may then go with --checkpoint, and a fresh model keeps the default initialisation seed.
Checkpoint model_from_options(const Args& args, bool command_seed = false, bool shipped_by_default = false);
// "cpu" (default) or "cuda"; refuses a backend this build does not have, or a device that
// cannot be used, with the reason.
std::unique_ptr<Backend> backend_from_name(const std::string& name);
// --precision fp32|bf16|fp16|int8 and --all-low (docs/precision.md): the option names, their help
// lines, and the mode they ask for (fp32 when absent); refuses unknown spellings and --all-low
// without bf16 or fp16.
extern const char* PRECISION_HELP;
PrecisionMode precision_from_options(const Args& args);
// backend_from_name(name) in that precision: a precision other than fp32 runs on the CPU only.
std::unique_ptr<Backend> backend_from_name(const std::string& name, PrecisionMode mode);
// The same choice as a factory, for the trainer (which makes its backend itself).
BackendFactory backend_factory(const std::string& name);

}  // namespace tx::cli
