// Command-line options of transformer-explorer: what the window shows first and the headless
// screenshot mode (--screenshot) used by tests/app/.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace tx::app {

// What a launch sets: the window and the start (these fields), and what the explorer should do
// once its first model is open (`launch`, the Commands the options stand for, in the order the
// constructor applies them).
struct AppOptions {
    std::string screenshot;                 // write the window to this PNG after `frames` frames, then exit
    std::string layout;                     // "default", "windows", or a panel's key
    std::string panel;                      // show only this panel, filling the window
    std::vector<std::string> sentences;     // --sentence, repeatable (a padded batch): the first input
    bool print_decoded = false;             // --print-decoded: print the decoded outputs with the screenshot
    bool frame_times = false;               // --frame-times: print frame-time statistics with the screenshot
    int frames = 6;                         // frames rendered before the screenshot
    int train_steps = 0;                    // --train N: the screenshot waits until training pauses at step N
    std::string checkpoint;                 // --checkpoint FILE instead of the default model
    std::string assets;                     // --assets DIR
    // Set when a program drives the app (ExplorerApp with an AppDriver, e.g. tests/app/self_test.cpp),
    // never by an option: headless, reproducible, no confirmations.
    bool driven = false;
    std::string lessons;                    // --lessons PATH: a lesson folder or file instead of assets/lessons
    std::optional<uint64_t> quiz_seed;      // --quiz-seed N: the order of the lesson questions' choices (else the settings')
    int window_width = 1600;
    int window_height = 1000;
    // --beam, --fused-attention, --attention-lines, --step, --head, --neuron, --corrupt, --look-inside,
    // --precision, --all-low, --embedding-scale, --sample…, --generate, --generation-bench,
    // --cache-timing, --panel/--layout (the panel raised), --lesson, --train…: as commands.
    std::vector<Command> launch;

    bool headless() const { return !screenshot.empty() || driven; }
    bool opens_lesson() const;              // --lesson N was given
};

// Parses argv. Returns an exit code when the program should stop now: 0 after --help, 2 with a
// one-line reason on stderr for a bad argument.
std::optional<int> parse_options(int argc, char** argv, AppOptions& options);

}  // namespace tx::app
