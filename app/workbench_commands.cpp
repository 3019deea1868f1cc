// Workbench's longer command bodies (see workbench.h; apply() in workbench.cpp dispatches to them):
// models, steps by name, the launch options' checks, the Generate panel, exports, and the Look
// inside and Precision computations.
#include "workbench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "backend_names.h"
#include "neuron_trace.h"
#include "tx/checkpoint.h"
#include "widgets/export.h"
#include "tx/generation_timing.h"
#include "tx/session.h"

namespace fs = std::filesystem;

namespace tx::app {

void Workbench::rebuild_now(const ModelConfig& config) {
    if (!m_session) return;
    if (const auto why = validate(config)) {
        report_error("not applied: " + *why);
        return;
    }
    const auto vocabulary = m_view.vocabulary;
    auto session = std::make_unique<Session>(Session::fresh(config, vocabulary, m_session->tokenizer().model()));
    replace_session(std::move(session), "untrained (rebuilt, seed " + std::to_string(config.seed) + ")");
    report_status("model rebuilt with fresh weights");
}

void Workbench::load_model(const std::string& path, std::vector<std::string> sentences) {
    try {
        auto session = std::make_unique<Session>(Session::load(path));
        replace_session(std::move(session), path, std::move(sentences));
        report_status("loaded " + path);
    } catch (const std::exception& e) {
        report_error("cannot load " + path + ": " + e.what());
    }
}

void Workbench::go_to_step(const GoToStep& c) {
    if (!m_session) return;
    Session& s = *m_session;
    size_t index = s.step_count();
    if (c.from_command_line) {
        // --step NAME or --step N (0-based).
        char* end = nullptr;
        const long n = std::strtol(c.step.c_str(), &end, 10);
        index = *end == '\0' && n >= 0 ? static_cast<size_t>(n) : s.model().find_step(c.step);
        if (index >= s.step_count()) {
            report_error("--step " + c.step + ": no such step (there are " + std::to_string(s.step_count()) + ", e.g. " +
                         s.model().steps().front().name + ")");
            return;
        }
        s.restart();
    } else {
        index = s.model().find_step(c.step);
        if (index >= s.step_count()) {
            report_error("no step named '" + c.step + "' in this model (its steps run from " + s.model().steps().front().name +
                         " to " + s.model().steps().back().name + ")");
            return;
        }
    }
    s.run_to(index);
    refresh(false);
    // A step inside an attention block also opens that block in the Attention panel.
    if (const int block = m_view.attention_block_of(index); block >= 0) m_selection.attention_block = block;
}

void Workbench::pick_attention_cell(const PickAttentionCell& c) {
    if (!m_view.valid) return;
    // Head and cell ranges are known only now, with the model and sentence loaded: a value out of
    // range ends the run like a bad argument (exit 2, one line).
    const explain::NeuronCell cell{m_selection.attention_block, 0, std::max(c.head, 0), std::max(c.query, 0), std::max(c.key, 0)};
    if (const std::string why = trace_neuron(m_view, cell).error; !why.empty()) {
        std::string given = c.head >= 0 ? "--head " + std::to_string(cell.head) : "";
        if (c.query >= 0)
            given += (given.empty() ? "--neuron " : " --neuron ") + std::to_string(cell.query) + "," + std::to_string(cell.key);
        m_bad_launch_value = given + ": " + why;
        return;
    }
    if (c.head >= 0) {
        m_selection.head = c.head;
        m_selection.single_head = true;
    }
    if (c.query >= 0) {
        m_selection.neuron_query = c.query;
        m_selection.neuron_key = c.key;
    }
}

// ---------------------------------------------------------------------------------------------
// The Generate panel: a token-by-token run of the first sentence on a copy of the model.

void Workbench::compute_generation_now() {
    if (!m_session || m_session->source_tokens().empty()) return;
    const int token = m_view.generation.token, step = m_view.generation.step;
    const bool first = m_view.generation.tokens.empty();
    std::vector<int> src;
    for (const Token& t : m_session->source_tokens().front()) src.push_back(t.id);
    if (!m_session->decoder_only()) src.push_back(m_session->config().special.eos);   // a prompt has no EOS
    explain::GenerationTrace trace;
    try {
        trace = compute_generation(m_session->model(), src, m_generation);
    } catch (const std::exception& e) {
        // Shown in the panel once, not retried every frame.
        trace = explain::GenerationTrace{};
        trace.stale = false;
        trace.settings = m_generation;
        trace.error = std::string("Cannot generate: ") + e.what();
    }
    trace.sentence = m_session->sentences().front();
    std::vector<int> out;
    for (const explain::GeneratedToken& t : trace.tokens)
        if (t.chosen != m_session->config().special.eos) out.push_back(t.chosen);
    trace.text = m_session->tokenizer().decode(out);
    // The first trace opens at token 1 with its pass done; later ones keep the cursor's place.
    const int steps = static_cast<int>(explain::generation_steps(m_session->config(), m_session->model().options().positional_encoding).size());
    trace.token = first ? 1 : std::clamp(token, 1, std::max(1, static_cast<int>(trace.tokens.size())));
    trace.step = first ? steps - 1 : std::clamp(step, 0, steps - 1);
    m_view.generation = std::move(trace);
    ++m_view.version;
}

void Workbench::show_generated_token(const ShowGeneratedToken& c) {
    if (!m_session) return;
    // Like --neuron: the output's length is known only once it is generated; out of range ends
    // the run as a bad argument does (exit 2, one line).
    compute_generation_now();
    explain::GenerationTrace& g = m_view.generation;
    std::string why = g.error;
    if (why.empty() && c.token > static_cast<int>(g.tokens.size()))
        why = "the output has " + std::to_string(g.tokens.size()) + " token(s)" + (g.finished ? ", EOS included" : "");
    if (!why.empty()) {
        m_bad_launch_value = "--generate " + std::to_string(c.token) + ": " + why;
        return;
    }
    g.token = c.token;
    g.step = static_cast<int>(explain::generation_steps(m_view.config, m_view.options.positional_encoding).size()) - 1;
}

void Workbench::measure_generation() {
    if (!m_session || m_view.source_tokens.empty()) return;
    // A model of its own on a backend of the same kind, so the session's batch, cursor and views
    // stay as they are; the teaching toggles are left out (the cache needs the causal mask), fused
    // attention kept.
    const std::shared_ptr<const Checkpoint> twin = m_twin.get(*m_session);
    std::unique_ptr<Backend> backend = make_backend(m_session->backend().name());
    Transformer model(twin->config, *backend);
    model.set_parameters(twin->parameters);
    model.options().fused_attention = m_session->options().fused_attention;
    std::vector<int> src;
    for (const Token& t : m_view.source_tokens.front()) src.push_back(t.id);
    src.push_back(twin->config.special.eos);
    m_view.generation_timing = time_generation(model, src, generation_timing_lengths(twin->config.max_len), 5);
    ++m_view.version;
}

void Workbench::export_csv(const ExportCsv& c) {
    const std::string path = export_path(c.base_name, "csv");
    try {
        write_text_atomic(path, c.text);
        report_status("wrote " + path);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

// ---------------------------------------------------------------------------------------------
// The Look inside panel: its five views of the first sentence, on the shared model copy off the GUI
// thread (head importance and the patching grids take about 2 s on the everyday model). The
// Precision panel: the first sentence in FP32 and in a lower precision, the same way (about 0.6 s).

void Workbench::compute_look_inside(const ComputeLookInside& c) {
    if (!m_session || m_view.look_inside_computing) return;
    std::shared_ptr<const Checkpoint> checkpoint = m_twin.get(*m_session);
    if (m_headless) {
        // Screenshots and the self-test show the finished views, so they wait for them.
        m_view.look_inside = std::make_shared<const explain::LookInside>(explain::compute_look_inside(std::move(checkpoint), c.request));
        ++m_view.version;
        return;
    }
    m_look_inside_running_epoch = m_full_refresh_epoch;
    m_look_inside_running = std::async(std::launch::async, [checkpoint = std::move(checkpoint), request = c.request]() mutable {
        return std::make_shared<const explain::LookInside>(explain::compute_look_inside(std::move(checkpoint), request));
    });
    m_view.look_inside_computing = true;
}

void Workbench::adopt_look_inside() {
    if (!m_look_inside_running.valid() ||
        m_look_inside_running.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        return;
    std::shared_ptr<const explain::LookInside> result = m_look_inside_running.get();
    m_view.look_inside_computing = false;
    // Made for a model or input that has changed since: dropped (the panel asks again).
    if (m_look_inside_running_epoch != m_full_refresh_epoch) return;
    m_view.look_inside = std::move(result);
    ++m_view.version;
}

void Workbench::compute_precision(const ComputePrecision& c) {
    if (!m_session || m_view.precision_computing) return;
    std::shared_ptr<const Checkpoint> checkpoint = m_twin.get(*m_session);
    if (m_headless) {
        m_view.precision = std::make_shared<const explain::PrecisionView>(compute_precision_view(std::move(checkpoint), c.request));
        ++m_view.version;
        return;
    }
    m_precision_running_epoch = m_full_refresh_epoch;
    m_precision_running = std::async(std::launch::async, [checkpoint = std::move(checkpoint), request = c.request]() mutable {
        return std::make_shared<const explain::PrecisionView>(compute_precision_view(std::move(checkpoint), request));
    });
    m_view.precision_computing = true;
}

void Workbench::adopt_precision() {
    if (!m_precision_running.valid() ||
        m_precision_running.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        return;
    std::shared_ptr<const explain::PrecisionView> result = m_precision_running.get();
    m_view.precision_computing = false;
    if (m_precision_running_epoch != m_full_refresh_epoch) return;   // of a model or input changed since
    m_view.precision = std::move(result);
    ++m_view.version;
}

}  // namespace tx::app
