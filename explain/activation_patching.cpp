// Activation patching (see activation_patching.h). Every step output of both runs is kept (a few
// MB at most for the shipped models), so undoing a patch is a copy, not a re-run. Patches run in
// decreasing step order, so each one finds the steps before it still the corrupted run's.
#include "activation_patching.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "tx/layer_plan.h"

namespace tx::explain {

const char* to_string(PatchPoint point) {
    switch (point) {
        case PatchPoint::SelfAttention: return "self_attn";
        case PatchPoint::CrossAttention: return "cross_attn";
        case PatchPoint::Ffn: return "ffn";
        case PatchPoint::Layer: return "layer";
    }
    return "?";
}

namespace {

std::vector<std::vector<float>> all_outputs(InspectModel& model) {
    std::vector<std::vector<float>> out;
    for (size_t i = 0; i < model.model().step_count(); ++i) out.push_back(model.output(i));
    return out;
}

}  // namespace

Patcher::Patcher(InspectModel& model, const InspectInput& clean, const InspectInput& corrupted) : m_model(model) {
    const bool dec = model.decoder_only();
    const auto& a = dec ? clean.tgt : clean.src;
    const auto& b = dec ? corrupted.tgt : corrupted.src;
    const std::string what = dec ? "prompt" : "source";
    if (a.size() != b.size())
        throw std::invalid_argument("the clean " + what + " has " + std::to_string(a.size()) + " pieces and the corrupted " +
                                    what + " " + std::to_string(b.size()) + " (" + (dec ? "with BOS and what follows" : "with EOS") +
                                    "); activation patching needs the same number, so that positions line up");
    if (!dec && clean.tgt != corrupted.tgt)
        throw std::invalid_argument("the clean and corrupted runs must share the decoder input, so that both predict the "
                                    "same positions");
    model.run(clean);
    m_clean = all_outputs(model);
    model.run(corrupted);
    m_corrupted = all_outputs(model);
    m_dirty = model.model().step_count();
    m_T = static_cast<int>(corrupted.tgt.size());
}

std::vector<float> Patcher::patch(size_t step, std::vector<float> value) {
    Transformer& t = m_model.model();
    for (size_t i = m_dirty; i < step; ++i) t.set_step_output(i, m_corrupted[i]);   // undo an earlier, later patch
    t.set_step_output(step, value);
    m_model.run_from(step + 1);
    m_dirty = step;
    return m_model.output(t.step_count() - 1);
}

std::vector<float> Patcher::patch_rows(size_t step, const std::vector<int>& positions) {
    const TensorShape& shape = m_model.model().steps().at(step).shape;
    if (shape.rank() != 3 || shape.dims[0] != 1)
        throw std::invalid_argument("step " + m_model.model().steps()[step].name + " is not a [1, L, D] step");
    const int64_t L = shape.dims[1], D = shape.dims[2];
    std::vector<float> value = m_corrupted[step];
    for (int p : positions) {
        if (p < 0 || p >= L)
            throw std::invalid_argument("position " + std::to_string(p) + " is outside 0.." + std::to_string(L - 1));
        std::copy_n(m_clean[step].begin() + p * D, D, value.begin() + p * D);
    }
    return patch(step, std::move(value));
}

std::vector<float> Patcher::patch_head(size_t context_step, int head) {
    const TensorShape& shape = m_model.model().steps().at(context_step).shape;
    if (shape.rank() != 4 || shape.dims[0] != 1)
        throw std::invalid_argument("step " + m_model.model().steps()[context_step].name + " is not a [1, H, L, dk] step");
    const int64_t H = shape.dims[1], n = shape.dims[2] * shape.dims[3];
    if (head < 0 || head >= H) throw std::invalid_argument("head " + std::to_string(head) + " is outside 0.." + std::to_string(H - 1));
    std::vector<float> value = m_corrupted[context_step];
    std::copy_n(m_clean[context_step].begin() + head * n, n, value.begin() + head * n);
    return patch(context_step, std::move(value));
}

namespace {

struct Job {
    size_t step;
    int position;     // -1: a head job
    int head;
    size_t grid, cell;
};

}  // namespace

ActivationPatching activation_patching(InspectModel& model, const InspectInput& clean, const InspectInput& corrupted,
                                       PatchMetric metric) {
    ActivationPatching r;
    const ModelConfig& c = model.config();
    const int V = c.tgt_vocab;
    try {
        Patcher patcher(model, clean, corrupted);
        const int T = patcher.target_len();
        const std::vector<float>& lp_clean = patcher.clean_log_probs();
        const std::vector<float>& lp_corrupt = patcher.corrupted_log_probs();
        const std::vector<int> best_clean = argmax_rows(lp_clean, T, V), best_corrupt = argmax_rows(lp_corrupt, T, V);
        // Resolve the metric: a given position/token is checked; -1 is chosen as PatchMetric says.
        if (metric.position >= T)
            throw std::invalid_argument("target position " + std::to_string(metric.position) + " is outside 0.." +
                                        std::to_string(T - 1));
        for (int id : {metric.token, metric.versus})
            if (id >= V) throw std::invalid_argument("token id " + std::to_string(id) + " is outside the vocabulary");
        if (metric.position < 0) {
            for (int t = 0; t < T && metric.position < 0; ++t)
                if (best_clean[t] != best_corrupt[t]) metric.position = t;
            if (metric.position < 0) {
                double most = -1.0;
                for (int t = 0; t < T; ++t) {
                    const size_t i = static_cast<size_t>(t) * V + best_clean[t];
                    if (std::fabs(lp_clean[i] - lp_corrupt[i]) > most) {
                        most = std::fabs(lp_clean[i] - lp_corrupt[i]);
                        metric.position = t;
                    }
                }
            } else if (metric.token < 0 && metric.versus < 0) {
                metric.versus = best_corrupt[metric.position];
            }
        }
        if (metric.token < 0) metric.token = best_clean[metric.position];
        if (metric.versus == metric.token) metric.versus = -1;
        r.metric = metric;
        auto value = [&](const std::vector<float>& lp) {
            const size_t row = static_cast<size_t>(metric.position) * V;
            return static_cast<double>(lp[row + metric.token]) - (metric.versus >= 0 ? lp[row + metric.versus] : 0.0);
        };
        r.metric_text = "log p(" + model.token_text(metric.token) + ")" +
                        (metric.versus >= 0 ? " \xE2\x88\x92 log p(" + model.token_text(metric.versus) + ")" : "") +
                        " at target position " + std::to_string(metric.position);
        r.clean = value(lp_clean);
        r.corrupted = value(lp_corrupt);
        r.clean_tokens = model.token_texts(model.decoder_only() ? clean.tgt : clean.src);
        r.corrupted_tokens = model.token_texts(model.decoder_only() ? corrupted.tgt : corrupted.src);
        r.target_tokens = model.token_texts(corrupted.tgt);
        const double span = r.clean - r.corrupted;
        const bool defined = std::fabs(span) > 1e-6;
        if (!defined)
            r.note = "The clean and corrupted runs give the same metric, so the normalised effect is undefined; "
                     "compare the raw metric instead, or choose another position or token.";

        // The grids and their jobs.
        std::vector<Job> jobs;
        for (Stack stack : {Stack::Encoder, Stack::Decoder}) {
            const int layers = model.layers(stack);
            if (layers == 0) continue;
            const bool enc = stack == Stack::Encoder;
            const std::string stack_name = enc ? "encoder" : "decoder";
            const int cols = enc ? static_cast<int>(clean.src.size()) : T;
            std::vector<PatchPoint> points{PatchPoint::SelfAttention};
            if (!enc && !model.decoder_only()) points.push_back(PatchPoint::CrossAttention);
            points.push_back(PatchPoint::Ffn);
            points.push_back(PatchPoint::Layer);
            for (PatchPoint point : points) {
                PatchGrid g;
                g.name = stack_name + "." + to_string(point);
                g.stack = stack;
                g.point = point;
                g.rows = layers;
                g.cols = cols;
                for (int l = 0; l < layers; ++l) {
                    const size_t step = point == PatchPoint::Layer
                                            ? model.layer_output(stack, l)
                                            : model.step(stack_name + ".layers." + std::to_string(l) + "." + to_string(point) + ".out");
                    for (int p = 0; p < cols; ++p) jobs.push_back({step, p, -1, r.grids.size(), static_cast<size_t>(l) * cols + p});
                }
                r.grids.push_back(std::move(g));
            }
            for (PatchPoint point : points) {
                if (point != PatchPoint::SelfAttention && point != PatchPoint::CrossAttention) continue;
                PatchGrid g;
                g.name = "heads." + stack_name + "." + to_string(point);
                g.stack = stack;
                g.point = point;
                g.heads = true;
                g.rows = layers;
                g.cols = c.heads;
                for (int l = 0; l < layers; ++l) {
                    const size_t step = model.step(stack_name + ".layers." + std::to_string(l) + "." + to_string(point) + ".context");
                    for (int h = 0; h < c.heads; ++h) jobs.push_back({step, -1, h, r.grids.size(), static_cast<size_t>(l) * c.heads + h});
                }
                r.grids.push_back(std::move(g));
            }
        }
        for (PatchGrid& g : r.grids) {
            g.metric.assign(static_cast<size_t>(g.rows) * g.cols, 0.0);
            g.normalised.assign(g.metric.size(), std::numeric_limits<double>::quiet_NaN());
        }
        std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.step > b.step; });
        for (const Job& job : jobs) {
            const std::vector<float> lp =
                job.position >= 0 ? patcher.patch_rows(job.step, {job.position}) : patcher.patch_head(job.step, job.head);
            PatchGrid& g = r.grids[job.grid];
            g.metric[job.cell] = value(lp);
            if (defined) g.normalised[job.cell] = (g.metric[job.cell] - r.corrupted) / span;
        }
    } catch (const std::exception& e) {
        ActivationPatching failed;
        failed.error = e.what();
        return failed;
    }
    return r;
}

}  // namespace tx::explain
