// compare_backends (see backend_comparison.h).
#include "tx/backend_comparison.h"

#include <algorithm>
#include <cmath>

namespace tx {

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0.0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (a[i] == b[i]) continue;
        const double d = std::abs(static_cast<double>(a[i]) - b[i]);
        worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
    return worst;
}

namespace {

// The batch rows without their trailing PAD (set_batch pads them again).
std::vector<std::vector<int>> unpadded(const std::vector<int32_t>& ids, int B, int len, int pad) {
    std::vector<std::vector<int>> rows(static_cast<size_t>(B));
    for (int b = 0; b < B; ++b) {
        int n = len;
        while (n > 0 && ids[static_cast<size_t>(b) * len + n - 1] == pad) --n;
        rows[b].assign(ids.begin() + static_cast<std::ptrdiff_t>(b) * len,
                       ids.begin() + static_cast<std::ptrdiff_t>(b) * len + n);
    }
    return rows;
}

}  // namespace

BackendComparison compare_backends(Transformer& model, Backend& other) {
    const int pad = model.config().special.pad;
    Transformer twin(model.config(), other);
    twin.set_parameters(model.download_parameters());
    twin.options() = model.options();
    twin.set_batch(unpadded(model.src_ids(), model.batch_size(), model.src_len(), pad),
                   unpadded(model.tgt_ids(), model.batch_size(), model.tgt_len(), pad));
    // A first pass on each warms caches and (on a GPU) loads the kernels; the second is timed.
    for (Transformer* m : {&model, &twin}) {
        m->forward();
        m->forward();
    }
    BackendComparison c;
    c.reference = model.backend().name();
    c.other = other.name();
    for (size_t i = 0; i < model.step_count(); ++i) {
        const StepInfo& info = model.steps()[i];
        c.materialised.push_back(info.materialised);
        c.reference_ms.push_back(info.ms);
        c.other_ms.push_back(twin.steps()[i].ms);
        c.reference_total_ms += info.ms;
        c.other_total_ms += twin.steps()[i].ms;
        const double d = info.materialised ? max_abs_diff(model.step_output(i), twin.step_output(i)) : 0.0;
        c.max_diff.push_back(d);
        c.worst_diff = std::max(c.worst_diff, d);
    }
    return c;
}

}  // namespace tx
