// Loss scaling for mixed-precision training (docs/precision.md), PyTorch's GradScaler rule. The
// loss is multiplied by scale() before backward, so that small gradients stay above FP16's
// smallest subnormal (2^-24) in the low-precision products; the gradients are then divided by
// scale() (unscaled) before clipping and Adam. After each backward, update(found_inf):
//   - found_inf (any gradient inf or NaN): the step is skipped (weights and Adam's state are left
//     as they are) and, in dynamic mode, the scale is multiplied by `backoff` (0.5) and the count
//     of good steps restarts;
//   - otherwise the step is applied and, in dynamic mode, after `growth_interval` good steps in a
//     row the scale is multiplied by `growth` (2) and the count restarts.
// Fixed mode keeps its scale and still skips a step whose gradients are not finite; none is a
// scale of 1 that never skips (a non-finite gradient then stops the run, as in FP32).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace tx {

enum class LossScaleMode { None, Fixed, Dynamic };

struct LossScaleSettings {
    LossScaleMode mode = LossScaleMode::None;
    double initial = 65536.0;       // 2^16, GradScaler's init_scale (Fixed: the scale N)
    double growth = 2.0;            // GradScaler's growth_factor
    double backoff = 0.5;           // GradScaler's backoff_factor
    int64_t growth_interval = 2000; // GradScaler's growth_interval
};

// "none", "dynamic", or a number N > 0 (a fixed scale): the --loss-scale option's values.
// nullopt and a message for anything else.
std::optional<LossScaleSettings> loss_scale_from_string(const std::string& text, std::string* error = nullptr);
// "none", "dynamic", "fixed 1024": the same words back.
std::string to_string(const LossScaleSettings& settings);
// Why the settings cannot be used (a scale that is not a positive finite number, growth <= 1,
// backoff outside (0, 1), interval < 1), or nullopt.
std::optional<std::string> validate(const LossScaleSettings& settings);

class LossScaler {
public:
    explicit LossScaler(LossScaleSettings settings = {});

    double scale() const { return m_scale; }
    // Good steps in a row since the scale last changed (GradScaler's growth tracker).
    int64_t good_steps() const { return m_good_steps; }
    int64_t skipped_steps() const { return m_skipped; }   // in total
    const LossScaleSettings& settings() const { return m_settings; }
    // Whether a step with non-finite gradients is skipped (fixed and dynamic) rather than fatal.
    bool skips_non_finite() const { return m_settings.mode != LossScaleMode::None; }

    // After a backward: returns whether the optimiser step is applied (false: skip it), and moves
    // the scale by the rule above.
    bool update(bool found_inf);
    void reset();   // the initial scale, no good or skipped steps
    // A resumed run's scaler (training_state.h). Throws std::invalid_argument for a scale that is
    // not positive and finite or negative counts.
    void restore(double scale, int64_t good_steps, int64_t skipped_steps);

private:
    LossScaleSettings m_settings;
    double m_scale = 1.0;
    int64_t m_good_steps = 0;
    int64_t m_skipped = 0;
};

}  // namespace tx
