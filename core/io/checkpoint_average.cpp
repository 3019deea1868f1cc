// average_checkpoints: see tx/checkpoint_average.h.
#include "tx/checkpoint_average.h"

#include <stdexcept>
#include <string>

#include "tx/config.h"

namespace tx {

Checkpoint average_checkpoints(const std::vector<Checkpoint>& checkpoints) {
    if (checkpoints.empty()) throw std::invalid_argument("no checkpoints to average");
    const Checkpoint& first = checkpoints.front();
    for (size_t k = 1; k < checkpoints.size(); ++k) {
        const Checkpoint& other = checkpoints[k];
        const std::string which = "checkpoint " + std::to_string(k + 1) + " ";
        if (to_json(other.config) != to_json(first.config))
            throw std::invalid_argument(which + "has another model config than the first (txcli info shows both)");
        if (other.vocabulary != first.vocabulary)
            throw std::invalid_argument(which + "has another vocabulary than the first");
        if (other.tokenizer_model != first.tokenizer_model)
            throw std::invalid_argument(which + "has another tokenizer than the first");
        if (other.parameters.size() != first.parameters.size())   // same config, so only a corrupt input
            throw std::invalid_argument(which + "has " + std::to_string(other.parameters.size()) +
                                        " parameters, the first " + std::to_string(first.parameters.size()));
    }
    Checkpoint mean = first;
    const double n = static_cast<double>(checkpoints.size());
    for (size_t i = 0; i < mean.parameters.size(); ++i) {
        double sum = 0.0;
        for (const Checkpoint& c : checkpoints) sum += c.parameters[i];
        mean.parameters[i] = static_cast<float>(sum / n);
    }
    return mean;
}

}  // namespace tx
