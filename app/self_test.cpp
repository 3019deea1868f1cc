// The self-test driver (see self_test.h).
#include "self_test.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "explorer_app.h"
#include "known_words.h"
#include "panels/training_panel.h"
#include "widgets/export.h"

namespace fs = std::filesystem;

namespace tx::app {

namespace {

double seconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

SelfTest::SelfTest() {
    m_tmp = (fs::temp_directory_path() / ("tx-self-test-" + std::to_string(::getpid()))).string();
    std::error_code ec;
    fs::create_directories(m_tmp, ec);
    build();
}

void SelfTest::check(bool ok, const std::string& what) {
    if (ok) return;
    m_failures.push_back(what);
    std::fprintf(stderr, "self-test: FAILED: %s\n", what.c_str());
}

void SelfTest::build() {
    auto wait_frames = [](int n) {
        return [n, count = 0](ExplorerApp&) mutable { return ++count >= n; };
    };
    auto add = [this](std::string name, Action a) { m_actions.emplace_back(std::move(name), std::move(a)); };

    add("start", [this](ExplorerApp& app) {
        app.settings().export_dir = m_tmp;
        m_baseline_errors = app.error_count();
        check(m_baseline_errors == 0, "no error while starting (" + std::to_string(m_baseline_errors) + " reported; see above)");
        check(app.view().valid, "a model is loaded at start");
        check(!app.view().steps.empty(), "the model has steps");
        check(app.view().cursor == app.view().steps.size(), "the pass has run to the end at start");
        return true;
    });
    add("settle", wait_frames(3));
    for (const char* key : {"input", "steps", "attention", "masks", "positional", "shapes", "model", "backend", "training"}) {
        add(std::string("open panel ") + key, [key](ExplorerApp& app) {
            app.show_panel(key);
            return true;
        });
        add("draw", wait_frames(2));
    }

    // Input help for the translation model: a random test sentence, and words never seen in training.
    add("another test sentence", [this](ExplorerApp& app) {
        app.show_panel("input");
        m_sentence = app.view().sentences.empty() ? "" : app.view().sentences.front();
        app.random_test_sentence();
        return true;
    });
    add("check test sentence", [this](ExplorerApp& app) {
        const auto& v = app.view();
        const auto& known = v.known_words;
        check(known && known->available() && known->words.size() > 100, "the translation model's known words are read from its corpus");
        check(known && known->test_sentences.size() > 100, "the translation model's test split is found");
        const std::string now = v.sentences.empty() ? "" : v.sentences.front();
        check(now != m_sentence, "\"another test sentence\" changes the input");
        check(known && std::find(known->test_sentences.begin(), known->test_sentences.end(), now) != known->test_sentences.end(),
              "the new input is a sentence of the test split (" + now + ")");
        app.set_input({"The red zorblax is big."}, std::nullopt);
        return true;
    });
    add("draw", wait_frames(2));
    add("check unseen word", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(!v.source_tokens.empty() && !v.sentences.empty(), "the sentence is tokenized");
        if (v.source_tokens.empty() || v.sentences.empty() || !v.known_words) return true;
        const auto words = group_words(v.source_tokens[0], v.sentences[0]);
        std::vector<std::string> texts;
        for (const auto& w : words) texts.push_back(w.text);
        check(texts == std::vector<std::string>({"The", "red", "zorblax", "is", "big."}),
              "pieces are grouped into the sentence's five words");
        bool zorblax_flagged = false, red_known = false, big_known = false;
        for (const auto& w : words) {
            const std::string key = word_key(w.text);
            if (key == "zorblax") zorblax_flagged = !v.known_words->knows(key) && w.pieces.size() > 1;
            if (key == "red") red_known = v.known_words->knows(key);
            if (key == "big") big_known = v.known_words->knows(key);
        }
        check(zorblax_flagged, "\"zorblax\" (several pieces) is flagged as never seen in training");
        check(red_known && big_known, "\"red\" and \"big.\" are known words, not flagged");
        app.set_input({m_sentence}, std::nullopt);
        return true;
    });
    add("draw", wait_frames(2));

    // Every step, one per frame, from the start.
    add("restart", [this](ExplorerApp& app) {
        app.show_panel("steps");
        app.restart();
        return true;
    });
    add("step through", [this](ExplorerApp& app) {
        const auto& v = app.view();
        if (m_frames_in_action == 0) check(v.cursor == 0, "restart puts the cursor at 0");
        if (v.cursor >= v.steps.size()) return true;
        check(v.cursor == static_cast<size_t>(m_frames_in_action), "each step advances the cursor by one");
        app.step_forward();
        return false;
    });
    add("step back", [](ExplorerApp& app) {
        app.step_back();
        app.step_back();
        return true;
    });
    add("check back", [this](ExplorerApp& app) {
        check(app.view().cursor + 2 == app.view().steps.size(), "two steps back");
        app.previous_layer();
        return true;
    });
    add("layers", [this](ExplorerApp& app) {
        check(app.view().cursor + 2 < app.view().steps.size(), "previous layer moves back");
        app.restart();
        app.next_layer();
        return true;
    });
    add("next layer", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(v.cursor > 0 && v.cursor < v.steps.size(), "next layer runs one group of steps");
        app.run_to_end();
        return true;
    });
    add("end", [this](ExplorerApp& app) {
        check(app.view().cursor == app.view().steps.size(), "run to end");
        app.show_panel("masks");
        app.set_causal_mask(false);
        return true;
    });
    add("causal off", [this](ExplorerApp& app) {
        check(!app.view().options.causal_mask, "causal mask switched off");
        app.set_padding_mask(false);
        return true;
    });
    add("padding off", [this](ExplorerApp& app) {
        check(!app.view().options.padding_mask, "padding mask switched off");
        app.set_causal_mask(true);
        app.set_padding_mask(true);
        return true;
    });
    add("masks on", [this](ExplorerApp& app) {
        check(app.view().options.causal_mask && app.view().options.padding_mask, "masks switched back on");
        app.show_panel("positional");
        app.set_positional_encoding(false);
        return true;
    });
    add("positional encoding off", [this](ExplorerApp& app) {
        check(!app.view().options.positional_encoding, "positional encoding switched off");
        app.set_positional_encoding(true);
        return true;
    });
    add("positional encoding on", [this](ExplorerApp& app) {
        check(app.view().options.positional_encoding, "positional encoding switched back on");
        app.show_panel("backend");
        app.set_fused_attention(true);
        return true;
    });
    add("fused attention", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(v.options.fused_attention, "fused attention switched on");
        check(!v.attention.empty() && !v.output(v.attention[0].probs) && v.output(v.attention[0].context),
              "fused attention: no probabilities, a context");
        check(!v.decoded_text.empty() && !v.decoded_text[0].empty(), "greedy decoding runs with fused attention");
        app.set_fused_attention(false);
        return true;
    });
    add("fused attention off", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(!v.options.fused_attention && !v.attention.empty() && v.output(v.attention[0].probs),
              "step-by-step attention again: probabilities shown");
        app.show_panel("attention");
        for (const auto& a : v.attention)
            for (int h = 0; h < v.config.heads; ++h) app.set_head_enabled(a.prefix, h, h % 2 == 0);
        return true;
    });
    add("ablation", [this](ExplorerApp& app) {
        check(!app.view().options.disabled_heads.empty(), "heads switched off");
        return true;
    });
    add("draw", wait_frames(2));
    add("heads back on", [](ExplorerApp& app) {
        app.enable_all_heads();
        return true;
    });
    add("batch", [this](ExplorerApp& app) {
        check(app.view().options.disabled_heads.empty(), "every head back on");
        app.selection().show_scores = true;
        app.show_panel("input");
        app.set_input({"The animal didn't cross the street because it was too tired.", "Zyxwv qqq.", "The cat sat."}, std::nullopt);
        return true;
    });
    add("check batch", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(v.B == 3, "three sentences form a batch of 3");
        bool pad = false;
        for (float m : v.src_mask) pad |= m == 0.0f;
        check(pad, "the shorter sentences are padded and masked");
        bool unk = false;
        for (const auto& row : v.source_tokens)
            for (const auto& t : row) unk |= t.unknown;
        check(unk, "an unknown word is shown as UNK");
        app.show_panel("masks");
        return true;
    });
    add("draw", wait_frames(2));
    add("target", [](ExplorerApp& app) {
        app.show_panel("attention");
        app.set_input({"The animal didn't cross the street because it was too tired."}, std::string("The animal was tired."));
        return true;
    });
    add("check target", [this](ExplorerApp& app) {
        check(app.view().target_text.has_value(), "teacher-forced target set");
        app.set_input({"The animal didn't cross the street because it was too tired."}, std::nullopt);
        return true;
    });
    add("draw", wait_frames(2));
    add("rebuild", [this](ExplorerApp& app) {
        ModelConfig bad = app.view().config;
        bad.heads = 5;
        check(validate(bad).has_value(), "d_model 64 with 5 heads is refused with a reason");
        ModelConfig c = app.view().config;
        c.heads = 2;
        app.show_panel("model");
        app.rebuild_model(c);
        return true;
    });
    add("check rebuild", [this](ExplorerApp& app) {
        check(app.view().config.heads == 2, "the model was rebuilt with 2 heads");
        check(app.view().known_words && !app.view().known_words->available() && !app.view().known_words->unavailable.empty(),
              "an untrained model's known words are not guessed: the reason is given");
        app.save_checkpoint(m_tmp + "/model.safetensors");
        return true;
    });
    add("load", [this](ExplorerApp& app) {
        check(fs::exists(m_tmp + "/model.safetensors"), "checkpoint saved");
        app.load_checkpoint(m_tmp + "/model.safetensors");
        return true;
    });
    add("check load", [this](ExplorerApp& app) {
        check(app.view().model_source == m_tmp + "/model.safetensors", "checkpoint loaded back");
        app.load_checkpoint(m_tmp + "/does-not-exist.safetensors");
        return true;
    });
    add("check load error", [this](ExplorerApp& app) {
        // The failed load above must have reported one error and changed nothing.
        check(app.error_count() == m_baseline_errors + 1, "a missing checkpoint is reported as one error");
        check(app.view().config.heads == 2, "a failed load keeps the current model");
        ModelConfig c = app.view().config;
        c.heads = 4;
        app.rebuild_model(c);
        return true;
    });
    add("export", [this](ExplorerApp& app) {
        app.show_panel("positional");
        const ImGuiViewport* vp = ImGui::GetMainViewport();
        app.export_region_png(vp->Pos, ImVec2(vp->Pos.x + 200, vp->Pos.y + 100), m_tmp + "/region.png");
        const auto& v = app.view();
        const auto& a = v.attention.front();
        const std::vector<float>* p = v.output(a.probs);
        check(p != nullptr, "attention probabilities available");
        if (p) {
            const auto labels = v.src_labels(0);
            write_text_atomic(m_tmp + "/probs.csv", matrix_csv(p->data(), v.S, v.S, labels, labels, "query \\ key"));
        }
        return true;
    });
    add("draw", wait_frames(2));
    add("check export", [this](ExplorerApp& app) {
        check(fs::exists(m_tmp + "/region.png") && fs::file_size(m_tmp + "/region.png") > 100, "PNG export written");
        check(fs::exists(m_tmp + "/probs.csv"), "CSV export written");
        app.show_panel("training");
        TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Copy);
        t.snapshot_every = 5;
        app.trainer_configure(Preset::Tiny, t);
        app.trainer_start();
        m_started = seconds();
        return true;
    });
    add("train 20 steps", [this](ExplorerApp& app) {
        const auto& t = app.training();
        if (t.step >= 20) {
            app.trainer_pause();
            return true;
        }
        if (t.state == TrainerState::Diverged || seconds() - m_started > 300.0) {
            check(false, "20 training steps within 300 s (state " + std::string(to_string(t.state)) + ", step " +
                             std::to_string(t.step) + ")");
            return true;
        }
        return false;
    });
    add("draw", wait_frames(3));
    add("check training", [this](ExplorerApp& app) {
        const auto& t = app.training();
        check(!t.history.empty(), "training history published");
        check(t.probe_heads > 0 && !t.probe_cross_attention.empty(), "probe cross-attention published");
        app.use_trained_model();
        return true;
    });
    add("check trained", [this](ExplorerApp& app) {
        check(app.view().model_source.rfind("trainer", 0) == 0, "the trained model is in the explorer");
        // Fine-tune the shipped translation model a few steps: weights and tokenizer from it.
        TrainingConfig t = TrainingPanel::live_training(Preset::Translate, TaskKind::Translate);
        t.eval_sequences = 8;
        t.batch = 16;
        t.snapshot_every = 2;
        t.eval_every = 2;
        app.trainer_fine_tune(t, false);
        app.trainer_start();
        m_started = seconds();
        return true;
    });
    add("fine-tune translation 4 steps", [this](ExplorerApp& app) {
        const auto& t = app.training();
        if (t.step >= 4) {
            app.trainer_pause();
            return true;
        }
        if (t.state == TrainerState::Diverged || t.state == TrainerState::Finished || seconds() - m_started > 300.0) {
            check(false, "4 translation fine-tuning steps within 300 s (state " + std::string(to_string(t.state)) + ", step " +
                             std::to_string(t.step) + ", " + t.message + ")");
            return true;
        }
        return false;
    });
    add("draw", wait_frames(3));
    add("check translation training", [this](ExplorerApp& app) {
        const auto& t = app.training();
        check(t.probe_input == "The red car is big." && !t.probe_output.empty(), "the probe sentence is translated (" +
                                                                                    t.probe_output + ")");
        check(t.latest.bleu > 0.0, "validation BLEU is reported");
        check(!t.samples.empty() && !t.samples.front().expected.empty(), "sample translations with references");
        app.use_trained_model();
        return true;
    });
    add("check trained translation", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(v.model_source.rfind("trainer (translate", 0) == 0, "the fine-tuned translation model is in the explorer");
        check(v.config.tokenizer == TokenizerKind::SentencePiece, "with its subword tokenizer");
        check(!v.decoded_text.empty() && !v.decoded_text[0].empty(), "it translates the sample sentence");
        check(v.known_words && v.known_words->available(), "its known words come from its training record's corpus");
        app.show_panel("attention");
        return true;
    });
    add("draw", wait_frames(3));
    add("screenshot", [this](ExplorerApp&) {
        m_screenshot = true;
        return true;
    });
    add("finish", [this](ExplorerApp& app) {
        m_screenshot = false;
        check(app.error_count() == m_baseline_errors + 1, "no error other than the deliberate missing checkpoint (" +
                                          std::to_string(app.error_count()) + " reported)");
        std::error_code ec;
        fs::remove_all(m_tmp, ec);
        if (m_failures.empty()) {
            std::printf("self-test: passed (%zu actions)\n", m_actions.size());
            app.finish(0);
        } else {
            std::printf("self-test: %zu check(s) failed\n", m_failures.size());
            app.finish(1);
        }
        return true;
    });
}

void SelfTest::frame(ExplorerApp& app) {
    if (m_next >= m_actions.size()) return;
    if (m_actions[m_next].second(app)) {
        ++m_next;
        m_frames_in_action = 0;
    } else {
        ++m_frames_in_action;
    }
}

}  // namespace tx::app
