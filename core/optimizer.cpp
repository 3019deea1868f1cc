// Adam + Noam schedule + global-norm clipping over the flat buffers. The norm is computed on
// the host (the CPU backend's memory is host memory; device backends are downloaded once).
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

const float* Optimizer::host_view(const float* grads) {
    if (m_backend.name() == "cpu") return grads;
    m_host.resize(static_cast<size_t>(m_n));
    m_backend.download(m_host.data(), grads, m_host.size() * sizeof(float));
    return m_host.data();
}

double Optimizer::gradient_norm(const float* grads) {
    const float* g = host_view(grads);
    // Four partial sums: a dependency chain of one add per element would bound the loop at one
    // element per add latency; in double, the sum of 10^7 squares keeps its digits.
    double s[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= m_n; i += 4)
        for (int k = 0; k < 4; ++k) s[k] += static_cast<double>(g[i + k]) * g[i + k];
    for (; i < m_n; ++i) s[0] += static_cast<double>(g[i]) * g[i];
    return std::sqrt(s[0] + s[1] + s[2] + s[3]);
}

void Optimizer::step(float* params, float* grads, double norm, double lr) {
    if (m_settings.clip_norm > 0.0f && norm > m_settings.clip_norm) {
        // As torch.nn.utils.clip_grad_norm_: scale by max_norm / (norm + 1e-6).
        const float scale = static_cast<float>(m_settings.clip_norm / (norm + 1e-6));
        if (m_backend.name() == "cpu") {
            for (int64_t i = 0; i < m_n; ++i) grads[i] *= scale;
        } else {
            m_host.resize(static_cast<size_t>(m_n));
            m_backend.download(m_host.data(), grads, m_host.size() * sizeof(float));
            for (float& x : m_host) x *= scale;
            m_backend.upload(grads, m_host.data(), m_host.size() * sizeof(float));
        }
    }
    ++m_t;
    m_backend.adam_update(params, m_m.data(), m_v.data(), grads, m_n, static_cast<float>(lr), m_settings.beta1,
                          m_settings.beta2, m_settings.eps, m_t);
}

}  // namespace tx
