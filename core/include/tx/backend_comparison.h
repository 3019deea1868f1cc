// Runs one model's forward pass on a second backend and compares: per step, the time on each
// and the largest absolute difference of the outputs (the CPU is the reference). Used by the
// GUI's Backend panel and `txcli bench --backend cpu,cuda`.
#pragma once
#include <string>
#include <vector>

#include "tx/backend.h"
#include "tx/transformer.h"

namespace tx {

// Largest |a - b| over two equally long outputs; equal infinities (masked scores) count as 0,
// a NaN on either side as +inf.
double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b);

struct BackendComparison {
    std::string reference, other;          // backend names, e.g. "cpu", "cuda"
    std::vector<double> reference_ms, other_ms, max_diff;   // per step
    std::vector<bool> materialised;        // false: skipped by fused attention (no time, no diff)
    double reference_total_ms = 0.0, other_total_ms = 0.0;
    double worst_diff = 0.0;
};

// `model` must have its batch set. Builds a twin of it on `other` (same weights, options, batch),
// runs both forward passes with per-step timing, and compares every materialised step. The
// model's own step outputs are recomputed (same values). Throws DeviceError from `other`.
BackendComparison compare_backends(Transformer& model, Backend& other);

}  // namespace tx
