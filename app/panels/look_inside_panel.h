// Look inside panel: five measurements of the first sentence's run as tabs: logit lens (layers ×
// positions, top token per cell), activation patching (a second, corrupted sentence; grids per
// sublayer and per head), head importance (layers × heads; a click opens the head in the Attention
// panel), attention rollout, attention entropy, and direct logit attribution. Computed on request on a
// private model copy (explain/look_inside.h) off the GUI thread; each tab says what it does not prove.
#pragma once
#include <optional>
#include <string>

#include "look_inside.h"
#include "panel.h"

namespace tx::app {

class LookInsidePanel final : public Panel {
public:
    // The tabs, in order; also the --look-inside values.
    static constexpr const char* VIEWS[] = {"lens", "patch", "heads", "rollout", "entropy", "attribution"};
    LookInsidePanel();
    bool select_view(const std::string& key);      // one of VIEWS; false for another name
    // What a click on a head-importance cell does: the cursor to that block's probabilities step,
    // the block and head selected, the Attention panel raised. False when the model has no such block.
    static bool open_head(CommandSink& commands, const explain::SessionView& v, AttentionKind kind, int layer, int head);

protected:
    void draw_content(PanelContext& ctx) override;
    std::string explanation_for(const explain::SessionView& v) const override;

private:
    void draw_lens(const explain::LookInside& r);
    void draw_patching(PanelContext& ctx, const explain::LookInside& r);
    void draw_patch_settings(PanelContext& ctx, const explain::LookInside& r);
    void draw_heads(PanelContext& ctx, const explain::LookInside& r);
    void draw_rollout(const explain::LookInside& r);
    void draw_entropy(const explain::LookInside& r);
    void draw_attribution(const explain::LookInside& r);
    // The edit fields follow the Workbench's settings when a command changed them.
    void sync_edits(const PatchingSettings& settings);
    PatchingSettings edited_settings() const;   // as the fields read now

    // Edited here, sent as SetPatching on Enter or "Compute" (each computation takes seconds).
    char m_corrupted_edit[512] = {};
    int m_metric_mode = 0;             // 0: automatic, 1: log p(token) at a position, 2: token vs token
    int m_metric_position_edit = 0;
    char m_token_edit[64] = {}, m_versus_edit[64] = {};
    std::optional<PatchingSettings> m_synced;   // the Workbench's settings the fields were last filled from
    int m_select_tab = -1;             // a tab to raise on the next frame (select_view)
    int m_rollout_layer = -1;          // the rollout after this encoder layer; -1: the last
    int m_cross_layer = -1;            // the decoder layer of the decoder-over-source rollout; -1: the last
    int m_attribution_position = -1;   // -1: the patching metric's position, else the last
    bool m_attribution_sorted = true;  // by |value| instead of forward order
    bool m_lens_log_scale = false;     // the lens colours log10 p from -4 to 0 instead of p
};

}  // namespace tx::app
