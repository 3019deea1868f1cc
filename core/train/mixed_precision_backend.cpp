// The mixed-precision training backend (mixed_precision_training.h). It derives from the precision
// backend, so its forward, operand rounding and rounded-weight cache are that backend's; the
// backward products below compute into zeroed scratch from rounded operands, round what they
// produce, count what the rounding flushed to 0 or to inf, and add it (+=) into the gradients.
// Counted: every non-zero gradient value rounded to the format on the way through a product, the
// incoming gradient dY as well as the dX, dW, db, dq, dk, dP, dV it produces. BF16 on the
// vdpbf16ps path (cpu_isa.h's bf16_path()) runs the linear layers' dX and dW on the forward's
// kernel (lowp_weight.h), the rest on the FP32 kernels over rounded operands.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "precision/precision_cpu_backend.h"
#include "tx/mixed_precision_training.h"

namespace tx {

namespace {

class MixedPrecisionTrainingBackend final : public PrecisionCpuBackend, public MixedPrecisionTraining {
public:
    explicit MixedPrecisionTrainingBackend(Precision format) : PrecisionCpuBackend(PrecisionMode{format, false}) {}

    void set_loss_scale(float scale) override { m_loss_scale = scale; }
    GradientRoundingCounts take_gradient_rounding() override {
        const GradientRoundingCounts counts = m_counts;
        m_counts = {};
        return counts;
    }

    // dout (N,OC), inp (N,C), weight (OC,C); dinp (N,C), dweight (OC,C), dbias (OC), each may be null.
    // BF16 on the vdpbf16ps path: dX = g · W and dW = gᵀ · x as the forward's product from BF16
    // pairs (lowp_weight.h), by Wᵀ stored once per parameter change and by xᵀ packed per call;
    // elsewhere the FP32 kernels on the rounded operands. Either way the operands are the same BF16
    // values and the sums FP32.
    void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                         const float* weight, int N, int C, int OC) override {
        const int64_t n_in = static_cast<int64_t>(N) * C, n_w = static_cast<int64_t>(OC) * C;
        const float* g = incoming_gradient(dout, static_cast<int64_t>(N) * OC);
        if (lowp_uses_pairs(precision().format) && N >= 1 && C >= 1 && OC >= 1) {
            if (dinp) {
                float* s_in = scratch(m_s1, n_in);
                lowp_linear_forward(s_in, g, transposed_weight(weight, C, OC), nullptr, N);
                add_rounded(dinp, s_in, n_in, m_counts.activations);
            }
            if (dweight) {
                // gᵀ (OC, N) as the product's input rows; xᵀ (C, N) as its weight (rounded as packed)
                transpose(m_gt, g, N, OC);
                store_transposed_bf16_pairs(m_xt, inp, N, C);
                float* s_w = scratch(m_s2, n_w);
                lowp_linear_forward(s_w, m_gt.data(), m_xt, nullptr, OC);
                add_rounded(dweight, s_w, n_w, m_counts.parameters);
            }
            if (dbias) {
                float* s_b = zeroed(m_s3, OC);
                CpuBackend::linear_backward(nullptr, nullptr, s_b, g, inp, weight, N, C, OC);
                add_rounded(dbias, s_b, OC, m_counts.parameters);
            }
            return;
        }
        const float* x = rounded(m_x, inp, n_in);
        const float* w = converted_weight(weight, C, OC);
        float* s_in = dinp ? zeroed(m_s1, n_in) : nullptr;
        float* s_w = dweight ? zeroed(m_s2, n_w) : nullptr;
        float* s_b = dbias ? zeroed(m_s3, OC) : nullptr;
        CpuBackend::linear_backward(s_in, s_w, s_b, g, x, w, N, C, OC);
        if (dinp) add_rounded(dinp, s_in, n_in, m_counts.activations);
        if (dweight) add_rounded(dweight, s_w, n_w, m_counts.parameters);
        if (dbias) add_rounded(dbias, s_b, OC, m_counts.parameters);
    }
    // dout (B,H,T,S), q and dq (B,H,T,dk), k and dk_ (B,H,S,dk).
    void scores_backward(float* dq, float* dk_, const float* dout, const float* q, const float* k, int B, int H,
                         int T, int S, int dk, float scale) override {
        const int64_t bh = static_cast<int64_t>(B) * H, n_q = bh * T * dk, n_k = bh * S * dk;
        const float* g = incoming_gradient(dout, bh * T * S);
        const float* rq = rounded(m_x, q, n_q);
        const float* rk = rounded(m_y, k, n_k);
        float* s_q = dq ? zeroed(m_s1, n_q) : nullptr;
        float* s_k = dk_ ? zeroed(m_s2, n_k) : nullptr;
        CpuBackend::scores_backward(s_q, s_k, g, rq, rk, B, H, T, S, dk, scale);
        if (dq) add_rounded(dq, s_q, n_q, m_counts.activations);
        if (dk_) add_rounded(dk_, s_k, n_k, m_counts.activations);
    }
    // dout (B,H,T,dk), probs and dprobs (B,H,T,S), v and dv (B,H,S,dk).
    void context_backward(float* dprobs, float* dv, const float* dout, const float* probs, const float* v, int B,
                          int H, int T, int S, int dk) override {
        const int64_t bh = static_cast<int64_t>(B) * H, n_p = bh * T * S, n_v = bh * S * dk;
        const float* g = incoming_gradient(dout, bh * T * dk);
        const float* rp = rounded(m_x, probs, n_p);
        const float* rv = rounded(m_y, v, n_v);
        float* s_p = dprobs ? zeroed(m_s1, n_p) : nullptr;
        float* s_v = dv ? zeroed(m_s2, n_v) : nullptr;
        CpuBackend::context_backward(s_p, s_v, g, rp, rv, B, H, T, S, dk);
        if (dprobs) add_rounded(dprobs, s_p, n_p, m_counts.activations);
        if (dv) add_rounded(dv, s_v, n_v, m_counts.activations);
    }

    // The loss's backward in FP32, seeded with scale · d(loss)/d(loss_r): the backward of scale · loss.
    void cross_entropy_backward(float* dlog_probs, const float* dlosses, const int32_t* targets, int R, int V,
                                float smoothing, int pad_id) override {
        CpuBackend::cross_entropy_backward(dlog_probs, scaled(dlosses, R), targets, R, V, smoothing, pad_id);
    }
    void cross_entropy_log_softmax_backward(float* dlogits, const float* dlosses, const float* log_probs,
                                            const int32_t* targets, int R, int V, float smoothing, int pad_id) override {
        CpuBackend::cross_entropy_log_softmax_backward(dlogits, scaled(dlosses, R), log_probs, targets, R, V, smoothing,
                                                       pad_id);
    }

private:
    static float* zeroed(std::vector<float>& scratch, int64_t n) {
        scratch.assign(static_cast<size_t>(n), 0.0f);
        return scratch.data();
    }
    // n floats, grown once per size; the product writes every one of them.
    static float* scratch(std::vector<float>& buffer, int64_t n) {
        if (static_cast<int64_t>(buffer.size()) < n) buffer.resize(static_cast<size_t>(n));
        return buffer.data();
    }
    // out (cols, rows) = in (rows, cols)ᵀ, in blocks of 16 × 16 so that both sides stay in cache.
    static void transpose(std::vector<float>& out, const float* in, int rows, int cols) {
        scratch(out, static_cast<int64_t>(rows) * cols);
        constexpr int BLOCK = 16;
        for (int r0 = 0; r0 < rows; r0 += BLOCK)
            for (int c0 = 0; c0 < cols; c0 += BLOCK)
                for (int r = r0; r < std::min(rows, r0 + BLOCK); ++r)
                    for (int c = c0; c < std::min(cols, c0 + BLOCK); ++c)
                        out[static_cast<size_t>(c) * rows + r] = in[static_cast<int64_t>(r) * cols + c];
    }
    // What rounding `exact` (n) to `low` (n) did: the non-zero entries, those it flushed to 0 and
    // those it turned into ±inf.
    static GradientRounding count_rounding(const float* exact, const float* low, int64_t n) {
        GradientRounding counts;
        for (int64_t i = 0; i < n; ++i) {
            counts.nonzero += exact[i] != 0.0f;
            counts.underflowed += exact[i] != 0.0f && low[i] == 0.0f;
            counts.overflowed += std::isfinite(exact[i]) && std::isinf(low[i]);
        }
        return counts;
    }
    // dst (n) += product (n) rounded to the format; counts the entries the rounding flushed.
    void add_rounded(float* dst, const float* product, int64_t n, GradientRounding& counts) {
        m_r.resize(static_cast<size_t>(n));
        round_floats(m_r.data(), product, n, precision().format);
        counts += count_rounding(product, m_r.data(), n);
        for (int64_t i = 0; i < n; ++i) dst[i] += m_r[static_cast<size_t>(i)];
    }
    // The gradient a product receives, cast to the format (m_g); the entries that cast flushes to 0
    // are counted with the activations' gradients. A gradient another product produced is a value
    // of the format already and passes unchanged; one from an FP32 op (softmax, a norm, the loss)
    // is rounded here, as autocast casts it.
    const float* incoming_gradient(const float* dout, int64_t n) {
        m_g.resize(static_cast<size_t>(n));
        round_floats(m_g.data(), dout, n, precision().format);
        m_counts.activations += count_rounding(dout, m_g.data(), n);
        return m_g.data();
    }
    const float* scaled(const float* dlosses, int R) {
        if (m_loss_scale == 1.0f) return dlosses;
        m_dlosses.resize(static_cast<size_t>(R));
        for (int r = 0; r < R; ++r) m_dlosses[static_cast<size_t>(r)] = dlosses[r] * m_loss_scale;
        return m_dlosses.data();
    }

    float m_loss_scale = 1.0f;
    GradientRoundingCounts m_counts;
    std::vector<float> m_g, m_x, m_y;          // rounded operands
    std::vector<float> m_s1, m_s2, m_s3, m_r;  // FP32 products, their rounding
    std::vector<float> m_gt;                   // (OC, N): the incoming gradient transposed (vdpbf16ps path)
    LowpWeight m_xt;                           // (C, N): the input transposed, in BF16 pairs (vdpbf16ps path)
    std::vector<float> m_dlosses;              // [R] scaled
};

}  // namespace

std::unique_ptr<Backend> make_mixed_precision_training_backend(Precision format) {
    if (format != Precision::Bf16 && format != Precision::Fp16)
        throw std::invalid_argument(std::string("mixed-precision training needs bf16 or fp16, not ") + to_string(format));
    return std::make_unique<MixedPrecisionTrainingBackend>(format);
}

MixedPrecisionTraining* mixed_precision_training(Backend& backend) {
    return dynamic_cast<MixedPrecisionTraining*>(&backend);
}

}  // namespace tx
