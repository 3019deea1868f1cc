// Command-line options of transformer-explorer: what the window shows first, the headless
// screenshot mode (--screenshot) and the self-test (--self-test) used by tests/app/.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tx/sampling.h"

namespace tx::app {

struct AppOptions {
    std::string screenshot;                 // write the window to this PNG after `frames` frames, then exit
    std::string layout;                     // "default", "windows", or a panel's key
    std::string panel;                      // show only this panel, filling the window
    std::vector<std::string> sentences;     // --sentence, repeatable (a padded batch)
    std::string step;                       // --step NAME|N: put the cursor after this step
    int beam_size = 1;                      // --beam N: beam search instead of greedy decoding
    bool fused_attention = false;           // --fused-attention: start with the fused attention op
    bool attention_lines = false;           // --attention-lines: the Attention panel draws lines
    bool print_decoded = false;             // --print-decoded: print the decoded outputs with the screenshot
    bool frame_times = false;               // --frame-times: print frame-time statistics with the screenshot
    int neuron_query = -1, neuron_key = -1; // --neuron QUERY,KEY: open the Neuron view on this cell
    std::string corrupt;                    // --corrupt TEXT: the Look inside panel's corrupted sentence
    std::string look_inside;                // --look-inside VIEW: the Look inside panel's tab (lens, patch, …)
    std::string precision;                  // --precision fp32|bf16|fp16|int8: the Precision panel's mode; empty: bf16
    bool all_low = false;                   // --all-low: the Precision panel's "everything in low precision"
    float embedding_scale = 1.0f;           // --embedding-scale 1|100|10000: the Precision panel's embedding factor
    int head = -1;                          // --head N: the selected head (Attention, Neuron view)
    int frames = 6;                         // frames rendered before the screenshot
    int train_steps = 0;                    // --train N: train the tiny copy task from launch, pause at step N
    std::string train_task = "copy";        // --train-task: the task --train trains (translate: its preset)
    std::string train_from;                 // --train-from default: fine-tune the shipped model; empty: fresh weights
    std::string train_precision = "fp32";   // --train-precision: fp32, or bf16 / fp16 mixed precision
    std::string train_row;                  // --train-row ID: --train trains this variant comparison row
    std::string checkpoint;                 // --checkpoint FILE instead of the default model
    std::string assets;                     // --assets DIR
    bool self_test = false;
    int lesson = 0;                         // --lesson N[,STEPS]: open lesson N (1-based) and do its first STEPS steps
    int lesson_steps = 0;
    std::string lessons;                    // --lessons PATH: a lesson folder or file instead of assets/lessons
    std::optional<uint64_t> quiz_seed;      // --quiz-seed N: the order of the lesson questions' choices (else the settings')
    int generate_token = 0;                 // --generate T: open the Generate panel at token T (1-based)
    bool sample = false;                    // --sample or any sampling option: the Generate panel samples
    SamplingOptions sampling;               // --sample-temperature, --top-k, --top-p, --seed
    bool cache_timing = false;              // --cache-timing: time generation with and without the KV cache at launch
    std::string generation_bench;           // --generation-bench FILE: plot run_generate_bench.sh's figures (Backend panel)
    int window_width = 1600;
    int window_height = 1000;

    bool headless() const { return !screenshot.empty() || self_test; }
};

// Parses argv. Returns an exit code when the program should stop now: 0 after --help, 2 with a
// one-line reason on stderr for a bad argument.
std::optional<int> parse_options(int argc, char** argv, AppOptions& options);

}  // namespace tx::app
