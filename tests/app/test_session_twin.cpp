// SessionTwin (app/session_twin.h), the one copy of the Session's model that the Generate timing,
// Look inside and Precision read: made once per Session::model_version() however many of them ask,
// made again when a command changes the weights or the config (and only then), and giving the same
// numbers as a copy written to disk and read back.
#include <unistd.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "command.h"
#include "precision_view.h"
#include "session_twin.h"
#include "tx/checkpoint.h"
#include "tx/session.h"
#include "workbench.h"
#include "support/fixtures.h"

namespace fs = std::filesystem;
using namespace tx;
using namespace tx::app;

namespace {

using tx::test::ASSETS;
using tx::test::REVERSE_MODEL;

TEST(SessionTwin, OneCopyPerModelVersion) {
    Session session = Session::load(REVERSE_MODEL);
    SessionTwin twin;
    const auto first = twin.get(session);
    const auto again = twin.get(session);
    EXPECT_EQ(first.get(), again.get()) << "two users of one model version got two copies";
    EXPECT_EQ(twin.copies_made(), 1u);
    EXPECT_EQ(first->parameters, session.checkpoint().parameters);

    // Precision with scaled embeddings scales a copy of its own: the shared one stays as it was.
    const std::vector<float> before = first->parameters;
    const explain::PrecisionView scaled = compute_precision_view(first, explain::PrecisionRequest{"3 1 4 1 5", PrecisionMode{Precision::Fp16, false}, 4.0f});
    ASSERT_TRUE(scaled.error.empty()) << scaled.error;
    EXPECT_EQ(first->parameters, before);

    // Inputs and toggles change no weight: the same copy.
    session.set_input({"3 1 4 1 5"});
    session.set_causal_mask(false);
    EXPECT_EQ(twin.get(session).get(), first.get());

    // New weights: a new copy holding them; the old one stays whole for whoever still reads it.
    std::vector<float> changed = first->parameters;
    for (float& w : changed) w *= 0.5f;
    session.set_parameters(changed);
    const auto second = twin.get(session);
    EXPECT_NE(second.get(), first.get());
    EXPECT_EQ(second->parameters, changed);
    EXPECT_EQ(first->parameters, Session::load(REVERSE_MODEL).checkpoint().parameters);
    EXPECT_EQ(twin.copies_made(), 2u);

    // Another attention scaling changes the config (the copy records it).
    session.set_attention_scaling(!second->config.scale_attention);
    EXPECT_EQ(twin.get(session)->config.scale_attention, !second->config.scale_attention);
    EXPECT_EQ(twin.copies_made(), 3u);
}

TEST(SessionTwin, ANewSessionNeverRepeatsAVersion) {
    // A Session made after another (the same file loaded again) must not pass for it, or the twin
    // would serve the old model's copy.
    const Session a = Session::load(REVERSE_MODEL);
    const Session b = Session::load(REVERSE_MODEL);
    EXPECT_NE(a.model_version(), b.model_version());
}

TEST(SessionTwin, WorkbenchUsersShareOneCopyPerModelVersion) {
    const fs::path dir = fs::temp_directory_path() / ("tx-session-twin-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    {
        Workbench wb(ASSETS, /*headless=*/true);   // headless: Look inside and Precision are made at once
        wb.open_first_model(REVERSE_MODEL, {});
        ASSERT_TRUE(wb.view().valid);
        EXPECT_EQ(wb.twin_copies_made(), 0u) << "a copy was made before anyone needed one";
        const std::string sentence = wb.view().sentences.front();
        const explain::PrecisionRequest precision{sentence, PrecisionMode{Precision::Bf16, false}, 1.0f};
        ASSERT_TRUE(wb.precision_request() == precision) << "the Precision panel's default settings changed";

        wb.apply(MeasureGeneration{});
        wb.apply(ComputeLookInside{});
        wb.apply(ComputePrecision{});
        ASSERT_TRUE(wb.view().generation_timing);
        ASSERT_TRUE(wb.view().look_inside && wb.view().look_inside->error.empty()) << wb.view().look_inside->error;
        ASSERT_TRUE(wb.view().precision && wb.view().precision->error.empty()) << wb.view().precision->error;
        EXPECT_EQ(wb.twin_copies_made(), 1u) << "three users of one model made more than one copy";

        // The Precision panel's numbers from the shared copy equal those of the model written to
        // disk and read back (an independent copy of the same weights).
        const std::string saved = (dir / "saved.safetensors").string();
        wb.apply(SaveCheckpoint{saved});
        const explain::PrecisionView reference = compute_precision_view(load_checkpoint(saved), precision);
        ASSERT_TRUE(reference.error.empty()) << reference.error;
        EXPECT_EQ(wb.view().precision->fp32_logits, reference.fp32_logits);
        EXPECT_EQ(wb.view().precision->low_logits, reference.low_logits);

        // A new input, a toggle, a step: no weight changed, no new copy.
        wb.apply(SetInput{{sentence, sentence}, std::nullopt});
        wb.apply(SetPositionalEncoding{false});
        wb.apply(StepBack{});
        wb.apply(ComputePrecision{});
        wb.apply(MeasureGeneration{});
        EXPECT_EQ(wb.twin_copies_made(), 1u);

        // Commands that change the weights or the config: one new copy each, at the next use.
        wb.apply(SetAttentionScaling{!wb.view().config.scale_attention});
        EXPECT_EQ(wb.twin_copies_made(), 1u) << "the copy is made when used, not when the model changes";
        wb.apply(MeasureGeneration{});
        wb.apply(ComputePrecision{});
        EXPECT_EQ(wb.twin_copies_made(), 2u);
        wb.apply(LoadCheckpoint{saved});
        wb.apply(ComputeLookInside{});
        EXPECT_EQ(wb.twin_copies_made(), 3u);
        EXPECT_EQ(wb.error_count(), 0);
    }
    fs::remove_all(dir);
}

}  // namespace
