// Checkpoints: one .safetensors file with the parameters under their docs/design.md §4 names and
// __metadata__ {"format": "transformer-explorer/1", "config": <JSON: hyperparameters,
// tokenizer kind, vocabulary, special ids, and the training settings when present>}. A
// SentencePiece model's bytes travel as the U8 tensor "tokenizer.model", so one file still holds
// everything (Python: SentencePieceProcessor(model_proto=bytes)).
#pragma once
#include <set>
#include <string>
#include <vector>

#include "tx/config.h"
#include "tx/safetensors.h"
#include "tx/tokenizer.h"

namespace tx {

inline constexpr const char* CHECKPOINT_FORMAT = "transformer-explorer/1";
inline constexpr const char* TOKENIZER_MODEL_TENSOR = "tokenizer.model";

struct Checkpoint {
    ModelConfig config;
    std::vector<std::string> vocabulary;   // index = id
    std::vector<float> parameters;         // flat, in ParameterTable(config) order
    std::string training_json;             // the training settings as JSON, or empty
    std::string tokenizer_model;           // SentencePiece: the serialized model; else empty
};

// Atomic write (temporary name, then rename). Throws SafetensorsError on I/O failure.
// parameter_dtype: "F32" (the default, exact), or "BF16" / "F16", half the size, each parameter
// rounded to nearest even (half_float.h; FP16 overflows to inf beyond 65504); loading converts
// them back to float exactly. stored_low, when not empty, names the only parameters stored in
// parameter_dtype (the rest stay F32: the everyday model keeps its three 16,000-row tables in BF16
// and its layers exact); a name the config does not have is a SafetensorsError.
void save_checkpoint(const std::string& path, const Checkpoint& checkpoint, const std::string& parameter_dtype = "F32",
                     const std::set<std::string>& stored_low = {});
// Parameters may be F32, F16 or BF16 (converted to float). Refuses with a SafetensorsError naming
// the problem: truncated file, bad header, wrong dtype,
// missing or extra tensor, a shape that does not match the config, a bad config or vocabulary
// (vocabulary size must equal src_vocab and tgt_vocab), a missing or corrupt SentencePiece model
// or one whose pieces are not the vocabulary.
Checkpoint load_checkpoint(const std::string& path);
Checkpoint checkpoint_from_safetensors(const SafetensorsFile& file, const std::string& what);
// The checkpoint's tokenizer (word, char or SentencePiece); throws std::invalid_argument.
Tokenizer make_tokenizer(const Checkpoint& checkpoint);

}  // namespace tx
