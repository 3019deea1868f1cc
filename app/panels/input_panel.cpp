// Input panel (see input_panel.h). Edits are applied a moment after the last keystroke (or on
// Enter), so typing stays smooth while greedy decoding reruns the model.
#include "panels/input_panel.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "tx/decoding.h"
#include "tx/length_limits.h"
#include "byte_pieces.h"
#include "imgui_stdlib.h"
#include "known_words.h"
#include "widgets/ui.h"

namespace tx::app {

namespace {

constexpr double APPLY_DELAY_S = 0.35;
const ImVec4 UNSEEN_COLOUR(1.0f, 0.62f, 0.3f, 1.0f);

bool contains_ignoring_case(const std::string& text, const std::string& part) {
    auto lower = [](unsigned char c) { return static_cast<char>(std::tolower(c)); };
    return std::search(text.begin(), text.end(), part.begin(), part.end(),
                       [&](char a, char b) { return lower(static_cast<unsigned char>(a)) == lower(static_cast<unsigned char>(b)); }) != text.end();
}

// Why a word counts as unseen, for its tooltip; mentions a case variant the model did see.
std::string unseen_tooltip(const std::string& word, const std::string& key, const explain::KnownWords& known,
                           const std::vector<Token>& tokens, const explain::WordPieces& w) {
    std::string pieces;
    for (int p : w.pieces) pieces += (pieces.empty() ? "" : " ") + tokens[static_cast<size_t>(p)].text;
    std::string tip = "\"" + word + "\" never appears in the source (left) side of the training corpus (" + known.corpus + ", " +
                      std::to_string(known.sentences) + " sentences). The model still reads its pieces (" + pieces +
                      "), but it never learned what they mean together: expect a guess.";
    std::string lower = key;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string upper = lower;
    if (!upper.empty()) upper[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(upper[0])));
    for (const std::string& variant : {lower, upper})
        if (variant != key && known.knows(variant)) {
            tip += " It did see \"" + variant + "\": case matters, \xE2\x96\x81" + variant + " and \xE2\x96\x81" + key +
                   " are different pieces.";
            break;
        }
    return tip;
}

// A chip's piece is one of a SentencePiece vocabulary's byte pieces (not a typed "<0xE2>" that
// became UNK under the word tokenizer).
bool byte_piece_chip(const explain::SessionView& v, const std::string& text, int id) {
    return v.config.tokenizer == TokenizerKind::SentencePiece && id != v.config.special.unk && explain::is_byte_piece(text);
}

std::string source_chip_text(const explain::SessionView& v, const std::vector<Token>& toks, int b, int s) {
    const int id = v.src_ids[static_cast<size_t>(b * v.S + s)];
    const SpecialTokens& sp = v.config.special;
    if (s < static_cast<int>(toks.size()) && toks[static_cast<size_t>(s)].unknown) return toks[static_cast<size_t>(s)].text;
    if (id == sp.pad) return "PAD";
    if (id == sp.eos) return "EOS";
    return v.token_text(id);
}

// One encoder-input chip: UNK and byte pieces red, PAD grey, EOS purple.
void source_chip(const explain::SessionView& v, const std::vector<Token>& toks, int b, int s) {
    ImGui::PushID(s);
    const int id = v.src_ids[static_cast<size_t>(b * v.S + s)];
    const SpecialTokens& sp = v.config.special;
    const std::string text = source_chip_text(v, toks, b, s);
    if (s < static_cast<int>(toks.size()) && toks[static_cast<size_t>(s)].unknown) {
        const std::string tip =
            byte_piece_chip(v, text, id)
                ? explain::byte_piece_text(text)
                : "\"" + text + "\" is not in the vocabulary: it became UNK (id " + std::to_string(sp.unk) + ")";
        token_chip(text, id, ChipKind::Unknown, tip.c_str());
    } else if (id == sp.pad) {
        token_chip(text, id, ChipKind::Pad, "padding: fills this row to the batch's longest source");
    } else if (id == sp.eos) {
        token_chip(text, id, ChipKind::Special, "end of sequence: appended to every source");
    } else {
        token_chip(text, id, ChipKind::Normal);
    }
    ImGui::PopID();
}

// Decoder-only: row b is BOS + the prompt + the continuation (or the target text), PAD on the
// right; the prompt's chips as typed, the model's own tokens highlighted.
void prompt_row(const explain::SessionView& v, int b) {
    const SpecialTokens& sp = v.config.special;
    static const std::vector<Token> none;
    const std::vector<Token>& toks = b < static_cast<int>(v.source_tokens.size()) ? v.source_tokens[static_cast<size_t>(b)] : none;
    const int prompt = static_cast<int>(toks.size());
    ImGui::Text("Prompt %d \xE2\x80\x94 what the model continues (%d token%s)", b + 1, prompt, prompt == 1 ? "" : "s");
    ImGui::Text("Decoder input: BOS + prompt + %s, T = %d", v.target_text ? "target text" : "continuation", v.T);
    if (v.B > 1)
        help_marker("Prompts of different lengths are padded with PAD on the right: every row's positions start at 0 "
                    "right after BOS, the causal mask keeps each position from later ones and the padding mask keeps "
                    "every query away from PAD keys.");
    constexpr int MAX_CHIPS = 48;
    for (int t = 0; t < v.T; ++t) {
        if (t == MAX_CHIPS && v.T > MAX_CHIPS + 4) {
            ImGui::TextDisabled("\xE2\x80\xA6 and %d more", v.T - MAX_CHIPS);
            break;
        }
        ImGui::PushID(2000 + t);
        const int id = v.tgt_ids[static_cast<size_t>(b * v.T + t)];
        if (t == 0) {
            token_chip("BOS", id, ChipKind::Special, "begin of sequence: position 0, before the prompt");
        } else if (t <= prompt) {
            const Token& token = toks[static_cast<size_t>(t - 1)];
            if (token.unknown)
                token_chip(token.text, id, ChipKind::Unknown,
                           (byte_piece_chip(v, token.text, id)
                                ? explain::byte_piece_text(token.text)
                                : "\"" + token.text + "\" is not in the vocabulary: it became UNK (id " + std::to_string(sp.unk) + ")")
                               .c_str());
            else
                token_chip(v.token_text(id), id, ChipKind::Normal, "prompt: typed, read by the model");
        } else if (id == sp.pad) {
            token_chip("PAD", id, ChipKind::Pad, "padding on the right: fills this row to the batch's longest");
        } else {
            token_chip(id == sp.eos ? "EOS" : v.token_text(id), id, ChipKind::Highlight,
                       v.target_text ? "target text: fed after the prompt (teacher forcing)"
                                     : "continuation: chosen by the model, then fed back as the next input");
        }
        ImGui::PopID();
    }
    ImGui::NewLine();
    const std::string out = b < static_cast<int>(v.decoded_text.size()) ? v.decoded_text[static_cast<size_t>(b)] : "";
    const int limit = b < static_cast<int>(v.output_limit.size()) ? v.output_limit[static_cast<size_t>(b)] : 0;
    ImGui::TextUnformatted(v.beam_size > 1 ? "Continuation (beam search):" : "Continuation (greedy):");
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0.0f);
    if (limit == 0) ImGui::TextDisabled("(none: BOS + the prompt fill max_len %d)", v.config.max_len);
    else if (out.empty()) ImGui::TextDisabled("(empty: EOS was the first prediction)");
    else ImGui::TextColored(ImVec4(0.98f, 0.78f, 0.35f, 1.0f), "%s", out.c_str());
    ImGui::PopTextWrapPos();
    ImGui::TextDisabled("continues until EOS or min(max_len \xE2\x88\x92 1, prompt + %d) = %d tokens after BOS", CONTINUATION_TOKENS,
                        prompt + limit);
    if (limit > 0 && b < static_cast<int>(v.decoded_ids.size()) &&
        static_cast<int>(v.decoded_ids[static_cast<size_t>(b)].size()) >= limit)
        ImGui::TextDisabled("stopped without EOS at that limit (an untrained model rarely predicts EOS)");
}

}  // namespace

InputPanel::InputPanel()
    : Panel("Type up to four sentences; several form a padded batch. Each becomes token ids (the encoder input is "
            "tokens + EOS); the decoder starts from BOS and appends the most probable next token (greedy), or keeps "
            "the K most probable partial outputs (beam search).") {}

std::string InputPanel::explanation_for(const explain::SessionView& v) const {
    if (!v.decoder_only) return explanation();
    return "Type up to four prompts; several form a batch, padded on the right. A decoder-only model has no encoder: "
           "the decoder input is BOS + the prompt's tokens, and the model continues it, appending the most probable "
           "next token (greedy) or keeping the K most probable continuations (beam search).";
}

void InputPanel::draw_content(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const SpecialTokens& sp = v.config.special;
    if (m_synced_version != v.version && !m_pending) {
        m_edit = v.sentences;
        if (m_edit.empty()) m_edit.push_back("");
        m_use_target = v.target_text.has_value();
        if (v.target_text) m_target = *v.target_text;
        m_synced_version = v.version;
    }

    bool changed = false, enter = false;
    int remove = -1;
    for (size_t i = 0; i < m_edit.size(); ++i) {
        ImGui::PushID(static_cast<int>(i));
        const bool can_remove = m_edit.size() > 1;
        ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - (can_remove ? 34.0f : 0.0f));
        if (ImGui::InputTextWithHint("##sentence", v.decoder_only ? "type a prompt" : "type a sentence", &m_edit[i],
                                     ImGuiInputTextFlags_EnterReturnsTrue))
            enter = true;
        if (ImGui::IsItemEdited()) changed = true;
        if (can_remove) {
            ImGui::SameLine();
            if (ImGui::Button("\xE2\x88\x92", ImVec2(26, 0))) remove = static_cast<int>(i);
            item_tooltip(v.decoder_only ? "Remove this prompt from the batch" : "Remove this sentence from the batch");
        }
        ImGui::PopID();
    }
    if (remove >= 0) {
        m_edit.erase(m_edit.begin() + remove);
        enter = true;
    }
    if (m_edit.size() < 4) {
        if (ImGui::SmallButton(v.decoder_only ? "+ add a prompt (batch)" : "+ add a sentence (batch)")) {
            m_edit.push_back("The cat sat.");
            enter = true;
        }
        item_tooltip(v.decoder_only ? "Prompts of different lengths are padded with PAD on the right, to the longest "
                                      "row; the padding mask keeps attention away from PAD keys."
                                    : "Sentences of different lengths are padded with PAD to the longest; the padding mask "
                                      "keeps attention away from PAD keys.");
        ImGui::SameLine();
    }
    if (ImGui::Checkbox("teacher-forced target", &m_use_target)) enter = true;
    item_tooltip(v.decoder_only ? "Instead of the model's continuation, feed BOS + the prompt + this text to the decoder "
                                  "(as in training), and see the prediction at every position."
                                : "Instead of greedy decoding, feed BOS + this text to the decoder (as in training), and "
                                  "see the prediction at every position.");
    if (m_use_target) {
        ImGui::SetNextItemWidth(-1);
        if (ImGui::InputTextWithHint("##target", v.decoder_only ? "the text after the prompt" : "target text for the decoder",
                                     &m_target, ImGuiInputTextFlags_EnterReturnsTrue))
            enter = true;
        if (ImGui::IsItemEdited()) changed = true;
    }
    // Decoding: greedy, or beam search with GNMT's length penalty (the paper: beam 4, alpha 0.6).
    bool beam = v.beam_size > 1;
    if (beam && !ImGui::IsAnyItemActive()) {
        m_beam_size = v.beam_size;
        m_alpha = static_cast<float>(v.length_penalty);
    }
    bool decoding_changed = false;
    ImGui::TextUnformatted("Decoding:");
    ImGui::SameLine();
    if (ImGui::RadioButton("greedy", !beam)) beam = false, decoding_changed = true;
    item_tooltip("At every position take the single most probable next token.");
    ImGui::SameLine();
    if (ImGui::RadioButton("beam search", beam)) beam = true, decoding_changed = true;
    item_tooltip("Keep the K most probable partial outputs at every step; rank finished ones by log P(Y) / lp(Y), "
                 "lp(Y) = ((5 + |Y|) / 6)^alpha (Wu et al. 2016). The paper used K = 4, alpha = 0.6.");
    if (beam) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(80);
        // Applied on release: a beam search per frame while dragging would stall the window.
        ImGui::SliderInt("K", &m_beam_size, 2, 8);
        if (ImGui::IsItemDeactivatedAfterEdit()) decoding_changed = true;
        item_tooltip("Beam size: how many partial outputs are kept at each step.");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(80);
        ImGui::SliderFloat("alpha", &m_alpha, 0.0f, 2.0f, "%.1f");
        if (ImGui::IsItemDeactivatedAfterEdit()) decoding_changed = true;
        item_tooltip("Length penalty alpha: 0 ranks by log P(Y) alone, which favours short outputs; larger values favour longer ones.");
    }
    if (decoding_changed) ctx.commands.send(SetDecoding{beam ? std::max(2, m_beam_size) : 1, m_alpha});

    if (changed) {
        m_pending = true;
        m_edit_time = ImGui::GetTime();
    }
    if (enter || (m_pending && ImGui::GetTime() - m_edit_time > APPLY_DELAY_S)) {
        std::vector<std::string> sentences;
        for (const auto& s : m_edit) sentences.push_back(s);
        ctx.commands.send(SetInput{sentences, m_use_target ? std::optional<std::string>(m_target) : std::nullopt});
        m_pending = false;
    }

    // Two short lines (the help marker sits beside the first; a wrapped line would put it mid-text).
    const bool subword = v.config.tokenizer == TokenizerKind::SentencePiece;
    ImGui::TextDisabled("%s tokenizer \xC2\xB7 vocabulary %d",
                        subword ? "subword (SentencePiece BPE)"
                        : v.config.tokenizer == TokenizerKind::Word ? "word-level" : "character-level",
                        v.vocab_size);
    if (subword)
        help_marker("Subword: frequent words are one piece, rarer ones split into pieces (\"\xE2\x96\x81" "dorm\" + \"ir\xC3\xA1n\"); "
                    "\xE2\x96\x81 marks a piece that starts a word. One vocabulary serves both languages, as in the paper. "
                    "A character the model never saw becomes its UTF-8 bytes (red <0x..> pieces), so nothing is dropped. "
                    "PAD (grey) fills shorter rows of a batch.");
    else
        help_marker("Word-level: words and punctuation marks are tokens. Character-level: every character is a token "
                    "(a space shows as \xE2\x90\xA3). Words outside the vocabulary become UNK (red) and stay visible; "
                    "PAD (grey) fills shorter rows of a batch.");
    ImGui::TextDisabled("special ids: PAD %d \xC2\xB7 BOS %d \xC2\xB7 EOS %d \xC2\xB7 UNK %d", sp.pad, sp.bos, sp.eos, sp.unk);
    draw_examples(ctx);
    draw_known_words(ctx);
    ImGui::Separator();

    for (int b = 0; b < v.B; ++b) {
        ImGui::PushID(b);
        if (v.B > 1) {
            if (ImGui::RadioButton("##row", ctx.selection.batch_row == b)) ctx.selection.batch_row = b;
            item_tooltip("Show this batch row in the other panels");
            ImGui::SameLine();
        }
        if (v.decoder_only) {
            prompt_row(v, b);
            ImGui::Separator();
            ImGui::PopID();
            continue;
        }
        ImGui::Text("Sentence %d \xE2\x80\x94 encoder input (tokens + EOS), S = %d", b + 1, v.S);
        const auto& toks = b < static_cast<int>(v.source_tokens.size()) ? v.source_tokens[static_cast<size_t>(b)] : std::vector<Token>{};
        if (subword) {
            draw_grouped_source(ctx, b);
        } else {
            for (int s = 0; s < v.S; ++s) source_chip(v, toks, b, s);
            ImGui::NewLine();
        }
        ImGui::Text("Decoder input (BOS + output), T = %d", v.T);
        constexpr int MAX_CHIPS = 40;
        for (int t = 0; t < v.T; ++t) {
            if (t == MAX_CHIPS && v.T > MAX_CHIPS + 4) {
                ImGui::TextDisabled("\xE2\x80\xA6 and %d more", v.T - MAX_CHIPS);
                break;
            }
            ImGui::PushID(1000 + t);
            const int id = v.tgt_ids[static_cast<size_t>(b * v.T + t)];
            if (id == sp.bos) token_chip("BOS", id, ChipKind::Special, "begin of sequence: the decoder's first input");
            else if (id == sp.pad) token_chip("PAD", id, ChipKind::Pad, "padding");
            else if (id == sp.unk) token_chip("UNK", id, ChipKind::Unknown, "the unknown token");
            else if (id == sp.eos) token_chip("EOS", id, ChipKind::Special);
            else if (byte_piece_chip(v, v.token_text(id), id))
                token_chip(v.token_text(id), id, ChipKind::Unknown, explain::byte_piece_text(v.token_text(id)).c_str());
            else token_chip(v.token_text(id), id, ChipKind::Normal);
            ImGui::PopID();
        }
        ImGui::NewLine();
        const std::string out = b < static_cast<int>(v.decoded_text.size()) ? v.decoded_text[static_cast<size_t>(b)] : "";
        ImGui::TextUnformatted(v.beam_size > 1 ? "Beam search output:" : "Greedy decode:");
        ImGui::SameLine();
        ImGui::PushTextWrapPos(0.0f);
        if (out.empty()) ImGui::TextDisabled("(empty: EOS was the first prediction)");
        else ImGui::TextColored(ImVec4(0.55f, 0.85f, 1.0f, 1.0f), "%s", out.c_str());
        if (const std::string note = explain::replacement_character_note(out); !note.empty()) ImGui::TextDisabled("%s", note.c_str());
        ImGui::PopTextWrapPos();
        // Session::decode_limit: S counts the longest source with its EOS.
        const int limit = translation_limit(v.S, v.config.max_len);
        if (b < static_cast<int>(v.decoded_ids.size()) &&
            static_cast<int>(v.decoded_ids[static_cast<size_t>(b)].size()) >= limit)
            ImGui::TextDisabled("stopped without EOS at the length limit, min(max_len \xE2\x88\x92 1, 2\xC2\xB7S + 10) = %d "
                                "tokens (an untrained model rarely predicts EOS)", limit);
        ImGui::Separator();
        ImGui::PopID();
    }
    if (v.target_text)
        ImGui::TextDisabled(v.decoder_only ? "Teacher forcing: the decoder input above is BOS + the prompt + the target text."
                                           : "Teacher forcing: the decoder input above is BOS + the target text.");
}

}  // namespace tx::app

namespace tx::app {

void InputPanel::draw_grouped_source(PanelContext& ctx, int b) {
    const explain::SessionView& v = ctx.view;
    if (b >= static_cast<int>(v.source_tokens.size()) || b >= static_cast<int>(v.sentences.size())) return;
    const std::vector<Token>& toks = v.source_tokens[static_cast<size_t>(b)];
    const std::string& text = v.sentences[static_cast<size_t>(b)];
    const explain::KnownWords* known = v.known_words && v.known_words->available() ? v.known_words.get() : nullptr;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float start_x = ImGui::GetCursorPosX();
    const float label_h = ImGui::GetTextLineHeight() + 5.0f;
    std::vector<std::string> unseen;
    // One word: its text on top, a bracket under it spanning its pieces, the piece chips below.
    auto group = [&](const std::string& label, const std::string& tip, bool flagged, int first, int count) {
        float chips_w = 0.0f;
        for (int s = first; s < first + count; ++s)
            chips_w += token_chip_size(source_chip_text(v, toks, b, s), v.src_ids[static_cast<size_t>(b * v.S + s)]).x + 4.0f;
        chips_w -= 4.0f;
        const float label_w = ImGui::CalcTextSize(label.c_str()).x;
        const float w = std::max(chips_w, label_w);
        if (ImGui::GetCursorPosX() > start_x + 1.0f && ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
        ImGui::BeginGroup();
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const ImU32 colour = flagged ? ImGui::GetColorU32(UNSEEN_COLOUR) : ImGui::GetColorU32(ImGuiCol_Text);
        // Scrolled out of view (a long input): only the layout, as token_chip does.
        const bool visible = ImGui::IsRectVisible(p, ImVec2(p.x + w, p.y + label_h));
        if (visible) dl->AddText(ImVec2(p.x + (w - label_w) * 0.5f, p.y), colour, label.c_str());
        const float chips_x = p.x + (w - chips_w) * 0.5f;
        if (visible && !label.empty() && (count > 1 || flagged)) {
            const float y = p.y + label_h - 2.0f;
            const ImU32 line = flagged ? colour : ImGui::GetColorU32(ImGuiCol_TextDisabled);
            dl->AddLine(ImVec2(chips_x + 2, y - 3), ImVec2(chips_x + 2, y), line);
            dl->AddLine(ImVec2(chips_x + 2, y), ImVec2(chips_x + chips_w - 2, y), line);
            dl->AddLine(ImVec2(chips_x + chips_w - 2, y - 3), ImVec2(chips_x + chips_w - 2, y), line);
        }
        ImGui::Dummy(ImVec2(w, label_h));
        if (!tip.empty()) item_tooltip(tip.c_str());
        ImGui::SetCursorScreenPos(ImVec2(chips_x, ImGui::GetCursorScreenPos().y));
        for (int s = first; s < first + count; ++s) source_chip(v, toks, b, s);
        ImGui::EndGroup();
        ImGui::SameLine(0.0f, 14.0f);
    };
    for (const explain::WordPieces& w : explain::group_words(toks, text)) {
        const std::string key = explain::word_key(w.text);
        const bool flagged = known && !key.empty() && !known->knows(key);
        if (flagged) unseen.push_back(key);
        group(w.text, flagged ? unseen_tooltip(w.text, key, *known, toks, w) : std::string(), flagged, w.pieces.front(),
              static_cast<int>(w.pieces.size()));
    }
    // EOS and the PAD that fills the row: specials, no word above them.
    const int n = static_cast<int>(toks.size());
    if (n < v.S) group("", "", false, n, v.S - n);
    ImGui::NewLine();
    if (!unseen.empty()) {
        std::string list;
        for (const std::string& u : unseen) list += (list.empty() ? "\"" : ", \"") + u + "\"";
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(UNSEEN_COLOUR, "never seen in training: expect a guess \xE2\x80\x94 %s", list.c_str());
        ImGui::PopTextWrapPos();
        item_tooltip("These words never appear in the source (left) side of the corpus the model was trained on. Its subword "
                     "pieces still give each one ids (nothing becomes UNK), but the model has not learned what they mean "
                     "together: its translation of them is a guess from the pieces.");
    }
}

void InputPanel::draw_examples(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    if (v.examples.empty()) return;
    if (ImGui::Button("Examples")) ImGui::OpenPopup("##examples");
    item_tooltip("Sentences chosen to show something about this model: pick one to make it the input.");
    if (!v.known_words || v.known_words->available()) ImGui::SameLine();
    if (ImGui::BeginPopup("##examples")) {
        for (const std::string& e : v.examples)
            if (ImGui::Selectable(e.c_str())) ctx.commands.send(SetInput{{e}, std::nullopt});
        ImGui::EndPopup();
    }
}

void InputPanel::draw_known_words(PanelContext& ctx) {
    const explain::SessionView& v = ctx.view;
    const explain::KnownWords* known = v.known_words.get();
    if (!known && v.known_words_loading) {
        ImGui::TextDisabled("Reading the training corpus for the words the model knows\xE2\x80\xA6");
        return;
    }
    if (!known) return;
    if (!known->available()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("Words seen in training: unknown for this model (%s).", known->unavailable.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    ImGui::BeginDisabled(known->test_sentences.empty());
    if (ImGui::Button("Another test sentence")) ctx.commands.send(RandomTestSentence{});
    ImGui::EndDisabled();
    const std::string tip = known->test_sentences.empty()
                                ? "No test split beside the training corpus (" + known->corpus + ")."
                                : "A random source sentence of " + known->test_file + " (" +
                                      std::to_string(known->test_sentences.size()) +
                                      " sentences kept apart from training), to see the model on text it never trained on.";
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) item_tooltip(tip.c_str());
    ImGui::SameLine();
    char label[96];
    std::snprintf(label, sizeof label, "Words the model knows (%zu)", known->words.size());
    if (ImGui::Button(label)) ImGui::OpenPopup("##known_words");
    item_tooltip("Every word of the training corpus's source side, without the punctuation around it. Words typed outside "
                 "this list are flagged before the model runs.");
    if (ImGui::BeginPopup("##known_words")) {
        ImGui::Text("%zu words of %s (%d sentences)", known->words.size(), known->corpus.c_str(), known->sentences);
        ImGui::SetNextItemWidth(300);
        if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
        ImGui::InputTextWithHint("##filter", "filter (part of a word)", &m_word_filter);
        std::vector<const std::string*> shown;
        for (const std::string& w : known->words)
            if (m_word_filter.empty() || contains_ignoring_case(w, m_word_filter)) shown.push_back(&w);
        ImGui::TextDisabled("%zu match%s", shown.size(), shown.size() == 1 ? "" : "es");
        ImGui::BeginChild("##words", ImVec2(300, 320), true);
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(shown.size()));
        while (clipper.Step())
            for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) ImGui::TextUnformatted(shown[static_cast<size_t>(i)]->c_str());
        ImGui::EndChild();
        ImGui::EndPopup();
    }
}

}  // namespace tx::app
