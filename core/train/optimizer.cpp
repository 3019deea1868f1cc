// Adam + Noam schedule + global-norm clipping over the flat buffers. The norm is computed on
// the backend (a device backend returns one number, not the gradients).
#include "tx/optimizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

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

std::vector<float> Optimizer::first_moment() const {
    std::vector<float> host(static_cast<size_t>(m_n));
    m_backend.download(host.data(), m_m.data(), host.size() * sizeof(float));
    return host;
}

std::vector<float> Optimizer::second_moment() const {
    std::vector<float> host(static_cast<size_t>(m_n));
    m_backend.download(host.data(), m_v.data(), host.size() * sizeof(float));
    return host;
}

void Optimizer::restore(const std::vector<float>& m, const std::vector<float>& v, int64_t steps) {
    const auto n = static_cast<size_t>(m_n);
    if (m.size() != n || v.size() != n)
        throw std::invalid_argument("Adam moments of " + std::to_string(m.size()) + " and " + std::to_string(v.size()) +
                                    " values for " + std::to_string(n) + " parameters");
    if (steps < 0) throw std::invalid_argument("Adam step count " + std::to_string(steps) + " is negative");
    m_backend.upload(m_m.data(), m.data(), n * sizeof(float));
    m_backend.upload(m_v.data(), v.data(), n * sizeof(float));
    m_t = steps;
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
