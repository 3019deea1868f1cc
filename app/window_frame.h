#pragma once
// The steps of the GLFW + OpenGL 3 main loop (Dear ImGui 1.86's example_glfw_opengl3) that the
// app (app/main.cpp) and its self-test (tests/app/self_test_main.cpp) share. Each main keeps its
// own setup and its own way of waiting between frames.

struct GLFWwindow;

namespace tx::app {

class ExplorerApp;

// One frame: ImGui's new frame, the app's panels (app.draw()), the draw into the back buffer, where
// screenshots and PNG exports read it (app.after_render), and the swap.
void draw_frame(GLFWwindow* window, ExplorerApp& app);

// The end of a run, in reverse order of the setup: the app's shutdown, ImGui's back ends and
// context, the window, GLFW.
void close_window(GLFWwindow* window, ExplorerApp& app);

}  // namespace tx::app
