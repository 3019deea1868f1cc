// The Look inside panel's computation (see look_inside.h): the inputs built once, then each view
// in turn on the same private model, each view's failure kept to that view.
#include "look_inside.h"

#include <chrono>
#include <exception>

namespace tx::explain {

namespace {

// The corrupted input keeps the clean run's decoder input, as txcli inspect patch builds it
// (cli/cmd_inspect.cpp): encoder-decoder the same BOS + output; decoder-only the corrupted
// prompt followed by the clean run's continuation.
InspectInput corrupted_input(InspectModel& model, const LookInsideRequest& request, const InspectInput& clean) {
    InspectInput corrupted = model.input(request.corrupted, std::string());
    if (!model.decoder_only()) {
        corrupted.tgt = clean.tgt;
        return corrupted;
    }
    const size_t prompt = model.tokenizer().encode(request.source).size();
    corrupted.tgt.insert(corrupted.tgt.end(), clean.tgt.begin() + 1 + static_cast<std::ptrdiff_t>(prompt), clean.tgt.end());
    return corrupted;
}

PatchMetric patch_metric(const InspectModel& model, const LookInsideRequest& request) {
    PatchMetric m;
    m.position = request.metric_position;
    if (!request.metric_token.empty()) m.token = model.token_id(request.metric_token);
    if (!request.metric_versus.empty()) m.versus = model.token_id(request.metric_versus);
    return m;
}

// Runs one view; an exception becomes that view's error.
template <typename Result, typename F>
void run_view(Result& result, F&& compute) {
    try {
        result = compute();
    } catch (const std::exception& e) {
        result = Result{};
        result.error = e.what();
    }
}

}  // namespace

std::string LookInside::lens_token(int id) const {
    const auto it = token_texts.find(id);
    return it != token_texts.end() ? it->second : std::string("#").append(std::to_string(id));
}

LookInside compute_look_inside(Checkpoint checkpoint, const LookInsideRequest& request) {
    return compute_look_inside(std::make_shared<const Checkpoint>(std::move(checkpoint)), request);
}

LookInside compute_look_inside(std::shared_ptr<const Checkpoint> checkpoint, const LookInsideRequest& request) {
    const auto start = std::chrono::steady_clock::now();
    LookInside r;
    r.request = request;
    try {
        InspectModel model(std::move(checkpoint));
        r.decoder_only = model.decoder_only();
        r.pre_ln = model.config().norm == NormPlacement::Pre;
        const InspectInput in = model.input(request.source, request.target);
        r.source_tokens = model.token_texts(in.src);
        r.target_tokens = model.token_texts(in.tgt);
        run_view(r.lens, [&] { return logit_lens(model, in, 5); });
        for (const LensCell& c : r.lens.cells)
            for (int id : c.top) r.token_texts.emplace(id, model.token_text(id));
        for (int id : r.lens.chosen) r.token_texts.emplace(id, model.token_text(id));
        run_view(r.heads, [&] { return head_importance(model, in); });
        run_view(r.rollout, [&] { return attention_rollout(model, in); });
        run_view(r.entropy, [&] { return attention_entropy(model, in); });
        for (int t = 0; t < static_cast<int>(in.tgt.size()); ++t) {
            LogitAttribution a;
            run_view(a, [&] { return logit_attribution(model, in, t); });
            r.attribution.push_back(std::move(a));
        }
        if (request.corrupted.empty()) {
            r.patching.error = "type a corrupted sentence (as many pieces as the first sentence) to patch";
        } else {
            run_view(r.patching, [&] {
                const InspectInput corrupted = corrupted_input(model, request, in);
                return activation_patching(model, in, corrupted, patch_metric(model, request));
            });
            // A refusal before the runs (different lengths) still shows both piece sequences.
            if (!r.patching.error.empty() && r.patching.clean_tokens.empty()) {
                try {
                    r.patching.clean_tokens = model.token_texts(model.decoder_only() ? in.tgt : in.src);
                    const InspectInput corrupted = corrupted_input(model, request, in);
                    r.patching.corrupted_tokens = model.token_texts(model.decoder_only() ? corrupted.tgt : corrupted.src);
                } catch (const std::exception&) {
                    // The corrupted sentence itself was refused (empty, too long): its error says so.
                }
            }
        }
    } catch (const std::exception& e) {
        r.error = e.what();
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

}  // namespace tx::explain
