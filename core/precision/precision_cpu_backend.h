// PrecisionCpuBackend (make_precision_cpu_backend, backend.h; docs/precision.md): the CPU backend
// with the model's matrix products emulated in BF16, FP16 or INT8. Internal to core/: declared here
// so that mixed-precision training (core/train/mixed_precision_backend.h) rounds its backward
// products with the same operand rounding and the same rounded-weight cache as the forward.
#pragma once
#include <unordered_map>
#include <vector>

#include "ops/cpu_backend.h"
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

    void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                        int OC) override {
        const Operands x = operands(inp, weight, bias, N, C, OC);
        CpuBackend::linear_forward(out, x.inp, x.weight, x.bias, N, C, OC);
        round_output(out, static_cast<int64_t>(N) * OC);
    }
    // The cache packs the rounded copy, whose address stays put until parameters_changed().
    void linear_forward_fixed_weight(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                                     int OC, WeightCache& cache) override {
        const Operands x = operands(inp, weight, bias, N, C, OC);
        CpuBackend::linear_forward_fixed_weight(out, x.inp, x.weight, x.bias, N, C, OC, cache);
        round_output(out, static_cast<int64_t>(N) * OC);
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
    struct Operands {
        const float* inp;
        const float* weight;
        const float* bias;
    };

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

    // The linear layer's operands: the input and bias rounded (autocast casts both), the weight
    // rounded or quantised once.
    Operands operands(const float* inp, const float* weight, const float* bias, int N, int C, int OC) {
        return {rounded(m_a, inp, static_cast<int64_t>(N) * C), converted_weight(weight, C, OC),
                rounded(m_bias, bias, OC)};
    }

    const float* converted_weight(const float* weight, int C, int OC) {
        Weight& w = m_weights[weight];
        if (w.C == C && w.OC == OC) return w.data.data();
        const int64_t n = static_cast<int64_t>(C) * OC;
        w.C = C;
        w.OC = OC;
        w.data.resize(static_cast<size_t>(n));
        if (m_mode.format == Precision::Int8) {
            std::vector<int8_t> q(static_cast<size_t>(n));
            std::vector<float> scale(static_cast<size_t>(OC));
            quantize_int8_rows(q.data(), scale.data(), weight, OC, C);
            dequantize_int8_rows(w.data.data(), q.data(), scale.data(), OC, C);
        } else {
            round_floats(w.data.data(), weight, n, m_mode.format);
        }
        return w.data.data();
    }

    struct Weight {
        int C = -1, OC = -1;
        std::vector<float> data;   // (OC, C)
    };

private:
    PrecisionMode m_mode;
    std::unordered_map<const float*, Weight> m_weights;   // by the FP32 weight's address
    std::vector<float> m_a, m_b, m_c, m_bias;             // rounded operands
};

}  // namespace tx
