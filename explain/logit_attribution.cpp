// Direct logit attribution (see logit_attribution.h), in double. The logit is g·norm(x) + b_gen
// with g = generator.weight[token]. A norm at a fixed σ is affine: LayerNorm gives
// g·(w ⊙ (x − mean x)/σ + b) = d·x + g·b with d = centre(g ⊙ w / σ) (centring is linear and
// symmetric), RMSNorm d = g ⊙ w / σ. So a direction d is carried back through each norm, every
// component x_c of the norm's input contributes d·x_c, and the g·b terms go to the remainder.
#include "logit_attribution.h"

#include <cmath>
#include <stdexcept>

#include "tx/layer_plan.h"

namespace tx::explain {

namespace {

using Vec = std::vector<double>;

double dot(const Vec& a, const float* b) {
    double s = 0.0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

// Row `t` of a [1, L, D] step output, in double.
Vec row(const std::vector<float>& out, int t, int D) {
    return Vec(out.begin() + static_cast<std::ptrdiff_t>(t) * D, out.begin() + static_cast<std::ptrdiff_t>(t + 1) * D);
}

struct Reader {
    InspectModel& model;
    int t, D, H, dk;
    double remainder = 0.0;
    std::vector<Contribution> parts;

    // d through norm `name` whose input is x (the actual forward's input, so its σ is the forward's).
    Vec through_norm(const Vec& d, const Vec& x, const std::string& name) {
        const ModelConfig& c = model.config();
        const float* w = model.param(name + ".weight");
        const bool rms = c.norm_kind == NormKind::RmsNorm;
        double mean = 0.0, square = 0.0;
        for (double v : x) mean += v / D;
        for (double v : x) square += rms ? v * v / D : (v - mean) * (v - mean) / D;
        const double sigma = std::sqrt(square + c.ln_eps);
        Vec e(static_cast<size_t>(D));
        double e_mean = 0.0;
        for (int i = 0; i < D; ++i) {
            e[i] = d[i] * w[i] / sigma;
            e_mean += e[i] / D;
        }
        if (!rms) {
            for (double& v : e) v -= e_mean;
            remainder += dot(d, model.param(name + ".bias"));
        }
        return e;
    }

    // One attention sublayer's heads: head h writes context_h · W_O[:, h·dk:(h+1)·dk]ᵀ; b_O is the remainder's.
    void heads(const std::string& prefix, int layer, const Vec& d) {
        const std::vector<float> ctx = model.output(prefix + ".context");   // [1, H, T, dk]
        const float* wo = model.param(prefix + ".out_proj.weight");          // [D, D] (out, in)
        const int T = static_cast<int>(ctx.size()) / (H * dk);
        for (int h = 0; h < H; ++h) {
            const float* c = ctx.data() + (static_cast<size_t>(h) * T + t) * dk;
            double v = 0.0;
            for (int o = 0; o < D; ++o) {
                double y = 0.0;
                for (int j = 0; j < dk; ++j) y += static_cast<double>(wo[static_cast<size_t>(o) * D + h * dk + j]) * c[j];
                v += d[o] * y;
            }
            parts.push_back({prefix + ".head" + std::to_string(h), layer, h, v});
        }
        remainder += dot(d, model.param(prefix + ".out_proj.bias"));
    }

    // A sublayer's share through direction d: its heads, or the FFN's whole output (its bias included).
    void sublayer(const SublayerPlan& s, const std::string& layer_prefix, int layer, const Vec& d) {
        const std::string prefix = layer_prefix + "." + s.name;
        if (s.kind == SublayerKind::FeedForward) {
            const std::vector<float> out = model.output(prefix + ".out");
            parts.push_back({prefix, layer, -1, dot(d, out.data() + static_cast<size_t>(t) * D)});
        } else {
            heads(prefix, layer, d);
        }
    }
};

}  // namespace

LogitAttribution logit_attribution(InspectModel& model, const InspectInput& in, int position, int token) {
    LogitAttribution r;
    try {
        model.run(in);
        const ModelConfig& c = model.config();
        const int T = static_cast<int>(in.tgt.size()), V = c.tgt_vocab, D = c.d_model, L = c.decoder_layers;
        if (position >= T)
            throw std::invalid_argument("target position " + std::to_string(position) + " is outside 0.." + std::to_string(T - 1));
        if (token >= V) throw std::invalid_argument("token id " + std::to_string(token) + " is outside the vocabulary");
        r.position = position < 0 ? T - 1 : position;
        const std::vector<float> logits = model.output("generator.logits");   // [1, T, V]
        r.token = token < 0 ? argmax_rows(logits, T, V)[r.position] : token;
        r.token_text = model.token_text(r.token);
        r.logit = logits[static_cast<size_t>(r.position) * V + r.token];

        Reader reader{model, r.position, D, c.heads, c.d_k()};
        Vec d(static_cast<size_t>(D));
        const float* g = model.param("generator.weight") + static_cast<size_t>(r.token) * D;
        for (int i = 0; i < D; ++i) d[i] = g[i];
        reader.remainder = model.param("generator.bias")[r.token];
        const Vec last = row(model.output(model.layer_output(Stack::Decoder, L - 1)), r.position, D);
        if (c.has_final_norm()) d = reader.through_norm(d, last, "decoder.norm");
        const std::vector<SublayerPlan> plan = layer_plan(c, false);
        const std::string norm_name = c.norm_kind == NormKind::RmsNorm ? "RMSNorm" : "LayerNorm";
        if (c.norm == NormPlacement::Pre) {
            // The final stream is the embeddings plus every sublayer's output: each is read through decoder.norm alone.
            const std::vector<float> embedded = model.output(model.layer_output(Stack::Decoder, -1));
            reader.parts.push_back({"embeddings", -1, -1, dot(d, embedded.data() + static_cast<size_t>(r.position) * D)});
            for (int l = 0; l < L; ++l)
                for (const SublayerPlan& s : plan) reader.sublayer(s, "decoder.layers." + std::to_string(l), l, d);
            r.method = "Pre-LN: the residual stream entering decoder.norm is the embeddings (with positions) plus every "
                       "sublayer's output, so each is read through decoder.norm and the generator, the " + norm_name +
                       " treated as linear at this input: it divides by the same sigma as the actual forward" +
                       std::string(norm_name == "LayerNorm" ? " and each part is centred by itself" : "") +
                       ". Each head's share is its context through its slice of W_O; the biases b_O, the norm's "
                       "bias and the generator's bias form the remainder.";
        } else {
            // Post-LN: the last layer, sublayer by sublayer from the top. Sublayer k's norm reads
            // stream_{k-1} + sublayer_k; d then flows on into stream_{k-1} (the previous norm's output).
            const int l = L - 1;
            const std::string p = "decoder.layers." + std::to_string(l);
            std::vector<Vec> stream{row(model.output(model.layer_output(Stack::Decoder, l - 1)), r.position, D)};
            for (size_t k = 0; k + 1 < plan.size(); ++k) stream.push_back(row(model.output(p + "." + plan[k].norm + ".out"), r.position, D));
            std::vector<Contribution> top_down;
            for (size_t k = plan.size(); k-- > 0;) {
                const std::string prefix = p + "." + plan[k].name;
                const Vec sub = row(model.output(prefix + ".out"), r.position, D);
                Vec x = stream[k];
                for (int i = 0; i < D; ++i) x[i] += sub[i];
                d = reader.through_norm(d, x, p + "." + plan[k].norm);
                const size_t before = reader.parts.size();
                reader.sublayer(plan[k], p, l, d);
                top_down.insert(top_down.begin(), reader.parts.begin() + static_cast<std::ptrdiff_t>(before), reader.parts.end());
                reader.parts.resize(before);
            }
            double input = 0.0;
            for (int i = 0; i < D; ++i) input += d[i] * stream[0][i];
            reader.parts.push_back({p + ".input", l, -1, input});
            reader.parts.insert(reader.parts.end(), top_down.begin(), top_down.end());
            r.method = "Post-LN re-normalises the whole residual stream after every sublayer, so only the last decoder "
                       "layer is split: its input (everything the earlier layers wrote, together), its heads and its "
                       "FFN, read through that layer's own norms" + std::string(c.has_final_norm() ? " and decoder.norm" : "") +
                       ", each " + norm_name + " treated as linear at this input (the same sigma as the actual forward). "
                       "The biases b_O, the norms' biases and the generator's bias form the remainder.";
        }
        r.parts = std::move(reader.parts);
        r.remainder = reader.remainder;
    } catch (const std::exception& e) {
        LogitAttribution failed;
        failed.error = e.what();
        return failed;
    }
    return r;
}

}  // namespace tx::explain
