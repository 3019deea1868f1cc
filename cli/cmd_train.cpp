// txcli train: trains a model on a task with core's Trainer (the one training loop) and
// polls its snapshots: a progress line with ETA on a terminal, plain lines otherwise, one CSV
// row per snapshot (--log), and the last good weights saved on finish or Ctrl-C (--save).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "args.h"
#include "tx/asset_paths.h"
#include "commands.h"
#include "tx/cpu_isa.h"
#include "tx/evaluation.h"
#include "model_source.h"
#include "tx/model_on_backend.h"
#include "tx/tasks.h"
#include "tx/threads.h"
#include "tx/trainer.h"
#include "tx/training_state.h"
#include "tx/transformer.h"
#include "tx/variant_comparison.h"

namespace tx::cli {

namespace {

// The names, with the variant options (model_source.h) added: the lists below name the others.
std::set<std::string> with_variant_options(std::set<std::string> names) {
    names.insert(VARIANT_OPTIONS.begin(), VARIANT_OPTIONS.end());
    return names;
}

volatile std::sig_atomic_t g_interrupted = 0;
void on_sigint(int) { g_interrupted = 1; }

constexpr const char* TRAIN_HELP =
    "usage: txcli train --task copy|copy-text|reverse|sort|translate|induction|lm [--preset tiny|annotated|translate|everyday]\n"
    "                   [--steps N | --until-exact R | --until-loss L] [--seed N] [--save FILE] [--log FILE.csv]\n"
    "                   [--backend cpu|cuda] [--threads N] [--precision fp32|bf16|fp16 [--loss-scale S]] [overrides]\n"
    "\n"
    "Trains on a task and evaluates on a fixed held-out set (greedy exact match, and BLEU).\n"
    "Ctrl-C stops after the current step and saves (--save) the last good weights.\n"
    "\n"
    "  --task NAME          copy, copy-text (sentences + random word sequences, 5% UNK), reverse, sort,\n"
    "                       translate (sentence pairs; English -> Spanish unless --data is given),\n"
    "                       induction (--length random symbols repeated once, next-token prediction) or\n"
    "                       lm (next subword piece of the corpus's English side); these two train a\n"
    "                       decoder-only model (the default for them), the others an encoder-decoder one\n"
    "  --preset NAME        tiny (64/4/256, 2+2 layers; default), annotated (512/8/2048, 2+2,\n"
    "                       dropout 0.1, batch 80, 20 x 20 batches, lr 0.5, warmup 400) or translate\n"
    "                       (128/4/512, 3+3, dropout 0.1, subword tokens, label smoothing 0.1,\n"
    "                       batch 64 grouped by length, lr 1, warmup 1500) or everyday (256/8/1024, 4+4,\n"
    "                       the everyday-English corpus, 8000 pieces, max_len 128, warmup 4000)\n"
    "  --steps N            train N steps (default: epochs x batches of the preset)\n"
    "  --until-exact R      stop once held-out exact match >= R (0..1), at most --steps steps\n"
    "  --until-loss L       stop once the held-out loss < L (induction: the second half's), at most --steps\n"
    "  --test-length N      after training, also evaluate on held-out sequences of length N (length\n"
    "                       generalisation; induction: N symbols repeated once)\n"
    "  --seed N             model initialisation and data stream (default 1)\n"
    "  --save FILE          write the checkpoint (.safetensors) at the end or on Ctrl-C\n"
    "  --save-every N       also write it every N steps while training (long runs), with its training\n"
    "                       state beside it (FILE.state: Adam's moments, the step, the data stream)\n"
    "  --init FILE          fine-tune: start from that checkpoint's model, weights and tokenizer instead\n"
    "                       of fresh ones (options that shape the model are refused; --dropout may be set)\n"
    "  --resume             continue the run saved in --save FILE and FILE.state where it stopped, with\n"
    "                       its saved settings; only --steps (a new total), --save-every, --log (appended),\n"
    "                       --threads, --backend, --eval-every, --log-every, --json and --quiet may be added\n"
    "  --log FILE.csv       step,loss,eval_loss,lr,token_accuracy,exact_match,bleu,tokens_per_s,loss_scale,\n"
    "                       grad_underflow,activation_grad_underflow,skipped_steps\n"
    "  --precision P        fp32 (default), or bf16 / fp16 mixed precision: the matrix products forward and\n"
    "                       backward in P, softmax, norms and the loss in fp32, and fp32 master weights,\n"
    "                       gradients and Adam state (emulated on the cpu backend; docs/precision.md)\n"
    "  --loss-scale S       with bf16 or fp16: dynamic (start at 65536, halve and skip the step when a\n"
    "                       gradient is inf or NaN, double after --loss-scale-interval good steps; the\n"
    "                       default for fp16), none (the default for bf16) or a fixed number N\n"
    "  --loss-scale-interval N  good steps before a dynamic scale doubles (default 2000)\n"
    "  --qat                quantization-aware training: each step runs forward and backward on the linear\n"
    "                       weights rounded to INT8 and back, and updates the FP32 weights with that\n"
    "                       gradient; held-out scores are the INT8 model's (fp32 only; docs/precision.md)\n"
    "  --threads N          CPU threads for the matrix products (default 1)\n"
    "  --json               print the final summary as one JSON object\n"
    "  --compare-row ID     train one row of the variant comparison (txcli compare-variants --list): its\n"
    "                       task, model, schedule, budget, target and test length; only --save, --log,\n"
    "                       --save-every, --backend and --threads may be added\n"
    "model:    --d-model N --heads N --d-ff N --layers N --dropout P --max-len N --norm post|pre\n"
    "          --tokenizer word|char|sentencepiece (copy-text; translate is always sentencepiece)\n"
    "          --positional sinusoidal|learned|rope|alibi|none|relative --ffn relu|gelu|swiglu\n"
    "          --norm-kind layernorm|rmsnorm --window W (0 = full) --arch encoder-decoder|decoder-only\n"
    "          --window-dilation D --global-positions P,Q (Longformer's dilated window, global attention)\n"
    "          --kv-heads G (grouped-query attention: G key/value heads; 0 = one per query head)\n"
    "          --ffn-rank R (low-rank FFN: each FFN matrix a product of rank R; 0 = full)\n"
    "training: --batch N --epochs N --batches N (per epoch) --lr BASE --warmup N --smoothing E\n"
    "          --clip NORM --eval-every N --log-every N --eval-sequences N\n"
    "task:     --symbols N --length N --variant ascending|descending|unique (sort)\n"
    "          --min-length N    induction: first halves of N..length symbols (0: always length)\n"
    "          --vocab FILE --sentences FILE --random-fraction F (copy-text)\n"
    "          --data FILE.tsv   your own sentence pairs, source<TAB>target per line (translate); every\n"
    "                            20th pair is held out for evaluation. Default: the shipped English ->\n"
    "                            Spanish corpus, with its validation split held out\n"
    "          --subword-vocab N at most N SentencePiece pieces, trained on --data (default 2000)\n";

std::string fmt_duration(double s) {
    if (!(s >= 0) || s > 1e7) return "--:--";
    const long t = static_cast<long>(s + 0.5);
    char buf[32];
    if (t >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

// The training loop's driver, shared by new and resumed runs: progress lines, the CSV log,
// saving every --save-every steps, the final save and the summary.
int run_training(const Args& args, const ModelConfig& m, const TrainingConfig& t, const BackendFactory& make_backend,
                 int test_length, const Checkpoint* start_from, const TrainingState* resume_from) {

    const long long save_every = args.integer("save-every", 0, 1, 1LL << 40);
    if (save_every > 0 && !args.has("save")) throw CliError("--save-every needs --save FILE");
    // Runs saved as they go, or resumed, keep their training state beside the checkpoint to the end,
    // so they can be resumed again (or extended with a larger --steps).
    const bool resumable = save_every > 0 || resume_from != nullptr;
    const auto wall_start = std::chrono::steady_clock::now();
    Trainer trainer(m, t, make_backend, start_from, resume_from);
    const ModelConfig& mc = trainer.model_config();
    const bool quiet = args.flag("quiet"), json = args.flag("json");
    const bool tty = isatty(fileno(stderr)) && !quiet;
    std::fprintf(stderr, "training %s on %s: d_model %d, heads %d, d_ff %d, layers %d+%d, vocab %d, batch %d, %lld steps%s\n",
                 to_string(t.task), args.get_or("backend", "cpu").c_str(), mc.d_model, mc.heads, mc.d_ff, mc.encoder_layers, mc.decoder_layers, mc.tgt_vocab,
                 t.batch, static_cast<long long>(t.total_steps()),
                 t.target_exact > 0 ? (" (or until " + std::to_string(t.target_exact) + " exact match)").c_str() : "");
    if (t.precision != Precision::Fp32)
        std::fprintf(stderr, "mixed precision: %s products, fp32 master weights and Adam state, loss scale %s\n",
                     to_string(t.precision), to_string(t.loss_scale).c_str());

    std::ofstream log;
    if (args.has("log")) {
        // A resumed run appends to its curve; a new one starts it.
        const bool append = resume_from && std::filesystem::exists(args.get("log")) &&
                            std::filesystem::file_size(args.get("log")) > 0;
        log.open(args.get("log"), append ? std::ios::app : std::ios::trunc);
        if (!log) throw CliError("--log: cannot write '" + args.get("log") + "'");
        if (!append)
            log << "step,loss,eval_loss,lr,token_accuracy,exact_match,bleu,tokens_per_s,loss_scale,grad_underflow,"
                   "activation_grad_underflow,skipped_steps\n";
    }
    g_interrupted = 0;
    auto* previous = std::signal(SIGINT, on_sigint);
    trainer.start();

    int64_t last_saved = resume_from ? resume_from->step : 0;
    std::string curve_pending;   // --log lines not yet written (see below)
    size_t logged = 0;
    double last_line = -1e9;
    bool stop_sent = false;
    TrainingSnapshot snap;
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        snap = trainer.snapshot();
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        for (; logged < snap.history.size(); ++logged) {
            const TrainingPoint& p = snap.history[logged];
            std::ostringstream line;
            line << p.step << ',' << p.loss << ',' << p.eval_loss << ',' << p.lr << ',' << p.token_accuracy << ','
                 << p.exact_match << ',' << p.bleu << ',' << p.tokens_per_s << ',' << p.loss_scale << ','
                 << p.grad_underflow << ',' << p.activation_grad_underflow << ',' << p.skipped_steps << '\n';
            curve_pending += line.str();
        }
        // A run saved as it goes writes its curve at each save, so after a kill the curve ends
        // where the saved state does and a resumed run appends no step twice.
        if (log && save_every == 0) {
            log << curve_pending;
            curve_pending.clear();
        }
        const bool done = snap.state == TrainerState::Finished || snap.state == TrainerState::Diverged;
        if (save_every > 0 && !done && snap.step >= last_saved + save_every) {
            if (const std::string error = trainer.save_resumable(args.get("save")); !error.empty()) {
                std::fprintf(stderr, "\nwarning: could not save at step %lld: %s\n", static_cast<long long>(snap.step),
                             error.c_str());
            } else if (log) {
                log << curve_pending << std::flush;
                curve_pending.clear();
            }
            last_saved = snap.step;
        }
        if (!quiet && snap.step > 0 && (tty ? wall - last_line >= 0.2 : wall - last_line >= 5.0 || done)) {
            last_line = wall;
            const TrainingPoint& p = snap.latest;
            const double eta = snap.step > 0 ? wall / snap.step * (snap.total_steps - snap.step) : -1;
            char task_part[96];
            if (t.task == TaskKind::Induction)
                std::snprintf(task_part, sizeof task_part, "halves %.3f / %.3f  2nd-half acc %5.1f%%", p.first_half_loss,
                              p.second_half_loss, 100 * p.second_half_accuracy);
            else if (t.task == TaskKind::Lm)
                std::snprintf(task_part, sizeof task_part, "ppl %.2f  acc %5.1f%%", std::exp(p.eval_loss), 100 * p.token_accuracy);
            else
                std::snprintf(task_part, sizeof task_part, "acc %5.1f%%  exact %5.1f%%  BLEU %5.1f", 100 * p.token_accuracy,
                              100 * p.exact_match, 100 * p.bleu);
            std::fprintf(stderr, "%sstep %lld/%lld  loss %.4f  eval %.4f  %s  lr %.2e  %.0f tok/s  %s elapsed, ETA %s%s",
                         tty ? "\r" : "", static_cast<long long>(snap.step), static_cast<long long>(snap.total_steps),
                         p.loss, p.eval_loss, task_part, p.lr, p.tokens_per_s,
                         fmt_duration(wall).c_str(), fmt_duration(eta).c_str(), tty ? "\x1b[K" : "\n");
        }
        if (done) break;
        if (g_interrupted && !stop_sent) {
            trainer.stop();
            stop_sent = true;
        }
    }
    if (tty) std::fputc('\n', stderr);
    std::signal(SIGINT, previous);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (log) {
        log << curve_pending;
        log.close();
    }
    if (args.has("save") && resumable) {
        if (const std::string error = trainer.save_resumable(args.get("save")); !error.empty())
            throw CliError("--save: " + error);
        std::fprintf(stderr, "saved %s and its training state %s\n", args.get("save").c_str(),
                     training_state_path(args.get("save")).c_str());
    } else if (args.has("save")) {
        save_checkpoint(args.get("save"), trainer.checkpoint());
        std::fprintf(stderr, "saved %s\n", args.get("save").c_str());
    }
    const double tokens_per_s = snap.elapsed_s > 0 ? static_cast<double>(snap.tokens) / snap.elapsed_s : 0.0;
    const TrainingPoint& p = snap.latest;
    // Length generalisation: the trained weights on held-out sequences of another length.
    EvalResult test;
    if (test_length > 0) {
        const Checkpoint c = trainer.checkpoint();
        const ModelOnBackend trained = make_model(c, make_backend());
        Transformer& model = *trained;
        TrainingConfig tt = t;
        tt.length = test_length;
        tt.min_length = 0;   // every test sequence of exactly that length
        const Task test_task(tt, c.config.max_len, c.config.tokenizer, c.config.special);
        test = next_token_task(t.task) ? evaluate_next_token(model, test_task.held_out(), test_task.repeats())
                                      : evaluate(model, test_task.held_out(), true);
    }
    const bool halves = t.task == TaskKind::Induction, lm = t.task == TaskKind::Lm;
    if (json) {
        const cpu::MachineInfo machine = cpu::machine_info();   // where it ran: the machines differ (docs/design.md §10)
        std::printf("{\"cpu\": %s, \"isa\": \"%s\", \"flops_per_cycle\": %d, \"max_ghz\": %.3f, ",
                    nlohmann::json(machine.cpu_model).dump().c_str(), cpu::isa_name(cpu::active_isa()),
                    machine.flops_per_cycle, machine.max_ghz);
        std::printf("\"task\": \"%s\", \"steps\": %lld, \"loss\": %.6g, \"eval_loss\": %.6g, \"token_accuracy\": %.6g, "
                    "\"exact_match\": %.6g, \"bleu\": %.6g, \"tokens_per_s\": %.1f, \"train_s\": %.3f, \"wall_s\": %.3f, "
                    "\"state\": \"%s\", \"message\": \"%s\"",
                    to_string(t.task), static_cast<long long>(snap.step), p.loss, p.eval_loss, p.token_accuracy,
                    p.exact_match, p.bleu, tokens_per_s, snap.elapsed_s, wall, to_string(snap.state), snap.message.c_str());
        if (t.precision != Precision::Fp32)
            std::printf(", \"precision\": \"%s\", \"loss_scale\": %.6g, \"skipped_steps\": %lld, \"grad_underflow\": %.6g",
                        to_string(t.precision), p.loss_scale, static_cast<long long>(p.skipped_steps), p.grad_underflow);
        if (halves)
            std::printf(", \"first_half_loss\": %.6g, \"first_half_accuracy\": %.6g, \"second_half_loss\": %.6g, "
                        "\"second_half_accuracy\": %.6g",
                        p.first_half_loss, p.first_half_accuracy, p.second_half_loss, p.second_half_accuracy);
        if (lm) std::printf(", \"perplexity\": %.6g", std::exp(p.eval_loss));
        if (test_length > 0) {
            std::printf(", \"test_length\": %d, \"test_loss\": %.6g, \"test_token_accuracy\": %.6g, \"test_exact_match\": %.6g",
                        test_length, test.loss, test.token_accuracy, test.exact_match);
            if (halves)
                std::printf(", \"test_second_half_loss\": %.6g, \"test_second_half_accuracy\": %.6g", test.second_half_loss,
                            test.second_half_accuracy);
        }
        std::printf("}\n");
    } else if (halves) {
        std::printf("%s. loss %.4f, held-out loss %.4f: first half (random) %.4f, accuracy %.1f%%; second half (repeated) "
                    "%.4f, accuracy %.1f%%; whole second half right %.1f%%. %.0f target tokens/s, %.1f s training, %.1f s wall\n",
                    snap.message.c_str(), p.loss, p.eval_loss, p.first_half_loss, 100 * p.first_half_accuracy,
                    p.second_half_loss, 100 * p.second_half_accuracy, 100 * p.exact_match, tokens_per_s, snap.elapsed_s, wall);
    } else if (lm) {
        std::printf("%s. loss %.4f, held-out loss %.4f, perplexity %.2f, next-token accuracy %.1f%%. %.0f target tokens/s, "
                    "%.1f s training, %.1f s wall\n",
                    snap.message.c_str(), p.loss, p.eval_loss, std::exp(p.eval_loss), 100 * p.token_accuracy, tokens_per_s,
                    snap.elapsed_s, wall);
    } else {
        std::printf("%s. loss %.4f, held-out loss %.4f, token accuracy %.1f%%, exact match %.1f%%, BLEU %.1f, "
                    "%.0f target tokens/s, %.1f s training, %.1f s wall\n",
                    snap.message.c_str(), p.loss, p.eval_loss,
                    100 * p.token_accuracy, 100 * p.exact_match, 100 * p.bleu, tokens_per_s, snap.elapsed_s, wall);
    }
    if (t.precision != Precision::Fp32 && !json)
        std::printf("%s training: the last step's loss scale %g, %lld of %lld steps skipped (inf/NaN gradients), "
                    "weight-gradient entries flushed to zero over the last logged steps %.4f%%\n",
                    to_string(t.precision), p.loss_scale, static_cast<long long>(p.skipped_steps),
                    static_cast<long long>(snap.step), 100 * p.grad_underflow);
    if (test_length > 0 && !json) {
        if (halves)
            std::printf("at length %d: second half loss %.4f, accuracy %.1f%%; whole second half right %.1f%%\n", test_length,
                        test.second_half_loss, 100 * test.second_half_accuracy, 100 * test.exact_match);
        else
            std::printf("at length %d: held-out loss %.4f, token accuracy %.1f%%, exact match %.1f%%\n", test_length, test.loss,
                        100 * test.token_accuracy, 100 * test.exact_match);
    }
    if (snap.state == TrainerState::Diverged) return 1;
    return 0;   // Ctrl-C included: stopped and saved cleanly
}

// --precision, --loss-scale and --loss-scale-interval into the training settings, each bad value
// refused in the options' words.
void apply_precision_options(const Args& args, TrainingConfig& t) {
    const std::string name = args.get_or("precision", "fp32");
    const auto format = precision_from_string(name);
    if (!format) throw CliError("--precision must be fp32, bf16 or fp16 for training, got '" + name + "'");
    if (*format == Precision::Int8)
        throw CliError("--precision int8 cannot train: int8 is weight-only quantisation of a trained model (255 levels per "
                       "row of a weight), and Adam's small updates would be rounded away; train in fp32, bf16 or fp16, "
                       "then evaluate in int8 (txcli forward --precision int8)");
    t.precision = *format;
    const bool low = t.precision == Precision::Bf16 || t.precision == Precision::Fp16;
    if (!low && (args.has("loss-scale") || args.has("loss-scale-interval")))
        throw CliError("--loss-scale is for --precision bf16 or fp16: FP32 training has no low-precision gradients to "
                       "keep from underflowing");
    if (args.get_or("backend", "cpu") != "cpu" && low)
        throw CliError("--precision " + name + " training is emulated on the cpu backend: use --backend cpu");
    // GradScaler is what FP16 needs; BF16 has FP32's exponent range, so none is its default.
    const std::string scale = args.get_or("loss-scale", t.precision == Precision::Fp16 ? "dynamic" : "none");
    std::string error;
    const auto settings = loss_scale_from_string(scale, &error);
    if (!settings) throw CliError("--loss-scale: " + error);
    t.loss_scale = *settings;
    if (args.has("loss-scale-interval")) {
        if (t.loss_scale.mode != LossScaleMode::Dynamic)
            throw CliError("--loss-scale-interval is for --loss-scale dynamic (a fixed or no scale never grows)");
        t.loss_scale.growth_interval = args.integer("loss-scale-interval", 2000, 1, 1LL << 40);
    }
}

// --resume: the saved run's model, tokenizer, weights and settings, continued from its training state.
int resume_training(const Args& args) {
    for (const std::string& name : with_variant_options({"task", "preset", "until-exact", "seed", "d-model", "heads", "d-ff", "layers", "dropout",
                             "max-len", "norm", "tokenizer", "batch", "epochs", "batches", "lr", "warmup", "smoothing",
                             "clip", "eval-sequences", "symbols", "length", "variant", "vocab", "sentences",
                             "random-fraction", "data", "subword-vocab", "until-loss", "test-length", "min-length", "compare-row", "init", "precision",
                             "loss-scale", "loss-scale-interval"}))
        if (args.has(name))
            throw CliError("--" + name + " cannot be combined with --resume: the saved run's settings are used");
    if (args.flag("qat")) throw CliError("--qat cannot be combined with --resume: the saved run's settings are used");
    if (!args.has("save")) throw CliError("--resume needs --save FILE: the checkpoint to continue (and FILE.state beside it)");
    const std::string path = args.get("save"), state_path = training_state_path(path);
    if (!std::filesystem::exists(path)) throw CliError("--resume: no checkpoint '" + path + "'");
    if (!std::filesystem::exists(state_path))
        throw CliError("--resume: no training state '" + state_path + "' beside the checkpoint (it is written by "
                       "--save-every)");
    const Checkpoint checkpoint = load_checkpoint(path);
    const TrainingState state = load_training_state(state_path);
    if (checkpoint.training_json.empty()) throw CliError("--resume: '" + path + "' holds no training settings");
    TrainingConfig t = training_config_from_json(checkpoint.training_json);
    t.max_steps = args.integer("steps", t.total_steps(), 1, 1LL << 40);
    t.eval_every = static_cast<int>(args.integer("eval-every", t.eval_every, 0, 1000000));
    t.snapshot_every = static_cast<int>(args.integer("log-every", t.snapshot_every, 1, 1000000));
    if (state.step >= t.total_steps())
        throw CliError("--resume: the saved run is at step " + std::to_string(state.step) + " of " +
                       std::to_string(t.total_steps()) + "; give a larger --steps to train further");
    std::fprintf(stderr, "resuming %s at step %lld\n", path.c_str(), static_cast<long long>(state.step));
    const BackendFactory make_backend = backend_factory(args.get_or("backend", "cpu"));
    set_cpu_threads(static_cast<int>(args.integer("threads", 1, 1, 1024)));
    return run_training(args, checkpoint.config, t, make_backend, 0, &checkpoint, &state);
}
}  // namespace

int cmd_train(const Argv& argv) {
    if (wants_help(argv)) {
        std::fputs(TRAIN_HELP, stdout);
        return 0;
    }
    const Args args(argv,
                    with_variant_options({"task", "preset", "steps", "until-exact", "seed", "save", "log", "backend", "threads", "d-model",
                     "heads", "d-ff", "layers", "dropout", "max-len", "norm", "tokenizer", "batch", "epochs", "batches",
                     "lr", "warmup", "smoothing", "clip", "eval-every", "log-every", "eval-sequences", "symbols",
                     "length", "variant", "vocab", "sentences", "random-fraction", "data", "subword-vocab", "save-every", "until-loss", "test-length", "min-length",
                     "compare-row", "init", "precision", "loss-scale", "loss-scale-interval"}),
                    {"json", "quiet", "resume", "qat"});
    if (args.flag("resume")) {
        if (args.has("init")) throw CliError("--init cannot be combined with --resume: the saved run already has its weights");
        return resume_training(args);
    }
    // A comparison row is its own settings: options that would change it are refused, so a row
    // run here is the row docs/variants.md reports.
    const ComparisonRow* row = nullptr;
    if (args.has("compare-row")) {
        row = find_comparison_row(args.get("compare-row"));
        if (!row)
            throw CliError("--compare-row: no row '" + args.get("compare-row") + "' (txcli compare-variants --list shows them)");
        for (const std::string& name : with_variant_options({"task", "preset", "steps", "until-exact", "seed", "d-model", "heads", "d-ff", "layers",
                                 "dropout", "max-len", "norm", "tokenizer", "batch", "epochs", "batches", "lr", "warmup",
                                 "smoothing", "clip", "eval-every", "log-every", "eval-sequences", "symbols", "length",
                                 "variant", "vocab", "sentences", "random-fraction", "data", "subword-vocab", "until-loss", "test-length", "min-length", "init"}))
            if (args.has(name)) throw CliError("--" + name + " cannot be combined with --compare-row (the row sets it)");
        if (args.flag("qat")) throw CliError("--qat cannot be combined with --compare-row (the row sets its training)");
    }
    const auto task = row ? std::optional<TaskKind>(row->task) : task_from_string(args.get("task"));
    if (!task)
        throw CliError("--task must be copy, copy-text, reverse, sort, translate, induction or lm (got '" + args.get("task") +
                       "')");
    const auto preset = preset_from_string(args.get_or("preset", *task == TaskKind::Translate ? "translate" : "tiny"));
    if (!preset)
        throw CliError("--preset must be tiny, annotated, translate or everyday (got '" + args.get("preset") + "')");
    const BackendFactory make_backend = backend_factory(args.get_or("backend", "cpu"));

    ModelConfig m = row ? comparison_model(*row) : model_for_task(preset_model(*preset), *task);
    TrainingConfig t = row ? comparison_training(*row) : preset_training(*preset, *task);
    m.d_model = static_cast<int>(args.integer("d-model", m.d_model, 1, 4096));
    m.heads = static_cast<int>(args.integer("heads", m.heads, 1, 64));
    m.d_ff = static_cast<int>(args.integer("d-ff", m.d_ff, 1, 16384));
    m.encoder_layers = m.decoder_layers = static_cast<int>(args.integer("layers", m.decoder_layers, 1, 24));
    m.dropout = static_cast<float>(args.real("dropout", m.dropout, 0.0, 0.99));
    m.max_len = static_cast<int>(args.integer("max-len", m.max_len, 2, 4096));
    const std::string norm = args.get_or("norm", to_string(m.norm));
    if (norm != "post" && norm != "pre") throw CliError("--norm must be post or pre");
    m.norm = norm == "pre" ? NormPlacement::Pre : NormPlacement::Post;
    apply_variant_options(args, m);
    // A decoder-only model never sees a source, so it trains on the next-token tasks only, and
    // they need it: the same rule TrainingRun enforces, said in the options' words.
    if (m.arch == Arch::DecoderOnly && !next_token_task(*task))
        throw CliError("--arch decoder-only: the " + std::string(to_string(*task)) + " task needs the source, which a "
                       "decoder-only model does not read; use encoder-decoder, or --task induction or lm");
    if (m.arch != Arch::DecoderOnly && next_token_task(*task))
        throw CliError("--task " + std::string(to_string(*task)) + " is next-token prediction on one sequence: it needs "
                       "--arch decoder-only (its default)");
    const std::string tokenizer = args.get_or("tokenizer", to_string(m.tokenizer));
    if (tokenizer != "word" && tokenizer != "char" && tokenizer != "sentencepiece")
        throw CliError("--tokenizer must be word, char or sentencepiece");
    m.tokenizer = tokenizer == "char" ? TokenizerKind::Char
                  : tokenizer == "sentencepiece" ? TokenizerKind::SentencePiece : TokenizerKind::Word;
    t.seed = static_cast<uint64_t>(args.integer("seed", row ? static_cast<long long>(t.seed) : 1, 0, (1LL << 62)));
    m.seed = t.seed;
    t.batch = static_cast<int>(args.integer("batch", t.batch, 1, 4096));
    t.epochs = static_cast<int>(args.integer("epochs", t.epochs, 1, 1000000));
    t.batches_per_epoch = static_cast<int>(args.integer("batches", t.batches_per_epoch, 1, 1000000));
    t.max_steps = args.integer("steps", t.max_steps, 1, 1LL << 40);
    t.target_exact = args.real("until-exact", t.target_exact, 0.0, 1.0);
    t.target_loss = args.real("until-loss", t.target_loss, 0.0, 1e9);
    const int test_length =
        static_cast<int>(args.integer("test-length", row ? comparison_test_length(row->task) : 0, 1, 1000));
    if (test_length > 0 && (*task == TaskKind::Translate || *task == TaskKind::Lm || *task == TaskKind::CopyText))
        throw CliError("--test-length needs a symbol task (copy, reverse, sort, induction): the " +
                       std::string(to_string(*task)) + " task's lengths come from its data");
    t.base_lr = static_cast<float>(args.real("lr", t.base_lr, 1e-9, 1e3));
    t.warmup = static_cast<int>(args.integer("warmup", t.warmup, 1, 100000000));
    t.label_smoothing = static_cast<float>(args.real("smoothing", t.label_smoothing, 0.0, 0.99));
    t.clip_norm = static_cast<float>(args.real("clip", t.clip_norm, 0.0, 1e9));
    t.snapshot_every = static_cast<int>(args.integer("log-every", t.snapshot_every, 1, 1000000));
    t.eval_every = static_cast<int>(args.integer("eval-every", t.eval_every, 0, 1000000));
    t.eval_sequences = static_cast<int>(args.integer("eval-sequences", t.eval_sequences, 1, 100000));
    t.symbols = static_cast<int>(args.integer("symbols", t.symbols, 1, 100000));
    t.length = static_cast<int>(args.integer("length", t.length, 1, 1000));
    if (args.has("min-length") && *task != TaskKind::Induction)
        throw CliError("--min-length is for the induction task (its first halves vary in length)");
    t.min_length = static_cast<int>(args.integer("min-length", std::min(t.min_length, t.length), 0, t.length));
    t.variant = args.get_or("variant", t.variant);
    // Paths stay as given ("assets/..." as the presets name them): the task looks them up in the
    // assets folder when it reads them, and the checkpoint's training record then names them the
    // same way on every computer.
    t.vocab_path = args.get_or("vocab", t.vocab_path);
    t.sentences_path = args.get_or("sentences", t.sentences_path);
    t.random_fraction = static_cast<float>(args.real("random-fraction", t.random_fraction, 0.0, 1.0));
    if (args.has("data")) {
        if (!std::filesystem::exists(args.get("data"))) throw CliError("--data: no file '" + args.get("data") + "'");
        t.data_path = args.get("data");
        t.valid_path.clear();   // one file: every 20th pair is held out
    }
    t.subword_vocab = static_cast<int>(args.integer("subword-vocab", t.subword_vocab, 300, 64000));
    apply_precision_options(args, t);
    if (args.flag("qat")) {
        if (t.precision != Precision::Fp32)
            throw CliError("--qat rounds FP32 weights to INT8 in each step; it cannot be combined with --precision " +
                           std::string(to_string(t.precision)) + " (leave --precision at fp32)");
        t.quantization_aware = true;
    }
    if (auto error = validate(t)) throw CliError(*error);
    // --init: the checkpoint is the model (shape, tokenizer, weights); the options set the training.
    std::optional<Checkpoint> start;
    if (args.has("init")) {
        for (const std::string& name : with_variant_options({"d-model", "heads", "d-ff", "layers", "max-len", "norm", "tokenizer", "subword-vocab"}))
            if (args.has(name))
                throw CliError("--" + name + " cannot be combined with --init: the checkpoint's model is used");
        const std::string path = args.get("init");
        if (!std::filesystem::exists(path)) throw CliError("--init: no checkpoint '" + path + "'");
        start = load_checkpoint(path);
        const float dropout = m.dropout;
        m = start->config;
        if (args.has("dropout")) m.dropout = dropout;
    }
    set_cpu_threads(static_cast<int>(args.integer("threads", 1, 1, 1024)));
    return run_training(args, m, t, make_backend, test_length, start ? &*start : nullptr, nullptr);
}

}  // namespace tx::cli
