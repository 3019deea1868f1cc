// make_model (see model_on_backend.h).
#include "tx/model_on_backend.h"

#include "tx/checkpoint.h"

namespace tx {

ModelOnBackend make_model(const ModelConfig& config, const std::vector<float>& parameters, std::unique_ptr<Backend> backend) {
    ModelOnBackend m;
    m.backend = std::move(backend);
    m.model = std::make_unique<Transformer>(config, *m.backend);
    m.model->set_parameters(parameters);
    return m;
}

ModelOnBackend make_model(const Checkpoint& checkpoint, std::unique_ptr<Backend> backend) {
    return make_model(checkpoint.config, checkpoint.parameters, backend ? std::move(backend) : make_cpu_backend());
}

}  // namespace tx
