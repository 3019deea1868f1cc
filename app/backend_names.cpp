// Backend names (see backend_names.h).
#include "backend_names.h"

#include <algorithm>
#include <stdexcept>

#ifdef TX_HAVE_CUDA
#include "tx/cuda_backend.h"
#endif

namespace tx::app {

const std::vector<std::string>& backend_names() {
    static const std::vector<std::string> names = {"cpu", "cuda"};
    return names;
}

std::string backend_label(const std::string& name) {
    if (name == "cpu") return "CPU (Eigen)";
    if (name == "cuda") return "CUDA (GPU)";
    return name;
}

namespace {

void check_known(const std::string& name) {
    const auto& names = backend_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
        throw std::invalid_argument("unknown backend '" + name + "': use cpu or cuda");
}

}  // namespace

std::string backend_unavailable_reason(const std::string& name) {
    check_known(name);
    if (name == "cpu") return "";
#ifdef TX_HAVE_CUDA
    return cuda_unavailable_reason();
#else
    return "the CUDA backend is not built into this binary (no CUDA compiler when it was built)";
#endif
}

std::string backend_device(const std::string& name) {
#ifdef TX_HAVE_CUDA
    if (name == "cuda" && cuda_unavailable_reason().empty()) return cuda_device_description();
#endif
    (void)name;
    return "";
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
    check_known(name);
    if (name == "cpu") return make_cpu_backend();
#ifdef TX_HAVE_CUDA
    return make_cuda_backend();   // DeviceError with the driver's reason
#else
    throw DeviceError(backend_unavailable_reason(name));
#endif
}

}  // namespace tx::app
