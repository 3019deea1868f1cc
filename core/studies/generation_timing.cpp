// Generation timing (generation_timing.h): decode_with under kv_cache on and off, timed with a
// steady clock around whole runs (a backend copies the log-probabilities to the host every token,
// which waits for the device, so GPU runs are timed whole too).
#include "tx/generation_timing.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "tx/decoding.h"
#include "tx/incremental_decoder.h"

namespace tx {

std::vector<int> generation_timing_lengths(int max_len) {
    std::vector<int> lengths;
    for (int n : {8, 16, 32, 64})
        if (n <= max_len - 1) lengths.push_back(n);
    if (lengths.empty()) lengths.push_back(std::max(1, max_len - 1));
    return lengths;
}

GenerationTiming time_generation(Transformer& model, const std::vector<int>& src, const std::vector<int>& lengths,
                                 int repeats) {
    if (!IncrementalDecoder::supports(model))
        throw std::invalid_argument("generation with the KV cache needs the causal mask on (and evaluation mode)");
    if (lengths.empty() || repeats < 1) throw std::invalid_argument("time_generation: no lengths or no repeats");
    const RunOptions saved = model.options();
    const int eos = model.config().special.eos;
    // Argmax over every id but EOS, so that no run stops early.
    const ChooseNext choose = [eos, V = model.config().tgt_vocab](int, const float* log_probs) {
        int best = eos == 0 ? 1 : 0;
        for (int v = 0; v < V; ++v)
            if (v != eos && log_probs[v] > log_probs[best]) best = v;
        return best;
    };
    GenerationTiming timing;
    timing.lengths = lengths;
    try {
        // One untimed run each way at the longest length first: the model's buffers are then
        // allocated and touched (a fresh page costs ~10 µs, docs/design.md §10), which is not generation.
        for (int cached = 1; cached >= 0; --cached) {
            model.options().kv_cache = cached == 1;
            decode_with(model, {src}, *std::max_element(lengths.begin(), lengths.end()), choose);
        }
        for (int n : lengths) {
            std::vector<int> tokens[2];
            double best[2] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
            for (int r = 0; r < repeats; ++r) {
                for (int cached = 1; cached >= 0; --cached) {
                    model.options().kv_cache = cached == 1;
                    const auto start = std::chrono::steady_clock::now();
                    std::vector<std::vector<int>> out = decode_with(model, {src}, n, choose);
                    const double ms =
                        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
                    best[cached] = std::min(best[cached], ms);
                    tokens[cached] = std::move(out.at(0));
                }
            }
            timing.cached_ms.push_back(best[1]);
            timing.full_ms.push_back(best[0]);
            timing.same_tokens = timing.same_tokens && tokens[0] == tokens[1];
            timing.cached_tokens = tokens[1];
            timing.full_tokens = tokens[0];
        }
    } catch (...) {
        model.options() = saved;
        throw;
    }
    model.options() = saved;
    return timing;
}

}  // namespace tx
