// The results a Workbench derives from the model and the input (app/derived.h): those computed off
// the GUI thread in a window (Look inside, Precision) are adopted by tick() only when the model and
// input are still those they were computed for; every result, wherever it is computed, is shown
// only for the model, input and settings it was made for, so a panel never shows another
// sentence's or another model's numbers.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "command.h"
#include "workbench.h"
#include "support/fixtures.h"

using namespace tx;
using namespace tx::app;

namespace {

using tx::test::ASSETS;
using tx::test::REVERSE_MODEL;

// tick() until neither computation is running (at most 60 s).
void finish(Workbench& wb) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while ((wb.view().look_inside_computing || wb.view().precision_computing) &&
           std::chrono::steady_clock::now() < deadline) {
        wb.tick();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_FALSE(wb.view().look_inside_computing || wb.view().precision_computing) << "still computing after 60 s";
}

TEST(WorkbenchAsyncResults, AResultForTheCurrentInputIsAdopted) {
    Workbench wb(ASSETS, /*headless=*/false);   // windowed: both run off the calling thread
    wb.open_first_model(REVERSE_MODEL, {});
    ASSERT_TRUE(wb.view().valid);
    const std::string sentence = wb.view().sentences.front();
    wb.apply(ComputeLookInside{});
    wb.apply(ComputePrecision{});
    EXPECT_TRUE(wb.view().look_inside_computing);
    EXPECT_TRUE(wb.view().precision_computing);
    finish(wb);
    ASSERT_TRUE(wb.view().look_inside) << "the Look inside result was not adopted";
    ASSERT_TRUE(wb.view().precision) << "the Precision result was not adopted";
    EXPECT_TRUE(wb.view().precision->error.empty()) << wb.view().precision->error;
}

TEST(WorkbenchAsyncResults, AResultForAnEarlierInputIsDropped) {
    Workbench wb(ASSETS, /*headless=*/false);
    wb.open_first_model(REVERSE_MODEL, {});
    ASSERT_TRUE(wb.view().valid);
    const std::string sentence = wb.view().sentences.front();
    wb.apply(ComputeLookInside{});
    wb.apply(ComputePrecision{});
    // Another sentence before either result is adopted (adoption happens only in tick()).
    wb.apply(SetInput{{sentence + " " + sentence}, std::nullopt});
    finish(wb);
    EXPECT_FALSE(wb.view().look_inside) << "a Look inside result of the earlier input was shown";
    EXPECT_FALSE(wb.view().precision) << "a Precision result of the earlier input was shown";

    // Asked again for the new input, they are adopted.
    wb.apply(ComputePrecision{});
    finish(wb);
    EXPECT_TRUE(wb.view().precision);
    EXPECT_EQ(wb.view().precision->request.source, sentence + " " + sentence);
}

TEST(WorkbenchDerivedResults, EachIsShownOnlyForTheModelInputAndSettingsItWasMadeFor) {
    Workbench wb(ASSETS, /*headless=*/true);   // headless: every result is made at once
    wb.open_first_model(REVERSE_MODEL, {});
    ASSERT_TRUE(wb.view().valid);
    const explain::SessionView& v = wb.view();
    auto compute_all = [&] {
        wb.apply(UpdateGeneration{});
        wb.apply(MeasureGeneration{});
        wb.apply(ComputeLookInside{});
        wb.apply(ComputePrecision{});
        ASSERT_FALSE(v.generation.stale);
        ASSERT_TRUE(v.generation_timing);
        ASSERT_TRUE(v.look_inside && v.look_inside_current);
        ASSERT_TRUE(v.precision && v.precision_current);
    };
    compute_all();

    // A toggle re-runs the model: the trace and the timing were of the earlier run. Look inside and
    // Precision run the model as trained, so they stay.
    wb.apply(SetPositionalEncoding{false});
    EXPECT_TRUE(v.generation.stale) << "the generation trace of the earlier run is shown";
    EXPECT_FALSE(v.generation_timing) << "the generation timing of the earlier run is shown";
    EXPECT_TRUE(v.look_inside_current);
    EXPECT_TRUE(v.precision_current);
    wb.apply(SetPositionalEncoding{true});

    // New weights (the attention scaling rebuilds the model), the same sentence: nothing is current.
    compute_all();
    wb.apply(SetAttentionScaling{!v.config.scale_attention});
    EXPECT_TRUE(v.generation.stale);
    EXPECT_FALSE(v.generation_timing);
    EXPECT_FALSE(v.look_inside) << "Look inside views of the earlier model are shown";
    EXPECT_FALSE(v.precision) << "a Precision result of the earlier model is shown";

    // Other settings of the panel: the old result may stay shown, but not as current.
    compute_all();
    wb.apply(SetPatching{PatchingSettings{v.sentences.front(), -1, "", ""}});
    EXPECT_TRUE(v.look_inside);
    EXPECT_FALSE(v.look_inside_current) << "views of other patching settings count as current";
    wb.apply(SetPrecision{PrecisionMode{Precision::Fp16, false}, 1.0f});
    EXPECT_FALSE(v.precision_current) << "a result of another precision counts as current";
    wb.apply(ComputeLookInside{});
    wb.apply(ComputePrecision{});
    EXPECT_TRUE(v.look_inside_current && v.look_inside->request.corrupted == v.sentences.front());
    EXPECT_TRUE(v.precision_current && v.precision->request.mode.format == Precision::Fp16);
    EXPECT_EQ(wb.error_count(), 0);
}

}  // namespace

namespace {

// The generation trace is a derived result with a cursor of the Workbench's: --generate N places
// it before the first trace exists, and the first trace keeps that place.
TEST(WorkbenchDerivedResults, TheGenerationCursorPlacedBeforeTheFirstTraceStays) {
    Workbench wb(ASSETS, /*headless=*/true);
    wb.open_first_model(REVERSE_MODEL, {});
    ASSERT_TRUE(wb.view().valid);
    wb.apply(ShowGeneratedToken{2});
    ASSERT_GE(wb.view().generation.tokens.size(), 2u);
    EXPECT_EQ(wb.view().generation.token, 2);
    // Without a placed cursor, a first trace opens at token 1 with its pass done.
    Workbench fresh(ASSETS, true);
    fresh.open_first_model(REVERSE_MODEL, {});
    fresh.apply(UpdateGeneration{});
    EXPECT_EQ(fresh.view().generation.token, 1);
    EXPECT_EQ(fresh.view().generation.step + 1,
              static_cast<int>(explain::generation_steps(fresh.view().config, fresh.view().options.positional_encoding).size()));
}

}  // namespace
