// ExplorerApp's Commands (see panel.h): queued by the panels during a frame and applied after
// it, so a frame reads one snapshot; then the status line and log messages, exports, and the
// commands that lessons use (open a model, go to a step, highlight a panel).
#include "explorer_app.h"

#include "panels/precision_panel.h"

#include <algorithm>
#include <filesystem>

#include "tx/backend_comparison.h"
#include "backend_names.h"
#include "tx/checkpoint.h"
#include "tx/generation_timing.h"
#include "tx/session.h"

namespace fs = std::filesystem;

namespace tx::app {

// ---------------------------------------------------------------------------------------------
// Commands: queued, applied after the frame.

void ExplorerApp::queue(std::function<void()> command) { m_commands.push_back(std::move(command)); }

void ExplorerApp::apply_commands() {
    auto commands = std::move(m_commands);
    m_commands.clear();
    for (auto& c : commands) {
        try {
            c();
        } catch (const DeviceError& e) {
            // A device failure (out of memory, a failed launch): report it and go on on the CPU.
            report_error(e.what());
            if (m_session && m_session->backend().name() != "cpu") {
                try {
                    m_session->set_backend(make_cpu_backend());
                    report_status("switched back to the CPU backend");
                } catch (const std::exception& again) {
                    report_error(std::string("could not move the weights back to the CPU: ") + again.what() +
                                 "; reload the model");
                }
                refresh(true);
            }
        } catch (const std::exception& e) {
            report_error(e.what());
        }
    }
}

void ExplorerApp::set_input(std::vector<std::string> sentences, std::optional<std::string> target) {
    queue([this, sentences = std::move(sentences), target = std::move(target)] { do_set_input(sentences, target); });
}

void ExplorerApp::step_forward() { queue([this] { if (m_session) { m_session->step_forward(); refresh(false); } }); }
void ExplorerApp::step_back() { queue([this] { if (m_session) { m_session->step_back(); refresh(false); } }); }
void ExplorerApp::next_layer() {
    queue([this] {
        if (!m_session) return;
        const size_t b = m_session->next_layer_boundary();
        if (b > m_session->cursor()) m_session->run_to(b - 1);
        refresh(false);
    });
}
void ExplorerApp::previous_layer() {
    queue([this] {
        if (!m_session) return;
        const size_t b = m_session->previous_layer_boundary();
        if (b == 0) m_session->restart();
        else m_session->run_to(b - 1);
        refresh(false);
    });
}
void ExplorerApp::run_to_end() { queue([this] { if (m_session) { m_session->run_to_end(); refresh(false); } }); }
void ExplorerApp::restart() { queue([this] { if (m_session) { m_session->restart(); refresh(false); } }); }
void ExplorerApp::run_to(size_t step) { queue([this, step] { if (m_session) { m_session->run_to(step); refresh(false); } }); }

void ExplorerApp::set_decoding(int beam_size, double length_penalty) {
    queue([this, beam_size, length_penalty] {
        if (!m_session) return;
        try {
            m_session->set_decoding({beam_size, length_penalty});
            refresh(true);
        } catch (const std::exception& e) {
            report_error(e.what());
        }
    });
}
void ExplorerApp::set_positional_encoding(bool on) {
    queue([this, on] { if (m_session) { m_session->set_positional_encoding(on); refresh(true); } });
}
void ExplorerApp::set_causal_mask(bool on) { queue([this, on] { if (m_session) { m_session->set_causal_mask(on); refresh(true); } }); }
void ExplorerApp::set_padding_mask(bool on) { queue([this, on] { if (m_session) { m_session->set_padding_mask(on); refresh(true); } }); }
void ExplorerApp::set_head_enabled(const std::string& prefix, int head, bool on) {
    queue([this, prefix, head, on] { if (m_session) { m_session->set_head_enabled(prefix, head, on); refresh(true); } });
}
void ExplorerApp::enable_all_heads() {
    queue([this] {
        if (!m_session) return;
        const auto disabled = m_session->options().disabled_heads;
        for (const auto& [prefix, heads] : disabled)
            for (int h : heads) m_session->set_head_enabled(prefix, h, true);
        refresh(true);
    });
}

void ExplorerApp::rebuild_model(const ModelConfig& config) {
    queue([this, config] { rebuild_now(config); });
}

void ExplorerApp::rebuild_variant(const ModelVariant& variant) {
    queue([this, variant] { rebuild_now(apply_variant(m_session->config(), variant)); });
}

void ExplorerApp::rebuild_now(const ModelConfig& config) {
    if (const auto why = validate(config)) {
        report_error("not applied: " + *why);
        return;
    }
    const auto vocabulary = m_view.vocabulary;
    auto session = std::make_unique<Session>(Session::fresh(config, vocabulary, m_session->tokenizer().model()));
    replace_session(std::move(session), "untrained (rebuilt, seed " + std::to_string(config.seed) + ")");
    report_status("model rebuilt with fresh weights");
}

void ExplorerApp::load_checkpoint(const std::string& path) {
    queue([this, path] {
        try {
            auto session = std::make_unique<Session>(Session::load(path));
            replace_session(std::move(session), path);
            report_status("loaded " + path);
        } catch (const std::exception& e) {
            report_error("cannot load " + path + ": " + e.what());
        }
    });
}

void ExplorerApp::open_catalog_model(const std::string& file, const std::string& sentence) {
    const std::string path = resolve_asset("models/" + file);
    queue([this, path, sentence] {
        try {
            auto session = std::make_unique<Session>(Session::load(path));
            replace_session(std::move(session), path, {sentence});
            report_status("loaded " + path);
        } catch (const std::exception& e) {
            report_error("cannot load " + path + ": " + e.what());
        }
    });
}

void ExplorerApp::save_checkpoint(const std::string& path) {
    queue([this, path] {
        try {
            m_session->save(path);
            report_status("saved " + path);
        } catch (const std::exception& e) {
            report_error("cannot save " + path + ": " + e.what());
        }
    });
}

void ExplorerApp::set_backend(const std::string& name) {
    queue([this, name] {
        if (!m_session || m_session->backend().name() == name) return;
        m_session->set_backend(make_backend(name));   // a DeviceError leaves the CPU in place
        report_status("backend: " + name);
        refresh(true);
    });
}

void ExplorerApp::set_fused_attention(bool on) {
    queue([this, on] { if (m_session) { m_session->set_fused_attention(on); refresh(true); } });
}

void ExplorerApp::compare_backends() {
    queue([this] {
        if (!m_session || m_view.B == 0) return;
        const std::string other = m_session->backend().name() == "cpu" ? "cuda" : "cpu";
        std::unique_ptr<Backend> backend = make_backend(other);
        BackendComparison c = tx::compare_backends(m_session->model(), *backend);
        refresh(true);   // the session's steps were re-run: fresh times, same values
        m_view.comparison = std::move(c);
    });
}

void ExplorerApp::report_error(const std::string& message) {
    ++m_error_count;
    m_status = message;
    m_status_error = true;
    m_log.push_back({message, true, now_s()});
    if (m_log.size() > 200) m_log.pop_front();
    if (m_options.headless()) std::fprintf(stderr, "transformer-explorer: error: %s\n", message.c_str());
}

void ExplorerApp::report_status(const std::string& message) {
    m_status = message;
    m_status_error = false;
    m_log.push_back({message, false, now_s()});
    if (m_log.size() > 200) m_log.pop_front();
}

std::string ExplorerApp::export_path(const std::string& base_name, const char* extension) {
    std::string dir = m_settings.export_dir.empty() ? std::string("/tmp/transformer-explorer-exports") : m_settings.export_dir;
    std::string stem = dir + "/" + base_name;
    std::string path = stem + "." + extension;
    for (int i = 2; fs::exists(path) && i < 10000; ++i) path = stem + "-" + std::to_string(i) + "." + extension;
    return path;
}

void ExplorerApp::export_region_png(ImVec2 min, ImVec2 max, const std::string& path) {
    m_region_exports.push_back({min, max, path});
}

void ExplorerApp::show_panel(const std::string& key) {
    for (auto& p : m_panels)
        if (p->key() == key) {
            p->open() = true;
            p->request_focus();
        }
}

void ExplorerApp::set_attention_scaling(bool on) {
    queue([this, on] { if (m_session) { m_session->set_attention_scaling(on); refresh(true); } });
}

void ExplorerApp::open_model(const std::string& key) {
    std::string known;
    for (const CatalogModel& m : m_catalog) {
        const std::string stem = fs::path(m.file).stem().string();
        if (stem == key) return open_catalog_model(m.file, m.sentence);
        known += (known.empty() ? "" : ", ") + stem;
    }
    report_error("no shipped model '" + key + "' (File \xE2\x86\x92 Models has: " + (known.empty() ? "none" : known) + ")");
}

void ExplorerApp::go_to_step(const std::string& name) {
    queue([this, name] {
        if (!m_session) return;
        const size_t index = m_session->model().find_step(name);
        if (index >= m_session->step_count()) {
            report_error("no step named '" + name + "' in this model (its steps run from " +
                         m_session->model().steps().front().name + " to " + m_session->model().steps().back().name + ")");
            return;
        }
        m_session->run_to(index);
        refresh(false);
        if (const int block = m_view.attention_block_of(index); block >= 0) m_selection.attention_block = block;
    });
}

void ExplorerApp::open_neuron_view(int query, int key) {
    queue([this, query, key] {
        m_selection.neuron_query = query;
        m_selection.neuron_key = key;
        show_panel("neuron");
    });
}

void ExplorerApp::select_attention(const std::string& prefix, int head) {
    queue([this, prefix, head] {
        for (size_t i = 0; i < m_view.attention.size(); ++i)
            if (m_view.attention[i].prefix == prefix) {
                if (head < 0 || head >= m_view.config.heads) {
                    report_error(prefix + " has heads 0 to " + std::to_string(m_view.config.heads - 1) + ", not " + std::to_string(head));
                    return;
                }
                m_selection.attention_block = static_cast<int>(i);
                m_selection.head = head;
                return;
            }
        report_error("no attention block '" + prefix + "' in this model");
    });
}

void ExplorerApp::highlight_panel(const std::string& key) {
    // Queued after the step's other commands: the panel is raised once its model and input are set.
    queue([this, key] {
        for (auto& p : m_panels)
            if (p->key() == key) {
                show_panel(key);
                m_highlight = key;
                m_highlight_until = now_s() + HIGHLIGHT_S;
                return;
            }
        report_error("no panel '" + key + "' to highlight");
    });
}


// ---------------------------------------------------------------------------------------------
// The Generate panel: a token-by-token run of the first sentence on a copy of the model.

void ExplorerApp::compute_generation_now() {
    if (!m_session || m_session->source_tokens().empty()) return;
    const int token = m_view.generation.token, step = m_view.generation.step;
    const bool first = m_view.generation.tokens.empty();
    std::vector<int> src;
    for (const Token& t : m_session->source_tokens().front()) src.push_back(t.id);
    if (!m_session->decoder_only()) src.push_back(m_session->config().special.eos);   // a prompt has no EOS
    GenerationTrace trace;
    try {
        trace = compute_generation(m_session->model(), src, m_generation);
    } catch (const std::exception& e) {
        // Shown in the panel once, not retried every frame.
        trace = GenerationTrace{};
        trace.stale = false;
        trace.settings = m_generation;
        trace.error = std::string("Cannot generate: ") + e.what();
    }
    trace.sentence = m_session->sentences().front();
    std::vector<int> out;
    for (const GeneratedToken& t : trace.tokens)
        if (t.chosen != m_session->config().special.eos) out.push_back(t.chosen);
    trace.text = m_session->tokenizer().decode(out);
    // The first trace opens at token 1 with its pass done; later ones keep the cursor's place.
    const int steps = static_cast<int>(generation_steps(m_session->config(), m_session->model().options().positional_encoding).size());
    trace.token = first ? 1 : std::clamp(token, 1, std::max(1, static_cast<int>(trace.tokens.size())));
    trace.step = first ? steps - 1 : std::clamp(step, 0, steps - 1);
    m_view.generation = std::move(trace);
    ++m_view.version;
}

void ExplorerApp::set_generation(const GenerationSettings& settings) {
    queue([this, settings] {
        m_generation = settings;
        compute_generation_now();
        if (!m_view.generation.error.empty()) report_error(m_view.generation.error);
    });
}

void ExplorerApp::update_generation() {
    queue([this] {
        if (m_view.generation.stale) compute_generation_now();
    });
}

void ExplorerApp::set_generation_cursor(int token, int step) {
    queue([this, token, step] {
        GenerationTrace& g = m_view.generation;
        if (g.tokens.empty() || !m_session) return;
        const int steps = static_cast<int>(generation_steps(m_session->config(), m_session->model().options().positional_encoding).size());
        g.token = std::clamp(token, 1, static_cast<int>(g.tokens.size()));
        g.step = std::clamp(step, 0, steps - 1);
        ++m_view.version;
    });
}

void ExplorerApp::measure_generation() {
    queue([this] {
        if (!m_session || m_view.source_tokens.empty()) return;
        // A twin on a backend of the same kind, so the session's batch, cursor and views stay as they
        // are; the teaching toggles are left out (the cache needs the causal mask), fused attention kept.
        const Checkpoint checkpoint = m_session->checkpoint();
        std::unique_ptr<Backend> backend = make_backend(m_session->backend().name());
        Transformer twin(checkpoint.config, *backend);
        twin.set_parameters(checkpoint.parameters);
        twin.options().fused_attention = m_session->options().fused_attention;
        std::vector<int> src;
        for (const Token& t : m_view.source_tokens.front()) src.push_back(t.id);
        src.push_back(checkpoint.config.special.eos);
        m_view.generation_timing = time_generation(twin, src, generation_timing_lengths(checkpoint.config.max_len), 5);
        ++m_view.version;
    });
}

}  // namespace tx::app

// ---------------------------------------------------------------------------------------------
// The Look inside panel: its five views of the first sentence, on a checkpoint copy off the GUI
// thread (head importance and the patching grids take about 2 s on the everyday model).

namespace tx::app {

void ExplorerApp::compute_look_inside(const LookInsideRequest& request) {
    queue([this, request] {
        if (!m_session || m_view.look_inside_computing) return;
        Checkpoint checkpoint = m_session->checkpoint();
        if (m_options.headless()) {
            // Screenshots and the self-test show the finished views, so they wait for them.
            m_view.look_inside = std::make_shared<const LookInside>(tx::app::compute_look_inside(std::move(checkpoint), request));
            ++m_view.version;
            return;
        }
        m_look_inside_running_epoch = m_look_inside_epoch;
        m_look_inside_running = std::async(std::launch::async, [checkpoint = std::move(checkpoint), request]() mutable {
            return std::make_shared<const LookInside>(tx::app::compute_look_inside(std::move(checkpoint), request));
        });
        m_view.look_inside_computing = true;
    });
}

void ExplorerApp::adopt_look_inside() {
    if (!m_look_inside_running.valid() ||
        m_look_inside_running.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        return;
    std::shared_ptr<const LookInside> result = m_look_inside_running.get();
    m_view.look_inside_computing = false;
    // Made for a model or input that has changed since: dropped (the panel asks again).
    if (m_look_inside_running_epoch != m_look_inside_epoch) return;
    m_view.look_inside = std::move(result);
    ++m_view.version;
}

}  // namespace tx::app

// ---------------------------------------------------------------------------------------------
// The Precision panel: the first sentence in FP32 and in a lower precision, on a checkpoint copy
// off the GUI thread (about 0.6 s of CPU on the everyday model).

namespace tx::app {

void ExplorerApp::compute_precision(const PrecisionRequest& request) {
    queue([this, request] {
        if (!m_session || m_view.precision_computing) return;
        Checkpoint checkpoint = m_session->checkpoint();
        if (m_options.headless()) {
            m_view.precision = std::make_shared<const PrecisionView>(compute_precision_view(std::move(checkpoint), request));
            ++m_view.version;
            return;
        }
        m_precision_running_epoch = m_precision_epoch;
        m_precision_running = std::async(std::launch::async, [checkpoint = std::move(checkpoint), request]() mutable {
            return std::make_shared<const PrecisionView>(compute_precision_view(std::move(checkpoint), request));
        });
        m_view.precision_computing = true;
    });
}

void ExplorerApp::set_precision(PrecisionMode mode, float embedding_scale) {
    for (auto& p : m_panels)
        if (auto* precision = dynamic_cast<PrecisionPanel*>(p.get())) {
            if (!precision->set_mode(mode)) {
                report_error("The Precision panel cannot run " + tx::describe(mode) + ": " + validate(mode).value_or(""));
                return;
            }
            precision->set_embedding_scale(embedding_scale);
        }
}

void ExplorerApp::adopt_precision() {
    if (!m_precision_running.valid() ||
        m_precision_running.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        return;
    std::shared_ptr<const PrecisionView> result = m_precision_running.get();
    m_view.precision_computing = false;
    if (m_precision_running_epoch != m_precision_epoch) return;   // of a model or input changed since
    m_view.precision = std::move(result);
    ++m_view.version;
}

}  // namespace tx::app
