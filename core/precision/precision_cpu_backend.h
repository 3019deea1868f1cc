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
    // The stored weights are out of date: each is stored again from its new values on next use, into
    // the buffers it had (a training step changes every weight, and fresh buffers of a base model's
    // ~60 MB would cost their page faults again at every step, docs/design.md §10).
    void parameters_changed() override {
        for (auto& [address, w] : m_weights) w.low_current = w.wide_current = w.transposed_current = false;
    }

    // The input and bias rounded (autocast casts both; INT8 keeps them FP32), the product from the
    // stored weight with FP32 sums (lowp_weight.h), the output rounded.
    // On the vdpbf16ps path the product rounds its input to BF16 as it reads it (lowp_weight.h), the
    // same values, so the input is passed as it is and not rounded in a pass of its own.
    void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                        int OC) override {
        const LowpWeight& w = stored_weight(weight, C, OC).low;
        const float* x = w.pairs ? inp : rounded(m_a, inp, static_cast<int64_t>(N) * C);
        const float* b = rounded(m_bias, bias, OC);
        lowp_linear_forward(out, x, w, b, N);
        round_output(out, static_cast<int64_t>(N) * OC);
    }
    // The model's cache of packed FP32 weights is not used: the stored weight is this backend's own.
    void linear_forward_fixed_weight(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                                     int OC, WeightCache& /*cache*/) override {
        linear_forward(out, inp, weight, bias, N, C, OC);
    }
    // The bytes of the weights stored since the last parameter change: the low-format values (and
    // INT8 scales), plus any copies the backward asked for (converted_weight, transposed_weight).
    // Buffers kept for a rebuild are not counted until they hold a current weight again.
    size_t stored_weight_bytes() const {
        size_t bytes = 0;
        for (const auto& [address, w] : m_weights) {
            if (w.low_current) bytes += w.low.bytes();
            if (w.wide_current) bytes += w.wide.size() * sizeof(float);
            if (w.transposed_current) bytes += w.transposed.bytes();
        }
        return bytes;
    }
    size_t stored_weight_count() const {
        size_t count = 0;
        for (const auto& [address, w] : m_weights) count += w.low_current;
        return count;
    }
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
        LowpWeight transposed;     // (C, OC): Wᵀ in the BF16 pair layout, built only when the backward asks
        bool low_current = false, wide_current = false, transposed_current = false;   // since the last change
    };

    // The weight (OC, C) stored in the format, built on first use after parameters_changed(), and
    // again in the other layout where the BF16 path has changed since (lowp_uses_pairs).
    Weight& stored_weight(const float* weight, int C, int OC) {
        Weight& w = m_weights[weight];
        if (!w.low_current || w.low.format != m_mode.format || w.low.C != C || w.low.OC != OC ||
            w.low.pairs != lowp_uses_pairs(m_mode.format)) {
            store_lowp_weight(w.low, weight, C, OC, m_mode.format);
            w.low_current = true;
            w.wide_current = w.transposed_current = false;
        }
        return w;
    }
    // The stored weight widened to FP32 (round_floats' values, or q·scale for INT8), for the
    // backward products that still run on the FP32 kernels (mixed-precision training).
    const float* converted_weight(const float* weight, int C, int OC) {
        Weight& w = stored_weight(weight, C, OC);
        if (!w.wide_current) {
            w.wide.resize(static_cast<size_t>(C) * static_cast<size_t>(OC));
            widen_lowp_weight(w.wide.data(), w.low);
            w.wide_current = true;
        }
        return w.wide.data();
    }
    // Wᵀ (C, OC) in the BF16 pair layout (the same rounded values as the stored weight), for the
    // backward's dX = dY · W on the vdpbf16ps path; built on first use after a parameter change.
    const LowpWeight& transposed_weight(const float* weight, int C, int OC) {
        Weight& w = stored_weight(weight, C, OC);
        if (!w.transposed_current) {
            store_transposed_bf16_pairs(w.transposed, weight, OC, C);
            w.transposed_current = true;
        }
        return w.transposed;
    }

private:
    PrecisionMode m_mode;
    std::unordered_map<const float*, Weight> m_weights;   // by the FP32 weight's address
    std::vector<float> m_a, m_b, m_c, m_bias;             // rounded operands
};

}  // namespace tx
