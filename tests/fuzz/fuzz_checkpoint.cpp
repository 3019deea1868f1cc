// libFuzzer target: arbitrary bytes as a checkpoint file, and as a training-state file (its
// Adam moments and step beside a checkpoint). parse_safetensors, checkpoint_from_safetensors and
// training_state_from_safetensors may only refuse with SafetensorsError; any other exception,
// crash, sanitizer report or allocation beyond libFuzzer's -rss_limit_mb is a bug.
// Seeds (corpus_checkpoint/): checkpoints saved by save_checkpoint for 5-token vocabularies
// with d_model 2 (Post-LN 1+1 layers, Pre-LN 0+1 layers), a subword checkpoint carrying its
// SentencePiece model, a hand-made two-tensor file, a training state of 3 parameters, the Post-LN
// checkpoint with BF16 and with F16 parameters (txcli convert), and a hand-made F16 + BF16 file.
#include <cstdint>
#include <cstdlib>
#include <cstdio>

#include "tx/checkpoint.h"
#include "tx/training_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const tx::SafetensorsFile file = tx::parse_safetensors(data, size, "fuzz input");
        for (const tx::NamedTensor& t : file.tensors) {
            int64_t numel = 1;
            for (int64_t d : t.shape) numel *= d;
            // U8 tensors (a SentencePiece model) hold bytes; the others floats.
            const size_t stored = t.dtype == "U8" ? t.bytes.size() : t.data.size();
            if (numel != static_cast<int64_t>(stored) || (t.dtype == "U8" && !t.data.empty())) {
                std::fprintf(stderr, "tensor '%s': shape and data disagree\n", t.name.c_str());
                std::abort();
            }
        }
        try {
            const tx::TrainingState state = tx::training_state_from_safetensors(file, "fuzz input");
            if (state.adam_m.size() != state.adam_v.size() || state.step < 0 || state.adam_steps > state.step) std::abort();
        } catch (const tx::SafetensorsError&) {
        }
        const tx::Checkpoint checkpoint = tx::checkpoint_from_safetensors(file, "fuzz input");
        if (static_cast<int64_t>(checkpoint.vocabulary.size()) != checkpoint.config.src_vocab) std::abort();
    } catch (const tx::SafetensorsError&) {
    }
    return 0;
}
