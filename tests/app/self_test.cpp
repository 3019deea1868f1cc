// The self-test driver (see self_test.h).
#include "self_test.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "explorer_app.h"
#include "panel_registry.h"
#include "panels/lessons_panel.h"
#include "panels/look_inside_panel.h"
#include "panels/precision_panel.h"
#include "precision_view.h"
#include "tx/precision_comparison.h"
#include "look_inside.h"
#include "neuron_trace.h"
#include "panels/neuron_panel.h"
#include "known_words.h"
#include "panels/training_panel.h"
#include "panels/positional_panel.h"
#include "panels/model_panel.h"
#include "tx/parameters.h"
#include "widgets/export.h"
#include "tx/checkpoint.h"
#include "tx/sampling.h"
#include "tx/decoding.h"
#include "tx/session.h"
#include "tx/variant_comparison.h"
#include "support/plain_greedy.h"

namespace fs = std::filesystem;

namespace tx::app {

namespace {

LessonsPanel* lessons_panel(ExplorerApp& app) { return app.panel_handles().lessons; }

const Panel* panel(ExplorerApp& app, const std::string& key) {
    for (const auto& p : app.panels())
        if (p->key() == key) return p.get();
    return nullptr;
}

bool drawn_now(const Panel* p) { return p && p->drawn_frame() == ImGui::GetFrameCount(); }

// Waits (at most 40 frames) until the Precision panel's runs are computed for its settings.
std::function<bool(ExplorerApp&)> precision_ready() {
    return [frames = 0](ExplorerApp& app) mutable {
        return (app.view().precision_current && !app.view().precision_computing) || ++frames > 40;
    };
}

// The everyday model's pronoun pair (docs/look-inside.md): "it" is the animal or the street.
// The lessons in assets/lessons (the curriculum's length).
constexpr size_t LESSON_COUNT = 23;

const char* const INSPECT_CLEAN = "The animal didn't cross the street because it was too tired.";
const char* const INSPECT_CORRUPT = "The animal didn't cross the street because it was too wide.";
const char* const INSPECT_LONGER = "The animal didn't cross the street because it was much too wide.";

// Waits (at most 40 frames) until the Look inside views are computed for the panel's settings.
std::function<bool(ExplorerApp&)> look_inside_ready() {
    return [frames = 0](ExplorerApp& app) mutable {
        return (app.view().look_inside_current && !app.view().look_inside_computing) || ++frames > 40;
    };
}

// The Generate panel runs on the first sentence: its ids + EOS. (Its numbers are checked against
// a recompute in tests/explain/test_generation_trace.cpp, on the same function the app calls.)
bool generates_first_sentence(const explain::SessionView& v, const explain::GenerationTrace& g) {
    std::vector<int> src;
    for (const Token& t : v.source_tokens.at(0)) src.push_back(t.id);
    src.push_back(v.config.special.eos);
    return !g.stale && g.error.empty() && !g.tokens.empty() && g.src == src;
}

double seconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

SelfTest::SelfTest() {
    m_tmp = (fs::temp_directory_path() / ("tx-self-test-" + std::to_string(::getpid()))).string();
    std::error_code ec;
    fs::create_directories(m_tmp, ec);
    build();
}

void SelfTest::check(bool ok, const std::string& what) {
    if (ok) return;
    m_failures.push_back(what);
    std::fprintf(stderr, "self-test: FAILED: %s\n", what.c_str());
}

// An action that is done after n frames (the app draws and settles in between).
SelfTest::Action SelfTest::wait_frames(int n) {
    return [n, count = 0](ExplorerApp&) mutable { return ++count >= n; };
}

void SelfTest::add(std::string name, Action action) { m_actions.emplace_back(std::move(name), std::move(action)); }

// The walk, in order: each part adds its actions to m_actions.
void SelfTest::build() {
    build_start();
    build_generate();
    build_input_help();
    build_steps();
    build_neuron_view();
    build_positional();
    build_generation_timing();
    build_lessons();
    build_look_inside();
    build_precision();
}

// The app at start, then every panel opened in turn.
void SelfTest::build_start() {
    add("start", [this](ExplorerApp& app) {
        app.workbench().remembered().export_dir = m_tmp;
        m_baseline_errors = app.error_count();
        check(m_baseline_errors == 0, "no error while starting (" + std::to_string(m_baseline_errors) + " reported; see above)");
        check(app.view().valid, "a model is loaded at start");
        check(!app.view().steps.empty(), "the model has steps");
        check(app.view().cursor == app.view().steps.size(), "the pass has run to the end at start");
        return true;
    });
    add("settle", wait_frames(3));
    for (const std::string& key : panel_keys()) {
        add(std::string("open panel ") + key, [key](ExplorerApp& app) {
            app.send(ShowPanel{key});
            return true;
        });
        add("draw", wait_frames(2));
    }
}

// The Generate panel, greedy and then sampling: its settings, its cursor, the same seed twice.
void SelfTest::build_generate() {
    add("generate greedy", [](ExplorerApp& app) {
        app.send(ShowPanel{"generate"});
        app.send(SetGeneration{explain::GenerationSettings{}});
        return true;
    });
    add("draw", wait_frames(2));
    add("check generate greedy", [this](ExplorerApp& app) {
        const explain::GenerationTrace& g = app.view().generation;
        check(!g.settings.sample && g.settings.compare_full, "the Generate panel decodes greedily, recomputing without cache");
        check(generates_first_sentence(app.view(), g), "generate greedy: the first sentence's ids + EOS are generated from");
        check(g.text == app.view().greedy_text.at(0), "greedy generation writes greedy decoding's output (" + g.text + ")");
        app.send(SetGenerationCursor{2, 1});
        return true;
    });
    add("generate cursor", [this](ExplorerApp& app) {
        const explain::GenerationTrace& g = app.view().generation;
        check(g.token == std::min(2, static_cast<int>(g.tokens.size())) && g.step == 1, "the generation cursor moves to token 2, step 2");
        app.send(SetGenerationCursor{1000, 1000});
        return true;
    });
    add("generate cursor clamped", [this](ExplorerApp& app) {
        const explain::GenerationTrace& g = app.view().generation;
        check(g.token == static_cast<int>(g.tokens.size()) && g.step + 1 == static_cast<int>(explain::generation_steps(app.view().config, app.view().options.positional_encoding).size()),
              "a cursor past the end stops at the last token's last step");
        explain::GenerationSettings s;
        s.sample = true;
        s.sampling = {0.8, 10, 0.9, 3};
        app.send(SetGeneration{s});
        return true;
    });
    add("draw", wait_frames(2));
    add("check generate sampling", [this](ExplorerApp& app) {
        const explain::GenerationTrace& g = app.view().generation;
        check(g.settings.sample && g.settings.sampling.top_k == 10 && g.settings.sampling.seed == 3, "the Generate panel samples");
        check(generates_first_sentence(app.view(), g), "generate sampling: the first sentence's ids + EOS are generated from");
        m_generated.clear();
        for (const explain::GeneratedToken& k : g.tokens) m_generated.push_back(k.chosen);
        app.send(SetGeneration{g.settings});   // again, same seed
        return true;
    });
    add("check generate reproducible", [this](ExplorerApp& app) {
        std::vector<int> again;
        for (const explain::GeneratedToken& k : app.view().generation.tokens) again.push_back(k.chosen);
        check(!again.empty() && again == m_generated, "the same seed samples the same output");
        app.send(SetGeneration{explain::GenerationSettings{}});
        return true;
    });
    add("draw", wait_frames(2));
}

// Input help for the translation model: a random test sentence, and words never seen in training.
void SelfTest::build_input_help() {
    add("another test sentence", [this](ExplorerApp& app) {
        app.send(ShowPanel{"input"});
        m_sentence = app.view().sentences.empty() ? "" : app.view().sentences.front();
        app.send(RandomTestSentence{});
        return true;
    });
    add("check test sentence", [this](ExplorerApp& app) {
        const auto& v = app.view();
        const auto& known = v.known_words;
        check(known && known->available() && known->words.size() > 100, "the translation model's known words are read from its corpus");
        check(known && known->test_sentences.size() > 100, "the translation model's test split is found");
        const std::string now = v.sentences.empty() ? "" : v.sentences.front();
        check(now != m_sentence, "\"another test sentence\" changes the input");
        check(known && std::find(known->test_sentences.begin(), known->test_sentences.end(), now) != known->test_sentences.end(),
              "the new input is a sentence of the test split (" + now + ")");
        app.send(SetInput{{"The red zorblax is big."}, std::nullopt});
        return true;
    });
    add("draw", wait_frames(2));
    add("check unseen word", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(!v.source_tokens.empty() && !v.sentences.empty(), "the sentence is tokenized");
        if (v.source_tokens.empty() || v.sentences.empty() || !v.known_words) return true;
        const auto words = explain::group_words(v.source_tokens[0], v.sentences[0]);
        std::vector<std::string> texts;
        for (const auto& w : words) texts.push_back(w.text);
        check(texts == std::vector<std::string>({"The", "red", "zorblax", "is", "big."}),
              "pieces are grouped into the sentence's five words");
        bool zorblax_flagged = false, red_known = false, big_known = false;
        for (const auto& w : words) {
            const std::string key = explain::word_key(w.text);
            if (key == "zorblax") zorblax_flagged = !v.known_words->knows(key) && w.pieces.size() > 1;
            if (key == "red") red_known = v.known_words->knows(key);
            if (key == "big") big_known = v.known_words->knows(key);
        }
        check(zorblax_flagged, "\"zorblax\" (several pieces) is flagged as never seen in training");
        check(red_known && big_known, "\"red\" and \"big.\" are known words, not flagged");
        app.send(SetInput{{m_sentence}, std::nullopt});
        return true;
    });
    add("draw", wait_frames(2));
}

// Every step, one per frame, from the start.
void SelfTest::build_steps() {
    add("restart", [this](ExplorerApp& app) {
        app.send(ShowPanel{"steps"});
        app.send(Restart{});
        return true;
    });
    add("neuron view before its steps", [this](ExplorerApp& app) {
        const auto& v = app.view();
        const explain::NeuronTrace t = trace_neuron(v, {0, 0, 0, 0, 0});
        check(t.error.empty() && !t.complete && !t.missing_is_fused && t.missing_step == v.attention.at(0).q && !t.have_qk,
              "neuron view at cursor 0: nothing traced yet, the q step named as the one to run to");
        return true;
    });
    add("step through", [this](ExplorerApp& app) {
        const auto& v = app.view();
        if (m_frames_in_action == 0) check(v.cursor == 0, "restart puts the cursor at 0");
        if (v.cursor >= v.steps.size()) return true;
        check(v.cursor == static_cast<size_t>(m_frames_in_action), "each step advances the cursor by one");
        app.send(StepForward{});
        return false;
    });
    add("step back", [](ExplorerApp& app) {
        app.send(StepBack{});
        app.send(StepBack{});
        return true;
    });
    add("check back", [this](ExplorerApp& app) {
        check(app.view().cursor + 2 == app.view().steps.size(), "two steps back");
        app.send(PreviousLayer{});
        return true;
    });
    add("layers", [this](ExplorerApp& app) {
        check(app.view().cursor + 2 < app.view().steps.size(), "previous layer moves back");
        app.send(Restart{});
        app.send(NextLayer{});
        return true;
    });
    add("next layer", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(v.cursor > 0 && v.cursor < v.steps.size(), "next layer runs one group of steps");
        app.send(RunToEnd{});
        return true;
    });
    add("end", [this](ExplorerApp& app) {
        check(app.view().cursor == app.view().steps.size(), "run to end");
        app.send(ShowPanel{"masks"});
        app.send(SetCausalMask{false});
        return true;
    });
    add("causal off", [this](ExplorerApp& app) {
        check(!app.view().options.causal_mask, "causal mask switched off");
        app.send(SetPaddingMask{false});
        return true;
    });
    add("padding off", [this](ExplorerApp& app) {
        check(!app.view().options.padding_mask, "padding mask switched off");
        app.send(SetCausalMask{true});
        app.send(SetPaddingMask{true});
        return true;
    });
    add("masks on", [this](ExplorerApp& app) {
        check(app.view().options.causal_mask && app.view().options.padding_mask, "masks switched back on");
        app.send(ShowPanel{"positional"});
        app.send(SetPositionalEncoding{false});
        return true;
    });
    add("positional encoding off", [this](ExplorerApp& app) {
        check(!app.view().options.positional_encoding, "positional encoding switched off");
        app.send(SetPositionalEncoding{true});
        return true;
    });
    add("positional encoding on", [this](ExplorerApp& app) {
        check(app.view().options.positional_encoding, "positional encoding switched back on");
        app.send(ShowPanel{"backend"});
        app.send(SetFusedAttention{true});
        return true;
    });
    add("fused attention", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(v.options.fused_attention, "fused attention switched on");
        check(!v.attention.empty() && !v.output(v.attention[0].probs) && v.output(v.attention[0].context),
              "fused attention: no probabilities, a context");
        check(!v.decoded_text.empty() && !v.decoded_text[0].empty(), "greedy decoding runs with fused attention");
        const explain::NeuronTrace t = trace_neuron(v, {0, 0, 0, 0, 0});
        check(!t.complete && t.missing_is_fused && t.missing_step == v.attention.at(0).scores && t.have_qk && !t.have_probs,
              "neuron view with fused attention: q and k shown, the scores step named as not materialised");
        app.send(SetFusedAttention{false});
        return true;
    });
    add("fused attention off", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(!v.options.fused_attention && !v.attention.empty() && v.output(v.attention[0].probs),
              "step-by-step attention again: probabilities shown");
        app.send(ShowPanel{"attention"});
        for (const auto& a : v.attention)
            for (int h = 0; h < v.config.heads; ++h) app.send(SetHeadEnabled{a.prefix, h, h % 2 == 0});
        return true;
    });
    add("ablation", [this](ExplorerApp& app) {
        check(!app.view().options.disabled_heads.empty(), "heads switched off");
        return true;
    });
    add("draw", wait_frames(2));
    add("heads back on", [](ExplorerApp& app) {
        app.send(EnableAllHeads{});
        return true;
    });
    add("beam search", [](ExplorerApp& app) {
        app.send(ShowPanel{"decoding"});
        app.send(SetDecoding{4, 0.6});
        return true;
    });
    add("draw", wait_frames(2));
    add("check beam search", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(v.beam_size == 4, "the Decoding panel's K = 4 reaches the session");
        check(v.beams.size() == static_cast<size_t>(v.B) && v.greedy.size() == static_cast<size_t>(v.B),
              "both decodings of every sentence in the view");
        if (!v.beams.empty() && !v.beams[0].trace.empty()) {
            check(v.decoded_ids[0] == v.beams[0].best, "K = 4: the app shows beam search's best output");
            check(v.beams[0].trace[0].prefixes.size() == 1 && v.beams[0].trace[0].candidates.size() == 4,
                  "step 1 of the trace: one beam (BOS) proposing 4 pieces");
        }
        app.send(SetDecoding{1, 0.6});
        return true;
    });
    add("draw", wait_frames(2));
    add("check greedy", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(v.beam_size == 1, "K = 1 reaches the session");
        if (!v.beams.empty() && !v.greedy.empty()) {
            check(v.decoded_text[0] == v.greedy_text[0], "K = 1: the app shows greedy's output");
            check(v.beams[0].best == v.greedy[0].ids, "beam search with K = 1 finds greedy's output");
        }
        return true;
    });
    add("batch", [this](ExplorerApp& app) {
        check(app.view().options.disabled_heads.empty(), "every head back on");
        app.selection().show_scores = true;
        app.send(ShowPanel{"input"});
        // "ж" is in neither shipped translation model's training text: its bytes are unknown pieces.
        app.send(SetInput{{"The animal didn't cross the street because it was too tired.", "Zyxwv \xD0\xB6.", "The cat sat."}, std::nullopt});
        return true;
    });
    add("check batch", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(v.B == 3, "three sentences form a batch of 3");
        bool pad = false;
        for (float m : v.src_mask) pad |= m == 0.0f;
        check(pad, "the shorter sentences are padded and masked");
        bool unk = false;
        for (const auto& row : v.source_tokens)
            for (const auto& t : row) unk |= t.unknown;
        check(unk, "an unknown word is shown as UNK");
        app.send(ShowPanel{"masks"});
        return true;
    });
    add("draw", wait_frames(2));
    add("target", [](ExplorerApp& app) {
        app.send(ShowPanel{"attention"});
        app.send(SetInput{{"The animal didn't cross the street because it was too tired."}, std::string("The animal was tired.")});
        return true;
    });
    add("check target", [this](ExplorerApp& app) {
        check(app.view().target_text.has_value(), "teacher-forced target set");
        app.send(SetInput{{"The animal didn't cross the street because it was too tired."}, std::nullopt});
        return true;
    });
    add("draw", wait_frames(2));
}

// The Neuron view on three cells: cross-attention, a causally masked decoder self-attention
// cell, and a padding-masked cross-attention cell of a padded batch's second row (its last
// decoder position, a PAD query: computed, never used). Here the view must draw the selected cell
// and say what masks it; every number of such traces is recomputed in tests/explain/test_neuron_trace.cpp.
void SelfTest::build_neuron_view() {
    auto neuron_action = [this](const char* what, AttentionKind kind, int layer, int row, int head, int query, int key) {
        return [=, this](ExplorerApp& app) {
            const auto& v = app.view();
            Selection& sel = app.selection();
            sel.attention_block = -1;   // the deepest block of this kind up to `layer`
            for (size_t n = 0; n < v.attention.size(); ++n)
                if (v.attention[n].kind == kind && v.attention[n].layer <= layer) sel.attention_block = static_cast<int>(n);
            check(sel.attention_block >= 0, std::string(what) + ": the block exists");
            sel.batch_row = row;
            sel.head = head;
            sel.neuron_query = query < 0 ? v.T + query : query;   // negative: from the end of the decoder input
            sel.neuron_key = key < 0 ? v.S + key : key;           // negative: from the end of the source
            app.send(ShowPanel{"neuron"});
            return true;
        };
    };
    auto neuron_check = [this](const char* what, std::function<void(const explain::NeuronTrace&, const explain::SessionView&)> more) {
        return [=, this](ExplorerApp& app) {
            const NeuronPanel* panel = app.panel_handles().neuron;
            check(panel != nullptr, "the Neuron view exists");
            if (!panel) return true;
            const explain::NeuronTrace& t = panel->last_trace();
            const Selection& sel = app.selection();
            check(panel->last_version() == app.view().version && t.cell.block == sel.attention_block &&
                      t.cell.head == sel.head && t.cell.batch_row == sel.batch_row && t.cell.query == sel.neuron_query &&
                      t.cell.key == sel.neuron_key,
                  std::string(what) + ": the Neuron view drew the selected cell");
            check(t.error.empty() && t.complete, std::string(what) + ": the trace is complete");
            more(t, app.view());
            return true;
        };
    };
    add("neuron cross-attention", neuron_action("cross-attention", AttentionKind::Cross, 2, 0, 1, 3, 2));
    add("draw", wait_frames(2));
    add("check neuron cross-attention", neuron_check("cross-attention", [this](const explain::NeuronTrace& t, const explain::SessionView& v) {
        check(t.kind == AttentionKind::Cross && t.key_tokens == v.src_labels(0) && t.query_tokens == v.tgt_labels(0),
              "cross-attention: queries are decoder positions, keys are source tokens");
        check(!t.masked && t.traced_prob > 0.0f, "cross-attention: a real source key is not masked");
    }));
    add("neuron masked decoder self-attention", neuron_action("decoder self-attention", AttentionKind::DecoderSelf, 1, 0, 0, 1, 3));
    add("draw", wait_frames(2));
    add("check neuron masked decoder self-attention", neuron_check("decoder self-attention", [this](const explain::NeuronTrace& t, const explain::SessionView&) {
        check(t.masked && t.key_is_future && std::isinf(t.traced_masked) && t.traced_prob == 0.0f &&
                  t.mask_text.find("causal mask") != std::string::npos,
              "decoder self-attention: key 3 after query 1 is masked by the causal mask, weight 0");
    }));
    add("padded batch for the neuron view", [](ExplorerApp& app) {
        app.send(SetInput{{"The small white dogs will not sleep in the old house.", "I see the dog."}, std::nullopt});
        return true;
    });
    add("neuron padded key", neuron_action("padded cross-attention", AttentionKind::Cross, 0, 1, 2, -1, -1));
    add("draw", wait_frames(2));
    add("check neuron padded key", neuron_check("padded cross-attention", [this](const explain::NeuronTrace& t, const explain::SessionView&) {
        check(t.masked && t.key_is_pad && t.traced_prob == 0.0f && t.mask_text.find("padding mask") != std::string::npos,
              "padded cross-attention: the PAD key of the short sentence is masked by the padding mask");
        check(t.query_is_pad && t.query_writes.empty(), "padded cross-attention: the last decoder position of the short row is a PAD query");
    }));
    add("input back", [](ExplorerApp& app) {
        app.send(SetInput{{"The animal didn't cross the street because it was too tired."}, std::nullopt});
        return true;
    });
    add("draw", wait_frames(2));

    // Without 1/√dk scaling the score is the dot product itself; then the shipped model comes back.
    add("unscaled model", [this](ExplorerApp& app) {
        m_neuron_model = app.view().model_source;
        ModelConfig c = app.view().config;
        c.scale_attention = false;
        app.send(RebuildModel{c});
        return true;
    });
    add("neuron unscaled", neuron_action("unscaled cross-attention", AttentionKind::Cross, 0, 0, 0, 0, 0));
    add("draw", wait_frames(2));
    add("check neuron unscaled", neuron_check("unscaled cross-attention", [this](const explain::NeuronTrace& t, const explain::SessionView&) {
        check(!t.scaled && t.score == t.dot, "unscaled model: the score is q\xC2\xB7k, not divided by \xE2\x88\x9A" "dk");
    }));
    add("model back", [this](ExplorerApp& app) {
        app.send(LoadCheckpoint{m_neuron_model});
        return true;
    });
    add("check model back", [this](ExplorerApp& app) {
        check(app.view().config.scale_attention && app.view().model_source == m_neuron_model, "the shipped model is back");
        return true;
    });
}

// The Positional panel's views of RoPE, ALiBi and a learned table, each on a model with fresh
// weights, against numbers recomputed here from the formulas; then the Model panel's presets.
void SelfTest::build_positional() {
    auto positional_panel = [](ExplorerApp& app) -> const PositionalPanel* { return app.panel_handles().positional; };
    auto rebuild_with = [](PositionalKind kind) {
        return [kind](ExplorerApp& app) {
            ModelConfig c = app.view().config;
            c.positional = kind;
            app.send(ShowPanel{"positional"});
            app.send(RebuildModel{c});
            return true;
        };
    };
    // RoPE: the panel's rotated pair and its q·k matrix from cos/sin of p·θ_i in double, the rotation
    // at the token's own position against the model's q_rot step, and one value per diagonal.
    auto check_rope = [this, positional_panel](const std::string& what) {
        return [this, positional_panel, what](ExplorerApp& app) {
            const explain::SessionView& v = app.view();
            const PositionalPanel* panel = positional_panel(app);
            check(panel && v.config.positional == PositionalKind::Rope, what + ": a RoPE model is open");
            if (!panel || v.config.positional != PositionalKind::Rope) return true;
            const explain::RopeView& r = panel->rope();
            const PositionalPanel::RopeChoice& c = panel->rope_choice();
            check(r.L >= 2 && c.block >= 0 && c.block < static_cast<int>(v.attention.size()), what + ": the RoPE view is computed");
            if (r.L < 2 || c.block < 0 || c.block >= static_cast<int>(v.attention.size())) return true;
            const AttentionBlock& a = v.attention[static_cast<size_t>(c.block)];
            check(v.output(a.q) && v.output(a.k), what + ": the block's q and k are traced");
            if (!v.output(a.q) || !v.output(a.k)) return true;
            const int dk = v.d_k(), L = r.L;
            const int R = a.kind == AttentionKind::DecoderSelf ? v.T : v.S;
            const int row = std::clamp(app.selection().batch_row, 0, std::max(v.B - 1, 0));
            const size_t head_rows = (static_cast<size_t>(row) * v.config.heads + c.head) * R;
            const float* q = v.output(a.q)->data() + (head_rows + c.query) * dk;
            const float* k = v.output(a.k)->data() + (head_rows + c.key) * dk;
            auto rotated = [dk](const float* x, int p, int d) {
                const int i = d / 2;
                if (d == dk - 1 && dk % 2) return static_cast<double>(x[d]);
                const double angle = p * std::pow(10000.0, -2.0 * i / dk);
                const double x0 = x[2 * i], x1 = x[2 * i + 1];
                return d % 2 == 0 ? x0 * std::cos(angle) - x1 * std::sin(angle) : x0 * std::sin(angle) + x1 * std::cos(angle);
            };
            bool dots_ok = r.dots.size() == static_cast<size_t>(L) * L, pairs_ok = r.q_pair.size() == static_cast<size_t>(2 * L);
            double largest = 0.0, spread = 0.0;
            std::vector<double> first(static_cast<size_t>(2 * L - 1), NAN);
            for (int p = 0; dots_ok && p < L; ++p) {
                for (int pp = 0; pp < L; ++pp) {
                    double dot = 0.0, magnitude = 0.0;
                    for (int d = 0; d < dk; ++d) {
                        dot += rotated(q, p, d) * rotated(k, pp, d);
                        magnitude += std::fabs(rotated(q, p, d) * rotated(k, pp, d));
                    }
                    dots_ok &= std::fabs(r.dots[static_cast<size_t>(p) * L + pp] - dot) <= 1e-9 * magnitude + 1e-12;
                    largest = std::max(largest, std::fabs(dot));
                    double& f = first[static_cast<size_t>(p - pp + L - 1)];
                    if (std::isnan(f)) f = dot;
                    spread = std::max(spread, std::fabs(dot - f));
                }
                if (pairs_ok)
                    pairs_ok = std::fabs(r.q_pair[2 * static_cast<size_t>(p)] - rotated(q, p, 2 * r.pair)) <= 1e-9 &&
                               std::fabs(r.k_pair[2 * static_cast<size_t>(p) + 1] - rotated(k, p, 2 * r.pair + 1)) <= 1e-9;
            }
            check(dots_ok, what + ": the panel's q\xC2\xB7k matrix equals q and k rotated by cos/sin of p\xC2\xB7\xCE\xB8_i");
            check(pairs_ok, what + ": the panel's rotated pair equals the formula at every position");
            check(spread < 1e-4 * largest && r.spread < 1e-4 * r.scale,
                  what + ": q\xC2\xB7k is constant along each diagonal p \xE2\x88\x92 p' (spread " + std::to_string(r.spread) + ")");
            // The model's own rotation: row `query` of q_rot is q rotated to that position.
            const std::vector<float>* q_rot = v.output(a.scores_q);
            bool model_ok = q_rot && a.scores_q != a.q;
            for (int d = 0; model_ok && d < dk; ++d) {
                const double ref = rotated(q, c.query, d);
                model_ok = std::fabs((*q_rot)[(head_rows + c.query) * dk + d] - ref) <= 1e-5 * (std::fabs(ref) + 1.0);
            }
            check(model_ok, what + ": the model's q_rot step rotates the token's q as the formula does");
            return true;
        };
    };
    add("rope model", rebuild_with(PositionalKind::Rope));
    add("draw", wait_frames(3));
    add("check rope view", check_rope("RoPE encoder-decoder"));
    add("alibi model", rebuild_with(PositionalKind::Alibi));
    add("draw", wait_frames(3));
    add("check alibi view", [this, positional_panel](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        const PositionalPanel* panel = positional_panel(app);
        const int H = v.config.heads;
        check(panel && v.config.positional == PositionalKind::Alibi && H >= 4, "an ALiBi model with at least 4 heads is open");
        if (!panel || H < 4) return true;
        // The paper's slopes: 2^(−8h/H), h = 1..H (for the everyday model's H = 8: 1/2 ... 1/256).
        std::vector<float> paper;
        for (int h = 1; h <= H; ++h) paper.push_back(static_cast<float>(std::pow(2.0, -8.0 * h / H)));
        bool slopes_ok = panel->alibi_slopes().size() == paper.size();
        for (size_t h = 0; slopes_ok && h < paper.size(); ++h)
            slopes_ok = std::fabs(panel->alibi_slopes()[h] - paper[h]) <= 1e-7f * paper[h];
        check(slopes_ok, "the ALiBi view's slopes are 2^(\xE2\x88\x92" "8h/H), h = 1.." + std::to_string(H));
        const int L = panel->alibi_length();
        const std::vector<float>& bias = panel->alibi_bias();
        bool ok = L >= 2 && bias.size() == static_cast<size_t>(H) * L * L;
        for (int h = 0; ok && h < H; ++h)
            for (int i = 0; i < L; ++i)
                for (int j = 0; j < L; ++j) {
                    const double ref = -static_cast<double>(paper[static_cast<size_t>(h)]) * std::abs(i - j);
                    ok &= std::fabs(bias[(static_cast<size_t>(h) * L + i) * L + j] - ref) <= 1e-6 * std::fabs(ref);
                }
        check(ok, "the ALiBi view's bias is \xE2\x88\x92m_h\xC2\xB7|i \xE2\x88\x92 j| for every head, query and key");
        // The model adds that bias: its encoder scores minus q·kᵀ/√dk, head 3, batch row 0.
        const AttentionBlock& a = v.attention.front();
        check(v.output(a.q) && v.output(a.k) && v.output(a.scores), "the ALiBi model's first block is traced");
        if (!v.output(a.q) || !v.output(a.k) || !v.output(a.scores)) return true;
        const int S = v.S, dk = v.d_k();
        const float* q = v.output(a.q)->data() + static_cast<size_t>(3) * S * dk;
        const float* k = v.output(a.k)->data() + static_cast<size_t>(3) * S * dk;
        const float* scores = v.output(a.scores)->data() + static_cast<size_t>(3) * S * S;
        bool model_ok = a.kind == AttentionKind::EncoderSelf;
        for (int i = 0; model_ok && i < S; ++i)
            for (int j = 0; j < S; ++j) {
                double dot = 0.0, magnitude = 0.0;
                for (int d = 0; d < dk; ++d) {
                    dot += static_cast<double>(q[i * dk + d]) * k[j * dk + d];
                    magnitude += std::fabs(static_cast<double>(q[i * dk + d]) * k[j * dk + d]);
                }
                const double scale = v.config.scale_attention ? 1.0 / std::sqrt(static_cast<double>(dk)) : 1.0;
                const double ref = dot * scale - paper[3] * std::abs(i - j);
                model_ok &= std::fabs(scores[i * S + j] - ref) <= 1e-5 * (magnitude * scale + 1.0);
            }
        check(model_ok, "the ALiBi model's encoder scores are q\xC2\xB7k/\xE2\x88\x9A" "dk \xE2\x88\x92 m_h\xC2\xB7|i \xE2\x88\x92 j|");
        return true;
    });
    add("learned model", rebuild_with(PositionalKind::Learned));
    add("draw", wait_frames(3));
    add("check learned view", [this, positional_panel](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        const PositionalPanel* panel = positional_panel(app);
        check(panel && v.config.positional == PositionalKind::Learned, "a learned-positions model is open");
        if (!panel || v.config.positional != PositionalKind::Learned) return true;
        // Fresh weights: the tables are init_parameters' rows for the seed.
        const ParameterTable table(v.config);
        const std::vector<float> fresh = init_parameters(table, v.config.seed);
        auto slice = [&](const char* name) {
            const ParameterInfo& p = table.at(name);
            return std::vector<float>(fresh.begin() + p.offset, fresh.begin() + p.offset + p.numel());
        };
        const size_t table_size = static_cast<size_t>(v.config.max_len) * v.config.d_model;
        check(v.learned_src_positions.size() == table_size && v.learned_src_positions == slice("src_pos.weight") &&
                  v.learned_tgt_positions == slice("tgt_pos.weight"),
              "the view carries the model's src_pos.weight and tgt_pos.weight");
        const int L = panel->learned_length(), D = v.config.d_model;
        const std::vector<float>& shown = panel->learned_source() ? v.learned_src_positions : v.learned_tgt_positions;
        const std::vector<float>& sim = panel->learned_similarity();
        bool ok = L >= 2 && sim.size() == static_cast<size_t>(L) * L;
        for (int i = 0; ok && i < L; ++i)
            for (int j = 0; j < L; ++j) {
                double dot = 0.0, ni = 0.0, nj = 0.0;
                for (int d = 0; d < D; ++d) {
                    const double a = shown[static_cast<size_t>(i) * D + d], b = shown[static_cast<size_t>(j) * D + d];
                    dot += a * b;
                    ni += a * a;
                    nj += b * b;
                }
                ok &= std::fabs(sim[static_cast<size_t>(i) * L + j] - dot / std::sqrt(ni * nj)) <= 1e-5;
            }
        check(ok, "the learned view's cosine similarity matches a recompute");
        return true;
    });
    add("presets", [this](ExplorerApp& app) {
        const ModelConfig start = app.view().config;
        for (ModelPreset p : MODEL_PRESETS) {
            const ModelConfig c = apply_preset(start, p);
            const std::string what = std::string("preset ") + preset_name(p);
            check(!validate(c).has_value(), what + " is a valid config");
            check(matches_preset(c, p) && c.window == 0, what + " is recognised as itself");
            check(c.d_model == start.d_model && c.heads == start.heads && c.d_ff == start.d_ff &&
                      c.decoder_layers == start.decoder_layers && c.max_len == start.max_len,
                  what + " keeps the sizes");
            check(std::string(preset_description(p)).size() > 20, what + " has a description");
        }
        const ModelConfig paper = apply_preset(start, ModelPreset::Transformer2017);
        check(paper.arch == Arch::EncoderDecoder && paper.positional == PositionalKind::Sinusoidal && paper.ffn == FfnKind::Relu &&
                  paper.norm_kind == NormKind::LayerNorm && paper.norm == NormPlacement::Post && paper.encoder_layers == start.encoder_layers,
              "2017 Transformer: encoder-decoder, sinusoidal, ReLU, LayerNorm, Post-LN");
        const ModelConfig gpt = apply_preset(start, ModelPreset::Gpt2Like);
        check(gpt.arch == Arch::DecoderOnly && gpt.encoder_layers == 0 && gpt.positional == PositionalKind::Learned &&
                  gpt.ffn == FfnKind::Gelu && gpt.norm_kind == NormKind::LayerNorm && gpt.norm == NormPlacement::Pre,
              "GPT-2-like: decoder-only, learned positions, GELU, LayerNorm, Pre-LN");
        const ModelConfig llama = apply_preset(start, ModelPreset::LlamaLike);
        check(llama.arch == Arch::DecoderOnly && llama.encoder_layers == 0 && llama.positional == PositionalKind::Rope &&
                  llama.ffn == FfnKind::SwiGlu && llama.norm_kind == NormKind::RmsNorm && llama.norm == NormPlacement::Pre,
              "LLaMA-like: decoder-only, RoPE, SwiGLU, RMSNorm, Pre-norm");
        const ModelConfig back = apply_preset(gpt, ModelPreset::Transformer2017);
        check(back.encoder_layers == gpt.decoder_layers && back.arch == Arch::EncoderDecoder,
              "2017 Transformer after a decoder-only preset gets its encoder back");
        app.send(ShowPanel{"positional"});
        app.send(RebuildModel{llama});
        return true;
    });
    add("draw", wait_frames(3));
    add("check llama-like model", [this, check_rope](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        check(matches_preset(v.config, ModelPreset::LlamaLike), "the LLaMA-like preset's model is open");
        bool rot = false, gate = false, encoder = false;
        for (const StepInfo& s : v.steps) {
            rot |= s.name == "decoder.layers.0.self_attn.q_rot";
            gate |= s.name == "decoder.layers.0.ffn.gate";
            encoder |= s.name.rfind("encoder.", 0) == 0;
        }
        check(rot && gate && !encoder, "the LLaMA-like model rotates q, gates its FFN and has no encoder");
        return check_rope("RoPE decoder-only")(app);
    });
    add("shipped model back", [this](ExplorerApp& app) {
        app.send(LoadCheckpoint{m_neuron_model});
        return true;
    });
    add("check shipped model back", [this](ExplorerApp& app) {
        check(app.view().model_source == m_neuron_model, "the shipped model is back after the variant views");
        return true;
    });
    build_decoder_only();
    add("rebuild", [this](ExplorerApp& app) {
        ModelConfig bad = app.view().config;
        bad.heads = 5;
        check(validate(bad).has_value(), "d_model 64 with 5 heads is refused with a reason");
        ModelConfig c = app.view().config;
        c.heads = 2;
        app.send(ShowPanel{"model"});
        app.send(RebuildModel{c});
        return true;
    });
    add("check rebuild", [this](ExplorerApp& app) {
        check(app.view().config.heads == 2, "the model was rebuilt with 2 heads");
        check(app.view().known_words && !app.view().known_words->available() && !app.view().known_words->unavailable.empty(),
              "an untrained model's known words are not guessed: the reason is given");
        app.send(SaveCheckpoint{m_tmp + "/model.safetensors"});
        return true;
    });
    add("load", [this](ExplorerApp& app) {
        check(fs::exists(m_tmp + "/model.safetensors"), "checkpoint saved");
        app.send(LoadCheckpoint{m_tmp + "/model.safetensors"});
        return true;
    });
    add("check load", [this](ExplorerApp& app) {
        check(app.view().model_source == m_tmp + "/model.safetensors", "checkpoint loaded back");
        app.send(LoadCheckpoint{m_tmp + "/does-not-exist.safetensors"});
        return true;
    });
    add("check load error", [this](ExplorerApp& app) {
        // The failed load above must have reported one error and changed nothing.
        check(app.error_count() == m_baseline_errors + 1, "a missing checkpoint is reported as one error");
        check(app.view().config.heads == 2, "a failed load keeps the current model");
        ModelConfig c = app.view().config;
        c.heads = 4;
        app.send(RebuildModel{c});
        return true;
    });
    add("export", [this](ExplorerApp& app) {
        app.send(ShowPanel{"positional"});
        const ImGuiViewport* vp = ImGui::GetMainViewport();
        app.send(ExportRegionPng{{vp->Pos.x, vp->Pos.y, vp->Pos.x + 200, vp->Pos.y + 100}, "", m_tmp + "/region.png"});
        const auto& v = app.view();
        const auto& a = v.attention.front();
        const std::vector<float>* p = v.output(a.probs);
        check(p != nullptr, "attention probabilities available");
        if (p) {
            const auto labels = v.src_labels(0);
            write_text_atomic(m_tmp + "/probs.csv", matrix_csv(p->data(), v.S, v.S, labels, labels, "query \\ key"));
        }
        return true;
    });
    add("draw", wait_frames(2));
    add("check export", [this](ExplorerApp& app) {
        check(fs::exists(m_tmp + "/region.png") && fs::file_size(m_tmp + "/region.png") > 100, "PNG export written");
        check(fs::exists(m_tmp + "/probs.csv"), "CSV export written");
        app.send(ShowPanel{"training"});
        TrainingConfig t = preset_training(Preset::Tiny, TaskKind::Copy);
        t.snapshot_every = 5;
        app.send(ConfigureTrainer{Preset::Tiny, t});
        app.send(StartTraining{});
        m_started = seconds();
        return true;
    });
    add("train 20 steps", [this](ExplorerApp& app) {
        const auto& t = app.training();
        if (t.step >= 20) {
            app.send(PauseTraining{});
            return true;
        }
        if (t.state == TrainerState::Diverged || seconds() - m_started > 300.0) {
            check(false, "20 training steps within 300 s (state " + std::string(to_string(t.state)) + ", step " +
                             std::to_string(t.step) + ")");
            return true;
        }
        return false;
    });
    add("draw", wait_frames(3));
    add("check training", [this](ExplorerApp& app) {
        const auto& t = app.training();
        check(!t.history.empty(), "training history published");
        check(t.probe_heads > 0 && !t.probe_cross_attention.empty(), "probe cross-attention published");
        app.send(UseTrainedModel{});
        return true;
    });
    add("check trained", [this](ExplorerApp& app) {
        check(app.view().model_source.rfind("trainer", 0) == 0, "the trained model is in the explorer");
        // Fine-tune the shipped translation model a few steps: weights and tokenizer from it.
        TrainingConfig t = TrainingPanel::live_training(Preset::Translate, TaskKind::Translate);
        t.eval_sequences = 8;
        t.batch = 16;
        t.snapshot_every = 2;
        t.eval_every = 2;
        app.send(FineTune{t, false});
        app.send(StartTraining{});
        m_started = seconds();
        return true;
    });
    add("fine-tune translation 4 steps", [this](ExplorerApp& app) {
        const auto& t = app.training();
        if (t.step >= 4) {
            app.send(PauseTraining{});
            return true;
        }
        if (t.state == TrainerState::Diverged || t.state == TrainerState::Finished || seconds() - m_started > 300.0) {
            check(false, "4 translation fine-tuning steps within 300 s (state " + std::string(to_string(t.state)) + ", step " +
                             std::to_string(t.step) + ", " + t.message + ")");
            return true;
        }
        return false;
    });
    add("draw", wait_frames(3));
    add("check translation training", [this](ExplorerApp& app) {
        const auto& t = app.training();
        check(t.probe_input == "The red car is big." && !t.probe_output.empty(), "the probe sentence is translated (" +
                                                                                    t.probe_output + ")");
        check(t.latest.bleu > 0.0, "validation BLEU is reported");
        check(!t.samples.empty() && !t.samples.front().expected.empty(), "sample translations with references");
        app.send(UseTrainedModel{});
        return true;
    });
    add("check trained translation", [this](ExplorerApp& app) {
        const auto& v = app.view();
        check(v.model_source.rfind("trainer (translate", 0) == 0, "the fine-tuned translation model is in the explorer");
        check(v.config.tokenizer == TokenizerKind::SentencePiece, "with its subword tokenizer");
        check(!v.decoded_text.empty() && !v.decoded_text[0].empty(), "it translates the sample sentence");
        check(v.known_words && v.known_words->available(), "its known words come from its training record's corpus");
        app.send(ShowPanel{"attention"});
        return true;
    });
}

// The Backend panel's generation timing: both ways run, take time, and choose the same tokens.
void SelfTest::build_generation_timing() {
    add("time generation", [](ExplorerApp& app) {
        app.send(ShowPanel{"backend"});
        app.send(MeasureGeneration{});
        return true;
    });
    add("draw", wait_frames(2));
    add("check generation timing", [this](ExplorerApp& app) {
        const auto& t = app.view().generation_timing;
        check(t != nullptr, "generation was timed with and without the KV cache");
        if (!t) return true;
        check(t->lengths == generation_timing_lengths(app.view().config.max_len), "at the lengths 8, 16, 32, 64 below max_len");
        bool positive = t->cached_ms.size() == t->lengths.size() && t->full_ms.size() == t->lengths.size();
        for (size_t i = 0; positive && i < t->lengths.size(); ++i) positive = t->cached_ms[i] > 0.0 && t->full_ms[i] > 0.0;
        check(positive, "every generation time is positive");
        check(t->same_tokens && t->cached_tokens == t->full_tokens &&
                  static_cast<int>(t->cached_tokens.size()) == t->lengths.back(),
              "the same tokens with and without the cache, as many as asked");
        return true;
    });
}

// Every lesson, in order: each step's "Do it", its effects checked once applied, then the
// question answered wrongly (refused) and rightly (accepted).
void SelfTest::build_lessons() {
    add("lessons", [this](ExplorerApp& app) {
        const LessonsPanel* l = lessons_panel(app);
        check(l && l->lessons().size() == LESSON_COUNT, std::to_string(LESSON_COUNT) + " lessons loaded");
        app.send(ShowPanel{"lessons"});
        m_lesson = m_lesson_step = 0;
        m_lesson_wait = -1;
        return true;
    });
    add("walk the lessons", [this](ExplorerApp& app) {
        LessonsPanel* l = lessons_panel(app);
        if (!l || m_lesson >= static_cast<int>(l->lessons().size())) return true;
        const explain::Lesson& lesson = l->lessons()[static_cast<size_t>(m_lesson)];
        if (m_lesson_wait >= 0) {
            // Commands apply after the frame that queued them; a highlighted tab is raised the
            // frame after that; the trainer's snapshot follows one frame later still.
            if (!app.highlighted_panel().empty()) m_lesson_highlight_seen = app.highlighted_panel();
            if (++m_lesson_wait < 3) return false;
            // A trainer is built on its own thread (app_trainer.cpp): on a loaded machine that takes
            // more than three frames. Wait for it to run, up to ~10 s of frames, before checking.
            const explain::LessonStep& step = lesson.steps[static_cast<size_t>(m_lesson_step)];
            const bool trains = std::any_of(step.actions.begin(), step.actions.end(),
                                            [](const explain::LessonAction& a) { return a.kind == explain::LessonActionKind::Train; });
            if (trains && m_lesson_wait < 600 &&
                !(app.trainer_info().exists && app.training().state == TrainerState::Running))
                return false;
            check_lesson_step(app);
            m_lesson_wait = -1;
            ++m_lesson_step;
            return false;
        }
        if (m_lesson_step == 0) {
            l->open_lesson(m_lesson);
            m_lesson_errors = app.error_count();
        }
        if (m_lesson_step < static_cast<int>(lesson.steps.size())) {
            check(l->current() == m_lesson && l->steps_done() == m_lesson_step, lesson.file + ": the panel is at this step");
            l->do_step(app);
            m_lesson_wait = 0;
            m_lesson_highlight_seen.clear();
            return false;
        }
        // "Back" makes the last step current again and "Do it" redoes it (its commands queue again).
        if (m_lesson == 0) {
            const int steps = static_cast<int>(lesson.steps.size());
            l->step_back();
            check(l->steps_done() == steps - 1, lesson.file + ": Back makes the last step current again");
            l->do_step(app);
            check(l->steps_done() == steps, lesson.file + ": Do it after Back does that step again");
        }
        // The choices are drawn in the learner's order (quiz.h): a permutation of the file's; a
        // wrong first try gets a hint, not the explanation; the right answer then shows it.
        const int n = static_cast<int>(lesson.question.choices.size());
        std::vector<int> order = l->choice_order();
        std::sort(order.begin(), order.end());
        bool permutation = static_cast<int>(order.size()) == n;
        for (int i = 0; permutation && i < n; ++i) permutation = order[static_cast<size_t>(i)] == i;
        check(permutation, lesson.file + ": the choices are drawn as a permutation of the file's");
        check(!l->check_answer((lesson.question.answer + 1) % n), lesson.file + ": a wrong answer is refused");
        check(!l->quiz().explanation_shown(), lesson.file + ": a first wrong try shows a hint, not the explanation");
        check(l->check_answer(lesson.question.answer), lesson.file + ": the right answer is accepted");
        check(l->quiz().explanation_shown(), lesson.file + ": the right answer shows the explanation");
        check(l->done(m_lesson), lesson.file + ": the lesson is ticked done");
        check(app.error_count() == m_lesson_errors, lesson.file + ": no error while answering");
        ++m_lesson;
        m_lesson_step = 0;
        return false;
    });
    add("lessons done", [this](ExplorerApp& app) {
        check(m_lesson == static_cast<int>(LESSON_COUNT), "every lesson walked");
        app.send(PauseTraining{});
        return true;
    });
}

// The Look inside panel on the everyday model with the "it ... tired" / "it ... wide" pair: every
// view's numbers against the explain library's, recomputed here on a fresh copy of the checkpoint;
// the lens's last row against the Session's own output; a length mismatch refused with both piece
// sequences; a head-importance cell opening its head in the Attention panel.
void SelfTest::build_look_inside() {
    add("look inside: everyday model", [this](ExplorerApp& app) {
        m_inspect_back = app.view().model_source;
        app.send(OpenModel{"everyday"});
        app.send(SetInput{{INSPECT_CLEAN}, std::nullopt});
        return true;
    });
    add("look inside: corrupted sentence", [](ExplorerApp& app) {
        app.send(SetLookInside{INSPECT_CORRUPT, ""});   // as --corrupt: the patching tab is raised too
        app.send(ShowPanel{"inspect"});
        return true;
    });
    add("look inside: computed", look_inside_ready());
    add("check look inside", [this](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        const auto r = v.look_inside;
        check(r && r->error.empty(), "the Look inside views are computed" + (r ? ": " + r->error : std::string()));
        if (!r || !r->error.empty()) return true;
        explain::InspectModel model(load_checkpoint(v.model_source));
        const explain::InspectInput in = model.input(INSPECT_CLEAN);
        const explain::LogitLens lens = logit_lens(model, in, 5);
        check(r->lens.error.empty() && r->lens.log_probs == lens.log_probs, "the panel's logit lens is the library's");
        // The lens's last row against the Session's generator.log_probs [B=1, T, V].
        const int V = lens.vocab, T = lens.positions;
        size_t out_step = v.steps.size();
        for (size_t i = 0; i < v.steps.size(); ++i)
            if (v.steps[i].name == "generator.log_probs") out_step = i;
        const std::vector<float>* out = out_step < v.steps.size() ? v.output(out_step) : nullptr;
        check(out && v.T == T, "the lens has as many positions as the Session's decoder input");
        if (out && v.T == T) {
            double worst = 0.0;
            const size_t last = static_cast<size_t>(lens.layers - 1) * T * V;
            for (size_t i = 0; i < static_cast<size_t>(T) * V; ++i)
                worst = std::max(worst, std::fabs(static_cast<double>(lens.log_probs[last + i]) - (*out)[i]));
            check(worst < 1e-4, "the lens's last row is the Session's output (max |diff| " + std::to_string(worst) + ")");
        }
        // Patching with the same pair and the automatic metric.
        explain::InspectInput corrupted = model.input(INSPECT_CORRUPT, std::string());
        corrupted.tgt = in.tgt;
        const explain::ActivationPatching patch = activation_patching(model, in, corrupted);
        check(r->patching.error.empty() && patch.error.empty(), "patching runs on the pair: " + r->patching.error);
        bool same = r->patching.grids.size() == patch.grids.size() && r->patching.metric_text == patch.metric_text;
        for (size_t g = 0; same && g < patch.grids.size(); ++g) {
            const auto& a = r->patching.grids[g].normalised;
            const auto& b = patch.grids[g].normalised;
            same = a.size() == b.size();
            for (size_t i = 0; same && i < a.size(); ++i) same = (std::isnan(a[i]) && std::isnan(b[i])) || a[i] == b[i];
        }
        check(same, "the panel's patching grids are the library's (" + patch.metric_text + ")");
        const explain::HeadImportance heads = head_importance(model, in);
        bool heads_same = r->heads.grids.size() == heads.grids.size();
        for (size_t g = 0; heads_same && g < heads.grids.size(); ++g) heads_same = r->heads.grids[g].delta == heads.grids[g].delta;
        check(heads_same, "the panel's head importance is the library's");
        const explain::AttentionRollout rollout = attention_rollout(model, in);
        check(r->rollout.per_layer == rollout.per_layer && r->rollout.cross == rollout.cross, "the panel's rollout is the library's");
        const explain::AttentionEntropy entropy = attention_entropy(model, in);
        bool entropy_same = r->entropy.grids.size() == entropy.grids.size();
        for (size_t g = 0; entropy_same && g < entropy.grids.size(); ++g)
            entropy_same = r->entropy.grids[g].entropy == entropy.grids[g].entropy && r->entropy.grids[g].max_entropy == entropy.grids[g].max_entropy;
        check(entropy_same, "the panel's entropy is the library's");
        check(static_cast<int>(r->attribution.size()) == T, "an attribution per decoder position");
        for (int t = 0; t < std::min(T, static_cast<int>(r->attribution.size())); ++t) {
            const explain::LogitAttribution a = logit_attribution(model, in, t);
            const explain::LogitAttribution& got = r->attribution[static_cast<size_t>(t)];
            double sum = got.remainder;
            for (const explain::Contribution& c : got.parts) sum += c.value;
            check(got.logit == a.logit && got.remainder == a.remainder && got.parts.size() == a.parts.size(),
                  "the panel's attribution at position " + std::to_string(t) + " is the library's");
            check(std::fabs(sum - got.logit) <= 1e-3 * std::max(1.0, std::fabs(got.logit)),
                  "the attribution at position " + std::to_string(t) + " adds up to its logit");
        }
        // Next: token vs token at the position where the model writes "cansado".
        m_inspect_position = -1;
        for (int t = 0; t < static_cast<int>(lens.chosen.size()); ++t)
            if (lens.chosen[static_cast<size_t>(t)] == model.token_id("cansado")) m_inspect_position = t;
        check(m_inspect_position >= 0, "the everyday model writes \"cansado\" for \"tired\"");
        app.send(SetPatching{{INSPECT_CORRUPT, m_inspect_position, "cansado", "ancha"}});
        return true;
    });
    add("look inside: token vs token", look_inside_ready());
    add("check look inside: token vs token", [this](ExplorerApp& app) {
        const auto r = app.view().look_inside;
        explain::InspectModel model(load_checkpoint(app.view().model_source));
        const explain::InspectInput in = model.input(INSPECT_CLEAN);
        explain::InspectInput corrupted = model.input(INSPECT_CORRUPT, std::string());
        corrupted.tgt = in.tgt;
        const explain::ActivationPatching patch =
            activation_patching(model, in, corrupted, {m_inspect_position, model.token_id("cansado"), model.token_id("ancha")});
        check(r && r->patching.error.empty() && r->patching.metric_text == patch.metric_text &&
                  r->patching.metric.position == m_inspect_position,
              "the panel's token-vs-token metric is the library's (" + patch.metric_text + ")" + (r ? " " + r->patching.error : ""));
        bool same = r && r->patching.grids.size() == patch.grids.size();
        for (size_t g = 0; same && g < patch.grids.size(); ++g) same = r->patching.grids[g].metric == patch.grids[g].metric;
        check(same, "the panel's token-vs-token grids are the library's");
        app.send(SetPatching{{INSPECT_LONGER, -1, "", ""}});
        return true;
    });
    add("look inside: different lengths", look_inside_ready());
    add("check look inside: different lengths", [this](ExplorerApp& app) {
        const auto r = app.view().look_inside;
        const auto names = [](const std::string& message, size_t n) { return message.find(std::to_string(n)) != std::string::npos; };
        check(r && !r->patching.error.empty() && names(r->patching.error, r->patching.clean_tokens.size()) &&
                  names(r->patching.error, r->patching.corrupted_tokens.size()),
              "a corrupted sentence of another length is refused, naming both lengths" + (r ? ": " + r->patching.error : std::string()));
        check(r && r->patching.clean_tokens.size() != r->patching.corrupted_tokens.size() && !r->patching.corrupted_tokens.empty(),
              "both piece sequences are shown when the lengths differ");
        check(r && r->lens.error.empty() && r->heads.error.empty(), "the other views are still shown");
        // A head-importance cell: the same call as a click on layer 2, head 5 of cross-attention.
        check(LookInsidePanel::open_head(app, app.view(), AttentionKind::Cross, 2, 5), "the cross-attention block of layer 2 is found");
        return true;
    });
    add("draw", wait_frames(2));
    add("check head opened", [this](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        const int block = app.selection().attention_block;
        const bool ok = block >= 0 && block < static_cast<int>(v.attention.size());
        check(ok && v.attention[static_cast<size_t>(block)].prefix == "decoder.layers.2.cross_attn" && app.selection().head == 5,
              "a head-importance cell selects its block and head in the Attention panel");
        check(ok && v.cursor == v.attention[static_cast<size_t>(block)].probs + 1, "the cursor is just after that block's probabilities");
        check(drawn_now(panel(app, "attention")), "the Attention panel is shown");
        app.send(SetPatching{});
        return true;
    });
}

// The Precision panel on the everyday model's default sentence: FP32 against itself is exact;
// BF16 autocast differs at every product and matches compare_precision run here on the loaded
// model; FP16 "everything low" with the embeddings ×100 reports its first inf/NaN with a reason
// and does not fail.
void SelfTest::build_precision() {
    add("precision: fp32", [](ExplorerApp& app) {
        app.send(SetPrecision{{Precision::Fp32, false}, 1.0f});
        app.send(SetInput{{INSPECT_CLEAN}, std::nullopt});
        app.send(ShowPanel{"precision"});
        return true;
    });
    add("precision: fp32 computed", precision_ready());
    add("check precision fp32", [this](ExplorerApp& app) {
        const auto r = app.view().precision;
        check(r && r->error.empty() && !r->steps.empty(), "the Precision panel ran FP32" + (r ? ": " + r->error : std::string()));
        if (!r || r->steps.empty()) return true;
        bool zero = true;
        for (const explain::PrecisionStepRow& s : r->steps) zero = zero && s.difference.max_abs == 0.0 && s.difference.nonfinite == 0;
        check(zero && r->first_change < 0 && r->fp32_logits == r->low_logits, "FP32 against FP32 differs nowhere");
        check(drawn_now(panel(app, "precision")), "the Precision panel is shown");
        const int errors = app.error_count();
        app.send(SetPrecision{{Precision::Int8, true}, 1.0f});
        check(app.error_count() == errors + 1 && app.workbench().precision_settings().mode.format == Precision::Fp32,
              "INT8 everything-low is refused, with a message, and the settings stay");
        ++m_baseline_errors;   // that message was asked for
        app.send(SetPrecision{{Precision::Bf16, false}, 1.0f});
        return true;
    });
    add("precision: bf16 computed", precision_ready());
    add("check precision bf16", [this](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        const auto r = v.precision;
        check(r && r->error.empty() && r->request.mode.format == Precision::Bf16, "the Precision panel ran BF16");
        if (!r || !r->error.empty()) return true;
        const Checkpoint checkpoint = load_checkpoint(v.model_source);
        const Tokenizer tokenizer = make_tokenizer(checkpoint);
        std::vector<int> src = tokenizer.encode(INSPECT_CLEAN);
        src.push_back(checkpoint.config.special.eos);
        const PrecisionComparison c = compare_precision(checkpoint, {Precision::Bf16, false}, {src},
                                                        std::min(checkpoint.config.max_len - 1, 2 * static_cast<int>(src.size()) + 10));
        bool same = c.steps.size() == r->steps.size();
        int products = 0, moved = 0;
        for (size_t i = 0; same && i < c.steps.size(); ++i) {
            same = c.steps[i].max_abs == r->steps[i].difference.max_abs && c.steps[i].name == r->steps[i].difference.name;
            if (r->steps[i].how == explain::LowStep::Product) {
                ++products;
                moved += r->steps[i].difference.max_abs > 0.0;
            }
        }
        check(same, "the step table is compare_precision's on the loaded model");
        check(products > 0 && moved == products, "every BF16 product step differs from FP32 (" + std::to_string(moved) + " of " +
                                                      std::to_string(products) + ")");
        check(r->first_nonfinite < 0, "BF16 autocast holds no inf or NaN");
        bool bounded = !r->absolute.empty();
        // A matrix the file stores in BF16 (the everyday model's embeddings and output layer) rounds to itself.
        int exact = 0;
        for (const explain::RoundingHistogram& h : r->absolute) {
            bounded = bounded && h.max_abs_error <= h.step / 2;
            exact += h.max_abs_error == 0.0;
        }
        check(bounded, "every weight's BF16 rounding error is within half a step");
        check(exact < static_cast<int>(r->absolute.size()), "some weight matrix has a BF16 rounding error");
        app.send(SetPrecision{{Precision::Fp16, true}, 100.0f});
        return true;
    });
    add("precision: fp16 overflow computed", precision_ready());
    add("check precision fp16 overflow", [this](ExplorerApp& app) {
        const auto r = app.view().precision;
        check(r && r->error.empty() && r->request.embedding_scale == 100.0f, "the Precision panel ran FP16 with embeddings x100");
        if (!r || !r->error.empty()) return true;
        check(r->first_nonfinite >= 0 && !r->nonfinite_reason.empty(), "FP16 everything-low reports its first inf/NaN and why: " +
                                                                           r->nonfinite_reason);
        app.send(SetPrecision{{Precision::Bf16, false}, 1.0f});
        app.send(RunToEnd{});
        if (fs::exists(m_inspect_back)) app.send(LoadCheckpoint{m_inspect_back});
        return true;
    });
    add("draw", wait_frames(2));
    add("draw", wait_frames(3));
    add("screenshot", [this](ExplorerApp&) {
        m_screenshot = true;
        return true;
    });
    add("finish", [this](ExplorerApp& app) {
        m_screenshot = false;
        check(app.error_count() == m_baseline_errors + 1, "no error other than the deliberate missing checkpoint (" +
                                          std::to_string(app.error_count()) + " reported)");
        std::error_code ec;
        fs::remove_all(m_tmp, ec);
        if (m_failures.empty()) {
            std::printf("self-test: passed (%zu actions)\n", m_actions.size());
            app.finish(0);
        } else {
            std::printf("self-test: %zu check(s) failed\n", m_failures.size());
            app.finish(1);
        }
        return true;
    });
}

void SelfTest::check_lesson_step(ExplorerApp& app) {
    const LessonsPanel* l = lessons_panel(app);
    const explain::Lesson& lesson = l->lessons()[static_cast<size_t>(m_lesson)];
    const explain::LessonStep& step = lesson.steps[static_cast<size_t>(m_lesson_step)];
    const std::string at = lesson.file + " step " + std::to_string(m_lesson_step + 1) + ": ";
    const explain::SessionView& v = app.view();
    const Selection& sel = app.selection();
    for (size_t i = 0; i < step.actions.size(); ++i) {
        const explain::LessonAction& a = step.actions[i];
        // Only the last action of a kind in a step is still in effect at its end.
        bool later = false;
        for (size_t j = i + 1; j < step.actions.size(); ++j) later |= step.actions[j].kind == a.kind;
        if (later && a.kind != explain::LessonActionKind::HeadEnabled) continue;   // heads: per block and head, below
        const std::string what = at + to_string(a.kind) + (a.name.empty() ? std::string() : " " + a.name);
        switch (a.kind) {
            case explain::LessonActionKind::OpenModel:
                check(fs::path(v.model_source).stem().string() == a.name, what + ": that model is loaded (" + v.model_source + ")");
                break;
            case explain::LessonActionKind::SetSentences: check(v.sentences == a.sentences, what + ": the sentences are set"); break;
            case explain::LessonActionKind::GoToStep:
                check(v.cursor > 0 && v.cursor <= v.steps.size() && v.steps[v.cursor - 1].name == a.name,
                      what + ": the cursor is just after that step");
                break;
            case explain::LessonActionKind::CausalMask: check(v.options.causal_mask == a.on, what + ": causal mask set"); break;
            case explain::LessonActionKind::FusedAttention:
                check(v.options.fused_attention == a.on, what + ": fused attention set");
                break;
            case explain::LessonActionKind::PaddingMask: check(v.options.padding_mask == a.on, what + ": padding mask set"); break;
            case explain::LessonActionKind::PositionalEncoding:
                check(v.options.positional_encoding == a.on, what + ": positional encoding set");
                break;
            case explain::LessonActionKind::AttentionScaling:
                check(v.config.scale_attention == a.on, what + ": 1/sqrt(dk) scaling set");
                break;
            case explain::LessonActionKind::SelectAttention:
                check(sel.attention_block >= 0 && sel.attention_block < static_cast<int>(v.attention.size()) &&
                          v.attention[static_cast<size_t>(sel.attention_block)].prefix == a.name && sel.head == a.number &&
                          (!a.on || sel.single_head),
                      what + ": that block and head are selected" + (a.on ? ", the head drawn alone" : ""));
                break;
            case explain::LessonActionKind::ShowPanel: {
                const Panel* p = panel(app, a.name);
                check(p && drawn_now(p), what + ": the panel is open and drawn");
                break;
            }
            case explain::LessonActionKind::HighlightPanel: {
                // The highlighted panel is framed, drawn now, and not covered by the lesson.
                const Panel* p = panel(app, a.name);
                const Panel* lessons = panel(app, "lessons");
                check(app.highlighted_panel() == a.name || m_lesson_highlight_seen == a.name, what + ": the panel is highlighted");
                check(drawn_now(p) && drawn_now(lessons), what + ": the panel and the lesson are both in sight");
                if (p && lessons && p != lessons) {
                    const bool apart = p->drawn_max().x <= lessons->drawn_min().x || lessons->drawn_max().x <= p->drawn_min().x ||
                                       p->drawn_max().y <= lessons->drawn_min().y || lessons->drawn_max().y <= p->drawn_min().y;
                    check(apart, what + ": the lesson does not cover the panel it highlights");
                }
                break;
            }
            case explain::LessonActionKind::Decoding: check(v.beam_size == a.number, what + ": decoding set"); break;
            case explain::LessonActionKind::Speculative:
                check(v.speculative_open && v.speculative_k == a.number && v.speculative_draft_layers == a.key,
                      what + ": the speculative section is open with the lesson's settings");
                break;
            case explain::LessonActionKind::NeuronView: {
                const Panel* p = panel(app, "neuron");
                check(sel.neuron_query == a.number && sel.neuron_key == a.key && p && drawn_now(p),
                      what + ": the Neuron view shows that cell");
                break;
            }
            case explain::LessonActionKind::HeadEnabled: {
                // Only the last switch of this block and head in the step counts.
                bool same_later = false;
                for (size_t j = i + 1; j < step.actions.size(); ++j)
                    same_later |= step.actions[j].kind == a.kind && step.actions[j].name == a.name && step.actions[j].number == a.number;
                if (same_later) break;
                const auto off = v.options.disabled_heads.find(a.name);
                const bool is_off = off != v.options.disabled_heads.end() &&
                                    std::find(off->second.begin(), off->second.end(), a.number) != off->second.end();
                check(is_off == !a.on, what + " head " + std::to_string(a.number) + ": switched " + (a.on ? "on" : "off"));
                break;
            }
            case explain::LessonActionKind::AllHeadsOn: {
                bool any_off = false;
                for (const auto& [block, heads] : v.options.disabled_heads) any_off |= !heads.empty();
                check(!any_off, what + ": every head is on");
                break;
            }
            case explain::LessonActionKind::Generation: {
                const explain::GenerationTrace& g = v.generation;
                const bool same = g.settings.sample == a.on && (!a.on || (g.settings.sampling.temperature == a.sampling.temperature &&
                                                                          g.settings.sampling.top_k == a.sampling.top_k &&
                                                                          g.settings.sampling.top_p == a.sampling.top_p &&
                                                                          g.settings.sampling.seed == a.sampling.seed));
                check(same && g.error.empty() && !g.tokens.empty(), what + ": the Generate panel generated with these settings");
                break;
            }
            case explain::LessonActionKind::Train:
                check(app.trainer_info().exists && to_string(app.trainer_info().training.task) == a.name &&
                          app.training().state == TrainerState::Running,
                      what + ": the trainer runs that task");
                check(app.trainer_info().training.precision == a.precision.format &&
                          app.trainer_info().training.loss_scale.mode == a.loss_scale.mode,
                      what + ": in that precision, with that loss scale");
                break;
            case explain::LessonActionKind::Precision: {
                const Workbench::PrecisionSettings& p = app.workbench().precision_settings();
                check(p.mode.format == a.precision.format && p.mode.all_low == a.precision.all_low &&
                          p.embedding_scale == a.embedding_scale,
                      what + ": the Precision panel is in that mode (" + tx::describe(a.precision) + ")");
                check(drawn_now(panel(app, "precision")), what + ": the Precision panel is open and drawn");
                break;
            }
            case explain::LessonActionKind::ModelVariant: {
                const explain::ModelVariant& w = a.variant;
                check(to_json(explain::apply_variant(v.config, w)) == to_json(v.config), what + ": the model has " + describe(w));
                check(v.model_source.rfind("untrained (rebuilt", 0) == 0, what + ": with fresh weights (" + v.model_source + ")");
                break;
            }
            case explain::LessonActionKind::LookInside: {
                check(app.workbench().patching_settings().corrupted == a.sentences.at(0),
                      what + ": the Look inside panel has that corrupted sentence");
                check(drawn_now(panel(app, "inspect")), what + ": the Look inside panel is open and drawn");
                break;
            }
        }
    }
    check(app.error_count() == m_lesson_errors, at + "no error");
    m_lesson_errors = app.error_count();   // one message per faulty step, not one per step after it
}

void SelfTest::frame(ExplorerApp& app) {
    if (m_next >= m_actions.size()) return;
    if (m_actions[m_next].second(app)) {
        ++m_next;
        m_frames_in_action = 0;
    } else {
        ++m_frames_in_action;
    }
}

}  // namespace tx::app

// ---------------------------------------------------------------------------------------------
// A decoder-only model: fresh weights made here through the core API (the shipped model's
// tokenizer and sizes, LLaMA-like variants), loaded as a checkpoint; the typed sentences are
// prompts. Its continuations are checked against an independent greedy loop over the full model
// (tests/support/plain_greedy.h),
// then the Generate panel, every step, both decodings, the Neuron view and every panel.

namespace tx::app {

void SelfTest::build_decoder_only() {
    const std::vector<std::string> prompts = {"The cat sat on the", "I see"};

    add("decoder-only model", [this, prompts](ExplorerApp& app) {
        m_decoder_back = app.view().model_source;
        try {
            const Checkpoint shipped = load_checkpoint(m_decoder_back);
            ModelConfig c = shipped.config;
            c.arch = Arch::DecoderOnly;
            c.encoder_layers = 0;
            c.positional = PositionalKind::Rope;
            c.ffn = FfnKind::SwiGlu;
            c.norm_kind = NormKind::RmsNorm;
            c.norm = NormPlacement::Pre;
            c.seed = 11;
            save_checkpoint(m_tmp + "/decoder-only.safetensors", Session::fresh(c, shipped.vocabulary, shipped.tokenizer_model));
        } catch (const std::exception& e) {
            check(false, std::string("a decoder-only checkpoint is made: ") + e.what());
        }
        app.send(LoadCheckpoint{m_tmp + "/decoder-only.safetensors"});
        app.send(SetInput{prompts, std::nullopt});
        app.send(ShowPanel{"input"});
        return true;
    });
    add("draw", wait_frames(2));
    add("check decoder-only continuation", [this, prompts](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        check(v.decoder_only && v.config.arch == Arch::DecoderOnly, "the decoder-only model is loaded");
        check(v.sentences == prompts && v.B == 2, "two prompts form the batch");
        for (const StepInfo& s : v.steps)
            check(s.name.find("encoder") == std::string::npos && s.name.find("cross_attn") == std::string::npos &&
                      s.name.rfind("src_", 0) != 0,
                  "decoder-only: no encoder, source or cross-attention step (" + s.name + ")");
        check(!v.attention.empty() && std::all_of(v.attention.begin(), v.attention.end(),
                                                  [](const AttentionBlock& a) { return a.kind == AttentionKind::DecoderSelf; }),
              "decoder-only: every attention block is decoder self-attention");
        if (v.source_tokens.size() != 2 || v.decoded_ids.size() != 2) return true;
        const Checkpoint checkpoint = load_checkpoint(v.model_source);
        auto backend = make_cpu_backend();
        Transformer model(checkpoint.config, *backend);
        model.set_parameters(checkpoint.parameters);
        const SpecialTokens& sp = v.config.special;
        for (int b = 0; b < 2; ++b) {
            std::vector<int> prompt;
            for (const Token& t : v.source_tokens[static_cast<size_t>(b)]) prompt.push_back(t.id);
            const int limit = std::min(CONTINUATION_TOKENS, v.config.max_len - 1 - static_cast<int>(prompt.size()));
            check(v.output_limit.at(static_cast<size_t>(b)) == limit, "the continuation limit is min(32, max_len - 1 - prompt)");
            const std::vector<int> want = test::plain_greedy(model, prompt, limit);
            check(v.decoded_ids[static_cast<size_t>(b)] == want,
                  "prompt " + std::to_string(b + 1) + ": the continuation equals a greedy loop over the full model");
            // The shown pass: BOS + prompt + continuation, then PAD on the right.
            std::vector<int> row{sp.bos};
            row.insert(row.end(), prompt.begin(), prompt.end());
            row.insert(row.end(), want.begin(), want.end());
            for (int t = 0; t < v.T; ++t)
                check(v.tgt_ids.at(static_cast<size_t>(b * v.T + t)) == (t < static_cast<int>(row.size()) ? row[static_cast<size_t>(t)] : sp.pad),
                      "prompt " + std::to_string(b + 1) + ": the decoder input is BOS + prompt + continuation, right-padded");
        }
        app.send(ShowPanel{"generate"});
        app.send(SetGeneration{explain::GenerationSettings{}});
        return true;
    });
    add("draw", wait_frames(2));
    add("check decoder-only generate", [this](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        const explain::GenerationTrace& g = v.generation;
        check(g.error.empty() && !g.tokens.empty(), "the Generate panel continues the prompt (" + g.error + ")");
        if (g.tokens.empty() || v.source_tokens.empty()) return true;
        std::vector<int> start{v.config.special.bos};
        for (const Token& t : v.source_tokens[0]) start.push_back(t.id);
        check(g.decoder_only && g.src.empty() && g.context == std::vector<int>(start.begin(), start.end() - 1) &&
                  g.tokens.front().input == start.back(),
              "generation reads BOS + the prompt first; token 1's input is the prompt's last token");
        check(g.text == v.decoded_text.at(0), "greedy generation writes the greedy continuation (" + g.text + ")");
        const int P = static_cast<int>(g.context.size());
        for (size_t i = 0; i < g.tokens.size(); ++i) {
            const explain::GeneratedToken& k = g.tokens[i];
            const int keys = P + static_cast<int>(i) + 1;
            check(k.cross_probs.empty(), "decoder-only: no cross-attention row");
            for (const auto& self : k.self_probs)
                check(self.size() == static_cast<size_t>(g.H) * keys, "token " + std::to_string(i + 1) + ": the query row sees P + t cached keys");
            check(k.max_diff <= 1e-4, "token " + std::to_string(i + 1) + ": cached and full log-probabilities agree");
        }
        for (const explain::GenerationStep& s : explain::generation_steps(v.config, v.options.positional_encoding))
            check(s.kind != explain::GenerationStepKind::CrossAttention, "decoder-only: no cross-attention step in a token's pass");
        app.send(SetGenerationCursor{1000, 1000});
        return true;
    });
    add("draw", wait_frames(2));
    add("decoder-only restart", [](ExplorerApp& app) {
        app.send(ShowPanel{"steps"});
        app.send(Restart{});
        return true;
    });
    add("decoder-only step through", [this](ExplorerApp& app) {
        const auto& v = app.view();
        if (v.cursor >= v.steps.size()) return true;
        check(v.cursor == static_cast<size_t>(m_frames_in_action), "decoder-only: each step advances the cursor by one");
        app.send(StepForward{});
        return false;
    });
    add("decoder-only beam search", [](ExplorerApp& app) {
        app.send(ShowPanel{"decoding"});
        app.send(SetDecoding{3, 0.6});
        return true;
    });
    add("draw", wait_frames(2));
    add("check decoder-only beam search", [this](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        check(v.beam_size == 3 && v.beams.size() == 2, "decoder-only: beam search ran on both prompts");
        for (size_t b = 0; b < v.beams.size() && b < v.decoded_ids.size(); ++b)
            check(v.decoded_ids[b] == v.beams[b].best, "decoder-only: the continuation shown is beam search's best");
        app.send(SetDecoding{1, 0.6});
        app.selection().attention_lines = true;
        app.send(ShowPanel{"attention"});
        return true;
    });
    add("draw", wait_frames(2));
    add("decoder-only neuron view", [](ExplorerApp& app) {
        Selection& sel = app.selection();
        sel.attention_lines = false;
        sel.attention_block = 0;
        sel.batch_row = 1;
        sel.head = 0;
        sel.neuron_query = 2;
        sel.neuron_key = 1;
        app.send(ShowPanel{"neuron"});
        return true;
    });
    add("draw", wait_frames(2));
    add("check decoder-only neuron view", [this](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        const explain::NeuronTrace t = trace_neuron(v, {0, 1, 0, 2, 1});
        check(t.error.empty() && t.complete, "decoder-only neuron view: the trace is complete");
        check(t.kind == AttentionKind::DecoderSelf && t.key_tokens == v.tgt_labels(1), "decoder-only: keys are decoder positions");
        return true;
    });
    for (const std::string& key : panel_keys()) {
        add("decoder-only panel " + key, [key](ExplorerApp& app) {
            app.send(ShowPanel{key});
            return true;
        });
        add("draw", wait_frames(2));
    }
    // The Look inside panel on the decoder-only model: the views that apply, against the library.
    add("decoder-only look inside", [](ExplorerApp& app) {
        app.send(ShowPanel{"inspect"});
        return true;
    });
    add("decoder-only look inside computed", look_inside_ready());
    add("check decoder-only look inside", [this](ExplorerApp& app) {
        const explain::SessionView& v = app.view();
        const auto r = v.look_inside;
        check(r && r->error.empty() && r->decoder_only, "decoder-only: the Look inside views are computed" + (r ? " " + r->error : ""));
        if (!r || !r->error.empty()) return true;
        check(r->source_tokens.empty() && r->rollout.error.empty() && r->rollout.cross.empty() &&
                  r->rollout.stack == "decoder self-attention",
              "decoder-only: the rollout runs over the decoder's self-attention, with no decoder-over-source part");
        explain::InspectModel model(load_checkpoint(v.model_source));
        const explain::InspectInput in = model.input(v.sentences.front(), v.target_text);
        check(r->lens.error.empty() && r->lens.log_probs == logit_lens(model, in, 5).log_probs, "decoder-only: the lens is the library's");
        check(r->heads.grids.size() == 1 && r->heads.grids[0].delta == head_importance(model, in).grids.at(0).delta,
              "decoder-only: head importance has the one attention kind, as the library computes it");
        return true;
    });
    add("decoder-only done", [this](ExplorerApp& app) {
        check(app.error_count() == m_baseline_errors, "decoder-only: no error reported (" + std::to_string(app.error_count()) + ")");
        app.send(LoadCheckpoint{m_decoder_back});
        return true;
    });
    add("check model back after decoder-only", [this](ExplorerApp& app) {
        check(!app.view().decoder_only && app.view().model_source == m_decoder_back, "the shipped model is back");
        app.send(SetInput{{"The animal didn't cross the street because it was too tired."}, std::nullopt});
        return true;
    });
    add("draw", wait_frames(2));
    // "Compare variants" (Training panel): a row reruns with exactly the row's model and schedule.
    for (const std::string id : {"copy-rope-relu-s2", "induction-sinusoidal-swiglu-s1"}) {
        add("compare variants " + id, [this, id](ExplorerApp& app) {
            app.send(ShowPanel{"training"});
            app.send(TrainComparisonRow{id});
            m_started = seconds();
            return true;
        });
        add("train row " + id, [this, id](ExplorerApp& app) {
            const TrainerInfo& info = app.trainer_info();
            const auto& t = app.training();
            if (info.comparison_row == id && info.exists && !info.preparing && t.step >= 5) {
                app.send(PauseTraining{});
                return true;
            }
            if (t.state == TrainerState::Diverged || seconds() - m_started > 300.0) {
                check(false, id + ": 5 training steps within 300 s (state " + std::string(to_string(t.state)) + ", step " +
                                 std::to_string(t.step) + ", " + info.error + ")");
                return true;
            }
            return false;
        });
        add("draw", wait_frames(3));
        add("check row " + id, [this, id](ExplorerApp& app) {
            const ComparisonRow* row = find_comparison_row(id);
            check(row != nullptr, id + " is a comparison row");
            if (!row) return true;
            const TrainerInfo& info = app.trainer_info();
            const ModelConfig want_m = comparison_model(*row);
            const TrainingConfig want_t = comparison_training(*row);
            const ModelConfig& m = info.model;
            const TrainingConfig& t = info.training;
            check(info.comparison_row == id, id + ": the trainer says it trains that row");
            check(m.positional == row->positional && m.ffn == row->ffn && m.arch == want_m.arch && m.d_model == want_m.d_model &&
                      m.heads == want_m.heads && m.d_ff == want_m.d_ff && m.encoder_layers == want_m.encoder_layers &&
                      m.decoder_layers == want_m.decoder_layers && m.seed == row->seed,
                  id + ": the model is the row's (" + to_string(m.positional) + " positions, " + to_string(m.ffn) + " FFN, " +
                      to_string(m.arch) + ")");
            check(t.task == row->task && t.seed == row->seed && t.max_steps == COMPARISON_STEPS &&
                      t.target_exact == want_t.target_exact && t.target_loss == want_t.target_loss && t.length == want_t.length &&
                      t.min_length == want_t.min_length && t.eval_every == want_t.eval_every && t.batch == want_t.batch &&
                      t.base_lr == want_t.base_lr && t.warmup == want_t.warmup,
                  id + ": the task, budget, target and schedule are the row's (task " + to_string(t.task) + ")");
            check(app.training().step >= 5 && !app.training().history.empty(), id + ": it trained and published its history");
            const TrainingPanel* panel = app.panel_handles().training;
            check(panel && comparison_rows().at(static_cast<size_t>(panel->comparison_choice())).id == id,
                  id + ": the Training panel's chooser shows the row being trained");
            return true;
        });
    }
}

}  // namespace tx::app
