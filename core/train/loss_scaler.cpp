// LossScaler (loss_scaler.h): GradScaler's update rule, and the --loss-scale option's words.
#include "tx/loss_scaler.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace tx {

std::optional<LossScaleSettings> loss_scale_from_string(const std::string& text, std::string* error) {
    LossScaleSettings s;
    if (text == "none") return s;
    if (text == "dynamic") {
        s.mode = LossScaleMode::Dynamic;
        return s;
    }
    char* end = nullptr;
    const double n = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
    if (!text.empty() && end && *end == '\0' && std::isfinite(n) && n > 0.0) {
        s.mode = LossScaleMode::Fixed;
        s.initial = n;
        return s;
    }
    if (error) *error = "the loss scale must be dynamic, none or a positive number, not '" + text + "'";
    return std::nullopt;
}

std::string to_string(const LossScaleSettings& s) {
    switch (s.mode) {
        case LossScaleMode::None: return "none";
        case LossScaleMode::Dynamic: return "dynamic";
        case LossScaleMode::Fixed: {
            char buf[48];
            std::snprintf(buf, sizeof buf, "fixed %g", s.initial);
            return buf;
        }
    }
    return "?";
}

std::optional<std::string> validate(const LossScaleSettings& s) {
    if (!(s.initial > 0.0 && std::isfinite(s.initial))) return std::string("the loss scale must be a positive number");
    if (!(s.growth > 1.0 && std::isfinite(s.growth))) return std::string("the loss scale's growth factor must be above 1");
    if (!(s.backoff > 0.0 && s.backoff < 1.0)) return std::string("the loss scale's backoff factor must be in (0, 1)");
    if (s.growth_interval < 1) return std::string("the loss scale's growth interval must be at least 1 step");
    return std::nullopt;
}

LossScaler::LossScaler(LossScaleSettings settings) : m_settings(settings) {
    if (auto error = validate(m_settings)) throw std::invalid_argument(*error);
    reset();
}

void LossScaler::reset() {
    m_scale = m_settings.mode == LossScaleMode::None ? 1.0 : m_settings.initial;
    m_good_steps = 0;
    m_skipped = 0;
}

bool LossScaler::update(bool found_inf) {
    if (m_settings.mode == LossScaleMode::None) return !found_inf;
    if (found_inf) {
        ++m_skipped;
        if (m_settings.mode == LossScaleMode::Dynamic) {
            m_scale *= m_settings.backoff;
            m_good_steps = 0;
        }
        return false;
    }
    if (m_settings.mode == LossScaleMode::Dynamic && ++m_good_steps == m_settings.growth_interval) {
        // As GradScaler: the scale grows only to a finite value.
        if (std::isfinite(m_scale * m_settings.growth)) m_scale *= m_settings.growth;
        m_good_steps = 0;
    }
    return true;
}

void LossScaler::restore(double scale, int64_t good_steps, int64_t skipped_steps) {
    if (!(scale > 0.0 && std::isfinite(scale))) throw std::invalid_argument("the saved loss scale is not a positive number");
    if (good_steps < 0 || skipped_steps < 0) throw std::invalid_argument("the saved loss-scale counts are negative");
    m_scale = scale;
    m_good_steps = good_steps;
    m_skipped = skipped_steps;
}

}  // namespace tx
