// Command-line parsing for transformer-explorer (see options.h).
#include "options.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "panel_registry.h"
#include "panels/training_panel.h"
#include "tx/precision.h"
#include "tx/training_config.h"
#include "tx/variant_comparison.h"

namespace tx::app {

namespace {

const char* USAGE =
    "usage: transformer-explorer [options]\n"
    "  Learn the Transformer by watching one compute, step by step, on your own sentences.\n"
    "\n"
    "  --checkpoint FILE     open this model (.safetensors) instead of the everyday\n"
    "                        English -> Spanish model (assets/models/everyday.safetensors)\n"
    "  --sentence TEXT       the input sentence; repeat for a padded batch (at most 4)\n"
    "  --step NAME|N         put the step cursor after step N (0-based) or the step named NAME (an\n"
    "                        attention step also opens its block in the Attention panel)\n"
    "  --fused-attention     start with fused attention (no (T,S) scores/probabilities steps)\n"
    "  --attention-lines     the Attention panel starts with lines between tokens instead of heatmaps\n"
    "  --neuron QUERY,KEY    open the Neuron view on one attention cell: query row QUERY, key column\n"
    "                        KEY (0-based) of the attention block --step names (default: the first\n"
    "                        encoder self-attention), e.g. --step decoder.layers.2.cross_attn.context\n"
    "  --head N              the head to show (Attention panel: that head alone, large; Neuron view);\n"
    "                        default 0\n"
    "  --corrupt TEXT        the Look inside panel's corrupted sentence for activation patching\n"
    "                        (as many pieces as the first --sentence); opens its patching tab\n"
    "  --look-inside VIEW    the Look inside panel's tab: lens, patch, heads, rollout, entropy\n"
    "                        or attribution\n"
    "  --precision P         the Precision panel's mode: fp32, bf16 (default), fp16 or int8 (weight-only);\n"
    "                        docs/precision.md\n"
    "  --all-low             with --precision bf16 or fp16: round every step's output too (the Precision\n"
    "                        panel's \"everything in low precision\")\n"
    "  --embedding-scale N   the Precision panel multiplies both embedding tables by N: 1 (default), 100\n"
    "                        or 10000 (large activations, to show FP16 overflow)\n"
    "  --beam N              decode with beam search of N beams (length penalty 0.6); 1 is greedy\n"
    "  --speculative K[,L]   open the Decoding panel's speculative decoding: K proposals per round\n"
    "                        (1-16), a draft of the model's first L decoder layers (default: all but one)\n"
    "  --print-decoded       with --screenshot: also print each sentence's decoded output, one line\n"
    "                        per sentence (\"decoded 1: TEXT\")\n"
    "  --frame-times         with --screenshot: print the median and slowest time per frame (drawing,\n"
    "                        rendering and presenting) over the frames after the first 10; use\n"
    "                        --frames 60 or more\n"
    "  --layout NAME         default | windows | a panel key (shows that panel large)\n"
    "  --panel NAME          show only this panel (--list-panels names them)\n"
    "  --list-panels         print the panel keys, one per line, and exit\n"
    "  --screenshot FILE     render, write the window to FILE (PNG) and exit 0\n"
    "  --frames N            frames to render before the screenshot (default 6)\n"
    "  --train N             start training (Training panel: tiny preset, copy task) at launch and\n"
    "                        pause at step N; a --screenshot is taken once it has paused\n"
    "  --train-task NAME     the task --train trains: copy (default), copy-text, reverse, sort,\n"
    "                        translate (the translate preset on assets/corpus/en-es), induction or lm\n"
    "                        (decoder-only)\n"
    "  --train-from default  --train fine-tunes the small-grammar translation model\n"
    "                        (assets/models/grammar.safetensors) instead of fresh weights\n"
    "  --train-precision P   --train trains in fp32 (default), or bf16 / fp16 mixed precision (fp16 with a\n"
    "                        dynamic loss scale), as the Training panel's \"precision\" setting\n"
    "  --train-row ID        --train trains this row of the variant comparison (txcli compare-variants\n"
    "                        --list), as the Training panel's \"Compare variants\" does\n"
    "  --size WxH            window size (default 1600x1000)\n"
    "  --assets DIR          where fonts, vocabularies and the default model are\n"
    "  --lesson N[,STEPS]    open lesson N (1-23) in the Lessons panel and do its first STEPS steps\n"
    "  --lessons PATH        read the lessons from this folder or file instead of assets/lessons\n"
    "  --quiz-seed N         order the lesson questions' choices by this seed, 1 or more, for this run\n"
    "                        (default: the learner's own, drawn once and kept in the settings; 1 headless)\n"
    "  --generate T          open the Generate panel at output token T (1-based): the first sentence's\n"
    "                        output generated one token at a time with the KV cache\n"
    "  --sample              the Generate panel samples each token instead of taking the most probable\n"
    "  --sample-temperature T  sampling: divide the log-probabilities by T > 0 (default 1; below 1\n"
    "                        sharpens the distribution, above 1 flattens it); implies --sample\n"
    "  --top-k K             sampling: draw only among the K most probable tokens (0 = all); implies --sample\n"
    "  --top-p P             sampling: draw only among the fewest most probable tokens whose probability\n"
    "                        adds up to P, 0 < P <= 1 (1 = all); implies --sample\n"
    "  --seed N              sampling: the seed of the draws, 0 or more (default 0): the same seed gives the\n"
    "                        same output; implies --sample\n"
    "  --cache-timing        time generation of 8 ... 64 tokens with and without the KV cache at launch\n"
    "                        and open the Backend panel, which plots it\n"
    "  --generation-bench FILE  plot the figures bench/run_generate_bench.sh wrote to FILE (its\n"
    "                        JSON argument) in the Backend panel: tokens/s against tokens generated\n"
    "  --help                this text\n";

int bad(const std::string& reason) {
    std::fprintf(stderr, "transformer-explorer: %s (see --help)\n", reason.c_str());
    return 2;
}

// The whole number `text` spells, when it lies in [lo, hi]; nothing for "", "12x" or out of range.
std::optional<int> whole_number(const std::string& text, long lo, long hi) {
    char* end = nullptr;
    const long n = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end || n < lo || n > hi) return std::nullopt;
    return static_cast<int>(n);
}

bool is_panel(const std::string& key) { return find_panel_entry(key) != nullptr; }

// The options that become launch commands, as given (launch_commands() turns them into commands).
struct LaunchOptions {
    std::string step;                       // --step NAME|N: put the cursor after this step
    int beam_size = 1;                      // --beam N: beam search instead of greedy decoding
    int speculative_k = 0;                  // --speculative K[,L]: the Decoding panel's speculative section
    int speculative_layers = 0;             //   (0: not asked; L 0: one layer fewer than the model)
    bool fused_attention = false;           // --fused-attention: start with the fused attention op
    bool attention_lines = false;           // --attention-lines: the Attention panel draws lines
    int neuron_query = -1, neuron_key = -1; // --neuron QUERY,KEY: open the Neuron view on this cell
    std::string corrupt;                    // --corrupt TEXT: the Look inside panel's corrupted sentence
    std::string look_inside;                // --look-inside VIEW: the Look inside panel's tab (lens, patch, …)
    std::string precision;                  // --precision fp32|bf16|fp16|int8: the Precision panel's mode; empty: bf16
    bool all_low = false;                   // --all-low: the Precision panel's "everything in low precision"
    float embedding_scale = 1.0f;           // --embedding-scale 1|100|10000: the Precision panel's embedding factor
    int head = -1;                          // --head N: the selected head (Attention, Neuron view)
    int train_steps = 0;                    // --train N
    std::string train_task = "copy";        // --train-task: the task --train trains (translate: its preset)
    std::string train_from;                 // --train-from default: fine-tune the shipped model; empty: fresh weights
    std::string train_precision = "fp32";   // --train-precision: fp32, or bf16 / fp16 mixed precision
    std::string train_row;                  // --train-row ID: --train trains this variant comparison row
    int lesson = 0;                         // --lesson N[,STEPS]: open lesson N (1-based) and do its first STEPS steps
    int lesson_steps = 0;
    int generate_token = 0;                 // --generate T: open the Generate panel at token T (1-based)
    bool sample = false;                    // --sample or any sampling option: the Generate panel samples
    SamplingOptions sampling;               // --sample-temperature, --top-k, --top-p, --seed
    bool cache_timing = false;              // --cache-timing: time generation with and without the KV cache at launch
    std::string generation_bench;           // --generation-bench FILE: plot run_generate_bench.sh's figures (Backend panel)
};

// The commands the options stand for, in the order they are applied once the first model is open.
std::vector<Command> launch_commands(const LaunchOptions& launch, const AppOptions& options) {
    std::vector<Command> c;
    // A panel the options imply is raised only when no --panel or --layout names one.
    const bool free_to_raise = options.panel.empty() && options.layout.empty();
    c.push_back(SetLookInside{launch.corrupt, launch.look_inside});
    if (!launch.precision.empty() || launch.all_low || launch.embedding_scale != 1.0f)
        c.push_back(SetPrecision{{precision_from_string(launch.precision.empty() ? "bf16" : launch.precision).value(), launch.all_low},
                                 launch.embedding_scale});
    if (launch.beam_size > 1) c.push_back(SetDecoding{launch.beam_size, 0.6});
    if (launch.speculative_k > 0) {
        c.push_back(SetSpeculative{launch.speculative_k, launch.speculative_layers, true});
        if (free_to_raise) c.push_back(ShowPanel{"decoding"});
    }
    if (launch.attention_lines) c.push_back(DrawAttentionAsLines{true});
    if (launch.fused_attention) c.push_back(SetFusedAttention{true});
    if (!launch.step.empty()) c.push_back(GoToStep{launch.step, true});
    if (launch.head >= 0 || launch.neuron_query >= 0) {
        c.push_back(PickAttentionCell{launch.head, launch.neuron_query, launch.neuron_key});
        if (launch.neuron_query >= 0 && free_to_raise) c.push_back(ShowPanel{"neuron"});
    }
    if (launch.sample) c.push_back(SetGeneration{explain::GenerationSettings{true, launch.sampling}, false});
    if (launch.generate_token > 0) {
        c.push_back(ShowGeneratedToken{launch.generate_token});
        if (free_to_raise) c.push_back(ShowPanel{"generate"});
    }
    if (!launch.generation_bench.empty()) {
        c.push_back(LoadGenerationBench{launch.generation_bench});
        if (free_to_raise) c.push_back(ShowPanel{"backend"});
    }
    if (launch.cache_timing) {
        c.push_back(MeasureGeneration{});
        if (free_to_raise) c.push_back(ShowPanel{"backend"});
    }
    if (!options.panel.empty()) c.push_back(ShowPanel{options.panel});
    else if (!options.layout.empty() && options.layout != "default" && options.layout != "windows") c.push_back(ShowPanel{options.layout});
    if (launch.lesson > 0) c.push_back(OpenLesson{launch.lesson, launch.lesson_steps});
    if (launch.train_steps > 0) {
        const TaskKind task = task_from_string(launch.train_task).value_or(TaskKind::Copy);
        if (!launch.train_row.empty()) {
            c.push_back(TrainComparisonRow{launch.train_row});
        } else if (task == TaskKind::Translate && launch.train_from == "default") {
            c.push_back(FineTune{TrainingPanel::live_training(Preset::Translate, task), false});
        } else {
            const Preset preset = task == TaskKind::Translate ? Preset::Translate : Preset::Tiny;
            TrainingConfig training = TrainingPanel::live_training(preset, task);
            training.precision = precision_from_string(launch.train_precision).value_or(Precision::Fp32);
            if (training.precision == Precision::Fp16) training.loss_scale.mode = LossScaleMode::Dynamic;
            c.push_back(ConfigureTrainer{preset, training});
        }
        c.push_back(StartTraining{});
    }
    return c;
}

}  // namespace

bool AppOptions::opens_lesson() const {
    return std::any_of(launch.begin(), launch.end(), [](const Command& c) { return std::holds_alternative<OpenLesson>(c); });
}

std::optional<int> parse_options(int argc, char** argv, AppOptions& options) {
    LaunchOptions launch;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](std::string& out) -> bool {
            if (i + 1 >= argc) return false;
            out = argv[++i];
            return true;
        };
        std::string v;
        if (arg == "--help" || arg == "-h") {
            std::fputs(USAGE, stdout);
            return 0;
        } else if (arg == "--list-panels") {
            for (const std::string& key : panel_keys()) std::printf("%s\n", key.c_str());
            return 0;
        } else if (arg == "--fused-attention") {
            launch.fused_attention = true;
        } else if (arg == "--attention-lines") {
            launch.attention_lines = true;
        } else if (arg == "--print-decoded") {
            options.print_decoded = true;
        } else if (arg == "--frame-times") {
            options.frame_times = true;
        } else if (arg == "--screenshot") {
            if (!value(options.screenshot) || options.screenshot.empty()) return bad("--screenshot needs a file name");
        } else if (arg == "--layout") {
            if (!value(v)) return bad("--layout needs a name");
            if (v != "default" && v != "windows" && !is_panel(v))
                return bad("unknown layout '" + v + "': use default, windows or a panel key");
            options.layout = v;
        } else if (arg == "--panel") {
            if (!value(v)) return bad("--panel needs a name");
            if (!is_panel(v))
                return bad("unknown panel '" + v + "': use " + panel_key_list());
            options.panel = v;
        } else if (arg == "--sentence") {
            if (!value(v)) return bad("--sentence needs a text");
            if (options.sentences.size() >= 4) return bad("at most 4 --sentence (a batch holds 4)");
            options.sentences.push_back(v);
        } else if (arg == "--step") {
            if (!value(launch.step) || launch.step.empty()) return bad("--step needs a step name or index");
        } else if (arg == "--frames") {
            if (!value(v)) return bad("--frames needs a number");
            const auto n = whole_number(v, 1, 100000);
            if (!n) return bad("--frames must be a whole number from 1 to 100000, got '" + v + "'");
            options.frames = *n;
        } else if (arg == "--beam") {
            if (!value(v)) return bad("--beam needs a beam size");
            const auto n = whole_number(v, 1, 16);
            if (!n) return bad("--beam must be a whole number from 1 (greedy) to 16, got '" + v + "'");
            launch.beam_size = *n;
        } else if (arg == "--speculative") {
            if (!value(v)) return bad("--speculative needs K or K,L (proposals per round, draft layers)");
            const size_t comma = v.find(',');
            const auto k = whole_number(v.substr(0, comma), 1, 16);
            const auto l = comma == std::string::npos ? std::optional<int>(0) : whole_number(v.substr(comma + 1), 1, 23);
            if (!k || !l)
                return bad("--speculative must be K (1-16) or K,L with L from 1 (draft decoder layers), got '" + v + "'");
            launch.speculative_k = *k;
            launch.speculative_layers = *l;
        } else if (arg == "--neuron") {
            if (!value(v)) return bad("--neuron needs QUERY,KEY (0-based positions, e.g. 3,2)");
            const size_t comma = v.find(',');
            const auto q = comma == std::string::npos ? std::nullopt : whole_number(v.substr(0, comma), 0, 100000);
            const auto k = comma == std::string::npos ? std::nullopt : whole_number(v.substr(comma + 1), 0, 100000);
            if (!q || !k) return bad("--neuron must be QUERY,KEY: two whole numbers from 0 (e.g. 3,2), got '" + v + "'");
            launch.neuron_query = *q;
            launch.neuron_key = *k;
        } else if (arg == "--head") {
            if (!value(v)) return bad("--head needs a head number");
            const auto n = whole_number(v, 0, 100000);
            if (!n) return bad("--head must be a whole number from 0, got '" + v + "'");
            launch.head = *n;
        } else if (arg == "--corrupt") {
            if (!value(v)) return bad("--corrupt needs a sentence");
            launch.corrupt = v;
        } else if (arg == "--look-inside") {
            if (!value(v)) return bad("--look-inside needs a view");
            if (v != "lens" && v != "patch" && v != "heads" && v != "rollout" && v != "entropy" &&
                v != "attribution")
                return bad("--look-inside must be lens, patch, heads, rollout, entropy or attribution, got '" + v + "'");
            launch.look_inside = v;
        } else if (arg == "--precision") {
            if (!value(v)) return bad("--precision needs fp32, bf16, fp16 or int8");
            if (!precision_from_string(v)) return bad("--precision must be fp32, bf16, fp16 or int8, got '" + v + "'");
            launch.precision = v;
        } else if (arg == "--all-low") {
            launch.all_low = true;
        } else if (arg == "--embedding-scale") {
            if (!value(v)) return bad("--embedding-scale needs 1, 100 or 10000");
            if (v != "1" && v != "100" && v != "10000") return bad("--embedding-scale must be 1, 100 or 10000, got '" + v + "'");
            launch.embedding_scale = std::stof(v);
        } else if (arg == "--train") {
            if (!value(v)) return bad("--train needs a number of steps");
            const auto n = whole_number(v, 1, 1000000);
            if (!n) return bad("--train must be a whole number of steps from 1 to 1000000, got '" + v + "'");
            launch.train_steps = options.train_steps = *n;
        } else if (arg == "--train-task") {
            if (!value(v)) return bad("--train-task needs a task name");
            const auto task = task_from_string(v);
            if (!task) return bad("--train-task must be copy, copy-text, reverse, sort, translate, induction or lm, got '" + v + "'");
            launch.train_task = v;
        } else if (arg == "--train-from") {
            if (!value(v)) return bad("--train-from needs a model");
            if (v != "default") return bad("--train-from must be default (the small-grammar translation model), got '" + v + "'");
            launch.train_from = v;
        } else if (arg == "--train-precision") {
            if (!value(v)) return bad("--train-precision needs fp32, bf16 or fp16");
            if (v != "fp32" && v != "bf16" && v != "fp16") return bad("--train-precision must be fp32, bf16 or fp16, got '" + v + "'");
            launch.train_precision = v;
        } else if (arg == "--train-row") {
            if (!value(v)) return bad("--train-row needs a row id");
            if (!find_comparison_row(v))
                return bad("--train-row: no variant comparison row '" + v + "' (txcli compare-variants --list shows them)");
            launch.train_row = v;
        } else if (arg == "--size") {
            if (!value(v)) return bad("--size needs WxH");
            int w = 0, h = 0;
            if (std::sscanf(v.c_str(), "%dx%d", &w, &h) != 2 || w < 640 || h < 480 || w > 8192 || h > 8192)
                return bad("--size must be WxH between 640x480 and 8192x8192, got '" + v + "'");
            options.window_width = w;
            options.window_height = h;
        } else if (arg == "--checkpoint") {
            if (!value(options.checkpoint) || options.checkpoint.empty()) return bad("--checkpoint needs a file");
        } else if (arg == "--lesson") {
            if (!value(v)) return bad("--lesson needs N or N,STEPS");
            const size_t comma = v.find(',');
            const auto n = whole_number(v.substr(0, comma), 1, 99);
            const auto steps = comma == std::string::npos ? std::optional<int>(0) : whole_number(v.substr(comma + 1), 0, 99);
            if (!n || !steps) return bad("--lesson must be N or N,STEPS (whole numbers, N from 1), got '" + v + "'");
            launch.lesson = *n;
            launch.lesson_steps = *steps;
        } else if (arg == "--quiz-seed") {
            if (!value(v)) return bad("--quiz-seed needs a whole number");
            char* end = nullptr;
            errno = 0;
            const unsigned long long seed = v.empty() || v[0] == '-' ? 0 : std::strtoull(v.c_str(), &end, 10);
            if (v.empty() || v[0] == '-' || errno != 0 || *end != '\0' || seed == 0)
                return bad("--quiz-seed must be a whole number from 1, got '" + v + "'");
            options.quiz_seed = seed;
        } else if (arg == "--lessons") {
            if (!value(options.lessons) || options.lessons.empty()) return bad("--lessons needs a folder or file");
        } else if (arg == "--generate") {
            if (!value(v)) return bad("--generate needs a token number");
            const auto n = whole_number(v, 1, 100000);
            if (!n) return bad("--generate must be a whole number from 1 (the first output token), got '" + v + "'");
            launch.generate_token = *n;
        } else if (arg == "--sample") {
            launch.sample = true;
        } else if (arg == "--sample-temperature" || arg == "--top-p") {
            if (!value(v)) return bad(arg + " needs a number");
            char* end = nullptr;
            const double x = std::strtod(v.c_str(), &end);
            if (v.empty() || *end) return bad(arg + " must be a number, got '" + v + "'");
            (arg == "--top-p" ? launch.sampling.top_p : launch.sampling.temperature) = x;
            launch.sample = true;
        } else if (arg == "--top-k") {
            if (!value(v)) return bad("--top-k needs a number of tokens");
            const auto n = whole_number(v, 0, 1000000000);
            if (!n) return bad("--top-k must be a whole number, 0 (all tokens) or more, got '" + v + "'");
            launch.sampling.top_k = *n;
            launch.sample = true;
        } else if (arg == "--seed") {
            if (!value(v)) return bad("--seed needs a number");
            char* end = nullptr;
            const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
            if (v.empty() || *end || v[0] == '-') return bad("--seed must be a whole number, 0 or more, got '" + v + "'");
            launch.sampling.seed = n;
            launch.sample = true;
        } else if (arg == "--cache-timing") {
            launch.cache_timing = true;
        } else if (arg == "--generation-bench") {
            if (!value(launch.generation_bench) || launch.generation_bench.empty())
                return bad("--generation-bench needs a JSON file written by bench/run_generate_bench.sh");
        } else if (arg == "--assets") {
            if (!value(options.assets) || options.assets.empty()) return bad("--assets needs a folder");
        } else {
            return bad("unknown argument '" + arg + "'");
        }
    }
    try {
        validate(launch.sampling);
    } catch (const std::exception& e) {
        return bad(std::string("sampling: ") + e.what());
    }
    if (launch.all_low) {
        PrecisionMode mode{precision_from_string(launch.precision.empty() ? "bf16" : launch.precision).value(), true};
        if (auto problem = validate(mode)) return bad("--all-low: " + *problem);
    }
    if (options.print_decoded && options.screenshot.empty()) return bad("--print-decoded needs --screenshot");
    if (options.frame_times && options.screenshot.empty()) return bad("--frame-times needs --screenshot");
    if ((launch.train_task != "copy" || !launch.train_from.empty()) && options.train_steps == 0)
        return bad("--train-task and --train-from need --train N");
    if (!launch.train_row.empty() && options.train_steps == 0) return bad("--train-row needs --train N");
    if (launch.train_precision != "fp32" && (options.train_steps == 0 || !launch.train_row.empty() || !launch.train_from.empty()))
        return bad("--train-precision needs --train N, without --train-row or --train-from (their settings are fixed)");
    if (!launch.train_row.empty() && (launch.train_task != "copy" || !launch.train_from.empty()))
        return bad("--train-row sets the task and the weights itself: leave out --train-task and --train-from");
    if (!launch.train_from.empty() && launch.train_task != "translate")
        return bad("--train-from default fine-tunes the translation model: it needs --train-task translate");
    options.launch = launch_commands(launch, options);
    return std::nullopt;
}

}  // namespace tx::app
