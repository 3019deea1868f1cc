// Trainer on its thread: start/pause/resume/step/stop/reset while readers hammer snapshot(),
// with snapshot invariants checked on every copy and bounded waits (a deadlock fails the test
// instead of hanging it). Also run under ThreadSanitizer by the CI script.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/small_models.h"
#include "tx/asset_paths.h"
#include "tx/tasks.h"
#include "tx/trainer.h"
#include "support/temp_path.h"

namespace tx {
namespace {

using Clock = std::chrono::steady_clock;

ModelConfig small_model() { return test::small_training_model(16); }

TrainingConfig small_training() {
    TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Copy);
    t.batch = 8;
    t.length = 5;
    t.eval_sequences = 20;
    t.snapshot_every = 2;
    t.eval_every = 4;
    t.max_steps = 100000;   // runs until stopped
    return t;
}

// Polls until pred(snapshot) holds; false after `seconds`.
bool wait_for(const Trainer& trainer, const std::function<bool(const TrainingSnapshot&)>& pred, double seconds = 20) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < end) {
        if (pred(trainer.snapshot())) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
}

void check_invariants(const TrainingSnapshot& s) {
    ASSERT_EQ(s.step, s.latest.step);
    ASSERT_GE(s.step, 0);
    for (size_t i = 1; i < s.history.size(); ++i) ASSERT_LT(s.history[i - 1].step, s.history[i].step);
    if (!s.history.empty()) {
        ASSERT_EQ(s.history.back().step, s.step);
    }
    if (s.step == 0) {
        ASSERT_TRUE(s.history.empty());
    }
    ASSERT_EQ(s.probe_source.size() * s.probe_target.size() * static_cast<size_t>(s.probe_heads),
              s.probe_cross_attention.size());
    ASSERT_GT(s.probe_heads, 0);
    for (float p : s.probe_cross_attention) ASSERT_TRUE(p >= 0.0f && p <= 1.0f);
    ASSERT_GE(s.latest.exact_match, 0.0);
    ASSERT_LE(s.latest.exact_match, 1.0);
}

// Readers copy snapshots and checkpoints as fast as they can, checking every copy.
struct Hammer {
    explicit Hammer(const Trainer& trainer) {
        for (int r = 0; r < 2; ++r)
            readers.emplace_back([this, &trainer, r] {
                int64_t last_step = 0;
                while (!done.load()) {
                    const TrainingSnapshot s = trainer.snapshot();
                    check_invariants(s);
                    // Steps only go back on reset. A reader may miss the reset's own snapshot (step 0,
                    // empty history) and see the next step first, so it counts the go-backs; the
                    // test compares them with the resets it made.
                    if (s.step < last_step) regressions.fetch_add(1);
                    last_step = s.step;
                    if (r == 1) {
                        const Checkpoint c = trainer.checkpoint();
                        if (c.parameters.empty()) failures.fetch_add(1);
                    }
                    copies.fetch_add(1);
                }
            });
    }
    ~Hammer() {
        done = true;
        for (auto& t : readers) t.join();
    }
    std::atomic<bool> done{false};
    std::atomic<int64_t> copies{0};
    std::atomic<int> failures{0};
    std::atomic<int> regressions{0};   // step went back, summed over the readers
    std::vector<std::thread> readers;
};

TEST(Trainer, CommandsUnderConcurrentReaders) {
    Trainer trainer(small_model(), small_training());
    EXPECT_EQ(trainer.snapshot().state, TrainerState::Idle);
    EXPECT_EQ(trainer.snapshot().step, 0);
    Hammer hammer(trainer);

    trainer.step_once();
    ASSERT_TRUE(wait_for(trainer, [](const auto& s) { return s.state == TrainerState::Paused && s.step == 1; }));

    trainer.start();
    ASSERT_TRUE(wait_for(trainer, [](const auto& s) { return s.state == TrainerState::Running && s.step >= 9; }));

    trainer.pause();
    ASSERT_TRUE(wait_for(trainer, [](const auto& s) { return s.state == TrainerState::Paused; }));
    const int64_t paused_at = trainer.snapshot().step;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(trainer.snapshot().step, paused_at) << "a paused trainer must not train";

    trainer.step_once();
    trainer.step_once();
    // A single step shows Running while it trains, then Paused: wait for the pair, not the step.
    ASSERT_TRUE(wait_for(trainer, [&](const auto& s) { return s.step == paused_at + 2 && s.state == TrainerState::Paused; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(trainer.snapshot().step, paused_at + 2) << "step_once must train exactly one step";
    EXPECT_EQ(trainer.snapshot().state, TrainerState::Paused);

    trainer.start();   // resume
    ASSERT_TRUE(wait_for(trainer, [&](const auto& s) { return s.step >= paused_at + 6; }));

    trainer.stop();
    ASSERT_TRUE(wait_for(trainer, [](const auto& s) { return s.state == TrainerState::Finished; }));
    const TrainingSnapshot stopped = trainer.snapshot();
    EXPECT_FALSE(stopped.message.empty());
    EXPECT_GT(stopped.history.size(), 2u);
    EXPECT_EQ(trainer.checkpoint().parameters.size(), trainer.checkpoint().parameters.size());
    trainer.start();   // refused after stop: finished stays finished
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(trainer.snapshot().step, stopped.step);

    trainer.reset();
    ASSERT_TRUE(wait_for(trainer, [](const auto& s) { return s.state == TrainerState::Idle && s.step == 0; }));
    EXPECT_TRUE(trainer.snapshot().history.empty());
    trainer.start();
    ASSERT_TRUE(wait_for(trainer, [](const auto& s) { return s.step >= 4; }));
    EXPECT_GT(hammer.copies.load(), 10);
    EXPECT_EQ(hammer.failures.load(), 0);
    EXPECT_LE(hammer.regressions.load(), 2) << "one reset: each of the two readers may see the step go back once";
}

TEST(Trainer, ReachesTheStepLimitAndFinishesWithAnEvaluation) {
    TrainingConfig t = small_training();
    t.max_steps = 10;
    t.snapshot_every = 3;
    Trainer trainer(small_model(), t);
    trainer.start();
    ASSERT_TRUE(wait_for(trainer, [](const auto& s) { return s.state == TrainerState::Finished; }));
    const TrainingSnapshot s = trainer.snapshot();
    check_invariants(s);
    EXPECT_EQ(s.step, 10);
    EXPECT_EQ(s.total_steps, 10);
    EXPECT_GT(s.latest.token_accuracy, 0.0);
    EXPECT_FALSE(s.samples.empty());
    EXPECT_EQ(s.history.back().step, 10);
    EXPECT_GT(s.tokens, 0);
    // The checkpoint is the trained model, with its vocabulary and training settings.
    const Checkpoint c = trainer.checkpoint();
    EXPECT_EQ(static_cast<int>(c.vocabulary.size()), c.config.tgt_vocab);
    EXPECT_FALSE(c.training_json.empty());
}

TEST(Trainer, DivergenceStopsWithAMessage) {
    TrainingConfig t = small_training();
    t.base_lr = 1e30f;
    Trainer trainer(small_model(), t);
    Hammer hammer(trainer);
    trainer.start();
    ASSERT_TRUE(wait_for(trainer, [](const auto& s) { return s.state == TrainerState::Diverged; }));
    EXPECT_NE(trainer.snapshot().message.find("diverged"), std::string::npos);
    for (float p : trainer.checkpoint().parameters) ASSERT_TRUE(std::isfinite(p));
}

TEST(Trainer, DestructorJoinsWhileRunning) {
    for (int i = 0; i < 3; ++i) {
        const auto start = Clock::now();
        {
            Trainer trainer(small_model(), small_training());
            Hammer hammer(trainer);
            trainer.start();
            if (i > 0) {
                ASSERT_TRUE(wait_for(trainer, [](const auto& s) { return s.step >= 2; }));
            }
        }
        EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 20.0);
    }
}

TEST(Trainer, RefusesInvalidSettings) {
    TrainingConfig t = small_training();
    t.batch = 0;
    EXPECT_THROW(Trainer(small_model(), t), ConfigError);
    ModelConfig m = small_model();
    m.heads = 3;
    EXPECT_THROW(Trainer(m, small_training()), ConfigError);
}


// Fine-tuning starts from the checkpoint's exact parameters (not the seed's), and reset returns to them.
TEST(Trainer, FineTuningStartsFromTheCheckpointsParameters) {
    ModelConfig m = small_model();
    m.seed = 7;
    TrainingRun donor(m, small_training());
    donor.train_step();
    const Checkpoint start = donor.checkpoint();

    ModelConfig other_seed = small_model();
    other_seed.seed = 99;   // the seed must not matter when a checkpoint is given
    TrainingRun fresh(other_seed, small_training());
    ASSERT_NE(fresh.parameters(), start.parameters);

    TrainingRun tuned(other_seed, small_training(), make_cpu_backend, &start);
    EXPECT_EQ(tuned.parameters(), start.parameters);
    tuned.train_step();
    EXPECT_NE(tuned.parameters(), start.parameters);
    tuned.reset();
    EXPECT_EQ(tuned.parameters(), start.parameters);

    Trainer trainer(other_seed, small_training(), make_cpu_backend, &start);
    EXPECT_EQ(trainer.checkpoint().parameters, start.parameters);
}

TEST(Trainer, FineTuningRefusesAMismatchingConfig) {
    TrainingRun donor(small_model(), small_training());
    const Checkpoint start = donor.checkpoint();
    const auto message = [&](const ModelConfig& m, const TrainingConfig& t) -> std::string {
        try {
            TrainingRun run(m, t, make_cpu_backend, &start);
        } catch (const ConfigError& e) {
            return e.what();
        }
        return "";
    };
    ModelConfig wider = small_model();
    wider.d_model = 32;
    const std::string width = message(wider, small_training());
    EXPECT_NE(width.find("d_model is 16 in the checkpoint but 32"), std::string::npos) << width;
    TrainingConfig more_symbols = small_training();
    more_symbols.symbols = 12;   // two more tokens in the task's vocabulary
    const std::string vocab = message(small_model(), more_symbols);
    EXPECT_NE(vocab.find("src_vocab is 14 in the checkpoint but 16"), std::string::npos) << vocab;
    TrainingConfig translate = small_training();
    translate.task = TaskKind::Translate;
    const std::string tokens = message(small_model(), translate);
    EXPECT_NE(tokens.find("translation needs a subword"), std::string::npos) << tokens;
    // A dropout of its own is a training choice, not a mismatch.
    ModelConfig dropout = small_model();
    dropout.dropout = 0.3f;
    EXPECT_EQ(message(dropout, small_training()), "");
}

// Translation fine-tuning takes the checkpoint's SentencePiece model (the task trains none of its
// own) and its weights; the probe sentence is decoded and its cross-attention published.
TEST(Trainer, FineTuningTranslationKeepsTheCheckpointsTokenizer) {
    const Checkpoint shipped = load_checkpoint(find_asset("assets/models/grammar.safetensors"));
    ASSERT_EQ(shipped.config.tokenizer, TokenizerKind::SentencePiece);
    // A few hundred pairs of the corpus keep the test fast; every 20th is held out.
    const std::string data = tx::test::unique_temp_path("finetune-pairs.tsv");
    {
        std::ifstream in(find_asset("assets/corpus/en-es/train.tsv"));
        std::ofstream out(data);
        std::string line;
        for (int i = 0; i < 400 && std::getline(in, line); ++i) out << line << '\n';
    }
    TrainingConfig t = preset_training(Preset::Translate, TaskKind::Translate);
    t.data_path = data;
    t.valid_path.clear();
    t.eval_sequences = 8;
    t.batch = 8;
    t.max_steps = 2;
    t.snapshot_every = 1;
    t.probe = "The red car is big.";
    TrainingRun run(shipped.config, t, make_cpu_backend, &shipped);
    std::filesystem::remove(data);
    EXPECT_EQ(run.parameters(), shipped.parameters);
    const Checkpoint c = run.checkpoint();
    EXPECT_EQ(c.tokenizer_model, shipped.tokenizer_model);
    EXPECT_EQ(c.vocabulary, shipped.vocabulary);
    TrainingSnapshot s;
    run.probe(s);
    EXPECT_EQ(s.probe_input, "The red car is big.");
    EXPECT_EQ(s.probe_output, "El coche rojo es grande.") << "the shipped weights with their own tokenizer translate it";
    ASSERT_EQ(s.probe_cross_attention.size(), s.probe_source.size() * s.probe_target.size() * s.probe_heads);
    EXPECT_EQ(s.probe_source.back(), "<eos>");
    EXPECT_FALSE(run.train_step().diverged);
}

}  // namespace
}  // namespace tx
