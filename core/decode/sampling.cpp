// Sampling: temperature, top-k and top-p on one row of log-probabilities, the inverse-CDF draw,
// and the decoding loop of decoding.h with a draw in place of the argmax. Probabilities are
// computed in double from the float log-probabilities, after subtracting the row's maximum
// (so the most probable token has exp(0) = 1 before normalising and nothing overflows).
#include "tx/sampling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "tx/decoding.h"
#include "tx/tasks.h"

namespace tx {

namespace {

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

}  // namespace

void validate(const SamplingOptions& options) {
    if (!(options.temperature > 0.0) || !std::isfinite(options.temperature))
        throw std::invalid_argument("temperature must be a finite number > 0, got " + number(options.temperature));
    if (options.top_k < 0)
        throw std::invalid_argument("top-k must be >= 0 (0 = off), got " + std::to_string(options.top_k));
    if (!(options.top_p > 0.0 && options.top_p <= 1.0))
        throw std::invalid_argument("top-p must be in (0, 1] (1 = off), got " + number(options.top_p));
}

SamplingDistribution sampling_distribution(const float* log_probs, int V, const SamplingOptions& options) {
    validate(options);
    if (V < 1) throw std::invalid_argument("sampling needs at least one token, got V = " + std::to_string(V));
    float top = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < V; ++i) {
        if (std::isnan(log_probs[i]) || log_probs[i] == std::numeric_limits<float>::infinity())
            throw std::invalid_argument("log-probability of token " + std::to_string(i) + " is " +
                                        number(log_probs[i]) + "; sampling needs finite values or -inf");
        top = std::max(top, log_probs[i]);
    }
    if (!std::isfinite(top)) throw std::invalid_argument("sampling: every token has log-probability -inf");

    SamplingDistribution d;
    d.probs.resize(static_cast<size_t>(V));
    d.cut.assign(static_cast<size_t>(V), false);
    for (int i = 0; i < V; ++i)
        d.probs[i] = std::exp((static_cast<double>(log_probs[i]) - static_cast<double>(top)) / options.temperature);

    int keep = V;
    if (options.top_k > 0 || options.top_p < 1.0) {
        // The ranking: stable sort by log-probability keeps equal values in id order. Sorting the
        // inputs rather than the probabilities keeps tokens apart whose exp() underflowed to 0.
        std::vector<int> order(static_cast<size_t>(V));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return log_probs[a] > log_probs[b]; });
        if (options.top_k > 0) keep = std::min(keep, options.top_k);
        if (options.top_p < 1.0) {
            double total = 0.0;
            for (int r = 0; r < keep; ++r) total += d.probs[order[r]];
            // Mass before the token < p: the token is needed to reach p. The first one always is
            // (p > 0 and its probability is 1 before normalising).
            double mass = 0.0;
            int n = 0;
            while (n < keep && mass < options.top_p * total) mass += d.probs[order[n++]];
            keep = n;
        }
        for (int r = keep; r < V; ++r) {
            d.cut[order[r]] = true;
            d.probs[order[r]] = 0.0;
        }
    }
    d.kept = keep;
    const double sum = std::accumulate(d.probs.begin(), d.probs.end(), 0.0);
    for (double& p : d.probs) p /= sum;
    return d;
}

int draw_token(const std::vector<double>& probs, double u) {
    double cumulative = 0.0;
    int last = -1;
    for (size_t i = 0; i < probs.size(); ++i) {
        if (!(probs[i] > 0.0)) continue;
        last = static_cast<int>(i);
        cumulative += probs[i];
        if (u < cumulative) return last;
    }
    // The sum may fall short of 1 by rounding; u beyond it belongs to the last possible token.
    if (last < 0) throw std::invalid_argument("draw_token: every probability is 0");
    return last;
}

uint64_t sampling_stream(uint64_t seed, int row) { return mix_seed(seed, static_cast<uint64_t>(row)); }

std::vector<std::vector<int>> sample_decode(Transformer& model, const std::vector<std::vector<int>>& src, int max_new,
                                            const SamplingOptions& options, const std::vector<std::vector<int>>& prompts) {
    validate(options);
    std::vector<Rng> streams;
    for (size_t b = 0; b < src.size(); ++b) streams.emplace_back(sampling_stream(options.seed, static_cast<int>(b)));
    const int V = model.config().tgt_vocab;
    const auto draw = [&](int b, const float* row) {
        return draw_token(sampling_distribution(row, V, options).probs, streams[b].uniform01());
    };
    return decode_with(model, src, max_new, draw, prompts);
}

}  // namespace tx
