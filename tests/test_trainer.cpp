// Trainer on its thread: start/pause/resume/step/stop/reset while readers hammer snapshot(),
// with snapshot invariants checked on every copy and bounded waits (a deadlock fails the test
// instead of hanging it). Also run under ThreadSanitizer by the CI script.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <thread>

#include "trainer.h"

namespace tx {
namespace {

using Clock = std::chrono::steady_clock;

ModelConfig small_model() {
    ModelConfig m = preset_model(Preset::Tiny);
    m.d_model = 16;
    m.heads = 2;
    m.d_ff = 32;
    m.encoder_layers = m.decoder_layers = 1;
    m.max_len = 16;
    return m;
}

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

}  // namespace
}  // namespace tx
