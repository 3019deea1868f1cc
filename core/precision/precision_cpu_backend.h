// PrecisionCpuBackend (make_precision_cpu_backend, backend.h; docs/precision.md): the CPU backend
// with the model's matrix products in BF16, FP16 or INT8. The linear layers run from weights
// stored in the format (lowp_weight.h: 2 bytes a value for BF16/FP16, 1 byte and a scale per row
// for INT8), kept here by the FP32 weight's address until parameters_changed(); the attention
// products round their FP32 operands. Internal to core/: declared here so that mixed-precision
// training (core/train/mixed_precision_backend.h) rounds its backward products with the same
// operand rounding and the same stored weights as the forward.
#pragma once
#include <memory>
#include <unordered_map>
#include <vector>

#include "ops/cpu_backend.h"
#include "precision/lowp_weight.h"
#include "tx/half_float.h"
#include "tx/int8_quantize.h"

namespace tx {

class PrecisionCpuBackend : public CpuBackend {
public:
    explicit PrecisionCpuBackend(PrecisionMode mode) : m_mode(mode) {}

    PrecisionMode precision() const override { return m_mode; }
    void round_step_output(float* out, int64_t n) override {
        if (m_mode.all_low) round_floats(out, out, n, m_mode.format);
    }
    void parameters_changed() override { m_weights.clear(); }

    // The input and bias rounded (autocast casts both; INT8 keeps them FP32), the product from the
    // stored weight with FP32 sums (lowp_weight.h), the output rounded.
    void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                        int OC) override {
        const float* x = rounded(m_a, inp, static_cast<int64_t>(N) * C);
        const float* b = rounded(m_bias, bias, OC);
        lowp_linear_forward(out, x, stored_weight(weight, C, OC).low, b, N);
        round_output(out, static_cast<int64_t>(N) * OC);
    }
    // The model's cache of packed FP32 weights is not used: the stored weight is this backend's own.
    void linear_forward_fixed_weight(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                                     int OC, WeightCache& /*cache*/) override {
        linear_forward(out, inp, weight, bias, N, C, OC);
    }
    // The bytes of the weights stored so far: the low-format values (and INT8 scales), plus any FP32
    // copies the backward asked for (converted_weight).
    size_t stored_weight_bytes() const {
        size_t bytes = 0;
        for (const auto& [address, w] : m_weights) bytes += w.low.bytes() + w.wide.size() * sizeof(float);
        return bytes;
    }
    size_t stored_weight_count() const { return m_weights.size(); }
    void scores_forward(float* out, const float* q, const float* k, int B, int H, int T, int S, int dk,
                        float scale) override {
        const int64_t bh = static_cast<int64_t>(B) * H;
        CpuBackend::scores_forward(out, rounded(m_a, q, bh * T * dk), rounded(m_b, k, bh * S * dk), B, H, T, S, dk,
                                   scale);
        round_output(out, bh * T * S);
    }
    void context_forward(float* out, const float* probs, const float* v, int B, int H, int T, int S,
                         int dk) override {
        const int64_t bh = static_cast<int64_t>(B) * H;
        CpuBackend::context_forward(out, rounded(m_a, probs, bh * T * S), rounded(m_b, v, bh * S * dk), B, H, T, S, dk);
        round_output(out, bh * T * dk);
    }
    // As a fused attention kernel in BF16/FP16 does: q, k and v rounded, the scores and the online
    // softmax inside in FP32, the context rounded.
    void fused_attention_forward(float* out, const float* q, const float* k, const float* v, const float* mask,
                                 int B, int H, int T, int S, int dk, float scale) override {
        const int64_t bh = static_cast<int64_t>(B) * H;
        CpuBackend::fused_attention_forward(out, rounded(m_a, q, bh * T * dk), rounded(m_b, k, bh * S * dk),
                                            rounded(m_c, v, bh * S * dk), mask, B, H, T, S, dk, scale);
        round_output(out, bh * T * dk);
    }

protected:
    bool rounds_activations() const { return m_mode.format == Precision::Bf16 || m_mode.format == Precision::Fp16; }

    // n floats of x rounded to the format in `scratch` (grown once per size), or x itself in INT8.
    const float* rounded(std::vector<float>& scratch, const float* x, int64_t n) {
        if (!rounds_activations() || !x) return x;
        if (static_cast<int64_t>(scratch.size()) < n) scratch.resize(static_cast<size_t>(n));
        round_floats(scratch.data(), x, n, m_mode.format);
        return scratch.data();
    }
    void round_output(float* out, int64_t n) {
        if (rounds_activations()) round_floats(out, out, n, m_mode.format);
    }

    struct Weight {
        LowpWeight low;            // (OC, C) in the format: what the forward reads
        std::vector<float> wide;   // (OC, C) widened to FP32, built only when the backward asks
    };

    // The weight (OC, C) stored in the format, built on first use after parameters_changed().
    Weight& stored_weight(const float* weight, int C, int OC) {
        Weight& w = m_weights[weight];
        if (w.low.format != m_mode.format || w.low.C != C || w.low.OC != OC) {
            w.low = make_lowp_weight(weight, C, OC, m_mode.format);
            w.wide.clear();
        }
        return w;
    }
    // The stored weight widened to FP32 (round_floats' values, or q·scale for INT8), for the
    // backward products that still run on the FP32 kernels (mixed-precision training).
    const float* converted_weight(const float* weight, int C, int OC) {
        Weight& w = stored_weight(weight, C, OC);
        if (w.wide.empty()) {
            w.wide.resize(static_cast<size_t>(C) * static_cast<size_t>(OC));
            widen_lowp_weight(w.wide.data(), w.low);
        }
        return w.wide.data();
    }

private:
    PrecisionMode m_mode;
    std::unordered_map<const float*, Weight> m_weights;   // by the FP32 weight's address
    std::vector<float> m_a, m_b, m_c, m_bias;             // rounded operands
};

}  // namespace tx
