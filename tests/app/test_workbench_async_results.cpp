// The Look inside and Precision results a windowed Workbench computes off the GUI thread: adopted
// by tick() when the model and input are still those they were computed for, dropped when a model
// or input change (a full refresh) came in between, so a panel never shows another sentence's
// numbers.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "command.h"
#include "workbench.h"

using namespace tx;
using namespace tx::app;

namespace {

const std::string ASSETS = std::string(TX_SOURCE_DIR) + "/assets";
const std::string REVERSE = ASSETS + "/models/reverse.safetensors";

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
    wb.open_first_model(REVERSE, {});
    ASSERT_TRUE(wb.view().valid);
    const std::string sentence = wb.view().sentences.front();
    wb.apply(ComputeLookInside{explain::LookInsideRequest{sentence, std::nullopt, "", -1, "", ""}});
    wb.apply(ComputePrecision{explain::PrecisionRequest{sentence, PrecisionMode{Precision::Bf16, false}, 1.0f}});
    EXPECT_TRUE(wb.view().look_inside_computing);
    EXPECT_TRUE(wb.view().precision_computing);
    finish(wb);
    ASSERT_TRUE(wb.view().look_inside) << "the Look inside result was not adopted";
    ASSERT_TRUE(wb.view().precision) << "the Precision result was not adopted";
    EXPECT_TRUE(wb.view().precision->error.empty()) << wb.view().precision->error;
}

TEST(WorkbenchAsyncResults, AResultForAnEarlierInputIsDropped) {
    Workbench wb(ASSETS, /*headless=*/false);
    wb.open_first_model(REVERSE, {});
    ASSERT_TRUE(wb.view().valid);
    const std::string sentence = wb.view().sentences.front();
    wb.apply(ComputeLookInside{explain::LookInsideRequest{sentence, std::nullopt, "", -1, "", ""}});
    wb.apply(ComputePrecision{explain::PrecisionRequest{sentence, PrecisionMode{Precision::Bf16, false}, 1.0f}});
    // Another sentence before either result is adopted (adoption happens only in tick()).
    wb.apply(SetInput{{sentence + " " + sentence}, std::nullopt});
    finish(wb);
    EXPECT_FALSE(wb.view().look_inside) << "a Look inside result of the earlier input was shown";
    EXPECT_FALSE(wb.view().precision) << "a Precision result of the earlier input was shown";

    // Asked again for the new input, they are adopted.
    const std::string now = wb.view().sentences.front();
    wb.apply(ComputePrecision{explain::PrecisionRequest{now, PrecisionMode{Precision::Bf16, false}, 1.0f}});
    finish(wb);
    EXPECT_TRUE(wb.view().precision);
}

}  // namespace
