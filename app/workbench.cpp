// Workbench (see workbench.h): the first model, refreshing the SessionView after a change, the
// messages, and apply(): one std::visit over the Command variant. The commands' longer bodies
// live in workbench_commands.cpp, the trainer's in workbench_trainer.cpp.
#include "workbench.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <type_traits>
#include <utility>

#include "backend_names.h"
#include "tx/asset_paths.h"
#include "tx/session.h"

namespace fs = std::filesystem;

namespace tx::app {

namespace {

constexpr const char* DEFAULT_SENTENCE = "The animal didn't cross the street because it was too tired.";
constexpr size_t LOG_LINES = 200;   // the log keeps the last 200 messages

// The same file by two paths (relative or absolute); false when either does not exist.
bool same_file(const std::string& a, const std::string& b) {
    std::error_code error;
    return fs::equivalent(a, b, error) && !error;
}

// How the log names a window command that a Workbench alone cannot carry out.
const char* window_command_name(const Command& c) {
    if (std::holds_alternative<ShowPanel>(c)) return "showing a panel";
    if (std::holds_alternative<HighlightPanel>(c)) return "highlighting a panel";
    if (std::holds_alternative<SetLookInside>(c)) return "the Look inside panel's settings";
    if (std::holds_alternative<OpenLesson>(c)) return "opening a lesson";
    return "a picture of the screen";
}

}  // namespace

Workbench::Workbench(std::string assets_dir, bool headless)
    : m_assets_dir(std::move(assets_dir)),
      m_headless(headless),
      m_cuda_unavailable(backend_unavailable_reason("cuda")),
      m_cuda_device(backend_device("cuda")),
      m_print_errors(headless) {}

Workbench::~Workbench() {
    if (m_prepare_thread.joinable()) m_prepare_thread.join();
}

double Workbench::now_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

std::string Workbench::resolve_asset(const std::string& relative) const {
    return m_assets_dir.empty() ? relative : m_assets_dir + "/" + relative;
}

bool Workbench::is_open_model(const explain::CatalogModel& m) const {
    return same_file(m_model_source, resolve_asset("models/" + m.file));
}

std::optional<std::string> Workbench::take_bad_launch_value() {
    return std::exchange(m_bad_launch_value, std::nullopt);
}

void Workbench::pause_trainer_now() {
    if (m_trainer) m_trainer->pause();
}

bool Workbench::busy() const {
    return m_prepared || m_known_words.running() || m_look_inside.running() || m_precision.running() ||
           (m_trainer && m_training.state == TrainerState::Running);
}

void Workbench::report_error(const std::string& message) {
    ++m_error_count;
    m_status = message;
    m_status_error = true;
    m_log.push_back({message, true, now_s()});
    if (m_log.size() > LOG_LINES) m_log.pop_front();
    if (m_print_errors) std::fprintf(stderr, "transformer-explorer: error: %s\n", message.c_str());
}

void Workbench::report_status(const std::string& message) {
    m_status = message;
    m_status_error = false;
    m_log.push_back({message, false, now_s()});
    if (m_log.size() > LOG_LINES) m_log.pop_front();
}

std::string Workbench::export_path(const std::string& base_name, const char* extension) const {
    const std::string dir = m_remembered.export_dir.empty() ? std::string("/tmp/transformer-explorer-exports")
                                                             : m_remembered.export_dir;
    const std::string stem = dir + "/" + base_name;
    std::string path = stem + "." + extension;
    for (int i = 2; fs::exists(path) && i < 10000; ++i) path = stem + "-" + std::to_string(i) + "." + extension;
    return path;
}

void Workbench::open_first_model(const std::string& checkpoint, std::vector<std::string> sentences) {
    try {
        m_catalog = explain::read_model_catalog(resolve_asset("models/catalog.json"));
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
    if (!checkpoint.empty()) try_load(checkpoint);
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
    if (sentences.empty() && !m_headless && !m_remembered.sentences.empty()) sentences = m_remembered.sentences;
    // A shipped model opens on the sentence the catalog gives it.
    for (const explain::CatalogModel& m : m_catalog)
        if (sentences.empty() && same_file(source, resolve_asset("models/" + m.file))) sentences = {m.sentence};
    if (sentences.empty()) sentences = {DEFAULT_SENTENCE};
    m_session = std::move(session);
    m_model_source = source;
    set_input_now(sentences, std::nullopt);
    if (!m_view.valid) set_input_now({DEFAULT_SENTENCE}, std::nullopt);
    if (!notice.empty()) report_status(notice);
    publish_results();
}

void Workbench::refresh(bool full) {
    if (!m_session) return;
    try {
        refresh_view(m_view, *m_session, m_model_source, full);
        m_view.backend = m_session->backend().name();
        m_view.cuda_unavailable = m_cuda_unavailable;
        m_view.cuda_device = m_cuda_device;
    } catch (const std::exception& e) {
        report_error(std::string("cannot read the model's state: ") + e.what());
    }
    // A shipped model's examples (File -> Models' catalog); other models have none.
    if (full) {
        m_view.examples.clear();
        for (const explain::CatalogModel& m : m_catalog)
            if (same_file(m_model_source, resolve_asset("models/" + m.file))) m_view.examples = m.examples;
    }
    if (!m_view.attention.empty())
        m_selection.attention_block = std::clamp(m_selection.attention_block, 0, static_cast<int>(m_view.attention.size()) - 1);
    m_selection.head = std::clamp(m_selection.head, 0, std::max(0, m_view.config.heads - 1));
    m_selection.batch_row = std::clamp(m_selection.batch_row, 0, std::max(0, m_view.B - 1));
}

void Workbench::set_input_now(const std::vector<std::string>& sentences, const std::optional<std::string>& target) {
    if (!m_session) return;
    try {
        m_session->set_input(sentences, target);
        if (!m_headless) m_remembered.sentences = sentences;
        refresh(true);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Workbench::replace_session(std::unique_ptr<Session> session, const std::string& source,
                                std::vector<std::string> sentences) {
    if (sentences.empty()) sentences = m_view.sentences;
    if (sentences.empty()) sentences = {DEFAULT_SENTENCE};
    m_session = std::move(session);
    m_model_source = source;
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

void Workbench::tick() {
    publish_results();
    adopt_prepared_trainer();
    if (m_trainer) {
        m_training = m_trainer->snapshot();
        m_trainer_info.exists = true;
    }
}

void Workbench::apply(const Command& command) {
    apply_reporting_errors(command);
    publish_results();
}

void Workbench::apply_reporting_errors(const Command& command) {
    try {
        apply_one(command);
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

void Workbench::apply_one(const Command& command) {
    std::visit(
        [this](const auto& c) {
            using C = std::decay_t<decltype(c)>;
            // The commands that need a model do nothing without one (the first model failed to open).
            Session* s = m_session.get();
            if constexpr (std::is_same_v<C, SetInput>) {
                set_input_now(c.sentences, c.target);
            } else if constexpr (std::is_same_v<C, RandomTestSentence>) {
                random_test_sentence();
            } else if constexpr (std::is_same_v<C, StepForward>) {
                if (s) {
                    s->step_forward();
                    refresh(false);
                }
            } else if constexpr (std::is_same_v<C, StepBack>) {
                if (s) {
                    s->step_back();
                    refresh(false);
                }
            } else if constexpr (std::is_same_v<C, NextLayer>) {
                if (!s) return;
                const size_t b = s->next_layer_boundary();
                if (b > s->cursor()) s->run_to(b - 1);
                refresh(false);
            } else if constexpr (std::is_same_v<C, PreviousLayer>) {
                if (!s) return;
                const size_t b = s->previous_layer_boundary();
                if (b == 0) s->restart();
                else s->run_to(b - 1);
                refresh(false);
            } else if constexpr (std::is_same_v<C, RunToEnd>) {
                if (s) {
                    s->run_to_end();
                    refresh(false);
                }
            } else if constexpr (std::is_same_v<C, Restart>) {
                if (s) {
                    s->restart();
                    refresh(false);
                }
            } else if constexpr (std::is_same_v<C, RunTo>) {
                if (s) {
                    s->run_to(c.step);
                    refresh(false);
                }
            } else if constexpr (std::is_same_v<C, GoToStep>) {
                go_to_step(c);
            } else if constexpr (std::is_same_v<C, SetDecoding>) {
                if (s) {
                    s->set_decoding({c.beam_size, c.length_penalty});
                    refresh(true);
                }
            } else if constexpr (std::is_same_v<C, SetCausalMask>) {
                if (s) {
                    s->set_causal_mask(c.on);
                    refresh(true);
                }
            } else if constexpr (std::is_same_v<C, SetPaddingMask>) {
                if (s) {
                    s->set_padding_mask(c.on);
                    refresh(true);
                }
            } else if constexpr (std::is_same_v<C, SetPositionalEncoding>) {
                if (s) {
                    s->set_positional_encoding(c.on);
                    refresh(true);
                }
            } else if constexpr (std::is_same_v<C, SetAttentionScaling>) {
                if (s) {
                    s->set_attention_scaling(c.on);
                    refresh(true);
                }
            } else if constexpr (std::is_same_v<C, SetHeadEnabled>) {
                if (s) {
                    s->set_head_enabled(c.prefix, c.head, c.on);
                    refresh(true);
                }
            } else if constexpr (std::is_same_v<C, EnableAllHeads>) {
                if (!s) return;
                const auto disabled = s->options().disabled_heads;
                for (const auto& [prefix, heads] : disabled)
                    for (int h : heads) s->set_head_enabled(prefix, h, true);
                refresh(true);
            } else if constexpr (std::is_same_v<C, SetFusedAttention>) {
                if (s) {
                    s->set_fused_attention(c.on);
                    refresh(true);
                }
            } else if constexpr (std::is_same_v<C, SetBackend>) {
                if (!s || s->backend().name() == c.name) return;
                s->set_backend(make_backend(c.name));   // a DeviceError leaves the CPU in place
                report_status("backend: " + c.name);
                refresh(true);
            } else if constexpr (std::is_same_v<C, CompareBackends>) {
                if (!s || m_view.B == 0) return;
                std::unique_ptr<Backend> backend = make_backend(s->backend().name() == "cpu" ? "cuda" : "cpu");
                m_comparison.put(s->run_version(), tx::compare_backends(s->model(), *backend));
                refresh(true);   // the session's steps were re-run: fresh times, same values
            } else if constexpr (std::is_same_v<C, RebuildModel>) {
                rebuild_now(c.config);
            } else if constexpr (std::is_same_v<C, RebuildVariant>) {
                if (s) rebuild_now(apply_variant(s->config(), c.variant));
            } else if constexpr (std::is_same_v<C, LoadCheckpoint>) {
                load_model(c.path, {});
            } else if constexpr (std::is_same_v<C, SaveCheckpoint>) {
                if (!s) return;
                try {
                    s->save(c.path);
                    report_status("saved " + c.path);
                } catch (const std::exception& e) {
                    report_error("cannot save " + c.path + ": " + e.what());
                }
            } else if constexpr (std::is_same_v<C, OpenModel>) {
                std::string known;
                for (const explain::CatalogModel& m : m_catalog) {
                    const std::string stem = fs::path(m.file).stem().string();
                    if (stem == c.key) return load_model(resolve_asset("models/" + m.file), {m.sentence});
                    known += (known.empty() ? "" : ", ") + stem;
                }
                report_error("no shipped model '" + c.key + "' (File \xE2\x86\x92 Models has: " +
                             (known.empty() ? "none" : known) + ")");
            } else if constexpr (std::is_same_v<C, SelectAttention>) {
                for (size_t i = 0; i < m_view.attention.size(); ++i)
                    if (m_view.attention[i].prefix == c.prefix) {
                        if (c.head < 0 || c.head >= m_view.config.heads) {
                            report_error(c.prefix + " has heads 0 to " + std::to_string(m_view.config.heads - 1) +
                                         ", not " + std::to_string(c.head));
                            return;
                        }
                        m_selection.attention_block = static_cast<int>(i);
                        m_selection.head = c.head;
                        if (c.alone) m_selection.single_head = true;
                        return;
                    }
                report_error("no attention block '" + c.prefix + "' in this model");
            } else if constexpr (std::is_same_v<C, PickAttentionCell>) {
                pick_attention_cell(c);
            } else if constexpr (std::is_same_v<C, OpenNeuronView>) {
                m_selection.neuron_query = c.query;   // the window also raises the Neuron view
                m_selection.neuron_key = c.key;
            } else if constexpr (std::is_same_v<C, DrawAttentionAsLines>) {
                m_selection.attention_lines = c.on;
            } else if constexpr (std::is_same_v<C, SetGeneration>) {
                m_generation = c.settings;
                if (!c.compute_now || !s) return;
                compute_generation_now();
                const auto trace = m_generation_trace.get(generation_key());
                if (trace && !trace->error.empty()) report_error(trace->error);
            } else if constexpr (std::is_same_v<C, UpdateGeneration>) {
                compute_generation_now();
            } else if constexpr (std::is_same_v<C, SetGenerationCursor>) {
                m_generation_token = c.token;   // publish_results() clamps both to the trace shown
                m_generation_step = c.step;
                m_generation_cursor_placed = true;
            } else if constexpr (std::is_same_v<C, ShowGeneratedToken>) {
                show_generated_token(c);
            } else if constexpr (std::is_same_v<C, SetSpeculative>) {
                set_speculative(c);
            } else if constexpr (std::is_same_v<C, UpdateSpeculative>) {
                update_speculative();
            } else if constexpr (std::is_same_v<C, MeasureGeneration>) {
                measure_generation();
            } else if constexpr (std::is_same_v<C, LoadGenerationBench>) {
                try {
                    m_generation_bench = std::make_shared<const explain::GenerationBench>(explain::load_generation_bench(c.path));
                    m_generation_bench_error.clear();
                } catch (const std::exception& e) {
                    m_generation_bench_error = e.what();
                    report_error(e.what());   // the rest of the app works as without it
                }
            } else if constexpr (std::is_same_v<C, ComputeLookInside>) {
                compute_look_inside();
            } else if constexpr (std::is_same_v<C, ComputePrecision>) {
                compute_precision();
            } else if constexpr (std::is_same_v<C, SetPatching>) {
                m_patching = c.settings;
            } else if constexpr (std::is_same_v<C, ConfigureTrainer>) {
                configure_trainer(c);
            } else if constexpr (std::is_same_v<C, FineTune>) {
                fine_tune(c);
            } else if constexpr (std::is_same_v<C, TrainComparisonRow>) {
                train_comparison_row(c);
            } else if constexpr (std::is_same_v<C, StartTraining>) {
                if (m_prepared) m_when_ready = WhenReady::Start;
                else if (m_trainer) m_trainer->start();
            } else if constexpr (std::is_same_v<C, PauseTraining>) {
                if (m_trainer) m_trainer->pause();
            } else if constexpr (std::is_same_v<C, StepTraining>) {
                if (m_prepared) m_when_ready = WhenReady::Step;
                else if (m_trainer) m_trainer->step_once();
            } else if constexpr (std::is_same_v<C, ResetTrainer>) {
                if (m_trainer) m_trainer->reset();
            } else if constexpr (std::is_same_v<C, SaveTrainedModel>) {
                if (!m_trainer) return;
                try {
                    tx::save_checkpoint(c.path, m_trainer->checkpoint());
                    report_status("saved the trained model to " + c.path);
                } catch (const std::exception& e) {
                    report_error("cannot save " + c.path + ": " + e.what());
                }
            } else if constexpr (std::is_same_v<C, UseTrainedModel>) {
                use_trained_model();
            } else if constexpr (std::is_same_v<C, ExportCsv>) {
                export_csv(c);
            } else if constexpr (std::is_same_v<C, SetPrecision>) {
                if (const auto problem = validate(c.mode)) {
                    report_error("The Precision panel cannot run " + tx::describe(c.mode) + ": " + *problem);
                    return;
                }
                m_precision_settings = {c.mode, c.embedding_scale};
            } else {
                // ShowPanel, HighlightPanel, SetLookInside, OpenLesson, ExportRegionPng: the window's
                // (ExplorerApp::apply). Without one there is nothing to show or read.
                static_assert(std::is_same_v<C, ShowPanel> || std::is_same_v<C, HighlightPanel> ||
                              std::is_same_v<C, SetLookInside> || std::is_same_v<C, OpenLesson> ||
                              std::is_same_v<C, ExportRegionPng>);
                report_status(std::string("no window: ") + window_command_name(c) + " is left out");
            }
        },
        command);
}

}  // namespace tx::app
