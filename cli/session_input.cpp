// What txcli decode and speculative share: the session of the command's model, and its --src
// sentences as source rows (and a decoder-only model's prompts).
#include <stdexcept>

#include "commands.h"
#include "model_source.h"
#include "tx/length_limits.h"

namespace tx::cli {

// No model options: the shipped translation model, so a first "txcli decode --src ..." translates.
Session open_session(const Args& args) {
    Session session(model_from_options(args, args.flag("sample"), true),
                    backend_from_name(args.get_or("backend", "cpu"), precision_from_options(args)));
    session.set_positional_encoding(!args.flag("no-positional"));
    return session;
}

// Each source's ids + EOS, refused with its number when it does not fit max_len.
std::vector<std::vector<int>> source_rows(const Session& session, const std::vector<std::string>& sources) {
    const ModelConfig& c = session.config();
    std::vector<std::vector<int>> rows;
    for (size_t i = 0; i < sources.size(); ++i) {
        std::vector<int> src = session.tokenizer().encode(sources[i]);
        try {
            require_fits(static_cast<int>(src.size()), session.decoder_only() ? Marker::Bos : Marker::Eos, c.max_len,
                         "--src " + std::to_string(i + 1));
        } catch (const std::invalid_argument& e) {
            throw CliError(e.what());   // bad input: exit 2, as every option error
        }
        src.push_back(c.special.eos);
        rows.push_back(std::move(src));
    }
    return rows;
}

// Decoder-only: each source's ids without EOS, the prompt its continuation follows; else none.
std::vector<std::vector<int>> prompt_rows(const Session& session, const std::vector<std::vector<int>>& src) {
    std::vector<std::vector<int>> prompts;
    if (!session.decoder_only()) return prompts;
    for (const auto& row : src) prompts.emplace_back(row.begin(), row.end() - 1);
    return prompts;
}

}  // namespace tx::cli
