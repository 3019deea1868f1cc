// ExplorerApp (see explorer_app.h): session and trainer ownership, commands, layout, menu bar,
// status line, fonts, and the headless screenshot / self-test drivers.
#include "explorer_app.h"

#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>

#include "backend_comparison.h"
#include "backend_names.h"
#include "checkpoint.h"
#include "imgui_internal.h"
#include "imgui_stdlib.h"
#include "known_words.h"
#include "panel_registry.h"
#include "panels/lessons_panel.h"
#include "panels/training_panel.h"
#include "screenshot.h"
#include "self_test.h"
#include "session.h"
#include "settings.h"
#include "memory_reuse.h"
#include "neuron_trace.h"
#include "threads.h"
#include "trainer.h"
#include "widgets/export.h"
#include "widgets/heatmap.h"
#include "widgets/ui.h"

namespace fs = std::filesystem;

namespace tx::app {

namespace {

constexpr const char* DEFAULT_SENTENCE = "The animal didn't cross the street because it was too tired.";
constexpr float LEFT_COLUMN = 0.33f;    // share of the width for Input and Step-through
constexpr double HIGHLIGHT_S = 4.0;     // how long highlight_panel() frames a panel

std::string executable_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

std::string user_config_dir() {
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/transformer-explorer";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/transformer-explorer";
    return {};
}


// The same file by two paths (relative or absolute); false when either does not exist.
bool same_file(const std::string& a, const std::string& b) {
    std::error_code error;
    return fs::equivalent(a, b, error) && !error;
}

double now_s() { return ImGui::GetCurrentContext() ? ImGui::GetTime() : 0.0; }

}  // namespace


ExplorerApp::ExplorerApp(AppOptions options) : m_options(std::move(options)) {
    m_view.cuda_unavailable = backend_unavailable_reason("cuda");
    m_view.cuda_device = backend_device("cuda");
    // One matrix-product thread: the UI and the trainer thread each run on a core of their own;
    // an OpenMP pool per thread would spin against the other (shared/PERF.md).
    tx::set_cpu_threads(1);
    tx::keep_freed_memory_for_reuse();
    // Assets: --assets, next to the executable (installed), or the source tree.
    std::vector<std::string> candidates;
    if (!m_options.assets.empty()) candidates.push_back(m_options.assets);
    const std::string exe = executable_dir();
    if (!exe.empty()) {
        candidates.push_back(exe + "/assets");
        candidates.push_back(exe + "/../share/transformer-explorer/assets");
    }
#ifdef TX_ASSETS_DIR
    candidates.push_back(TX_ASSETS_DIR);
#endif
    for (const auto& c : candidates)
        if (fs::is_directory(c)) {
            m_assets_dir = c;
            break;
        }
    if (!m_options.assets.empty() && m_assets_dir != m_options.assets)
        report_error("assets folder '" + m_options.assets + "' not found; using " +
                     (m_assets_dir.empty() ? std::string("none") : m_assets_dir));

    // Settings live in the user's config directory, never the current one. Headless runs
    // (screenshots, self-test) neither read nor write them, so they are reproducible.
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    m_config_dir = user_config_dir();
    m_settings.export_dir = m_config_dir.empty() ? std::string() : m_config_dir + "/exports";
    if (const char* home = std::getenv("HOME"); home && *home) m_settings.export_dir = std::string(home) + "/transformer-explorer-exports";
    register_settings_handler(*this);
    if (!m_options.headless() && !m_config_dir.empty()) {
        std::error_code ec;
        fs::create_directories(m_config_dir, ec);
        if (ec) {
            report_error("cannot create " + m_config_dir + " (" + ec.message() + "): layout and settings are not saved");
        } else {
            m_ini_path = m_config_dir + "/imgui.ini";
            io.IniFilename = m_ini_path.c_str();
            ImGui::LoadIniSettingsFromDisk(m_ini_path.c_str());
        }
    }
    if (!m_options.layout.empty()) m_settings.layout = m_options.layout;

    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.TabRounding = 3.0f;
    style.GrabRounding = 3.0f;
    style.WindowPadding = ImVec2(10, 8);
    style.ItemSpacing = ImVec2(8, 6);
    load_fonts();

    make_panels();
    for (const auto& [key, open] : m_settings.panels_open)
        for (auto& p : m_panels)
            if (p->key() == key) p->open() = open;
    create_initial_session();
    if (m_options.beam_size > 1 && m_session) {
        m_session->set_decoding({m_options.beam_size, 0.6});
        refresh(true);
    }
    m_selection.attention_lines = m_options.attention_lines;
    if (m_options.fused_attention && m_session) {
        m_session->set_fused_attention(true);
        refresh(true);
    }

    if (!m_options.step.empty() && m_session) {
        try {
            size_t index = m_session->step_count();
            char* end = nullptr;
            const long n = std::strtol(m_options.step.c_str(), &end, 10);
            if (*end == '\0' && n >= 0)
                index = static_cast<size_t>(n);
            else
                index = m_session->model().find_step(m_options.step);
            if (index >= m_session->step_count())
                throw std::invalid_argument("--step " + m_options.step + ": no such step (there are " +
                                            std::to_string(m_session->step_count()) + ", e.g. " +
                                            m_session->model().steps().front().name + ")");
            m_session->restart();
            m_session->run_to(index);
            refresh(false);
            // A step inside an attention block also opens that block in the Attention panel.
            if (const int block = m_view.attention_block_of(index); block >= 0) m_selection.attention_block = block;
        } catch (const std::exception& e) {
            report_error(e.what());
        }
    }
    if ((m_options.head >= 0 || m_options.neuron_query >= 0) && m_view.valid) {
        // Head and cell ranges are known only now, with the model and sentence loaded: a value out of
        // range ends the run like a bad argument (exit 2, one line).
        const NeuronCell cell{m_selection.attention_block, 0, std::max(m_options.head, 0),
                              std::max(m_options.neuron_query, 0), std::max(m_options.neuron_key, 0)};
        if (const std::string why = trace_neuron(m_view, cell).error; !why.empty()) {
            std::string given = m_options.head >= 0 ? "--head " + std::to_string(cell.head) : "";
            if (m_options.neuron_query >= 0)
                given += (given.empty() ? "--neuron " : " --neuron ") + std::to_string(cell.query) + "," + std::to_string(cell.key);
            std::fprintf(stderr, "transformer-explorer: %s: %s (see --help)\n", given.c_str(), why.c_str());
            finish(2);
        } else {
            if (m_options.head >= 0) m_selection.head = m_options.head;
            if (m_options.neuron_query >= 0) {
                m_selection.neuron_query = m_options.neuron_query;
                m_selection.neuron_key = m_options.neuron_key;
                if (m_options.panel.empty() && m_options.layout.empty()) show_panel("neuron");
            }
        }
    }
    if (!m_options.panel.empty()) show_panel(m_options.panel);
    else if (!m_options.layout.empty() && m_options.layout != "default" && m_options.layout != "windows") show_panel(m_options.layout);
    if (m_options.self_test) m_self_test = std::make_unique<SelfTest>();
    if (m_options.lesson > 0)
        for (auto& p : m_panels)
            if (auto* lessons = dynamic_cast<LessonsPanel*>(p.get())) {
                if (m_options.lesson > static_cast<int>(lessons->lessons().size())) {
                    report_error("--lesson " + std::to_string(m_options.lesson) + ": there are " +
                                 std::to_string(lessons->lessons().size()) + " lessons");
                    break;
                }
                show_panel("lessons");
                lessons->open_lesson(m_options.lesson - 1);
                m_lesson_steps_left = m_options.lesson_steps;   // one "Do it" a frame, as a learner would
            }
    if (m_options.train_steps > 0) {
        const TaskKind task = task_from_string(m_options.train_task).value_or(TaskKind::Copy);
        if (task == TaskKind::Translate && m_options.train_from == "default")
            trainer_fine_tune(TrainingPanel::live_training(Preset::Translate, task), false);
        else if (task == TaskKind::Translate)
            trainer_configure(Preset::Translate, TrainingPanel::live_training(Preset::Translate, task));
        else
            trainer_configure(Preset::Tiny, TrainingPanel::live_training(Preset::Tiny, task));
        trainer_start();
    }
}

ExplorerApp::~ExplorerApp() {
    if (m_prepare_thread.joinable()) m_prepare_thread.join();
}

void ExplorerApp::shutdown() {
    heatmap_shutdown();
    if (m_trainer) m_trainer->pause();
}

std::string ExplorerApp::resolve_asset(const std::string& relative) const {
    return m_assets_dir.empty() ? relative : m_assets_dir + "/" + relative;
}

void ExplorerApp::load_fonts() {
    ImGuiIO& io = ImGui::GetIO();
    // The default ImGui font lacks the symbols of the formulas: build ranges that hold them.
    ImFontGlyphRangesBuilder builder;
    builder.AddRanges(io.Fonts->GetGlyphRangesDefault());
    static const ImWchar extra[] = {0x0370, 0x03FF,   // Greek
                                    0x2010, 0x205E,   // dashes, ‖, …, ′
                                    0x2070, 0x209F,   // superscripts and subscripts
                                    0x2190, 0x21FF,   // arrows
                                    0x2200, 0x22FF,   // mathematical operators (√ ∞ ≤ − ∑ ·)
                                    0x2300, 0x23FF,   // technical (⏵ ⏸ ⏹)
                                    0x2400, 0x243F,   // control pictures (␣)
                                    0x2580, 0x259F,   // block elements (▁, SentencePiece's word-start mark)
                                    0x25A0, 0x25FF,   // geometric shapes (▶ ■ ●)
                                    0x2700, 0x27BF,   // dingbats (✓ ✗)
                                    0x1D00, 0x1DBF,   // phonetic extensions (ᵀ)
                                    0};
    builder.AddRanges(extra);
    builder.BuildRanges(&m_ranges);
    const std::string sans = resolve_asset("fonts/DejaVuSans.ttf");
    const std::string mono = resolve_asset("fonts/DejaVuSansMono.ttf");
    ImFont* main_font = nullptr;
    if (fs::exists(sans)) main_font = io.Fonts->AddFontFromFileTTF(sans.c_str(), 16.0f, nullptr, m_ranges.Data);
    if (!main_font) {
        report_error("font " + sans + " not found: using ImGui's built-in font (some symbols will show as '?')");
        io.Fonts->AddFontDefault();
    }
    if (fs::exists(mono)) mono_font() = io.Fonts->AddFontFromFileTTF(mono.c_str(), 15.0f, nullptr, m_ranges.Data);
    if (!mono_font()) mono_font() = io.Fonts->Fonts[0];
}

void ExplorerApp::make_panels() {
    m_panels = make_registered_panels();
    for (auto& p : m_panels)
        if (auto* lessons = dynamic_cast<LessonsPanel*>(p.get())) {
            const std::string path = m_options.lessons.empty() ? resolve_asset("lessons") : m_options.lessons;
            for (const std::string& e : lessons->load(path, panel_keys())) report_error("lesson: " + e);
            for (const auto& q : m_panels) lessons->name_panel(q->key(), q->title());
        }
}

void ExplorerApp::create_initial_session() {
    try {
        m_catalog = read_model_catalog(resolve_asset("models/catalog.json"));
    } catch (const std::exception& e) {
        report_error(e.what());   // File -> Models stays empty; everything else works
    }
    std::string notice;
    std::unique_ptr<Session> session;
    std::string source;
    auto try_load = [&](const std::string& path) {
        try {
            session = std::make_unique<Session>(Session::load(path));
            source = path;
        } catch (const std::exception& e) {
            report_error("cannot load " + path + ": " + e.what());
        }
    };
    if (!m_options.checkpoint.empty()) try_load(m_options.checkpoint);
    const std::string default_model = resolve_asset("models/default.safetensors");
    if (!session && fs::exists(default_model)) try_load(default_model);
    if (!session) {
        if (!fs::exists(default_model)) notice = "default model not found: showing an untrained model";
        std::vector<std::string> vocabulary;
        const std::string words = resolve_asset("vocab/words.txt");
        try {
            vocabulary = load_vocabulary(words).tokens();
        } catch (const std::exception& e) {
            // Without the word list: the specials plus the default sentence's words, so the
            // window still opens with something to look at.
            report_error(std::string("vocabulary: ") + e.what());
            vocabulary = {"<pad>", "<bos>", "<eos>", "<unk>"};
            Tokenizer plain(TokenizerKind::Word, Vocabulary(vocabulary));
            for (const Token& t : plain.tokenize(DEFAULT_SENTENCE))
                if (std::find(vocabulary.begin(), vocabulary.end(), t.text) == vocabulary.end()) vocabulary.push_back(t.text);
        }
        try {
            ModelConfig config;   // the default tiny config: 64 / 4 heads / 256, 2+2 layers, words
            session = std::make_unique<Session>(Session::fresh(config, vocabulary));
            source = "untrained (fresh weights, seed " + std::to_string(config.seed) + ")";
        } catch (const std::exception& e) {
            report_error(std::string("cannot create a model: ") + e.what());
            return;
        }
    }
    std::vector<std::string> sentences = m_options.sentences;
    if (sentences.empty() && !m_options.headless() && !m_settings.sentences.empty()) sentences = m_settings.sentences;
    // A shipped model opens on the sentence the catalog gives it.
    for (const CatalogModel& m : m_catalog)
        if (sentences.empty() && same_file(source, resolve_asset("models/" + m.file))) sentences = {m.sentence};
    if (sentences.empty()) sentences = {DEFAULT_SENTENCE};
    m_session = std::move(session);
    m_model_source = source;
    do_set_input(sentences, std::nullopt);
    if (!m_view.valid) do_set_input({DEFAULT_SENTENCE}, std::nullopt);
    if (!notice.empty()) report_status(notice);
}

void ExplorerApp::refresh(bool full) {
    if (!m_session) return;
    try {
        refresh_view(m_view, *m_session, m_model_source, full);
        m_view.backend = m_session->backend().name();
        if (full) m_view.comparison.reset();   // it was of another input, model or backend
    } catch (const std::exception& e) {
        report_error(std::string("cannot read the model's state: ") + e.what());
    }
    // The known words change with the model only: read its corpus once, not on every input.
    const std::string key = m_model_source + '\n' + m_session->training_json();
    if (full && (key != m_known_words_key || !m_view.known_words)) {
        m_view.known_words = std::make_shared<const KnownWords>(load_known_words(
            m_session->training_json(), m_session->config().tokenizer, [this](const std::string& p) { return resolve_asset(p); }));
        m_known_words_key = key;
    }
    if (!m_view.attention.empty())
        m_selection.attention_block = std::clamp(m_selection.attention_block, 0, static_cast<int>(m_view.attention.size()) - 1);
    m_selection.head = std::clamp(m_selection.head, 0, std::max(0, m_view.config.heads - 1));
    m_selection.batch_row = std::clamp(m_selection.batch_row, 0, std::max(0, m_view.B - 1));
}

void ExplorerApp::do_set_input(const std::vector<std::string>& sentences, const std::optional<std::string>& target) {
    if (!m_session) return;
    try {
        m_session->set_input(sentences, target);
        if (!m_options.headless()) m_settings.sentences = sentences;
        refresh(true);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void ExplorerApp::replace_session(std::unique_ptr<Session> session, const std::string& source,
                                  std::vector<std::string> sentences) {
    if (sentences.empty()) sentences = m_view.sentences;
    if (sentences.empty()) sentences = {DEFAULT_SENTENCE};
    m_session = std::move(session);
    m_model_source = source;
    m_view.valid = false;
    try {
        m_session->set_input(sentences, std::nullopt);
    } catch (const std::exception& e) {
        // The new model may not know this text (another tokenizer, a shorter max_len).
        report_error(std::string("the current sentence does not fit the new model: ") + e.what());
    }
    if (m_session->sentences().empty()) {
        try {
            m_session->set_input({DEFAULT_SENTENCE}, std::nullopt);
        } catch (const std::exception& e) {
            report_error(e.what());
        }
    }
    refresh(true);
}

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
    queue([this, config] {
        if (const auto why = validate(config)) {
            report_error("not applied: " + *why);
            return;
        }
        const auto vocabulary = m_view.vocabulary;
        auto session = std::make_unique<Session>(Session::fresh(config, vocabulary, m_session->tokenizer().model()));
        replace_session(std::move(session), "untrained (rebuilt, seed " + std::to_string(config.seed) + ")");
        report_status("model rebuilt with fresh weights");
    });
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

struct ExplorerApp::PreparedTrainer {
    std::mutex mutex;
    bool done = false;
    std::unique_ptr<Trainer> trainer;
    std::string error;
};

void ExplorerApp::create_trainer(ModelConfig model, TrainingConfig training, std::function<Checkpoint()> start_from) {
    // Relative corpus paths ("assets/corpus/en-es/train.tsv", as the presets name them) are looked
    // up in the app's assets, wherever it runs from.
    for (std::string* path : {&training.data_path, &training.valid_path}) {
        const size_t at = path->rfind("assets/");
        if (!path->empty() && !fs::exists(*path) && at != std::string::npos && fs::exists(resolve_asset(path->substr(at + 7))))
            *path = resolve_asset(path->substr(at + 7));
    }
    // The old trainer may be mid-step: let it finish and die on a thread of its own, so the
    // UI never waits on it.
    if (m_trainer) std::thread([old = std::move(m_trainer)]() mutable { old.reset(); }).detach();
    m_trainer_info.training = training;
    m_trainer_info.model = model;
    m_trainer_info.preparing = true;
    m_when_ready = WhenReady::Nothing;
    m_training = TrainingSnapshot{};
    auto prepared = std::make_shared<PreparedTrainer>();
    m_prepared = prepared;
    // The trainer trains on the backend the explorer uses (its thread owns that device).
    const std::string backend = m_session ? m_session->backend().name() : "cpu";
    m_prepare_thread = std::thread([prepared, model, training, start_from, backend] {
        std::unique_ptr<Trainer> trainer;
        std::string error;
        try {
            const Checkpoint start = start_from ? start_from() : Checkpoint{};
            trainer = std::make_unique<Trainer>(start_from ? start.config : model, training,
                                                [backend] { return make_backend(backend); }, start_from ? &start : nullptr);
        } catch (const std::exception& e) {
            error = e.what();
        }
        std::lock_guard<std::mutex> lock(prepared->mutex);
        prepared->trainer = std::move(trainer);
        prepared->error = std::move(error);
        prepared->done = true;
    });
}

void ExplorerApp::adopt_prepared_trainer() {
    if (!m_prepared) return;
    {
        std::lock_guard<std::mutex> lock(m_prepared->mutex);
        if (!m_prepared->done) return;
        m_trainer = std::move(m_prepared->trainer);
        m_trainer_info.error = m_prepared->error;
    }
    m_prepared.reset();
    m_prepare_thread.join();
    m_trainer_info.preparing = false;
    if (!m_trainer) {
        report_error("cannot create the trainer: " + m_trainer_info.error);
        if (m_options.train_steps > 0 && m_launch_training_done_frame < 0) m_launch_training_done_frame = m_frame;
        return;
    }
    m_trainer_info.exists = true;
    m_trainer_info.model = m_trainer->model_config();
    m_training = m_trainer->snapshot();
    if (m_when_ready == WhenReady::Start) m_trainer->start();
    if (m_when_ready == WhenReady::Step) m_trainer->step_once();
    m_when_ready = WhenReady::Nothing;
}

void ExplorerApp::trainer_configure(Preset preset, const TrainingConfig& training) {
    queue([this, preset, training] {
        if (m_prepared) {
            report_error("the trainer is still being prepared: try again in a moment");
            return;
        }
        if (const auto why = validate(training)) {
            report_error("training settings not applied: " + *why);
            return;
        }
        m_trainer_info = TrainerInfo{};
        m_trainer_info.preset = preset;
        create_trainer(preset_model(preset), training, nullptr);
    });
}

void ExplorerApp::trainer_fine_tune(const TrainingConfig& training, bool explorer_model) {
    queue([this, training, explorer_model] {
        if (m_prepared) {
            report_error("the trainer is still being prepared: try again in a moment");
            return;
        }
        if (const auto why = validate(training)) {
            report_error("training settings not applied: " + *why);
            return;
        }
        std::function<Checkpoint()> start;
        ModelConfig model;
        m_trainer_info = TrainerInfo{};
        m_trainer_info.preset = Preset::Translate;
        if (explorer_model) {
            if (!m_session) return;
            // Copied now: the explorer may load another model while the trainer is being made.
            auto checkpoint = std::make_shared<const Checkpoint>(m_session->checkpoint());
            model = checkpoint->config;
            start = [checkpoint] { return *checkpoint; };
            m_trainer_info.start_from = "the explorer's model (" + m_model_source + ")";
        } else {
            const std::string path = resolve_asset("models/default.safetensors");
            start = [path] { return tx::load_checkpoint(path); };
            m_trainer_info.start_from = "the shipped translation model (" + path + ")";
        }
        create_trainer(model, training, start);
    });
}

void ExplorerApp::random_test_sentence() {
    queue([this] {
        const auto& known = m_view.known_words;
        if (!known || known->test_sentences.empty()) {
            report_error("this model has no test sentences to draw from" +
                         (known && !known->available() ? ": " + known->unavailable : std::string()));
            return;
        }
        static std::mt19937 rng(std::random_device{}());
        const std::vector<std::string>& all = known->test_sentences;
        std::string sentence = all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng)];
        // Another one than the sentence shown, when the split has more than one.
        if (all.size() > 1 && !m_view.sentences.empty() && sentence == m_view.sentences.front())
            sentence = all[(static_cast<size_t>(std::find(all.begin(), all.end(), sentence) - all.begin()) + 1) % all.size()];
        do_set_input({sentence}, std::nullopt);
    });
}

void ExplorerApp::follow_launch_training() {
    if (m_options.train_steps <= 0 || m_launch_training_done_frame >= 0) return;
    const TrainerState state = m_training.state;
    if (state == TrainerState::Running && m_training.step >= m_options.train_steps) trainer_pause();
    const bool ended = state == TrainerState::Finished || state == TrainerState::Diverged;
    if (ended || (state == TrainerState::Paused && m_training.step >= m_options.train_steps))
        m_launch_training_done_frame = m_frame;
}

void ExplorerApp::trainer_start() {
    queue([this] {
        if (m_prepared) m_when_ready = WhenReady::Start;
        else if (m_trainer) m_trainer->start();
    });
}
void ExplorerApp::trainer_pause() { queue([this] { if (m_trainer) m_trainer->pause(); }); }
void ExplorerApp::trainer_step() {
    queue([this] {
        if (m_prepared) m_when_ready = WhenReady::Step;
        else if (m_trainer) m_trainer->step_once();
    });
}
void ExplorerApp::trainer_reset() { queue([this] { if (m_trainer) m_trainer->reset(); }); }

void ExplorerApp::trainer_save(const std::string& path) {
    queue([this, path] {
        if (!m_trainer) return;
        try {
            tx::save_checkpoint(path, m_trainer->checkpoint());
            report_status("saved the trained model to " + path);
        } catch (const std::exception& e) {
            report_error("cannot save " + path + ": " + e.what());
        }
    });
}

void ExplorerApp::use_trained_model() {
    queue([this] {
        if (!m_trainer) return;
        auto session = std::make_unique<Session>(m_trainer->checkpoint());
        // Show the model on an input of its task (a held-out sample), not the English sentence.
        std::vector<std::string> sentences;
        if (!m_training.samples.empty()) {
            sentences.push_back(m_training.samples.front().input);
        } else if (!m_training.probe_source.empty()) {
            std::string probe;
            for (const auto& token : m_training.probe_source)
                if (token != "<eos>" && token != "<pad>") probe += (probe.empty() ? "" : " ") + token;
            sentences.push_back(probe);
        }
        const std::string source = "trainer (" + std::string(to_string(m_trainer_info.training.task)) + ", step " +
                                   std::to_string(m_training.step) + ")";
        replace_session(std::move(session), source, sentences);
        report_status("the explorer now shows the trained model: " + source);
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

void ExplorerApp::draw_highlight() {
    if (m_highlight.empty()) return;
    const double left = m_highlight_until - now_s();
    if (left <= 0.0) {
        m_highlight.clear();
        return;
    }
    for (const auto& p : m_panels) {
        if (p->key() != m_highlight || p->drawn_frame() != ImGui::GetFrameCount()) continue;
        // A slow pulse, fading out over the last second.
        const float pulse = 0.75f + 0.25f * static_cast<float>(std::sin(now_s() * 6.0));
        const float alpha = std::min(1.0f, static_cast<float>(left)) * pulse;
        const ImU32 colour = ImGui::GetColorU32(ImVec4(1.0f, 0.78f, 0.2f, alpha));
        ImDrawList* draw = ImGui::GetForegroundDrawList();
        const ImVec2 a(p->drawn_min().x - 1, p->drawn_min().y - 1), b(p->drawn_max().x + 1, p->drawn_max().y + 1);
        draw->AddRect(a, b, colour, 6.0f, 0, 3.0f);
        // The tag covers no content: a window's is in its title bar, left of the close button; a
        // tab's sits at the right end of the tab bar, above the frame.
        const bool tab = m_options.panel.empty() && m_settings.layout != "windows" && !in_left_column(*p);
        const std::string tag = "Lesson: look here";
        const ImVec2 tag_size = ImGui::CalcTextSize(tag.c_str());
        const float h = ImGui::GetFrameHeight();
        const float right = tab ? b.x : b.x - h - 6;
        const float top = tab ? a.y - h : a.y + 2;
        const ImVec2 t0(right - tag_size.x - 16, top), t1(right, top + h - 2);
        draw->AddRectFilled(t0, t1, colour, 5.0f);
        draw->AddText(ImVec2(t0.x + 8, t0.y + (h - 2 - tag_size.y) * 0.5f), ImGui::GetColorU32(ImVec4(0.1f, 0.08f, 0.0f, alpha)), tag.c_str());
    }
}

// ---------------------------------------------------------------------------------------------
// Frame.

std::string ExplorerApp::left_bottom_panel() const {
    std::string key;
    for (const auto& p : m_panels)
        if (const PanelEntry* e = find_panel_entry(p->key()); e && e->placement == PanelPlacement::LeftBottom && p->open())
            key = p->key();
    return key;
}

bool ExplorerApp::in_left_column(const Panel& panel) const {
    const PanelEntry* e = find_panel_entry(panel.key());
    return e && (e->placement == PanelPlacement::LeftTop || panel.key() == left_bottom_panel());
}

bool ExplorerApp::idle() const {
    if (m_options.headless() || !m_commands.empty() || !m_region_exports.empty() || m_frame < 3) return false;
    if (!m_highlight.empty()) return false;   // the frame fades out
    if (m_trainer && m_training.state == TrainerState::Running) return false;
    if (m_prepared) return false;   // redraw to adopt the trainer once it is made
    return !ImGui::IsAnyMouseDown();
}

void ExplorerApp::handle_keys() {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput || ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId)) return;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space)))
        step_forward();
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) step_back();
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow))) next_layer();
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))) previous_layer();
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_End))) run_to_end();
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) restart();
}

void ExplorerApp::draw() {
    ++m_frame;
    // Headless runs: wherever the virtual pointer sits, no tooltip or hover lands in a screenshot.
    if (m_options.headless()) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    m_frame_ms = 0.9f * m_frame_ms + 0.1f * ImGui::GetIO().DeltaTime * 1000.0f;
    adopt_prepared_trainer();
    if (m_trainer) {
        m_training = m_trainer->snapshot();
        m_trainer_info.exists = true;
        follow_launch_training();
    }
    handle_keys();
    draw_menu_bar();
    draw_status_bar();
    draw_panels();
    draw_highlight();
    if (m_show_log) draw_log_window();
    if (m_show_about) {
        ImGui::OpenPopup("About Transformer Explorer");
        m_show_about = false;
    }
    if (ImGui::BeginPopupModal("About Transformer Explorer", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::TextUnformatted("Transformer Explorer: watch an encoder-decoder Transformer compute, step by step.");
        ImGui::TextUnformatted("Keyboard: \xE2\x86\x92 or Space next step, \xE2\x86\x90 previous step,");
        ImGui::TextUnformatted("\xE2\x86\x93 next layer, \xE2\x86\x91 previous layer, End run to end, Home restart.");
        ImGui::Text("Settings: %s", m_ini_path.empty() ? "(not saved in this run)" : m_ini_path.c_str());
        ImGui::Text("Assets: %s", m_assets_dir.c_str());
        if (ImGui::Button("Close")) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
    heatmap_collect_garbage();
    if (m_lesson_steps_left > 0 && m_commands.empty()) {
        --m_lesson_steps_left;
        for (auto& p : m_panels)
            if (auto* lessons = dynamic_cast<LessonsPanel*>(p.get())) lessons->do_step(*this);
    }
    apply_commands();
    if (m_self_test) m_self_test->frame(*this);
}

void ExplorerApp::after_render(int framebuffer_w, int framebuffer_h) {
    const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
    for (const auto& e : m_region_exports) {
        const int x = static_cast<int>(e.min.x * scale.x), y = static_cast<int>(e.min.y * scale.y);
        const int x1 = std::min(static_cast<int>(e.max.x * scale.x), framebuffer_w);
        const int y1 = std::min(static_cast<int>(e.max.y * scale.y), framebuffer_h);
        try {
            write_back_buffer_png(e.path, std::max(x, 0), std::max(y, 0), x1 - std::max(x, 0), y1 - std::max(y, 0), framebuffer_h);
            report_status("wrote " + e.path);
        } catch (const std::exception& ex) {
            report_error(ex.what());
        }
    }
    m_region_exports.clear();
    // With --train N the screenshot waits until training has paused, then draws `frames` more.
    const bool training_settled = m_options.train_steps <= 0 ||
                                  (m_launch_training_done_frame >= 0 && m_frame >= m_launch_training_done_frame + m_options.frames);
    if (!m_options.screenshot.empty() && !m_self_test && m_frame >= m_options.frames && training_settled &&
        m_lesson_steps_left == 0) {
        try {
            write_back_buffer_png(m_options.screenshot, 0, 0, framebuffer_w, framebuffer_h, framebuffer_h);
            std::printf("transformer-explorer: wrote %s (%dx%d)\n", m_options.screenshot.c_str(), framebuffer_w, framebuffer_h);
            if (m_options.print_decoded)
                for (size_t b = 0; b < m_view.decoded_text.size(); ++b)
                    std::printf("decoded %zu: %s\n", b + 1, m_view.decoded_text[b].c_str());
            finish(0);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "transformer-explorer: %s\n", e.what());
            finish(1);
        }
    }
    if (m_self_test && m_self_test->wants_screenshot() && !m_options.screenshot.empty()) {
        try {
            write_back_buffer_png(m_options.screenshot, 0, 0, framebuffer_w, framebuffer_h, framebuffer_h);
        } catch (const std::exception& e) {
            report_error(e.what());
        }
    }
}

void ExplorerApp::draw_menu_bar() {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::BeginMenu("Models", !m_catalog.empty())) {
            for (const CatalogModel& m : m_catalog)
                if (ImGui::MenuItem(m.name.c_str(), nullptr, same_file(m_model_source, resolve_asset("models/" + m.file))))
                    open_catalog_model(m.file, m.sentence);
            ImGui::EndMenu();
        }
        if (ImGui::MenuItem("Load or save a checkpoint...")) show_panel("model");
        if (ImGui::MenuItem("Open the settings folder path in the log")) report_status("settings: " + (m_ini_path.empty() ? std::string("not saved") : m_ini_path));
        ImGui::Separator();
        ImGui::TextDisabled("Exports go to:");
        ImGui::SetNextItemWidth(360);
        ImGui::InputText("##exportdir", &m_settings.export_dir);
        ImGui::Separator();
        if (ImGui::MenuItem("Quit")) finish(0);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (auto& p : m_panels) ImGui::MenuItem(p->title().c_str(), nullptr, &p->open());
        ImGui::Separator();
        if (ImGui::MenuItem("Layout: main area with tabs", nullptr, m_settings.layout == "default")) m_settings.layout = "default";
        if (ImGui::MenuItem("Layout: every panel a window", nullptr, m_settings.layout == "windows")) m_settings.layout = "windows";
        if (ImGui::MenuItem("Reset window positions")) m_focus_panel = "__reset__";
        ImGui::Separator();
        ImGui::MenuItem("Log", nullptr, &m_show_log);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Step")) {
        if (ImGui::MenuItem("Next step", "\xE2\x86\x92 / Space")) step_forward();
        if (ImGui::MenuItem("Previous step", "\xE2\x86\x90")) step_back();
        if (ImGui::MenuItem("Next layer", "\xE2\x86\x93")) next_layer();
        if (ImGui::MenuItem("Previous layer", "\xE2\x86\x91")) previous_layer();
        if (ImGui::MenuItem("Run to end", "End")) run_to_end();
        if (ImGui::MenuItem("Restart", "Home")) restart();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        if (ImGui::MenuItem("Lessons: a guided tour")) show_panel("lessons");
        if (ImGui::MenuItem("About and keyboard")) m_show_about = true;
        ImGui::EndMenu();
    }
    // What the model was trained to do, always in sight, so nobody looks for meaning in a copy model.
    if (m_view.valid && !m_view.model_description.empty()) {
        const float x = ImGui::GetCursorPosX() + 16;
        const float avail = ImGui::GetWindowWidth() - x - 10;
        const std::string line = fit_text("Model: " + m_view.model_description, std::max(avail, 50.0f));
        ImGui::SetCursorPosX(std::max(x, ImGui::GetWindowWidth() - ImGui::CalcTextSize(line.c_str()).x - 10));
        ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.55f, 1.0f), "%s", line.c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", m_view.model_description.c_str());
    }
    ImGui::EndMainMenuBar();
}

void ExplorerApp::draw_status_bar() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float h = ImGui::GetFrameHeight() + 6;
    ImGui::SetNextWindowPos(ImVec2(vp->Pos.x, vp->Pos.y + vp->Size.y - h));
    ImGui::SetNextWindowSize(ImVec2(vp->Size.x, h));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoBringToFrontOnFocus;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8, 3));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
    if (ImGui::Begin("##status", nullptr, flags)) {
        if (ImGui::SmallButton(m_show_log ? "Log \xE2\x96\xBE" : "Log \xE2\x96\xB8")) m_show_log = !m_show_log;
        ImGui::SameLine();
        const ImVec4 colour = m_status_error ? ImVec4(1.0f, 0.45f, 0.4f, 1.0f) : ImVec4(0.75f, 0.85f, 0.75f, 1.0f);
        char right[256];
        std::snprintf(right, sizeof right, "model: %s  \xC2\xB7  %s  \xC2\xB7  forward %.2f ms  \xC2\xB7  frame %.1f ms",
                      m_model_source.c_str(), m_view.backend.c_str(), m_view.forward_ms, m_frame_ms);
        const float right_w = ImGui::CalcTextSize(right).x;
        const float avail = ImGui::GetContentRegionAvail().x - right_w - 20;
        ImGui::TextColored(colour, "%s", fit_text(m_status.empty() ? "ready" : m_status, std::max(avail, 50.0f)).c_str());
        if (ImGui::IsItemHovered() && !m_status.empty()) ImGui::SetTooltip("%s", m_status.c_str());
        ImGui::SameLine(ImGui::GetWindowWidth() - right_w - 10);
        ImGui::TextDisabled("%s", right);
    }
    ImGui::End();
    ImGui::PopStyleVar(2);
}

void ExplorerApp::draw_log_window() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + 20, vp->Pos.y + vp->Size.y - 300), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(700, 250), ImGuiCond_FirstUseEver);
    if (ImGui::Begin("Log", &m_show_log)) {
        if (ImGui::SmallButton("Clear")) m_log.clear();
        ImGui::Separator();
        ImGui::BeginChild("##loglines");
        for (const auto& m : m_log) {
            if (m.error) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "[%7.1f s] %s", m.time, m.text.c_str());
            else ImGui::Text("[%7.1f s] %s", m.time, m.text.c_str());
        }
        if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.0f);
        ImGui::EndChild();
    }
    ImGui::End();
}

void ExplorerApp::draw_panels() {
    PanelContext ctx{m_view, m_training, m_trainer_info, *this, m_selection, m_options.self_test};
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float status_h = ImGui::GetFrameHeight() + 6;
    // Below the main menu bar. ImGui 1.86 moves WorkPos below it only from the next frame on,
    // and the panels take their first-use positions in the first frame.
    const float menu_h = ImGui::GetFrameHeight();
    const ImVec2 pos(vp->Pos.x, vp->Pos.y + menu_h);
    const ImVec2 size(vp->Size.x, vp->Size.y - menu_h - status_h);
    const bool reset = m_focus_panel == "__reset__";
    if (reset) m_focus_panel.clear();
    const ImGuiCond cond = reset ? ImGuiCond_Always : ImGuiCond_FirstUseEver;

    if (!m_options.panel.empty()) {
        // One panel filling the window (--panel).
        for (auto& p : m_panels)
            if (p->key() == m_options.panel) {
                ImGui::SetNextWindowPos(pos);
                ImGui::SetNextWindowSize(size);
                p->open() = true;
                p->draw_window(ctx, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
            }
        return;
    }

    if (m_settings.layout == "windows") {
        // A grid of the open panels, three to a row: more open panels than nine add a row.
        const int cols = 3;
        int open = 0;
        for (const auto& p : m_panels) open += p->open() ? 1 : 0;
        const int rows = std::max(3, (open + cols - 1) / cols);
        const float w = size.x / cols, h = size.y / static_cast<float>(rows);
        int slot = 0;
        for (auto& p : m_panels) {
            if (!p->open()) continue;
            ImGui::SetNextWindowPos(ImVec2(pos.x + w * static_cast<float>(slot % cols), pos.y + h * static_cast<float>(slot / cols)), cond);
            ImGui::SetNextWindowSize(ImVec2(w, h), cond);
            p->draw_window(ctx);
            ++slot;
        }
        return;
    }

    // Default: Input and Shapes (or Lessons) on the left, the other panels as tabs of the main area.
    const std::string bottom = left_bottom_panel();
    const bool lessons_open = bottom == "lessons";
    const float left_w = std::max(380.0f, size.x * LEFT_COLUMN);
    // A lesson has more to say than Shapes: it gets a larger share. The column is laid out again
    // when Lessons opens or closes, so the two never overlap.
    const float input_h = size.y * (lessons_open ? 0.45f : 0.52f);
    const ImGuiCond left_cond = bottom != m_left_bottom ? ImGuiCond_Always : cond;
    m_left_bottom = bottom;
    for (auto& p : m_panels) {
        if (!in_left_column(*p) || !p->open()) continue;
        const bool input = p->key() != m_left_bottom;   // the top slot
        ImGui::SetNextWindowPos(ImVec2(pos.x, input ? pos.y : pos.y + input_h), left_cond);
        ImGui::SetNextWindowSize(ImVec2(left_w, input ? input_h : size.y - input_h), left_cond);
        p->draw_window(ctx);
    }
    ImGui::SetNextWindowPos(ImVec2(pos.x + left_w, pos.y), cond);
    ImGui::SetNextWindowSize(ImVec2(size.x - left_w, size.y), cond);
    if (ImGui::Begin("Views", nullptr, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoTitleBar)) {
        bool any = false;
        if (ImGui::BeginTabBar("##views", ImGuiTabBarFlags_Reorderable | ImGuiTabBarFlags_FittingPolicyScroll)) {
            for (auto& p : m_panels) {
                if (in_left_column(*p) || !p->open()) continue;
                any = true;
                p->draw_tab(ctx);
            }
            ImGui::EndTabBar();
        }
        if (!any) ImGui::TextDisabled("Every view is closed: open one from the View menu.");
    }
    ImGui::End();
}

}  // namespace tx::app
