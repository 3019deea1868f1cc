// Workbench's trainer commands (see workbench.h): the trainer is built on a thread of its own (a
// translation corpus takes seconds to read and tokenize) and then runs on its own thread; the
// UI never waits on it. Also fine-tuning a checkpoint and handing the trained model to the explorer.
#include "workbench.h"

#include <filesystem>
#include <mutex>
#include <random>
#include <thread>

#include "backend_names.h"
#include "tx/asset_paths.h"
#include "tx/checkpoint.h"
#include "known_words.h"
#include "tx/session.h"
#include "tx/trainer.h"
#include "tx/variant_comparison.h"

namespace fs = std::filesystem;

namespace tx::app {

struct Workbench::PreparedTrainer {
    std::mutex mutex;
    bool done = false;
    std::unique_ptr<Trainer> trainer;
    std::string error;
};

void Workbench::create_trainer(ModelConfig model, TrainingConfig training, std::function<Checkpoint()> start_from) {
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

void Workbench::adopt_prepared_trainer() {
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
        return;
    }
    m_trainer_info.exists = true;
    m_trainer_info.model = m_trainer->model_config();
    m_training = m_trainer->snapshot();
    if (m_when_ready == WhenReady::Start) m_trainer->start();
    if (m_when_ready == WhenReady::Step) m_trainer->step_once();
    m_when_ready = WhenReady::Nothing;
}

bool Workbench::trainer_settings_usable(const TrainingConfig& training) {
    if (m_prepared) {
        report_error("the trainer is still being prepared: try again in a moment");
        return false;
    }
    if (const auto why = validate(training)) {
        report_error("training settings not applied: " + *why);
        return false;
    }
    return true;
}

void Workbench::configure_trainer(const ConfigureTrainer& c) {
    if (!trainer_settings_usable(c.training)) return;
    m_trainer_info = TrainerInfo{};
    m_trainer_info.preset = c.preset;
    create_trainer(model_for_task(preset_model(c.preset), c.training.task), c.training, nullptr);
}

void Workbench::train_comparison_row(const TrainComparisonRow& c) {
    const ComparisonRow* row = find_comparison_row(c.row_id);
    if (!row) {
        report_error("no variant comparison row '" + c.row_id + "'");
        return;
    }
    const TrainingConfig training = comparison_training(*row);
    if (!trainer_settings_usable(training)) return;
    m_trainer_info = TrainerInfo{};
    m_trainer_info.preset = Preset::Tiny;
    m_trainer_info.comparison_row = row->id;
    create_trainer(comparison_model(*row), training, nullptr);
    m_when_ready = WhenReady::Start;
}

void Workbench::fine_tune(const FineTune& c) {
    const TrainingConfig& training = c.training;
    if (!trainer_settings_usable(training)) return;
    std::function<Checkpoint()> start;
    ModelConfig model;
    m_trainer_info = TrainerInfo{};
    m_trainer_info.preset = Preset::Translate;
    if (c.explorer_model) {
        if (!m_session) return;
        if (m_session->decoder_only()) {
            report_error("not fine-tuned: the translation task reads the source sentence, which a decoder-only model "
                         "does not; fine-tune an encoder-decoder model");
            return;
        }
        // Taken now (the shared copy): the explorer may load another model while the trainer is being made.
        std::shared_ptr<const Checkpoint> checkpoint = m_twin.get(*m_session);
        model = checkpoint->config;
        start = [checkpoint] { return *checkpoint; };
        m_trainer_info.start_from = "the explorer's model (" + m_model_source + ")";
    } else {
        const std::string path = resolve_asset(GRAMMAR_MODEL);
        start = [path] { return tx::load_checkpoint(path); };
        m_trainer_info.start_from = "the small-grammar translation model (" + path + ")";
    }
    create_trainer(model, training, start);
}

void Workbench::random_test_sentence() {
    const auto& known = m_view.known_words;
    if (!known || known->test_sentences.empty()) {
        report_error("this model has no test sentences to draw from" +
                     (known && !known->available() ? ": " + known->unavailable : std::string()));
        return;
    }
    const std::vector<std::string>& all = known->test_sentences;
    std::string sentence = all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(m_random)];
    // Another one than the sentence shown, when the split has more than one.
    if (all.size() > 1 && !m_view.sentences.empty() && sentence == m_view.sentences.front())
        sentence = all[(static_cast<size_t>(std::find(all.begin(), all.end(), sentence) - all.begin()) + 1) % all.size()];
    set_input_now({sentence}, std::nullopt);
}

void Workbench::use_trained_model() {
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
}

}  // namespace tx::app
