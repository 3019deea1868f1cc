// ModelOnBackend: a Transformer with the backend it runs on, owned together. A Transformer only
// refers to its backend, which must outlive it; this pair keeps the order right (the model is
// destroyed first). make_model is the one place outside the Session and the Trainer that builds a
// model and loads its weights: the app's model copies, the studies and txcli call it.
#pragma once
#include <memory>
#include <vector>

#include "tx/backend.h"
#include "tx/config.h"
#include "tx/transformer.h"

namespace tx {

struct Checkpoint;

struct ModelOnBackend {
    std::unique_ptr<Backend> backend;
    std::unique_ptr<Transformer> model;   // after `backend`: destroyed before it

    Transformer& operator*() const { return *model; }
    Transformer* operator->() const { return model.get(); }
};

// A model of `config` on `backend` with `parameters` (ParameterTable(config)'s layout; checked
// by Transformer::set_parameters). Default run options.
ModelOnBackend make_model(const ModelConfig& config, const std::vector<float>& parameters, std::unique_ptr<Backend> backend);
// The checkpoint's model on `backend` (the CPU's FP32 backend when none is given).
ModelOnBackend make_model(const Checkpoint& checkpoint, std::unique_ptr<Backend> backend = nullptr);

}  // namespace tx
