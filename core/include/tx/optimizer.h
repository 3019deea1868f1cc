// The optimizer of the paper (§5.3): Adam with β1 0.9, β2 0.98, ε 1e-9 and the Noam schedule
// lr = base · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5), plus optional global
// gradient-norm clipping. Parameters, gradients and the moments m, v share one flat layout
// (parameters.h), so a step is one backend.adam_update over n floats.
#pragma once
#include <cstdint>
#include <vector>

#include "tx/backend.h"

namespace tx {

// step >= 1 (the first update); step 0 gives 0.
double noam_lr(double base, int d_model, int warmup, int64_t step);

struct AdamSettings {
    float beta1 = 0.9f, beta2 = 0.98f, eps = 1e-9f;
    float clip_norm = 0.0f;   // 0: no clipping
};

class Optimizer {
public:
    Optimizer(Backend& backend, int64_t n, AdamSettings settings);

    // The global L2 norm of the gradients (accumulated in double); non-finite when any is.
    double gradient_norm(const float* grads);
    // Clips (when clip_norm > 0 and norm > clip_norm, the gradients are scaled by clip/norm in
    // place), then one Adam step with learning rate lr. `norm` is gradient_norm()'s result.
    void step(float* params, float* grads, double norm, double lr);
    int64_t steps() const { return m_t; }
    void reset();   // moments to zero, step count to 0
    // The moments as host copies [n] each, and their restoration with the step count (a resumed
    // run continues Adam's bias correction where it stopped). restore() throws
    // std::invalid_argument when a vector is not n long or steps < 0.
    std::vector<float> first_moment() const;
    std::vector<float> second_moment() const;
    void restore(const std::vector<float>& m, const std::vector<float>& v, int64_t steps);

private:
    Backend& m_backend;
    int64_t m_n;
    AdamSettings m_settings;
    BackendArray<float> m_m, m_v;
    int64_t m_t = 0;
};

}  // namespace tx
