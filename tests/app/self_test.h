// The self-test: an AppDriver (app/app_driver.h) that drives the explorer frame by frame through
// every panel, every step, every toggle, an export, a rebuild, a checkpoint round trip, 20
// training steps on the tiny preset and every lesson (each step's effect checked, each question
// answered); the run exits 0 only when no check failed and no error was reported. Its program is
// tx-app-self-test (self_test_main.cpp), run by tests/app/run_self_test.sh.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "app_driver.h"

namespace tx::app {

class SelfTest final : public AppDriver {
public:
    SelfTest();
    void frame(ExplorerApp& app) override;        // after each frame's commands are applied
    bool wants_screenshot() const override { return m_screenshot; }

private:
    // An action returns true when done; it runs again on the next frame otherwise.
    using Action = std::function<bool(ExplorerApp&)>;
    void build();   // the whole walk: the parts below, in order
    static Action wait_frames(int n);
    void add(std::string name, Action action);
    void build_start();
    void build_generate();
    void build_input_help();
    void build_steps();
    void build_neuron_view();
    void build_positional();
    void build_generation_timing();
    void build_lessons();
    void build_look_inside();
    void build_precision();
    void check(bool ok, const std::string& what);
    std::vector<std::pair<std::string, Action>> m_actions;
    size_t m_next = 0;
    int m_frames_in_action = 0;
    std::vector<std::string> m_failures;
    bool m_screenshot = false;
    std::string m_tmp;
    double m_started = 0.0;
    std::string m_sentence;   // the input before "another test sentence"
    int m_baseline_errors = 0;
    // The lesson walk: lesson, step, frames waited since its "Do it", errors before it.
    int m_lesson = 0, m_lesson_step = 0, m_lesson_wait = -1, m_lesson_errors = 0;
    // The panel framed at any frame of the current step's wait: the frame lasts a few seconds of
    // wall time, and on a loaded machine three frames can take longer than that.
    std::string m_lesson_highlight_seen;
    void check_lesson_step(ExplorerApp& app);
    std::vector<int> m_generated;   // the Generate panel's sampled tokens, to compare a second run with
    std::string m_neuron_model;   // the model to load back after the Neuron view's unscaled check
    // A decoder-only model's prompts and continuations (self_test.cpp's last section), and the model to load back.
    void build_decoder_only();
    std::string m_decoder_back;
    std::string m_inspect_back;   // the model to load back after the Look inside checks
    int m_inspect_position = -1;  // the decoder position where the everyday model writes "cansado"
};

}  // namespace tx::app
