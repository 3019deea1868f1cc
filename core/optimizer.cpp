// Adam + Noam schedule + global-norm clipping over the flat buffers. The norm is computed on
// the backend (a device backend returns one number, not the gradients).
#include "optimizer.h"

#include <algorithm>
#include <cmath>

namespace tx {

double noam_lr(double base, int d_model, int warmup, int64_t step) {
    if (step <= 0) return 0.0;
    const double s = static_cast<double>(step);
    return base * std::pow(static_cast<double>(d_model), -0.5) *
           std::min(std::pow(s, -0.5), s * std::pow(static_cast<double>(warmup), -1.5));
}

Optimizer::Optimizer(Backend& backend, int64_t n, AdamSettings settings)
    : m_backend(backend), m_n(n), m_settings(settings), m_m(backend, static_cast<size_t>(n)),
      m_v(backend, static_cast<size_t>(n)) {}

void Optimizer::reset() {
    m_backend.fill_zero(m_m.data(), m_m.size() * sizeof(float));
    m_backend.fill_zero(m_v.data(), m_v.size() * sizeof(float));
    m_t = 0;
}

double Optimizer::gradient_norm(const float* grads) { return std::sqrt(m_backend.squared_norm(grads, m_n)); }

void Optimizer::step(float* params, float* grads, double norm, double lr) {
    if (m_settings.clip_norm > 0.0f && norm > m_settings.clip_norm) {
        // As torch.nn.utils.clip_grad_norm_: scale by max_norm / (norm + 1e-6).
        m_backend.scale(grads, m_n, static_cast<float>(m_settings.clip_norm / (norm + 1e-6)));
    }
    ++m_t;
    m_backend.adam_update(params, m_m.data(), m_v.data(), grads, m_n, static_cast<float>(lr), m_settings.beta1,
                          m_settings.beta2, m_settings.eps, m_t);
}

}  // namespace tx
