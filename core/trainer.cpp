// TrainingRun (the loop, thread-free) and Trainer (that loop on its own thread). The worker is
// the only writer of the model and of the published snapshot; callers queue commands under
// one mutex and copy the snapshot under another, held only for the copy (DESIGN.md §2).
#include "trainer.h"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>

#include "decoding.h"
#include "evaluation.h"
#include "optimizer.h"
#include "tasks.h"
#include "transformer.h"

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

}  // namespace

TrainingRun::TrainingRun(ModelConfig model, TrainingConfig training, const BackendFactory& make_backend)
    : m_training(std::move(training)) {
    if (auto error = validate(m_training)) throw ConfigError(*error);
    m_task = std::make_unique<Task>(m_training, model.max_len, model.tokenizer, model.special);
    m_model_config = with_task_vocabulary(model, *m_task);
    check(m_model_config);
    m_backend = make_backend();
    m_model = std::make_unique<Transformer>(m_model_config, *m_backend);
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
    m_model->set_parameters(init_parameters(m_model->table(), m_model_config.seed));
    m_optimizer->reset();
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
    model.set_step_timing(false);   // a device queues the steps back to back
    model.forward();
    model.set_step_timing(true);
    model.zero_gradients();
    r.loss = model.loss(batch.targets, m_training.label_smoothing, &r.tokens);
    model.backward();
    r.grad_norm = m_optimizer->gradient_norm(model.gradients());
    r.lr = noam_lr(m_training.base_lr, m_model_config.d_model, m_training.warmup, m_step + 1);
    // Checked before the update, so the weights stay the last good ones.
    if (!std::isfinite(r.loss) || !std::isfinite(r.grad_norm)) {
        r.diverged = true;
        r.message = std::string("diverged at step ") + std::to_string(m_step + 1) + ": " +
                    (!std::isfinite(r.loss) ? "the loss" : "the gradient norm") +
                    " is not finite; the weights of the last good step are kept (try a lower learning rate, or clip the "
                    "gradient norm: --clip in txcli, \"clip norm\" in the Training panel)";
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
    return tx::evaluate(*m_model, m_task->held_out(), decode, 200, &m_task->tokenizer());
}

std::vector<SampleDecode> TrainingRun::samples(const EvalResult& result, int count) const {
    std::vector<SampleDecode> out;
    const auto& held = m_task->held_out();
    for (int i = 0; i < count && i < static_cast<int>(held.size()) && i < static_cast<int>(result.decoded.size()); ++i) {
        SampleDecode s;
        s.input = m_task->text(held[i].input);
        s.expected = m_task->text(held[i].output);
        s.output = m_task->text(result.decoded[i]);
        s.correct = result.decoded[i] == held[i].output;
        out.push_back(std::move(s));
    }
    return out;
}

void TrainingRun::probe(TrainingSnapshot& snapshot) {
    const Example& e = m_task->held_out().front();
    const SpecialTokens& sp = m_model_config.special;
    Transformer& model = *m_model;
    model.options().training = false;
    std::vector<int> src = e.input;
    src.push_back(sp.eos);
    const int max_new = std::min(static_cast<int>(e.output.size()) + 1, m_model_config.max_len - 1);
    const std::vector<int> out = greedy_decode(model, {src}, max_new).front();
    std::vector<int> tgt{sp.bos};
    tgt.insert(tgt.end(), out.begin(), out.end());
    model.set_batch({src}, {tgt});
    model.forward();
    const std::string name =
        "decoder.layers." + std::to_string(m_model_config.decoder_layers - 1) + ".cross_attn.probs";
    snapshot.probe_cross_attention = model.step_output(model.find_step(name));
    snapshot.probe_heads = m_model_config.heads;
    const Tokenizer& tok = m_task->tokenizer();
    snapshot.probe_source.clear();
    snapshot.probe_target.clear();
    for (int id : src) snapshot.probe_source.push_back(tok.display(id));
    for (int id : tgt) snapshot.probe_target.push_back(tok.display(id));
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

// ---------------------------------------------------------------------------------------------
// Trainer

namespace {

enum class Command { Start, Pause, Step, Stop, Reset };

}  // namespace

struct Trainer::Impl {
    Impl(ModelConfig model, TrainingConfig training, const BackendFactory& make_backend)
        : run(std::move(model), std::move(training), make_backend) {
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
            commands.push_back(c);
        }
        wake.notify_one();
    }

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
                c = commands.front();
                commands.pop_front();
                have = true;
            }
        }
        try {
            if (have) handle(c);
            else advance();
        } catch (const std::exception& e) {
            local.state = TrainerState::Finished;
            local.message = std::string("stopped by an error: ") + e.what();
            publish();
        }
    }
}

void Trainer::Impl::handle(Command c) {
    const TrainerState s = local.state;
    switch (c) {
        case Command::Start:
            if (s == TrainerState::Idle || s == TrainerState::Paused) {
                local.state = TrainerState::Running;
                local.message.clear();
                publish();
            }
            break;
        case Command::Pause:
            if (s == TrainerState::Running) {
                local.state = TrainerState::Paused;
                publish();
            }
            break;
        case Command::Step:
            if (s == TrainerState::Idle || s == TrainerState::Paused) {
                local.state = TrainerState::Running;
                advance();
                if (local.state == TrainerState::Running) {
                    local.state = TrainerState::Paused;
                    publish();
                }
            }
            break;
        case Command::Stop:
            if (s != TrainerState::Finished && s != TrainerState::Diverged) {
                local.state = TrainerState::Finished;
                local.message = "stopped at step " + std::to_string(run.step());
                publish();
            }
            break;
        case Command::Reset:
            run.reset();
            local = TrainingSnapshot{};
            local.total_steps = run.total_steps();
            window_tokens = 0;
            window_seconds = 0.0;
            last_eval_step = -1;
            publish();
            break;
    }
}

void Trainer::Impl::evaluate_now() {
    const EvalResult ev = run.evaluate(true);
    local.latest.eval_loss = ev.loss;
    local.latest.token_accuracy = ev.token_accuracy;
    local.latest.exact_match = ev.exact_match;
    local.latest.bleu = ev.bleu;
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
    bool finished = step >= run.total_steps();
    const int eval_every = tc.eval_every > 0 ? tc.eval_every : tc.snapshot_every;
    if (step % eval_every == 0 || finished) {
        evaluate_now();
        if (tc.target_exact > 0.0 && local.latest.exact_match >= tc.target_exact) {
            finished = true;
            local.message = "reached " + std::to_string(static_cast<int>(std::lround(local.latest.exact_match * 100))) +
                            "% exact match at step " + std::to_string(step);
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

Trainer::Trainer(ModelConfig model, TrainingConfig training, const BackendFactory& make_backend)
    : m_impl(std::make_unique<Impl>(std::move(model), std::move(training), make_backend)) {}

Trainer::~Trainer() {
    {
        std::lock_guard<std::mutex> lock(m_impl->command_mutex);
        m_impl->quit = true;
    }
    m_impl->wake.notify_one();
    if (m_impl->worker.joinable()) m_impl->worker.join();
}

void Trainer::start() { m_impl->command(Command::Start); }
void Trainer::pause() { m_impl->command(Command::Pause); }
void Trainer::step_once() { m_impl->command(Command::Step); }
void Trainer::stop() { m_impl->command(Command::Stop); }
void Trainer::reset() { m_impl->command(Command::Reset); }

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
