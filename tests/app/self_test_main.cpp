// tx-app-self-test: the explorer's window driven by SelfTest (self_test.h) through every panel,
// step, toggle and lesson; exits 0 only when no check failed and no error was reported. It takes
// the app's options (--screenshot FILE for the picture it takes at the end, --size, --assets).
// Shaped like app/main.cpp (Dear ImGui 1.86's example_glfw_opengl3): init, loop, shutdown in reverse.
#include <cstdio>
#include <memory>
#include <string>

#include <GLFW/glfw3.h>

#include "explorer_app.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"
#include "options.h"
#include "self_test.h"
#include "window_frame.h"

static std::string g_glfw_error = "unknown error";

static void glfw_error_callback(int error, const char* description) {
    g_glfw_error = std::string(description) + " (GLFW error " + std::to_string(error) + ")";
    std::fprintf(stderr, "tx-app-self-test: GLFW: %s\n", g_glfw_error.c_str());
}

int main(int argc, char** argv) {
    tx::app::AppOptions options;
    if (const auto exit_code = tx::app::parse_options(argc, argv, options)) return *exit_code;

    // Setup window
    glfwSetErrorCallback(glfw_error_callback);
    if (!glfwInit()) {
        std::fprintf(stderr, "tx-app-self-test: cannot open a window: %s; run it under xvfb-run -a\n", g_glfw_error.c_str());
        return 1;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    GLFWwindow* window = glfwCreateWindow(options.window_width, options.window_height, "Transformer Explorer self-test",
                                          nullptr, nullptr);
    if (window == nullptr) {
        std::fprintf(stderr, "tx-app-self-test: cannot open a window: %s; run it under xvfb-run -a\n", g_glfw_error.c_str());
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(0);   // no vsync: frames as fast as they are drawn

    // Setup Dear ImGui context, style, platform/renderer backends
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 130");

    tx::app::ExplorerApp app(options, std::make_unique<tx::app::SelfTest>());

    // Main loop: every frame is drawn (the test drives the app; no waiting for input)
    while (!glfwWindowShouldClose(window) && !app.should_quit()) {
        glfwPollEvents();
        tx::app::draw_frame(window, app);
    }
    const int exit_code = app.exit_code();

    tx::app::close_window(window, app);
    return exit_code;
}
