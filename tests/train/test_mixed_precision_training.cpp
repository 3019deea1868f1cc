// Mixed-precision training (docs/precision.md, "Training in mixed precision"): the loss scaler's
// rule step by step against hand-written sequences, and on a constructed FP16 overflow in a real
// run; the backward products rounded to the format (against a scalar reference) while softmax,
// norms and the loss keep their FP32 bits; FP16 flushing small gradients that FP32 and BF16 keep,
// and loss scaling keeping them; the FP32 path equal to the plain training loop bit for bit; BF16
// and FP16 tiny copy runs that learn; the scaler's state through save and resume.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "support/every_path.h"
#include "support/small_models.h"
#include "tx/backend.h"
#include "tx/evaluation.h"
#include "tx/half_float.h"
#include "tx/loss_scaler.h"
#include "tx/mixed_precision_training.h"
#include "tx/optimizer.h"
#include "tx/tasks.h"
#include "tx/trainer.h"
#include "tx/training_config.h"
#include "tx/training_state.h"
#include "tx/transformer.h"

namespace tx {
namespace {

// ---------------------------------------------------------------------------------------------
// The loss scaler's rule

TEST(LossScaler, DefaultsAreGradScalers) {
    const LossScaleSettings s;
    EXPECT_EQ(s.initial, 65536.0);
    EXPECT_EQ(s.growth, 2.0);
    EXPECT_EQ(s.backoff, 0.5);
    EXPECT_EQ(s.growth_interval, 2000);
    EXPECT_EQ(LossScaler(*loss_scale_from_string("dynamic")).scale(), 65536.0);
    EXPECT_EQ(LossScaler(*loss_scale_from_string("none")).scale(), 1.0);
}

// A dynamic scaler with scale 8 and interval 3, fed overflow (x) and good (.) steps:
//   . . x . . . x x . . . .
// expected by hand from GradScaler's rule: a good step counts up and, at 3, doubles the scale and
// restarts the count; an overflow skips the step, halves the scale and restarts the count.
TEST(LossScaler, DynamicRuleStepByStepOnAConstructedOverflow) {
    LossScaleSettings s;
    s.mode = LossScaleMode::Dynamic;
    s.initial = 8.0;
    s.growth_interval = 3;
    LossScaler scaler(s);
    struct Expected {
        bool overflow;
        bool applied;
        double scale;   // after the step
        int64_t good;
        int64_t skipped;
    };
    const std::vector<Expected> steps = {
        {false, true, 8, 1, 0},  {false, true, 8, 2, 0},  {true, false, 4, 0, 1},  {false, true, 4, 1, 1},
        {false, true, 4, 2, 1},  {false, true, 8, 0, 1},  {true, false, 4, 0, 2},  {true, false, 2, 0, 3},
        {false, true, 2, 1, 3},  {false, true, 2, 2, 3},  {false, true, 4, 0, 3},  {false, true, 4, 1, 3},
    };
    for (size_t i = 0; i < steps.size(); ++i) {
        const Expected& e = steps[i];
        EXPECT_EQ(scaler.update(e.overflow), e.applied) << "step " << i + 1;
        EXPECT_EQ(scaler.scale(), e.scale) << "step " << i + 1;
        EXPECT_EQ(scaler.good_steps(), e.good) << "step " << i + 1;
        EXPECT_EQ(scaler.skipped_steps(), e.skipped) << "step " << i + 1;
    }
    scaler.reset();
    EXPECT_EQ(scaler.scale(), 8.0);
    EXPECT_EQ(scaler.good_steps(), 0);
    EXPECT_EQ(scaler.skipped_steps(), 0);
}

TEST(LossScaler, FixedSkipsWithoutMovingAndNoneNeverSkips) {
    LossScaler fixed(*loss_scale_from_string("1000"));
    EXPECT_EQ(fixed.scale(), 1000.0);
    EXPECT_TRUE(fixed.skips_non_finite());
    EXPECT_FALSE(fixed.update(true));
    EXPECT_EQ(fixed.scale(), 1000.0);
    for (int i = 0; i < 5000; ++i) EXPECT_TRUE(fixed.update(false));
    EXPECT_EQ(fixed.scale(), 1000.0);   // never grows
    EXPECT_EQ(fixed.skipped_steps(), 1);

    LossScaler none(*loss_scale_from_string("none"));
    EXPECT_FALSE(none.skips_non_finite());
    EXPECT_TRUE(none.update(false));
    EXPECT_EQ(none.scale(), 1.0);
}

TEST(LossScaler, OptionWordsAndBadValues) {
    EXPECT_EQ(loss_scale_from_string("dynamic")->mode, LossScaleMode::Dynamic);
    EXPECT_EQ(loss_scale_from_string("none")->mode, LossScaleMode::None);
    const auto fixed = loss_scale_from_string("128");
    ASSERT_TRUE(fixed);
    EXPECT_EQ(fixed->mode, LossScaleMode::Fixed);
    EXPECT_EQ(fixed->initial, 128.0);
    EXPECT_EQ(to_string(*fixed), "fixed 128");
    for (const char* bad : {"", "0", "-4", "inf", "nan", "12x", "Dynamic"}) {
        std::string error;
        EXPECT_FALSE(loss_scale_from_string(bad, &error)) << bad;
        EXPECT_NE(error.find("dynamic, none or a positive number"), std::string::npos) << bad << ": " << error;
    }
    LossScaleSettings s;
    s.growth_interval = 0;
    EXPECT_THROW(LossScaler{s}, std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// The backward products

float to_format(float x, Precision p) {
    return p == Precision::Bf16 ? bf16_bits_to_float(float_to_bf16_bits(x)) : fp16_bits_to_float(float_to_fp16_bits(x));
}

std::vector<float> random_values(size_t n, float scale, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = scale * u(rng);
    return v;
}

// dW (OC,C) = Σ_n round(dY)[n,o] · round(X)[n,c] in double: the reference of the product before
// its output is rounded.
std::vector<double> reference_dweight(const std::vector<float>& dout, const std::vector<float>& inp, int N, int C, int OC,
                                      Precision p) {
    std::vector<double> dw(static_cast<size_t>(OC) * C, 0.0);
    for (int n = 0; n < N; ++n)
        for (int o = 0; o < OC; ++o)
            for (int c = 0; c < C; ++c)
                dw[static_cast<size_t>(o) * C + c] += static_cast<double>(to_format(dout[static_cast<size_t>(n) * OC + o], p)) *
                                                      to_format(inp[static_cast<size_t>(n) * C + c], p);
    return dw;
}

struct LinearGradients {
    std::vector<float> dinp, dweight, dbias;
};

LinearGradients linear_gradients(Backend& backend, const std::vector<float>& dout, const std::vector<float>& inp,
                                 const std::vector<float>& weight, int N, int C, int OC) {
    LinearGradients g{std::vector<float>(static_cast<size_t>(N) * C), std::vector<float>(static_cast<size_t>(OC) * C),
                      std::vector<float>(static_cast<size_t>(OC))};
    backend.linear_backward(g.dinp.data(), g.dweight.data(), g.dbias.data(), dout.data(), inp.data(), weight.data(), N, C, OC);
    return g;
}

TEST(MixedPrecisionTraining, LinearBackwardRoundsOperandsAndOutputsAndAccumulatesInFp32) {
    const int N = 7, C = 5, OC = 3;
    const std::vector<float> dout = random_values(N * OC, 0.3f, 1), inp = random_values(N * C, 2.0f, 2),
                             weight = random_values(OC * C, 0.5f, 3);
    for (Precision p : {Precision::Bf16, Precision::Fp16}) {
        auto backend = make_mixed_precision_training_backend(p);
        const LinearGradients g = linear_gradients(*backend, dout, inp, weight, N, C, OC);
        const std::vector<double> ref = reference_dweight(dout, inp, N, C, OC, p);
        for (size_t i = 0; i < ref.size(); ++i) {
            EXPECT_EQ(to_format(g.dweight[i], p), g.dweight[i]) << to_string(p) << " dW[" << i << "] is not a value of the format";
            // One rounding of a sum that FP32 holds to 2^-24: within half a step of the format, plus a hair.
            const double step = p == Precision::Bf16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
            EXPECT_LE(std::fabs(g.dweight[i] - ref[i]), step * std::fabs(ref[i]) + 1e-6) << to_string(p) << " dW[" << i << "]";
        }
        for (float x : g.dinp) EXPECT_EQ(to_format(x, p), x);
        for (float x : g.dbias) EXPECT_EQ(to_format(x, p), x);
        // += : a second backward adds the same rounded values (in FP32, exactly twice).
        LinearGradients twice = g;
        backend->linear_backward(twice.dinp.data(), twice.dweight.data(), twice.dbias.data(), dout.data(), inp.data(),
                                 weight.data(), N, C, OC);
        for (size_t i = 0; i < g.dweight.size(); ++i) EXPECT_EQ(twice.dweight[i], 2 * g.dweight[i]);
    }
    EXPECT_THROW(make_mixed_precision_training_backend(Precision::Int8), std::invalid_argument);
    EXPECT_THROW(make_mixed_precision_training_backend(Precision::Fp32), std::invalid_argument);
}

// BF16's backward products on every BF16 product path (cpu_isa.h: FP32 FMAs on the rounded
// operands; vdpbf16ps, where dX = dY · W multiplies by Wᵀ stored in BF16 pairs and dW = dYᵀ · X by
// Xᵀ packed per call): dX, dW and db against double references on the rounded operands, at shapes
// that cut the kernel's 6-row tiles, 16-row blocks and pairs (odd N, C and OC). Each is one rounding
// to BF16 (half a step, 2^-8 relative) of an FP32 sum of K exact products, within
// γ(K+1) · Σ|terms| (Higham §3.1) of the exact sum, plus vdpbf16ps's flush of subnormals (nothing
// here comes near 2^-126).
TEST(MixedPrecisionTraining, Bf16LinearBackwardOnEveryBf16PathMatchesADoubleReference) {
    const int N = 13, C = 70, OC = 37;
    const std::vector<float> dout = random_values(N * OC, 0.3f, 11), inp = random_values(N * C, 2.0f, 12),
                             weight = random_values(OC * C, 0.5f, 13);
    auto r = [](float x) { return static_cast<double>(to_format(x, Precision::Bf16)); };
    auto within = [](double got, double ref, double magnitude, int K) {
        const double u = std::ldexp(1.0, -24), gamma = (K + 1) * u / (1 - (K + 1) * u);
        return std::fabs(got - ref) <= std::ldexp(1.0, -8) * std::fabs(ref) + 1.01 * gamma * magnitude + 1e-30;
    };
    tx::test::on_every_bf16_path([&] {
        auto backend = make_mixed_precision_training_backend(Precision::Bf16);
        const LinearGradients g = linear_gradients(*backend, dout, inp, weight, N, C, OC);
        for (int n = 0; n < N; ++n)
            for (int c = 0; c < C; ++c) {
                double ref = 0, magnitude = 0;
                for (int o = 0; o < OC; ++o) {
                    const double t = r(dout[static_cast<size_t>(n) * OC + o]) * r(weight[static_cast<size_t>(o) * C + c]);
                    ref += t;
                    magnitude += std::fabs(t);
                }
                const float got = g.dinp[static_cast<size_t>(n) * C + c];
                ASSERT_EQ(to_format(got, Precision::Bf16), got);
                ASSERT_TRUE(within(got, ref, magnitude, OC)) << "dX[" << n << "," << c << "] " << got << " vs " << ref;
            }
        for (int o = 0; o < OC; ++o) {
            double bias_ref = 0, bias_magnitude = 0;
            for (int n = 0; n < N; ++n) {
                bias_ref += r(dout[static_cast<size_t>(n) * OC + o]);
                bias_magnitude += std::fabs(r(dout[static_cast<size_t>(n) * OC + o]));
            }
            ASSERT_TRUE(within(g.dbias[static_cast<size_t>(o)], bias_ref, bias_magnitude, N)) << "db[" << o << "]";
            for (int c = 0; c < C; ++c) {
                double ref = 0, magnitude = 0;
                for (int n = 0; n < N; ++n) {
                    const double t = r(dout[static_cast<size_t>(n) * OC + o]) * r(inp[static_cast<size_t>(n) * C + c]);
                    ref += t;
                    magnitude += std::fabs(t);
                }
                const float got = g.dweight[static_cast<size_t>(o) * C + c];
                ASSERT_EQ(to_format(got, Precision::Bf16), got);
                ASSERT_TRUE(within(got, ref, magnitude, N)) << "dW[" << o << "," << c << "] " << got << " vs " << ref;
            }
        }
    });
}

// Gradients of 2^-27 · (0.5..1): below half of FP16's smallest subnormal (2^-25), so FP16 rounds
// every one of them to 0, and every dW with them; FP32 and BF16 (FP32's exponent range) keep them.
// A loss scale of 2^16 lifts them to 2^-11: FP16 then keeps them, and dW/2^16 is FP32's within
// FP16's precision.
TEST(MixedPrecisionTraining, Fp16UnderflowsSmallGradientsThatFp32KeepsAndScalingRescuesThem) {
    const int N = 6, C = 4, OC = 3;
    std::vector<float> dout(static_cast<size_t>(N) * OC);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(0.5f, 1.0f);
    for (float& x : dout) x = std::ldexp(u(rng), -27) * (rng() % 2 ? 1.0f : -1.0f);
    const std::vector<float> inp = random_values(N * C, 1.0f, 6), weight = random_values(OC * C, 1.0f, 7);

    auto fp32 = make_cpu_backend();
    const LinearGradients exact = linear_gradients(*fp32, dout, inp, weight, N, C, OC);
    int fp32_nonzero = 0;
    for (float x : exact.dweight) fp32_nonzero += x != 0.0f;
    EXPECT_EQ(fp32_nonzero, OC * C);

    auto fp16 = make_mixed_precision_training_backend(Precision::Fp16);
    const LinearGradients low = linear_gradients(*fp16, dout, inp, weight, N, C, OC);
    for (float x : low.dweight) EXPECT_EQ(x, 0.0f);
    for (float x : low.dinp) EXPECT_EQ(x, 0.0f);
    const GradientRoundingCounts counts = mixed_precision_training(*fp16)->take_gradient_rounding();
    EXPECT_EQ(counts.activations.nonzero, N * OC);       // the incoming dY, cast to FP16 ...
    EXPECT_EQ(counts.activations.underflowed, N * OC);   // ... all flushed
    EXPECT_EQ(counts.activations.underflow_share(), 1.0);
    EXPECT_EQ(mixed_precision_training(*fp16)->take_gradient_rounding().activations.nonzero, 0);   // restarted

    auto bf16 = make_mixed_precision_training_backend(Precision::Bf16);
    const LinearGradients kept = linear_gradients(*bf16, dout, inp, weight, N, C, OC);
    // Each operand within 2^-9 relative and the output rounded once: within 3·2^-9 of Σ|terms|.
    for (int o = 0; o < OC; ++o)
        for (int c = 0; c < C; ++c) {
            double magnitude = 0.0;
            for (int n = 0; n < N; ++n)
                magnitude += std::fabs(static_cast<double>(dout[static_cast<size_t>(n) * OC + o]) * inp[static_cast<size_t>(n) * C + c]);
            const size_t i = static_cast<size_t>(o) * C + c;
            EXPECT_NE(kept.dweight[i], 0.0f);
            EXPECT_NEAR(kept.dweight[i], exact.dweight[i], 3 * std::ldexp(1.0, -9) * magnitude) << i;
        }

    std::vector<float> scaled = dout;
    for (float& x : scaled) x *= 65536.0f;
    const LinearGradients rescued = linear_gradients(*fp16, scaled, inp, weight, N, C, OC);
    for (size_t i = 0; i < rescued.dweight.size(); ++i) {
        const double unscaled = rescued.dweight[i] / 65536.0;
        EXPECT_NE(unscaled, 0.0);
        // Operands and output each within 2^-11 relative: a few FP16 steps of the sum's size.
        EXPECT_NEAR(unscaled, exact.dweight[i], 4 * std::ldexp(1.0, -11) * 6 * std::ldexp(1.0, -27)) << i;
    }
    EXPECT_EQ(mixed_precision_training(*fp16)->take_gradient_rounding().activations.underflowed, 0);
}

// The autocast policy in training: softmax, LayerNorm, log-softmax and the loss run their FP32
// forward and backward on the mixed backend, bit for bit the plain CPU backend's (inputs that are
// not values of the format stay unrounded), and the loss's backward is the scaled FP32 one.
TEST(MixedPrecisionTraining, SoftmaxNormsAndTheLossStayFp32) {
    const int R = 4, V = 9;
    const std::vector<float> x = random_values(R * V, 3.0f, 11), dy = random_values(R * V, 1.0f, 12);
    auto plain = make_cpu_backend();
    for (Precision p : {Precision::Bf16, Precision::Fp16}) {
        auto mixed = make_mixed_precision_training_backend(p);
        const auto both = [&](auto&& op) {
            std::vector<float> a(static_cast<size_t>(R) * V), b(static_cast<size_t>(R) * V);
            op(*plain, a.data());
            op(*mixed, b.data());
            EXPECT_EQ(a, b) << to_string(p);
            int unrounded = 0;
            for (float v : b) unrounded += to_format(v, p) != v;
            EXPECT_GT(unrounded, 0) << to_string(p) << ": the op's output looks rounded to the format";
        };
        std::vector<float> probs(static_cast<size_t>(R) * V);
        plain->softmax_forward(probs.data(), x.data(), R, V);
        both([&](Backend& b, float* out) { b.softmax_forward(out, x.data(), R, V); });
        both([&](Backend& b, float* out) { b.softmax_backward(out, dy.data(), probs.data(), R, V); });
        both([&](Backend& b, float* out) { b.log_softmax_forward(out, x.data(), R, V); });
        std::vector<float> mean(R), rstd(R), w = random_values(V, 1.0f, 13), bias = random_values(V, 1.0f, 14);
        both([&](Backend& b, float* out) {
            b.layernorm_forward(out, mean.data(), rstd.data(), x.data(), w.data(), bias.data(), R, V, 1e-5f);
        });
        both([&](Backend& b, float* out) {
            std::vector<float> dw(V), db(V);
            b.layernorm_backward(out, dw.data(), db.data(), dy.data(), x.data(), w.data(), mean.data(), rstd.data(), R, V);
        });
        std::vector<float> log_probs(static_cast<size_t>(R) * V);
        plain->log_softmax_forward(log_probs.data(), x.data(), R, V);
        const std::vector<int32_t> targets = {5, 6, 0, 8};   // 0 = PAD: no gradient on that row
        const std::vector<float> dlosses(R, 1.0f / 3.0f);
        both([&](Backend& b, float* out) {
            b.cross_entropy_log_softmax_backward(out, dlosses.data(), log_probs.data(), targets.data(), R, V, 0.1f, 0);
        });
        // Loss scale 8 (a power of two): exactly 8 times the FP32 gradient.
        mixed_precision_training(*mixed)->set_loss_scale(8.0f);
        std::vector<float> one(static_cast<size_t>(R) * V), eight(static_cast<size_t>(R) * V);
        plain->cross_entropy_log_softmax_backward(one.data(), dlosses.data(), log_probs.data(), targets.data(), R, V, 0.1f, 0);
        mixed->cross_entropy_log_softmax_backward(eight.data(), dlosses.data(), log_probs.data(), targets.data(), R, V, 0.1f, 0);
        for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(eight[i], 8.0f * one[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// Training runs

ModelConfig dropout_model() {
    ModelConfig m = test::small_training_model(48);
    m.dropout = 0.1f;
    return m;
}

TrainingConfig copy_training(Precision p, LossScaleSettings scale = {}) {
    TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Copy);
    t.batch = 8;
    t.length = 5;
    t.eval_sequences = 20;
    t.max_steps = 1000;
    t.precision = p;
    t.loss_scale = scale;
    return t;
}

// A run starting at a scale of 2^40: the loss's gradient times 2^40 is far beyond FP16's 65504, so
// the first backward overflows. Each such step must be skipped (weights and Adam untouched, the
// step counted) and halve the scale, until a scale fits; from then on updates apply and, with an
// interval of 2, every 2 good steps double the scale, the rule of the unit test above in a real run.
TEST(MixedPrecisionTraining, ConstructedFp16OverflowIsSkippedAndTheScaleHalves) {
    LossScaleSettings s;
    s.mode = LossScaleMode::Dynamic;
    s.initial = std::ldexp(1.0, 40);
    s.growth_interval = 2;
    TrainingRun run(dropout_model(), copy_training(Precision::Fp16, s));
    double scale = s.initial;
    int64_t good = 0, skipped = 0, applied = 0;
    for (int i = 0; i < 60; ++i) {
        const std::vector<float> before = run.parameters();
        const int64_t adam_before = run.state().adam_steps;
        const TrainingRun::StepResult r = run.train_step();
        ASSERT_FALSE(r.diverged) << r.message;
        EXPECT_EQ(r.loss_scale, scale) << "step " << i + 1;
        EXPECT_EQ(run.step(), i + 1);
        if (i == 0) {
            EXPECT_TRUE(r.skipped) << "2^40 times the loss's gradient must overflow FP16";
            EXPECT_GT(r.rounding.activations.overflowed, 0);
        }
        if (r.skipped) {
            EXPECT_TRUE(run.parameters() == before) << "a skipped step changed the weights";
            EXPECT_EQ(run.state().adam_steps, adam_before);
            scale *= 0.5;
            good = 0;
            ++skipped;
        } else {
            EXPECT_FALSE(run.parameters() == before);
            EXPECT_EQ(run.state().adam_steps, adam_before + 1);
            ++applied;
            if (++good == 2) {
                scale *= 2;
                good = 0;
            }
        }
        EXPECT_EQ(run.loss_scaler().scale(), scale) << "step " << i + 1;
        EXPECT_EQ(run.loss_scaler().good_steps(), good) << "step " << i + 1;
    }
    EXPECT_EQ(run.loss_scaler().skipped_steps(), skipped);
    EXPECT_GE(skipped, 20);   // 2^40 down to below 65504 · 48 tokens ≈ 2^21.6 takes about 19 halvings
    EXPECT_GT(applied, 10);
}

// The FP32 run is the training loop as it was before mixed precision: forward, loss, backward,
// norm, Adam, with no scaling, on the plain CPU backend; the same bits after 6 steps.
TEST(MixedPrecisionTraining, Fp32RunIsThePlainLoopBitForBit) {
    const ModelConfig m = dropout_model();
    const TrainingConfig t = copy_training(Precision::Fp32);
    TrainingRun run(m, t);
    for (int i = 0; i < 6; ++i) ASSERT_FALSE(run.train_step().diverged);

    auto backend = make_cpu_backend();
    Task task(t, m.max_len, m.tokenizer, m.special);
    ModelConfig mc = m;
    mc.src_vocab = mc.tgt_vocab = task.vocab_size();
    Transformer model(mc, *backend);
    model.set_parameters(init_parameters(model.table(), mc.seed));
    AdamSettings adam;
    adam.beta1 = t.beta1;
    adam.beta2 = t.beta2;
    adam.eps = t.adam_eps;
    adam.clip_norm = t.clip_norm;
    Optimizer optimizer(*backend, model.table().total(), adam);
    for (int step = 0; step < 6; ++step) {
        const Batch batch = task.next_batch(t.batch);
        model.options().training = true;
        model.options().dropout_seed = mix_seed(t.seed, static_cast<uint64_t>(step + 1));
        model.set_batch(batch.src, batch.tgt);
        model.forward();
        model.zero_gradients();
        model.loss(batch.targets, t.label_smoothing);
        model.backward();
        const double norm = optimizer.gradient_norm(model.gradients());
        optimizer.step(model.parameters(), model.gradients(), norm, noam_lr(t.base_lr, mc.d_model, t.warmup, step + 1));
    }
    EXPECT_TRUE(run.parameters() == model.download_parameters());
    EXPECT_TRUE(run.state().adam_v == optimizer.second_moment());
    // And its training record is the one FP32 runs always wrote: no precision fields.
    EXPECT_EQ(to_json(t).find("precision"), std::string::npos);
    EXPECT_EQ(run.state().loss_scale, 0.0);
}

// BF16 (no scaling) and FP16 (dynamic scaling) on the tiny copy task learn as FP32 does: the
// threshold of Training.TinyCopyModelLearnsWithinTwoHundredSteps (held-out loss < 0.5 after 200
// steps; about 1.6 before the model learns to copy).
TEST(MixedPrecisionTraining, Bf16AndFp16TinyCopyModelsLearn) {
    for (Precision p : {Precision::Bf16, Precision::Fp16}) {
        TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Copy);
        t.precision = p;
        if (p == Precision::Fp16) t.loss_scale.mode = LossScaleMode::Dynamic;
        TrainingRun run(preset_model(Preset::Tiny), t);
        int skipped = 0;
        for (int i = 0; i < 200; ++i) {
            const TrainingRun::StepResult r = run.train_step();
            ASSERT_FALSE(r.diverged) << r.message;
            skipped += r.skipped;
        }
        const EvalResult r = run.evaluate(false);
        EXPECT_LT(r.loss, 0.5) << to_string(p);
        EXPECT_GT(r.token_accuracy, 0.85) << to_string(p);
        EXPECT_EQ(skipped, 0) << to_string(p);
    }
}

// A run saved mid-way resumes with its loss scaler's scale, count of good steps and skips, and
// then takes the same steps as one that never stopped.
TEST(MixedPrecisionTraining, ResumeKeepsTheLossScalersState) {
    LossScaleSettings s;
    s.mode = LossScaleMode::Dynamic;
    s.initial = std::ldexp(1.0, 26);   // a few overflow skips first
    s.growth_interval = 3;
    const ModelConfig m = dropout_model();
    const TrainingConfig t = copy_training(Precision::Fp16, s);
    TrainingRun straight(m, t);
    for (int i = 0; i < 16; ++i) ASSERT_FALSE(straight.train_step().diverged);

    TrainingRun first(m, t);
    for (int i = 0; i < 9; ++i) ASSERT_FALSE(first.train_step().diverged);
    const Checkpoint saved = first.checkpoint();
    const std::string path = ::testing::TempDir() + "tx-mixed-state";
    save_training_state(path, first.state());
    const TrainingState state = load_training_state(path);
    std::remove(path.c_str());
    EXPECT_EQ(state.loss_scale, first.loss_scaler().scale());
    EXPECT_EQ(state.loss_scale_good_steps, first.loss_scaler().good_steps());
    EXPECT_EQ(state.skipped_steps, first.loss_scaler().skipped_steps());
    EXPECT_GT(state.skipped_steps, 0);
    EXPECT_LT(state.adam_steps, state.step);

    const TrainingConfig recorded = training_config_from_json(saved.training_json);
    EXPECT_EQ(recorded.precision, Precision::Fp16);
    EXPECT_EQ(recorded.loss_scale.mode, LossScaleMode::Dynamic);
    EXPECT_EQ(recorded.loss_scale.initial, s.initial);
    EXPECT_EQ(recorded.loss_scale.growth_interval, 3);
    TrainingRun resumed(saved.config, recorded, make_cpu_backend, &saved);
    resumed.resume(state);
    for (int i = 9; i < 16; ++i) ASSERT_FALSE(resumed.train_step().diverged);
    EXPECT_TRUE(resumed.parameters() == straight.parameters());
    EXPECT_EQ(resumed.loss_scaler().scale(), straight.loss_scaler().scale());
    EXPECT_EQ(resumed.loss_scaler().skipped_steps(), straight.loss_scaler().skipped_steps());
}

TEST(MixedPrecisionTraining, SettingsAreCheckedWithAReason) {
    TrainingConfig t = copy_training(Precision::Int8);
    ASSERT_TRUE(validate(t));
    EXPECT_NE(validate(t)->find("int8 cannot train"), std::string::npos) << *validate(t);
    t = copy_training(Precision::Fp32, *loss_scale_from_string("dynamic"));
    ASSERT_TRUE(validate(t));
    EXPECT_NE(validate(t)->find("bf16 or fp16"), std::string::npos) << *validate(t);
    t = copy_training(Precision::Bf16, *loss_scale_from_string("512"));
    EXPECT_FALSE(validate(t));
    const TrainingConfig back = training_config_from_json(to_json(t));
    EXPECT_EQ(back.precision, Precision::Bf16);
    EXPECT_EQ(back.loss_scale.mode, LossScaleMode::Fixed);
    EXPECT_EQ(back.loss_scale.initial, 512.0);
    EXPECT_THROW(training_config_from_json(R"({"precision": "fp8"})"), ConfigError);
    EXPECT_THROW(training_config_from_json(R"({"precision": "fp16", "loss_scale": "sometimes"})"), ConfigError);
}

}  // namespace
}  // namespace tx
