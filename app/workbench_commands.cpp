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
#include "tx/model_on_backend.h"
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
    const RunKeyedGeneration key = generation_key();
    if (m_generation_trace.get(key)) return;
    std::vector<int> src;
    for (const Token& t : m_session->source_tokens().front()) src.push_back(t.id);
    if (!m_session->decoder_only()) src.push_back(m_session->config().special.eos);   // a prompt has no EOS
    explain::GenerationTrace trace;
    try {
        trace = compute_generation(m_session->model(), src, m_generation);
    } catch (const std::exception& e) {
        // Shown in the panel once, not retried every frame: the result for this key is the error.
        trace = explain::GenerationTrace{};
        trace.settings = m_generation;
        trace.error = std::string("Cannot generate: ") + e.what();
    }
    trace.stale = false;
    trace.sentence = m_session->sentences().front();
    std::vector<int> out;
    for (const explain::GeneratedToken& t : trace.tokens)
        if (t.chosen != m_session->config().special.eos) out.push_back(t.chosen);
    trace.text = m_session->tokenizer().decode(out);
    m_generation_trace.put(key, std::move(trace));
}

void Workbench::show_generated_token(const ShowGeneratedToken& c) {
    if (!m_session) return;
    // Like --neuron: the output's length is known only once it is generated; out of range ends
    // the run as a bad argument does (exit 2, one line).
    compute_generation_now();
    const auto g = m_generation_trace.get(generation_key());
    if (!g) return;
    std::string why = g->error;
    if (why.empty() && c.token > static_cast<int>(g->tokens.size()))
        why = "the output has " + std::to_string(g->tokens.size()) + " token(s)" + (g->finished ? ", EOS included" : "");
    if (!why.empty()) {
        m_bad_launch_value = "--generate " + std::to_string(c.token) + ": " + why;
        return;
    }
    m_generation_token = c.token;
    m_generation_step = static_cast<int>(explain::generation_steps(m_session->config(), m_session->options().positional_encoding).size()) - 1;
    m_generation_cursor_placed = true;
}

void Workbench::measure_generation() {
    if (!m_session || m_session->source_tokens().empty()) return;
    // A model of its own on a backend of the same kind, so the session's batch, cursor and views
    // stay as they are; the teaching toggles are left out (the cache needs the causal mask), fused
    // attention kept.
    const std::shared_ptr<const Checkpoint> twin = m_twin.get(*m_session);
    const ModelOnBackend model = make_model(*twin, make_backend(m_session->backend().name()));
    model->options().fused_attention = m_session->options().fused_attention;
    std::vector<int> src;
    for (const Token& t : m_session->source_tokens().front()) src.push_back(t.id);
    src.push_back(twin->config.special.eos);
    m_generation_timing.put(m_session->run_version(),
                            time_generation(*model, src, generation_timing_lengths(twin->config.max_len), 5));
}

// The Decoding panel's speculative decoding: the settings are checked here, where a launch option
// or a test may send any value; the rounds are made for the selected sentence on a model of their
// own (the session's batch and cursor stay as they are), under the session's switches.
void Workbench::set_speculative(const SetSpeculative& c) {
    if (c.k < 1 || c.k > 16)
        throw std::invalid_argument("speculative decoding: k = " + std::to_string(c.k) + " proposals; choose 1 to 16");
    const int layers = m_session ? m_session->config().decoder_layers : 0;
    if (c.draft_layers < 0 || (c.draft_layers > 0 && c.draft_layers >= layers))
        throw std::invalid_argument("speculative decoding: a draft of " + std::to_string(c.draft_layers) +
                                    " decoder layers; the model has " + std::to_string(layers) +
                                    ", so the draft keeps 1 to " + std::to_string(std::max(layers - 1, 0)));
    m_speculative_settings = {c.k, c.draft_layers};
    m_speculative_open = c.open;
    if (c.open) update_speculative();
}

Workbench::RunKeyedSpeculative Workbench::speculative_key() const {
    return {m_session ? m_session->run_version() : 0, m_selection.batch_row, m_speculative_settings};
}

void Workbench::update_speculative() {
    if (!m_session) return;
    const int row = m_selection.batch_row;
    if (row < 0 || row >= static_cast<int>(m_session->source_tokens().size()) ||
        row >= static_cast<int>(m_view.output_limit.size()))
        return;
    m_speculative.request(speculative_key(), [&] {
        const std::shared_ptr<const Checkpoint> twin = m_twin.get(*m_session);
        const ModelOnBackend model = make_model(*twin, make_backend(m_session->backend().name()));
        model->options() = m_session->options();
        std::vector<int> src;
        for (const Token& t : m_session->source_tokens()[static_cast<size_t>(row)]) src.push_back(t.id);
        std::vector<int> prompt;
        if (m_session->decoder_only()) prompt.swap(src);
        else src.push_back(twin->config.special.eos);
        return explain::speculative_view(*model, src, prompt, m_view.output_limit[static_cast<size_t>(row)],
                                         m_speculative_settings);
    }, false);
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

explain::LookInsideRequest Workbench::look_inside_request() const {
    explain::LookInsideRequest r;
    if (m_session && !m_session->sentences().empty()) r.source = m_session->sentences().front();
    if (m_session) r.target = m_session->target_text();
    r.corrupted = m_patching.corrupted;
    r.metric_position = m_patching.metric_position;
    r.metric_token = m_patching.metric_token;
    r.metric_versus = m_patching.metric_versus;
    return r;
}

explain::PrecisionRequest Workbench::precision_request() const {
    explain::PrecisionRequest r;
    if (m_session && !m_session->sentences().empty()) r.source = m_session->sentences().front();
    r.mode = m_precision_settings.mode;
    r.embedding_scale = m_precision_settings.embedding_scale;
    return r;
}

void Workbench::compute_look_inside() {
    if (!m_session) return;
    // Screenshots and the self-test (headless) show the finished views, so they wait for them.
    m_look_inside.request(look_inside_key(), [checkpoint = m_twin.get(*m_session), request = look_inside_request()]() mutable {
        return explain::compute_look_inside(std::move(checkpoint), request);
    }, !m_headless);
}

void Workbench::compute_precision() {
    if (!m_session) return;
    m_precision.request(precision_key(), [checkpoint = m_twin.get(*m_session), request = precision_request()]() mutable {
        return compute_precision_view(std::move(checkpoint), request);
    }, !m_headless);
}

// ---------------------------------------------------------------------------------------------
// The derived results in the SessionView: the one place that writes them.

std::string Workbench::known_words_key() const {
    // The known words change with the model's file and training record only, not with the input.
    return m_model_source + '\n' + m_session->training_json();
}

Workbench::ModelKeyedLookInside Workbench::look_inside_key() const {
    return {m_session->model_version(), look_inside_request()};
}

Workbench::ModelKeyedPrecision Workbench::precision_key() const {
    return {m_session->model_version(), precision_request()};
}

Workbench::RunKeyedGeneration Workbench::generation_key() const { return {m_session->run_version(), m_generation}; }

namespace {

// Sets `field` to `value`; true when that changed it.
template <class F, class V>
bool assign(F& field, V&& value) {
    if (field == value) return false;
    field = std::forward<V>(value);
    return true;
}

}  // namespace

void Workbench::publish_results() {
    if (!m_session) return;
    bool changed = false;

    // Known words: wanted by the Input panel whatever is open, so asked for here.
    const std::string words_key = known_words_key();
    m_known_words.adopt(words_key);
    m_known_words.request(words_key, [json = m_session->training_json(), tokenizer = m_session->config().tokenizer,
                                      assets = m_assets_dir] {
        return explain::load_known_words(json, tokenizer, [&](const std::string& p) { return assets.empty() ? p : assets + "/" + p; });
    }, !m_headless);
    changed |= assign(m_view.known_words, m_known_words.get(words_key));
    m_view.known_words_loading = m_known_words.running() && !m_view.known_words;

    // Look inside and Precision: asked for by their panels (ComputeLookInside, ComputePrecision).
    // While the current result is computed, the last one of the same model and sentence stays shown.
    const ModelKeyedLookInside look_key = look_inside_key();
    changed |= m_look_inside.adopt(look_key);
    std::shared_ptr<const explain::LookInside> look = m_look_inside.get(look_key);
    m_view.look_inside_current = look != nullptr;
    if (const auto* k = m_look_inside.latest_key(); !look && k && k->first == look_key.first &&
        k->second.source == look_key.second.source && k->second.target == look_key.second.target)
        look = m_look_inside.latest();
    changed |= assign(m_view.look_inside, std::move(look));
    m_view.look_inside_computing = m_look_inside.running();

    const ModelKeyedPrecision precision_key_now = precision_key();
    changed |= m_precision.adopt(precision_key_now);
    std::shared_ptr<const explain::PrecisionView> precision = m_precision.get(precision_key_now);
    m_view.precision_current = precision != nullptr;
    if (const auto* k = m_precision.latest_key(); !precision && k && k->first == precision_key_now.first &&
        k->second.source == precision_key_now.second.source)
        precision = m_precision.latest();
    changed |= assign(m_view.precision, std::move(precision));
    m_view.precision_computing = m_precision.running();

    // The Generate panel's trace with its cursor (a copy: the cursor lives in the view's trace). A
    // first trace opens at token 1 with its pass done; later ones keep the cursor's place.
    const std::shared_ptr<const explain::GenerationTrace> trace = m_generation_trace.get(generation_key());
    const int steps = static_cast<int>(explain::generation_steps(m_session->config(), m_session->options().positional_encoding).size());
    if (trace != m_published_trace) {
        m_view.generation = trace ? *trace : explain::GenerationTrace{};   // none: stale, the panel asks
        if (trace && !m_generation_cursor_placed) {
            m_generation_token = 1;
            m_generation_step = steps - 1;
            m_generation_cursor_placed = true;
        }
        m_published_trace = trace;
        changed = true;
    }
    if (trace) {
        const int token = std::clamp(m_generation_token, 1, std::max(1, static_cast<int>(trace->tokens.size())));
        const int step = std::clamp(m_generation_step, 0, std::max(0, steps - 1));
        m_generation_token = token;
        m_generation_step = step;
        changed |= assign(m_view.generation.token, token) | assign(m_view.generation.step, step);
    }

    // The Backend panel's plot of a benchmark file (of no model: it stays until another is read).
    changed |= assign(m_view.generation_bench, m_generation_bench);
    changed |= assign(m_view.generation_bench_error, m_generation_bench_error);
    // The Backend panel's measurements, of this run only.
    changed |= assign(m_view.generation_timing, m_generation_timing.get(m_session->run_version()));
    changed |= assign(m_view.comparison, m_comparison.get(m_session->run_version()));
    changed |= assign(m_view.speculative, m_speculative.get(speculative_key()));
    changed |= assign(m_view.speculative_k, m_speculative_settings.k) |
               assign(m_view.speculative_draft_layers, m_speculative_settings.draft_layers) |
               assign(m_view.speculative_open, m_speculative_open);
    if (changed) ++m_view.version;   // widgets key their caches on it
}

}  // namespace tx::app
