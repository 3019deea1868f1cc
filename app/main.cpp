// transformer-explorer: the GUI's entry point, shaped like Dear ImGui 1.86's
// examples/example_glfw_opengl3/main.cpp: init, loop (poll, new frame, app.draw(), render, swap),
// shutdown in reverse. Everything the app does lives in ExplorerApp.
#include <cstdio>
#include <string>

#include <GLFW/glfw3.h>

#include "explorer_app.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"
#include "options.h"
#include "window_frame.h"

static std::string g_glfw_error = "unknown error";

static void glfw_error_callback(int error, const char* description) {
    g_glfw_error = std::string(description) + " (GLFW error " + std::to_string(error) + ")";
    std::fprintf(stderr, "transformer-explorer: GLFW: %s\n", g_glfw_error.c_str());
}

static int cannot_open_window() {
    std::fprintf(stderr,
                 "transformer-explorer: cannot open a window: %s. Is DISPLAY set? Run it on a desktop, "
                 "or headless under xvfb-run -a -s \"-screen 0 1920x1200x24\".\n",
                 g_glfw_error.c_str());
    return 1;
}

int main(int argc, char** argv) {
    tx::app::AppOptions options;
    if (const auto exit_code = tx::app::parse_options(argc, argv, options)) return *exit_code;

    // Setup window
    glfwSetErrorCallback(glfw_error_callback);
    if (!glfwInit()) return cannot_open_window();
    const char* glsl_version = "#version 130";
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    GLFWwindow* window = glfwCreateWindow(options.window_width, options.window_height, "Transformer Explorer",
                                          nullptr, nullptr);
    if (window == nullptr) {
        glfwTerminate();
        return cannot_open_window();
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(options.headless() ? 0 : 1);   // vsync, except when rendering screenshots

    // Setup Dear ImGui context, style, platform/renderer backends
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init(glsl_version);

    tx::app::ExplorerApp app(options);   // fonts, settings (.ini in the config dir), model, panels

    // Main loop
    while (!glfwWindowShouldClose(window) && !app.should_quit()) {
        if (app.idle())
            glfwWaitEventsTimeout(0.25);   // nothing animating: wake on input only
        else
            glfwPollEvents();
        if (glfwGetWindowAttrib(window, GLFW_ICONIFIED) && !options.headless()) {
            glfwWaitEventsTimeout(0.1);   // minimised: sleep
            continue;
        }

        tx::app::draw_frame(window, app);
    }
    const int exit_code = app.exit_code();

    tx::app::close_window(window, app);
    return exit_code;
}
