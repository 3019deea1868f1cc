// TrainingRun (the loop, thread-free) and Trainer (that loop on its own thread). The worker is
// the only writer of the model and of the published snapshot; callers queue commands under
// one mutex and copy the snapshot under another, held only for the copy (docs/design.md §2).
#include "tx/trainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <optional>

#include "tx/decoding.h"
#include "tx/evaluation.h"
#include "tx/int8_quantize.h"
#include "tx/length_limits.h"
#include "tx/optimizer.h"
#include "tx/tasks.h"
#include "tx/transformer.h"

namespace tx {

const char* to_string(TrainerState state) {
    switch (state) {
        case TrainerState::Idle: return "idle";
        case TrainerState::Running: return "running";
        case TrainerState::Paused: return "paused";
        case TrainerState::Finished: return "finished";
        case TrainerState::Diverged: return "diverged";
    }
    return "?";
}

// ---------------------------------------------------------------------------------------------
// TrainingRun

namespace {

ModelConfig with_task_vocabulary(ModelConfig model, const Task& task) {
    model.src_vocab = model.tgt_vocab = task.vocab_size();
    model.tokenizer = task.tokenizer().kind();
    return model;
}

// The first field in which a checkpoint's config differs from the run's, as a phrase; dropout and
// the seed are training choices and may differ.
std::optional<std::string> fine_tune_mismatch(const ModelConfig& run, const ModelConfig& checkpoint) {
    const auto differs = [](const char* field, const std::string& run_value, const std::string& checkpoint_value) {
        return std::string(field) + " is " + checkpoint_value + " in the checkpoint but " + run_value + " in the settings";
    };
    const auto n = [](auto v) { return std::to_string(v); };
    if (run.tokenizer != checkpoint.tokenizer) return differs("the tokenizer", to_string(run.tokenizer), to_string(checkpoint.tokenizer));
    if (run.src_vocab != checkpoint.src_vocab) return differs("src_vocab", n(run.src_vocab), n(checkpoint.src_vocab));
    if (run.tgt_vocab != checkpoint.tgt_vocab) return differs("tgt_vocab", n(run.tgt_vocab), n(checkpoint.tgt_vocab));
    if (run.d_model != checkpoint.d_model) return differs("d_model", n(run.d_model), n(checkpoint.d_model));
    if (run.heads != checkpoint.heads) return differs("heads", n(run.heads), n(checkpoint.heads));
    if (run.d_ff != checkpoint.d_ff) return differs("d_ff", n(run.d_ff), n(checkpoint.d_ff));
    if (run.encoder_layers != checkpoint.encoder_layers)
        return differs("encoder_layers", n(run.encoder_layers), n(checkpoint.encoder_layers));
    if (run.decoder_layers != checkpoint.decoder_layers)
        return differs("decoder_layers", n(run.decoder_layers), n(checkpoint.decoder_layers));
    if (run.max_len != checkpoint.max_len) return differs("max_len", n(run.max_len), n(checkpoint.max_len));
    if (run.norm != checkpoint.norm) return differs("norm", to_string(run.norm), to_string(checkpoint.norm));
    if (run.final_norm != checkpoint.final_norm)
        return differs("final_norm", run.final_norm ? "on" : "off", checkpoint.final_norm ? "on" : "off");
    if (run.ln_eps != checkpoint.ln_eps) return differs("ln_eps", n(run.ln_eps), n(checkpoint.ln_eps));
    if (run.scale_attention != checkpoint.scale_attention)
        return differs("scale_attention", run.scale_attention ? "on" : "off", checkpoint.scale_attention ? "on" : "off");
    const SpecialTokens &a = run.special, &b = checkpoint.special;
    if (a.pad != b.pad || a.bos != b.bos || a.eos != b.eos || a.unk != b.unk)
        return std::string("the special-token ids (PAD, BOS, EOS, UNK) differ");
    return std::nullopt;
}

}  // namespace

namespace {

// Quantization-aware training (TrainingConfig::quantization_aware): while one lives, the model's
// linear weights are their INT8 round trip (fake_quantize_int8_rows, per output row); restore(),
// or its end, puts the FP32 weights back. Off: it does nothing.
class Int8WeightRoundTrip {
public:
    Int8WeightRoundTrip(Transformer& model, bool on) : m_model(model) {
        if (!on) return;
        m_fp32 = model.download_parameters();
        std::vector<float> rounded = m_fp32;
        for (const ParameterInfo& p : model.table().entries())
            if (p.is_linear_weight())
                fake_quantize_int8_rows(rounded.data() + p.offset, static_cast<int>(p.shape[0]), static_cast<int>(p.shape[1]));
        model.set_parameters(rounded);
    }
    Int8WeightRoundTrip(const Int8WeightRoundTrip&) = delete;
    Int8WeightRoundTrip& operator=(const Int8WeightRoundTrip&) = delete;
    ~Int8WeightRoundTrip() { restore(); }
    void restore() {
        if (m_fp32.empty()) return;
        m_model.set_parameters(m_fp32);
        m_fp32.clear();
    }

private:
    Transformer& m_model;
    std::vector<float> m_fp32;   // the weights to put back; empty: nothing to do
};

}  // namespace

TrainingRun::TrainingRun(ModelConfig model, TrainingConfig training, const BackendFactory& make_backend,
                         const Checkpoint* start_from)
    : m_training(std::move(training)) {
    if (auto error = validate(m_training)) throw ConfigError(*error);
    // Checked before the task is built (lm trains a tokenizer first).
    const char* task_name = to_string(m_training.task);
    if (next_token_task(m_training.task) && model.arch != Arch::DecoderOnly)
        throw ConfigError(std::string("the ") + task_name + " task predicts the next token of a single sequence, which "
                          "needs a decoder-only model (arch decoder-only); an encoder-decoder model cannot train on it");
    if (!next_token_task(m_training.task) && model.arch == Arch::DecoderOnly)
        throw ConfigError(std::string("the ") + task_name + " task maps a source sequence to a target one, and a decoder-only "
                          "model never reads the source; use encoder-decoder, or the induction or lm task");
    const std::string why = "cannot fine-tune this checkpoint on the " + std::string(to_string(m_training.task)) + " task: ";
    // Checked before the task is built: a translate task would otherwise train a tokenizer of its own first.
    if (start_from && m_training.task == TaskKind::Translate && start_from->config.tokenizer != TokenizerKind::SentencePiece)
        throw ConfigError(why + "it uses " + to_string(start_from->config.tokenizer) +
                          " tokens, and translation needs a subword (sentencepiece) model");
    m_task = std::make_unique<Task>(m_training, model.max_len, model.tokenizer, model.special,
                                    start_from ? start_from->tokenizer_model : std::string());
    m_model_config = with_task_vocabulary(model, *m_task);
    check(m_model_config);
    if (start_from) {
        if (auto mismatch = fine_tune_mismatch(m_model_config, start_from->config)) throw ConfigError(why + *mismatch);
        if (m_task->vocabulary() != start_from->vocabulary)
            throw ConfigError(why + "the task's vocabulary is not the checkpoint's (same size, other tokens)");
    }
    m_backend = make_backend();
    if (m_training.precision != Precision::Fp32) {
        // Mixed precision is emulated on the CPU kernels (docs/precision.md).
        if (m_backend->name() != "cpu")
            throw ConfigError(std::string(to_string(m_training.precision)) + " training runs on the cpu backend only (it is "
                              "emulated on the FP32 kernels); choose cpu, or fp32 on " + m_backend->name());
        m_backend = make_mixed_precision_training_backend(m_training.precision);
        m_mixed = mixed_precision_training(*m_backend);
    }
    m_scaler = LossScaler(m_training.loss_scale);
    m_model = std::make_unique<Transformer>(m_model_config, *m_backend);
    if (start_from) {
        if (static_cast<int64_t>(start_from->parameters.size()) != m_model->table().total())
            throw ConfigError(why + "it holds " + std::to_string(start_from->parameters.size()) + " parameters, the model needs " +
                              std::to_string(m_model->table().total()));
        m_start = start_from->parameters;
    }
    AdamSettings adam;
    adam.beta1 = m_training.beta1;
    adam.beta2 = m_training.beta2;
    adam.eps = m_training.adam_eps;
    adam.clip_norm = m_training.clip_norm;
    m_optimizer = std::make_unique<Optimizer>(*m_backend, m_model->table().total(), adam);
    reset();
}

TrainingRun::~TrainingRun() {
    // The model's and optimizer's buffers go back to the backend before it is destroyed.
    m_optimizer.reset();
    m_model.reset();
}

void TrainingRun::reset() {
    m_model->set_parameters(m_start.empty() ? init_parameters(m_model->table(), m_model_config.seed) : m_start);
    m_optimizer->reset();
    m_scaler.reset();
    m_task->restart();
    m_step = 0;
}

TrainingRun::StepResult TrainingRun::train_step() {
    const auto start = std::chrono::steady_clock::now();
    StepResult r;
    const Batch batch = m_task->next_batch(m_training.batch);
    Transformer& model = *m_model;
    model.options().training = true;
    model.options().dropout_seed = mix_seed(m_training.seed, static_cast<uint64_t>(m_step + 1));
    model.set_batch(batch.src, batch.tgt);
    // Quantization-aware: forward and backward on the INT8-rounded weights; the gradient then
    // updates the FP32 weights (the straight-through estimator).
    Int8WeightRoundTrip rounded(model, m_training.quantization_aware);
    model.set_step_timing(false);   // a device queues the steps back to back
    model.forward();
    model.set_step_timing(true);
    model.zero_gradients();
    r.loss = model.loss(batch.targets, m_training.label_smoothing, &r.tokens);
    r.loss_scale = m_scaler.scale();
    if (m_mixed) m_mixed->set_loss_scale(static_cast<float>(r.loss_scale));   // backward of scale · loss
    model.backward();
    rounded.restore();
    if (m_mixed) r.rounding = m_mixed->take_gradient_rounding();
    // Unscaled before the norm, clipping and Adam, as GradScaler's unscale_ (times 1/scale, in FP32).
    if (r.loss_scale != 1.0)
        m_backend->scale(model.gradients(), m_model->table().total(), static_cast<float>(1.0 / r.loss_scale));
    r.grad_norm = m_optimizer->gradient_norm(model.gradients());
    r.lr = noam_lr(m_training.base_lr, m_model_config.d_model, m_training.warmup, m_step + 1);
    // Checked before the update, so the weights stay the last good ones. A non-finite gradient
    // with a loss scaler is the scale's fault, not the run's: the scaler skips that step instead.
    if (!std::isfinite(r.loss) || (!std::isfinite(r.grad_norm) && !m_scaler.skips_non_finite())) {
        r.diverged = true;
        r.message = std::string("diverged at step ") + std::to_string(m_step + 1) + ": " +
                    (!std::isfinite(r.loss) ? "the loss" : "the gradient norm") +
                    " is not finite; the weights of the last good step are kept (try a lower learning rate, or clip the "
                    "gradient norm: --clip in txcli, \"clip norm\" in the Training panel)";
    } else if (!m_scaler.update(!std::isfinite(r.grad_norm))) {
        // GradScaler's skipped step: no update, Adam's count stays; the batch and the schedule's
        // step are used up, as a loop that calls scheduler.step() every iteration uses them.
        r.skipped = true;
        ++m_step;
    } else {
        m_optimizer->step(model.parameters(), model.gradients(), r.grad_norm, r.lr);
        ++m_step;
    }
    model.options().training = false;
    m_backend->synchronize();   // the update is queued on a device: count it in this step
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

EvalResult TrainingRun::evaluate(bool decode) {
    // Quantization-aware: the quality of the INT8 model the weights become.
    const Int8WeightRoundTrip rounded(*m_model, m_training.quantization_aware);
    if (next_token_task(m_training.task)) return evaluate_next_token(*m_model, m_task->held_out(), m_task->repeats());
    return tx::evaluate(*m_model, m_task->held_out(), decode, 200, &m_task->tokenizer());
}

std::vector<SampleDecode> TrainingRun::samples(const EvalResult& result, int count) const {
    std::vector<SampleDecode> out;
    const auto& held = m_task->held_out();
    for (int i = 0; i < count && i < static_cast<int>(held.size()) && i < static_cast<int>(result.decoded.size()); ++i) {
        SampleDecode s;
        s.input = m_task->text(held[i].input);
        // Next-token tasks: what the model predicts given the true prefix (induction: the second half).
        const std::vector<int>& whole = held[i].output;
        const auto from = m_task->repeats() ? static_cast<std::ptrdiff_t>(held[i].input.size()) : std::ptrdiff_t{0};
        const std::vector<int> expected(whole.begin() + from, whole.end());
        s.expected = m_task->text(expected);
        s.output = m_task->text(result.decoded[i]);
        s.correct = result.decoded[i] == expected;
        out.push_back(std::move(s));
    }
    return out;
}

void TrainingRun::probe(TrainingSnapshot& snapshot) {
    const SpecialTokens& sp = m_model_config.special;
    const Tokenizer& tok = m_task->tokenizer();
    Transformer& model = *m_model;
    model.options().training = false;
    if (next_token_task(m_training.task)) {
        probe_next_token(snapshot);
        return;
    }
    std::vector<int> src;
    int max_new = 0;
    if (!m_training.probe.empty() && !(src = tok.encode(m_training.probe)).empty()) {
        if (static_cast<int>(src.size()) > m_model_config.max_len - 1) src.resize(static_cast<size_t>(m_model_config.max_len - 1));
        max_new = translation_limit(static_cast<int>(src.size()) + 1, m_model_config.max_len);   // + EOS
    } else {
        const Example& e = m_task->held_out().front();
        src = e.input;
        max_new = std::min(static_cast<int>(e.output.size()) + 1, m_model_config.max_len - 1);
    }
    snapshot.probe_input = tok.decode(src);
    src.push_back(sp.eos);
    const std::vector<int> out = greedy_decode(model, {src}, max_new).front();
    snapshot.probe_output = tok.decode(out);
    std::vector<int> tgt{sp.bos};
    tgt.insert(tgt.end(), out.begin(), out.end());
    model.set_batch({src}, {tgt});
    model.forward();
    const std::string name =
        "decoder.layers." + std::to_string(m_model_config.decoder_layers - 1) + ".cross_attn.probs";
    snapshot.probe_cross_attention = model.step_output(model.find_step(name));
    snapshot.probe_heads = m_model_config.heads;
    snapshot.probe_source.clear();
    snapshot.probe_target.clear();
    for (int id : src) snapshot.probe_source.push_back(tok.display(id));
    for (int id : tgt) snapshot.probe_target.push_back(tok.display(id));
}

void TrainingRun::probe_next_token(TrainingSnapshot& snapshot) {
    const Tokenizer& tok = m_task->tokenizer();
    Transformer& model = *m_model;
    Example e;
    int from = 0;   // a typed probe is not known to repeat
    if (!m_training.probe.empty() && !(e.output = tok.encode(m_training.probe)).empty()) {
        const size_t fit = static_cast<size_t>(m_model_config.max_len - 1);
        if (e.output.size() > fit) e.output.resize(fit);
        e.input = e.output;
    } else {
        // Induction: the first held-out sequence of the longest length, so the stripe is long.
        const auto& held = m_task->held_out();
        e = held.front();
        for (const Example& h : held)
            if (h.input.size() > e.input.size()) e = h;
        if (m_task->repeats()) from = static_cast<int>(e.input.size());
    }
    const std::vector<int>& sequence = e.output;
    const EvalResult ev = evaluate_next_token(model, {e}, from > 0, 1);
    std::vector<int> tgt{m_model_config.special.bos};
    tgt.insert(tgt.end(), sequence.begin(), sequence.end());
    const std::string name = "decoder.layers." + std::to_string(m_model_config.decoder_layers - 1) + ".self_attn.probs";
    snapshot.probe_cross_attention = model.step_output(model.find_step(name));   // the pass evaluate_next_token ran
    snapshot.probe_heads = m_model_config.heads;
    snapshot.probe_self_attention = true;
    snapshot.probe_repeat_from = from;
    snapshot.probe_input = tok.decode(from > 0 ? std::vector<int>(sequence.begin(), sequence.begin() + from) : sequence);
    snapshot.probe_output = tok.decode(ev.decoded.front());
    snapshot.probe_source.clear();
    snapshot.probe_target.clear();
    for (int id : tgt) snapshot.probe_target.push_back(tok.display(id));
    snapshot.probe_source = snapshot.probe_target;
}

std::vector<float> TrainingRun::parameters() const { return m_model->download_parameters(); }

Checkpoint TrainingRun::checkpoint() const {
    Checkpoint c;
    c.config = m_model_config;
    c.vocabulary = m_task->vocabulary();
    c.parameters = parameters();
    c.training_json = to_json(m_training);
    c.tokenizer_model = m_task->tokenizer().model();
    return c;
}

TrainingState TrainingRun::state() const {
    TrainingState s;
    s.step = m_step;
    s.adam_steps = m_optimizer->steps();
    s.stream = m_task->stream_position();
    s.adam_m = m_optimizer->first_moment();
    s.adam_v = m_optimizer->second_moment();
    s.parameters_hash = parameters_hash(parameters());
    if (m_scaler.settings().mode != LossScaleMode::None) {
        s.loss_scale = m_scaler.scale();
        s.loss_scale_good_steps = m_scaler.good_steps();
        s.skipped_steps = m_scaler.skipped_steps();
    }
    return s;
}

void TrainingRun::resume(const TrainingState& s) {
    if (parameters_hash(parameters()) != s.parameters_hash)
        throw ConfigError("the training state was saved with other weights than the checkpoint's (the two files come "
                          "from different steps or runs)");
    try {
        m_optimizer->restore(s.adam_m, s.adam_v, s.adam_steps);
    } catch (const std::invalid_argument& e) {
        throw ConfigError(std::string("the training state does not fit this model: ") + e.what());
    }
    if (m_scaler.settings().mode != LossScaleMode::None) {
        if (s.loss_scale <= 0.0)
            throw ConfigError("the training state holds no loss scale, but the run's settings use one");
        m_scaler.restore(s.loss_scale, s.loss_scale_good_steps, s.skipped_steps);
    }
    m_task->seek(s.stream);
    m_step = s.step;
}

// ---------------------------------------------------------------------------------------------
// Trainer

namespace {

enum class CommandKind { Start, Pause, Step, Stop, Reset, Save };

struct Command {
    CommandKind kind = CommandKind::Start;
    std::string path;                                    // Save: the checkpoint's path
    std::shared_ptr<std::promise<std::string>> done;     // Save: "" or the error
};

}  // namespace

struct Trainer::Impl {
    Impl(ModelConfig model, TrainingConfig training, const BackendFactory& make_backend, const Checkpoint* start_from,
         const TrainingState* resume_from)
        : run(std::move(model), std::move(training), make_backend, start_from) {
        if (resume_from) {
            run.resume(*resume_from);
            local.step = local.latest.step = run.step();
            local.elapsed_s = resume_from->elapsed_s;
            local.tokens = resume_from->tokens;
            local.latest.loss_scale = run.loss_scaler().scale();
            local.latest.skipped_steps = run.loss_scaler().skipped_steps();
            local.epoch = static_cast<int>((run.step() - 1) / run.training_config().batches_per_epoch) + 1;
        }
        base.config = run.model_config();
        base.vocabulary = run.task().vocabulary();
        base.training_json = to_json(run.training_config());
        base.tokenizer_model = run.task().tokenizer().model();
        good_parameters = run.parameters();
        local.total_steps = run.total_steps();
        publish();
        worker = std::thread([this] { loop(); });
    }

    void command(Command c) {
        {
            std::lock_guard<std::mutex> lock(command_mutex);
            commands.push_back(std::move(c));
        }
        wake.notify_one();
    }
    void command(CommandKind kind) { command(Command{kind, {}, {}}); }
    std::string save(const std::string& path);   // worker only

    void loop();
    void handle(Command c);
    void advance();        // one training step (+ evaluation and snapshot when due)
    void evaluate_now();
    void publish();        // history point (when the step moved), weights copy, snapshot

    TrainingRun run;       // touched by the worker only, once it runs
    Checkpoint base;       // config, vocabulary, training JSON (immutable)

    std::mutex command_mutex;
    std::condition_variable wake;
    std::deque<Command> commands;
    bool quit = false;

    mutable std::mutex snapshot_mutex;
    TrainingSnapshot published;
    mutable std::mutex parameters_mutex;
    std::vector<float> good_parameters;   // host copy at the last snapshot (last good weights)

    // Worker-only state.
    TrainingSnapshot local;
    std::vector<float> scratch;
    int64_t window_tokens = 0;
    double window_seconds = 0.0;
    int64_t last_eval_step = -1;
    GradientRoundingCounts window_rounding;   // the backward products' rounding since the last point

    std::thread worker;
};

void Trainer::Impl::loop() {
    for (;;) {
        Command c{};
        bool have = false;
        {
            std::unique_lock<std::mutex> lock(command_mutex);
            if (local.state != TrainerState::Running) wake.wait(lock, [this] { return quit || !commands.empty(); });
            if (quit) return;
            if (!commands.empty()) {
                c = std::move(commands.front());
                commands.pop_front();
                have = true;
            }
        }
        try {
            if (have) handle(c);
            else advance();
        } catch (const std::exception& e) {
            if (c.done) c.done->set_value(e.what());
            local.state = TrainerState::Finished;
            local.message = std::string("stopped by an error: ") + e.what();
            publish();
        }
    }
}

void Trainer::Impl::handle(Command c) {
    const TrainerState s = local.state;
    switch (c.kind) {
        case CommandKind::Save:
            c.done->set_value(save(c.path));
            break;
        case CommandKind::Start:
            if (s == TrainerState::Idle || s == TrainerState::Paused) {
                local.state = TrainerState::Running;
                local.message.clear();
                publish();
            }
            break;
        case CommandKind::Pause:
            if (s == TrainerState::Running) {
                local.state = TrainerState::Paused;
                publish();
            }
            break;
        case CommandKind::Step:
            if (s == TrainerState::Idle || s == TrainerState::Paused) {
                local.state = TrainerState::Running;
                advance();
                if (local.state == TrainerState::Running) {
                    local.state = TrainerState::Paused;
                    publish();
                }
            }
            break;
        case CommandKind::Stop:
            if (s != TrainerState::Finished && s != TrainerState::Diverged) {
                local.state = TrainerState::Finished;
                local.message = "stopped at step " + std::to_string(run.step());
                publish();
            }
            break;
        case CommandKind::Reset:
            run.reset();
            local = TrainingSnapshot{};
            local.total_steps = run.total_steps();
            window_tokens = 0;
            window_seconds = 0.0;
            window_rounding = {};
            last_eval_step = -1;
            publish();
            break;
    }
}

std::string Trainer::Impl::save(const std::string& path) {
    try {
        TrainingState state = run.state();
        state.elapsed_s = local.elapsed_s;
        state.tokens = local.tokens;
        // The state first: a checkpoint that is newer than its state is refused on resume by the
        // parameters' hash, never mixed.
        save_training_state(training_state_path(path), state);
        save_checkpoint(path, run.checkpoint());
        return "";
    } catch (const std::exception& e) {
        return e.what();
    }
}

void Trainer::Impl::evaluate_now() {
    const EvalResult ev = run.evaluate(true);
    local.latest.eval_loss = ev.loss;
    local.latest.token_accuracy = ev.token_accuracy;
    local.latest.exact_match = ev.exact_match;
    local.latest.bleu = ev.bleu;
    local.latest.first_half_loss = ev.first_half_loss;
    local.latest.second_half_loss = ev.second_half_loss;
    local.latest.first_half_accuracy = ev.first_half_accuracy;
    local.latest.second_half_accuracy = ev.second_half_accuracy;
    local.samples = run.samples(ev, 4);
    last_eval_step = run.step();
}

void Trainer::Impl::advance() {
    const TrainingConfig& tc = run.training_config();
    const TrainingRun::StepResult r = run.train_step();
    if (r.diverged) {
        local.state = TrainerState::Diverged;
        local.message = r.message;
        publish();
        return;
    }
    const int64_t step = run.step();
    window_tokens += r.tokens;
    window_seconds += r.seconds;
    local.elapsed_s += r.seconds;
    local.tokens += r.tokens;
    local.step = step;
    local.epoch = static_cast<int>((step - 1) / tc.batches_per_epoch) + 1;
    local.latest.step = step;
    local.latest.loss = r.loss;
    local.latest.lr = r.lr;
    local.latest.loss_scale = r.loss_scale;
    local.latest.skipped_steps = run.loss_scaler().skipped_steps();
    window_rounding.parameters += r.rounding.parameters;
    window_rounding.activations += r.rounding.activations;
    bool finished = step >= run.total_steps();
    const int eval_every = tc.eval_every > 0 ? tc.eval_every : tc.snapshot_every;
    if (step % eval_every == 0 || finished) {
        evaluate_now();
        if (tc.target_exact > 0.0 && local.latest.exact_match >= tc.target_exact) {
            finished = true;
            local.message = "reached " + std::to_string(static_cast<int>(std::lround(local.latest.exact_match * 100))) +
                            "% exact match at step " + std::to_string(step);
        }
        // Induction: the loss that can fall (the first half stays at chance, about ln symbols).
        const bool halves = tc.task == TaskKind::Induction;
        const double watched = halves ? local.latest.second_half_loss : local.latest.eval_loss;
        if (tc.target_loss > 0.0 && watched < tc.target_loss && local.message.empty()) {
            finished = true;
            char text[160];
            std::snprintf(text, sizeof text, "reached %s loss %.4f < %g at step %lld",
                          halves ? "second-half" : "held-out", watched, tc.target_loss, static_cast<long long>(step));
            local.message = text;
        }
    }
    if (finished) {
        local.state = TrainerState::Finished;
        if (local.message.empty()) local.message = "finished after " + std::to_string(step) + " steps";
    }
    if (finished || step % tc.snapshot_every == 0) publish();
}

void Trainer::Impl::publish() {
    if (window_seconds > 0.0) {
        local.latest.tokens_per_s = static_cast<double>(window_tokens) / window_seconds;
        window_tokens = 0;
        window_seconds = 0.0;
    }
    if (window_rounding.parameters.nonzero > 0 || window_rounding.activations.nonzero > 0) {
        local.latest.grad_underflow = window_rounding.parameters.underflow_share();
        local.latest.activation_grad_underflow = window_rounding.activations.underflow_share();
        window_rounding = {};
    }
    if (local.step > 0 && (local.history.empty() || local.history.back().step < local.step))
        local.history.push_back(local.latest);
    else if (!local.history.empty() && local.history.back().step == local.step)
        local.history.back() = local.latest;   // e.g. an evaluation on pause refreshes the point
    run.probe(local);
    scratch = run.parameters();
    {
        std::lock_guard<std::mutex> lock(parameters_mutex);
        good_parameters.swap(scratch);
    }
    std::lock_guard<std::mutex> lock(snapshot_mutex);
    published = local;
}

Trainer::Trainer(ModelConfig model, TrainingConfig training, const BackendFactory& make_backend,
                 const Checkpoint* start_from, const TrainingState* resume_from)
    : m_impl(std::make_unique<Impl>(std::move(model), std::move(training), make_backend, start_from, resume_from)) {}

Trainer::~Trainer() {
    {
        std::lock_guard<std::mutex> lock(m_impl->command_mutex);
        m_impl->quit = true;
    }
    m_impl->wake.notify_one();
    if (m_impl->worker.joinable()) m_impl->worker.join();
}

void Trainer::start() { m_impl->command(CommandKind::Start); }
void Trainer::pause() { m_impl->command(CommandKind::Pause); }
void Trainer::step_once() { m_impl->command(CommandKind::Step); }
void Trainer::stop() { m_impl->command(CommandKind::Stop); }
void Trainer::reset() { m_impl->command(CommandKind::Reset); }

std::string Trainer::save_resumable(const std::string& path) {
    auto done = std::make_shared<std::promise<std::string>>();
    std::future<std::string> result = done->get_future();
    m_impl->command(Command{CommandKind::Save, path, done});
    return result.get();
}

TrainingSnapshot Trainer::snapshot() const {
    std::lock_guard<std::mutex> lock(m_impl->snapshot_mutex);
    return m_impl->published;
}

Checkpoint Trainer::checkpoint() const {
    Checkpoint c = m_impl->base;
    std::lock_guard<std::mutex> lock(m_impl->parameters_mutex);
    c.parameters = m_impl->good_parameters;
    return c;
}

const ModelConfig& Trainer::model_config() const { return m_impl->base.config; }
const TrainingConfig& Trainer::training_config() const { return m_impl->run.training_config(); }

}  // namespace tx
