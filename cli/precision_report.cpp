// txcli forward --compare (docs/cli.md, docs/precision.md): the same sentences through the model
// in FP32 and in the chosen precision (precision_comparison.h), printed as a table: each step's
// largest |Δ|, its relative error and the non-finite values, the logits' difference, and where
// the greedy outputs part.
#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "commands.h"
#include "model_source.h"
#include "tx/decoding.h"
#include "tx/length_limits.h"
#include "tx/precision_comparison.h"

namespace tx::cli {

int forward_compare_precision(const Args& args, const Checkpoint& checkpoint, PrecisionMode mode) {
    if (mode.format == Precision::Fp32) throw CliError("--compare needs --precision bf16, fp16 or int8");
    if (args.get_or("backend", "cpu") != "cpu") throw CliError("--compare runs on the cpu backend only");
    if (args.has("tgt")) throw CliError("--compare decodes greedily; it takes no --tgt");
    const Tokenizer tokenizer = make_tokenizer(checkpoint);
    const ModelConfig& c = checkpoint.config;
    const bool decoder_only = c.arch == Arch::DecoderOnly;
    std::vector<std::vector<int>> src, prompts;
    size_t longest = 0;
    for (const std::string& text : args.all("src")) {
        std::vector<int> ids = tokenizer.encode(text);
        try {
            require_fits(static_cast<int>(ids.size()), decoder_only ? Marker::Bos : Marker::Eos, c.max_len,
                         "--src '" + text + "'");
        } catch (const std::invalid_argument& e) {
            throw CliError(e.what());   // bad input: exit 2, as every option error
        }
        if (decoder_only) prompts.push_back(ids);
        ids.push_back(c.special.eos);
        longest = std::max(longest, ids.size());
        src.push_back(std::move(ids));
    }
    const int limit = decoder_only ? CONTINUATION_TOKENS : translation_limit(static_cast<int>(longest), c.max_len);
    const PrecisionComparison r = compare_precision(checkpoint, mode, src, limit, prompts);

    std::printf("fp32 against %s, teacher-forced on the fp32 greedy output (docs/precision.md)\n",
                describe(mode).c_str());
    std::printf("%-4s %-46s %12s %12s %9s\n", "#", "step", "max |d|", "rel. error", "inf/NaN");
    for (size_t i = 0; i < r.steps.size(); ++i) {
        const StepPrecisionDifference& d = r.steps[i];
        if (!d.materialised) {
            std::printf("%-4zu %-46s (not materialised)\n", i, d.name.c_str());
            continue;
        }
        if (d.finite_pairs == 0)   // every value inf/NaN in one run: nothing to compare
            std::printf("%-4zu %-46s %12s %12s %9lld\n", i, d.name.c_str(), "-", "-", static_cast<long long>(d.nonfinite));
        else
            std::printf("%-4zu %-46s %12.4g %12.4g %9lld\n", i, d.name.c_str(), d.max_abs, d.relative,
                        static_cast<long long>(d.nonfinite));
    }
    std::printf("logits: max |d| %.4g, relative %.4g\n", r.logits_max_abs, r.logits_relative);
    for (size_t b = 0; b < src.size(); ++b) {
        std::printf("fp32 output %zu: %s\n", b + 1, tokenizer.decode(r.fp32_output[b]).c_str());
        std::printf("%s output %zu: %s\n", to_string(mode.format), b + 1, tokenizer.decode(r.low_output[b]).c_str());
        if (r.first_change[b] < 0) std::printf("greedy output %zu: the same tokens\n", b + 1);
        else std::printf("greedy output %zu: first differs at token %d\n", b + 1, r.first_change[b] + 1);
    }
    return 0;
}

}  // namespace tx::cli
