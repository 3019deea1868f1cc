#include "speculative_view.h"

#include <exception>

#include "tx/decoding.h"
#include "tx/incremental_decoder.h"

namespace tx::explain {

SpeculativeView speculative_view(Transformer& model, const std::vector<int>& src, const std::vector<int>& prompt,
                                 int limit, const SpeculativeSettings& settings) {
    SpeculativeView view;
    view.settings = settings;
    view.model_layers = model.config().decoder_layers;
    if (view.model_layers < 2) {
        view.error = "This model has one decoder layer, so it has no shorter draft to make from its own layers.";
        return view;
    }
    if (!IncrementalDecoder::supports(model)) {
        view.error = "Speculative decoding checks the draft's tokens with the KV cache, which needs the causal mask on "
                     "(Model panel's switches).";
        return view;
    }
    view.draft_layers = settings.draft_layers > 0 && settings.draft_layers < view.model_layers ? settings.draft_layers
                                                                                              : view.model_layers - 1;
    try {
        const std::vector<std::vector<int>> prompts = prompt.empty() ? std::vector<std::vector<int>>{}
                                                                     : std::vector<std::vector<int>>{prompt};
        std::vector<GreedyScore> score;
        view.greedy = greedy_decode(model, {src}, limit, &score, prompts).front();
        view.greedy_finished = score.front().finished;
        const auto draft = early_exit_draft(model, view.draft_layers);
        view.result = speculative_greedy_decode(model, *draft, src, limit, settings.k, prompt);
    } catch (const std::exception& e) {
        view.error = e.what();
    }
    return view;
}

}  // namespace tx::explain
