// AppDriver: a program that drives the explorer from outside, one frame at a time, as a learner
// would (tests/app/self_test.cpp): ExplorerApp calls frame() after each frame's commands are
// applied, and writes AppOptions::screenshot after rendering a frame while wants_screenshot()
// holds. The driver ends the run with ExplorerApp::finish(exit code).
#pragma once

namespace tx::app {

class ExplorerApp;

class AppDriver {
public:
    virtual ~AppDriver() = default;
    virtual void frame(ExplorerApp& app) = 0;
    virtual bool wants_screenshot() const = 0;
};

}  // namespace tx::app
