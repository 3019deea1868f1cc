// ExplorerApp (see explorer_app.h), start-up and frame: assets, settings, fonts, the panels, the
// first session, and each frame's order (keys, menus, panels, commands, exports, screenshots).
// The Commands live in app_commands.cpp, the trainer's in app_trainer.cpp, the layout and menus
// in app_layout.cpp.
#include "explorer_app.h"

#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

#include "tx/asset_paths.h"
#include "backend_names.h"
#include "tx/checkpoint.h"
#include "known_words.h"
#include "tx/memory_reuse.h"
#include "neuron_trace.h"
#include "panel_registry.h"
#include "panels/lessons_panel.h"
#include "panels/training_panel.h"
#include "panels/look_inside_panel.h"
#include "panels/precision_panel.h"
#include "screenshot.h"
#include "self_test.h"
#include "tx/session.h"
#include "settings.h"
#include "tx/threads.h"
#include "tx/trainer.h"
#include "widgets/font_sampling.h"
#include "widgets/heatmap.h"
#include "widgets/plot.h"
#include "widgets/ui.h"

namespace fs = std::filesystem;

namespace tx::app {

namespace {

constexpr const char* DEFAULT_SENTENCE = "The animal didn't cross the street because it was too tired.";

std::string user_config_dir() {
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/transformer-explorer";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/transformer-explorer";
    return {};
}


}  // namespace

bool ExplorerApp::same_file(const std::string& a, const std::string& b) {
    std::error_code error;
    return fs::equivalent(a, b, error) && !error;
}

double ExplorerApp::now_s() { return ImGui::GetCurrentContext() ? ImGui::GetTime() : 0.0; }



ExplorerApp::ExplorerApp(AppOptions options) : m_options(std::move(options)) {
    m_view.cuda_unavailable = backend_unavailable_reason("cuda");
    m_view.cuda_device = backend_device("cuda");
    // One matrix-product thread: the UI and the trainer thread each run on a core of their own;
    // a second pool per thread would spin against the other (docs/design.md §10).
    tx::set_cpu_threads(1);
    tx::keep_freed_memory_for_reuse();
    // Assets: --assets, else beside the executable (installed) or the source tree (asset_paths.h).
    if (!m_options.assets.empty() && fs::is_directory(m_options.assets)) m_assets_dir = m_options.assets;
    else m_assets_dir = assets_root();
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
    // Each learner gets their own order of the quiz choices, kept in the settings; headless runs
    // use seed 1 so screenshots and the self-test are reproducible.
    if (m_settings.quiz_seed == 0) {
        std::random_device entropy;
        m_settings.quiz_seed = m_options.headless() ? 1 : (uint64_t{entropy()} << 32 | entropy()) | 1;
    }
    if (m_options.quiz_seed) m_settings.quiz_seed = *m_options.quiz_seed;

    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.TabRounding = 3.0f;
    style.GrabRounding = 3.0f;
    style.WindowPadding = ImVec2(10, 8);
    style.ItemSpacing = ImVec2(8, 6);
    load_fonts();

    make_panels();
    for (auto& p : m_panels)
        if (auto* look = dynamic_cast<LookInsidePanel*>(p.get())) {
            look->set_corrupted(m_options.corrupt);
            if (!m_options.look_inside.empty()) look->select_view(m_options.look_inside);
        } else if (auto* precision = dynamic_cast<PrecisionPanel*>(p.get())) {
            if (!m_options.precision.empty() || m_options.all_low)
                precision->set_mode({precision_from_string(m_options.precision.empty() ? "bf16" : m_options.precision).value(),
                                     m_options.all_low});
            precision->set_embedding_scale(m_options.embedding_scale);
        }
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
            if (m_options.head >= 0) {
                m_selection.head = m_options.head;
                m_selection.single_head = true;
            }
            if (m_options.neuron_query >= 0) {
                m_selection.neuron_query = m_options.neuron_query;
                m_selection.neuron_key = m_options.neuron_key;
                if (m_options.panel.empty() && m_options.layout.empty()) show_panel("neuron");
            }
        }
    }
    m_generation.sample = m_options.sample;
    m_generation.sampling = m_options.sampling;
    if (m_options.generate_token > 0 && m_session) {
        // Like --neuron: the output's length is known only once it is generated; out of range ends
        // the run as a bad argument does (exit 2, one line).
        compute_generation_now();
        GenerationTrace& g = m_view.generation;
        const int T = m_options.generate_token;
        std::string why = g.error;
        if (why.empty() && T > static_cast<int>(g.tokens.size()))
            why = "the output has " + std::to_string(g.tokens.size()) + " token(s)" + (g.finished ? ", EOS included" : "");
        if (!why.empty()) {
            std::fprintf(stderr, "transformer-explorer: --generate %d: %s (see --help)\n", T, why.c_str());
            finish(2);
        } else {
            g.token = T;
            g.step = static_cast<int>(generation_steps(m_view.config, m_view.options.positional_encoding).size()) - 1;
            if (m_options.panel.empty() && m_options.layout.empty()) show_panel("generate");
        }
    }
    if (!m_options.generation_bench.empty()) {
        try {
            m_view.generation_bench = load_generation_bench(m_options.generation_bench);
        } catch (const std::exception& e) {
            m_view.generation_bench_error = e.what();
            report_error(e.what());   // the rest of the app works as without the option
        }
        if (m_options.panel.empty() && m_options.layout.empty()) show_panel("backend");
    }
    if (m_options.cache_timing && m_session) {
        measure_generation();
        if (m_options.panel.empty() && m_options.layout.empty()) show_panel("backend");
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
    // A first launch offers lesson 1, once (lesson_progress.h says when).
    for (auto& p : m_panels)
        if (auto* lessons = dynamic_cast<LessonsPanel*>(p.get()))
            if (!lessons->lessons().empty() &&
                should_offer_first_lesson(lessons->progress(), m_options.headless(), m_options.lesson > 0)) {
                lessons->offer_first_lesson();
                show_panel("lessons");
            }
    if (m_options.train_steps > 0) {
        const TaskKind task = task_from_string(m_options.train_task).value_or(TaskKind::Copy);
        if (!m_options.train_row.empty())
            trainer_compare_variant(m_options.train_row);
        else if (task == TaskKind::Translate && m_options.train_from == "default")
            trainer_fine_tune(TrainingPanel::live_training(Preset::Translate, task), false);
        else {
            const Preset preset = task == TaskKind::Translate ? Preset::Translate : Preset::Tiny;
            TrainingConfig training = TrainingPanel::live_training(preset, task);
            training.precision = precision_from_string(m_options.train_precision).value_or(Precision::Fp32);
            if (training.precision == Precision::Fp16) training.loss_scale.mode = LossScaleMode::Dynamic;
            trainer_configure(preset, training);
        }
        trainer_start();
    }
}

ExplorerApp::~ExplorerApp() {
    if (m_prepare_thread.joinable()) m_prepare_thread.join();
}

void ExplorerApp::shutdown() {
    heatmap_shutdown();
    plot_shutdown();
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
    if (main_font) add_scaled_font_twin(sans.c_str(), 16.0f, m_ranges.Data);
    if (!main_font) {
        report_error("font " + sans + " not found: using ImGui's built-in font (some symbols will show as '?')");
        io.Fonts->AddFontDefault();
    }
    if (fs::exists(mono)) mono_font() = io.Fonts->AddFontFromFileTTF(mono.c_str(), 15.0f, nullptr, m_ranges.Data);
    if (main_font && mono_font()) add_scaled_font_twin(mono.c_str(), 15.0f, m_ranges.Data);
    if (!mono_font()) mono_font() = io.Fonts->Fonts[0];
}

void ExplorerApp::make_panels() {
    m_panels = make_registered_panels();
    for (auto& p : m_panels)
        if (auto* lessons = dynamic_cast<LessonsPanel*>(p.get())) {
            const std::string path = m_options.lessons.empty() ? resolve_asset("lessons") : m_options.lessons;
            for (const std::string& e : lessons->load(path, panel_keys())) report_error("lesson: " + e);
            for (const auto& q : m_panels) lessons->name_panel(q->key(), q->title());
            lessons->set_quiz_seed(m_settings.quiz_seed);
            // Headless runs start from no progress, so screenshots and the self-test do not depend
            // on what a learner did before.
            if (!m_options.headless()) lessons->set_progress(m_settings.lessons);
        } else if (auto* training = dynamic_cast<TrainingPanel*>(p.get())) {
            training->load_comparison_results(resolve_asset("compare/results.json"));
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
    const std::string default_model = resolve_asset(EVERYDAY_MODEL);
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
        if (full) m_view.generation_timing.reset();
        if (full) m_view.generation.stale = true;
        if (full) {
            // The Look inside views were of another model or input; one being computed is dropped.
            ++m_look_inside_epoch;
            m_view.look_inside.reset();
            ++m_precision_epoch;
            m_view.precision.reset();
        }
    } catch (const std::exception& e) {
        report_error(std::string("cannot read the model's state: ") + e.what());
    }
    // A shipped model's examples (File -> Models' catalog); other models have none.
    if (full) {
        m_view.examples.clear();
        for (const CatalogModel& m : m_catalog)
            if (same_file(m_model_source, resolve_asset("models/" + m.file))) m_view.examples = m.examples;
    }
    // The known words change with the model only: read its corpus once, not on every input.
    const std::string key = m_model_source + '\n' + m_session->training_json();
    if (full && key != m_known_words_key) {
        m_known_words_key = key;
        auto read = [json = m_session->training_json(), tokenizer = m_session->config().tokenizer,
                     resolve = [this](const std::string& p) { return resolve_asset(p); }] {
            return load_known_words(json, tokenizer, resolve);
        };
        if (m_options.headless()) {
            // Screenshots and the self-test show the finished list, so they wait for it.
            m_view.known_words = std::make_shared<const KnownWords>(read());
            m_view.known_words_loading = false;
        } else {
            if (m_known_words_reading.valid()) m_known_words_abandoned.push_back(std::move(m_known_words_reading));
            m_known_words_reading = std::async(std::launch::async, read);
            m_view.known_words.reset();
            m_view.known_words_loading = true;
        }
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

bool ExplorerApp::idle() const {
    if (m_options.headless() || !m_commands.empty() || !m_region_exports.empty() || m_frame < 3) return false;
    if (!m_highlight.empty()) return false;   // the frame fades out
    if (m_trainer && m_training.state == TrainerState::Running) return false;
    if (m_prepared) return false;   // redraw to adopt the trainer once it is made
    if (m_view.look_inside_computing) return false;   // redraw to adopt the Look inside views
    if (m_view.precision_computing) return false;     // and the Precision panel's runs
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

void ExplorerApp::adopt_known_words() {
    const auto ready = [](const std::future<KnownWords>& f) {
        return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    if (ready(m_known_words_reading)) {
        m_view.known_words = std::make_shared<const KnownWords>(m_known_words_reading.get());
        m_view.known_words_loading = false;
    }
    std::erase_if(m_known_words_abandoned, ready);   // finished readings of models left before: dropped
}

void ExplorerApp::draw() {
    ++m_frame;
    adopt_known_words();
    adopt_look_inside();
    adopt_precision();
    update_font_sampling();
    // Headless runs: wherever the virtual pointer sits, no tooltip or hover lands in a screenshot.
    if (m_options.headless()) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    m_frame_ms = 0.9f * m_frame_ms + 0.1f * ImGui::GetIO().DeltaTime * 1000.0f;
    // DeltaTime of frame k is the whole previous frame: its drawing, rendering and presenting.
    if (m_options.frame_times && m_frame > 11) m_frame_times.push_back(ImGui::GetIO().DeltaTime * 1000.0f);
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

void ExplorerApp::print_frame_times() const {
    if (m_frame_times.empty()) {
        std::printf("frame times: none measured (the first 10 frames are not counted; use --frames 60)\n");
        return;
    }
    std::vector<float> t = m_frame_times;
    std::sort(t.begin(), t.end());
    std::printf("frame times over %zu frames: median %.1f ms, slowest %.1f ms\n", t.size(), t[t.size() / 2], t.back());
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
            if (m_options.print_decoded && !m_view.generation.stale && m_view.generation.error.empty())
                std::printf("generated: %s\n", m_view.generation.text.c_str());
            if (m_options.frame_times) print_frame_times();
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

}  // namespace tx::app
