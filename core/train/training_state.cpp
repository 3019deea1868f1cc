// Training-state files (training_state.h): the optimizer and data-stream state of a run, so a
// long run saved every N steps can resume where it stopped.
#include "tx/training_state.h"

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "tx/safetensors.h"

namespace tx {

std::string training_state_path(const std::string& checkpoint_path) { return checkpoint_path + ".state"; }

uint64_t parameters_hash(const std::vector<float>& parameters) {
    uint64_t h = 0xcbf29ce484222325ull;
    const auto* bytes = reinterpret_cast<const unsigned char*>(parameters.data());
    for (size_t i = 0, n = parameters.size() * sizeof(float); i < n; ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
    return h;
}

void save_training_state(const std::string& path, const TrainingState& s) {
    if (s.adam_m.size() != s.adam_v.size())
        throw SafetensorsError(path + ": Adam's moments differ in length (" + std::to_string(s.adam_m.size()) + " and " +
                               std::to_string(s.adam_v.size()) + ")");
    nlohmann::json j;
    j["step"] = s.step;
    j["adam_steps"] = s.adam_steps;
    j["elapsed_s"] = s.elapsed_s;
    j["tokens"] = s.tokens;
    // 64-bit values as hex strings: JSON readers elsewhere (Python's float-less ints are fine,
    // JavaScript's are not) need not hold them exactly.
    const auto hex = [](uint64_t v) {
        char buf[24];
        std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
        return std::string(buf);
    };
    j["parameters_hash"] = hex(s.parameters_hash);
    if (s.loss_scale > 0.0) {
        j["loss_scale"] = s.loss_scale;
        j["loss_scale_good_steps"] = s.loss_scale_good_steps;
        j["skipped_steps"] = s.skipped_steps;
    }
    j["stream"] = {{"rng_state", hex(s.stream.rng_state)},
                   {"queued", s.stream.queued},
                   {"refill_rng_state", hex(s.stream.refill_rng_state)},
                   {"batches_taken", s.stream.batches_taken},
                   {"batch_rows", s.stream.batch_rows}};
    SafetensorsFile file;
    file.metadata["format"] = TRAINING_STATE_FORMAT;
    file.metadata["state"] = j.dump();
    const auto n = static_cast<int64_t>(s.adam_m.size());
    file.tensors.push_back({"optimizer.m", {n}, s.adam_m, {}, "F32"});
    file.tensors.push_back({"optimizer.v", {n}, s.adam_v, {}, "F32"});
    write_safetensors(path, file);
}

TrainingState load_training_state(const std::string& path) {
    return training_state_from_safetensors(read_safetensors(path), path);
}

TrainingState training_state_from_safetensors(const SafetensorsFile& file, const std::string& path) {
    const auto format = file.metadata.find("format");
    if (format == file.metadata.end() || format->second != TRAINING_STATE_FORMAT)
        throw SafetensorsError(path + ": not a training-state file (its metadata lacks \"format\": \"" +
                               TRAINING_STATE_FORMAT + "\")");
    const auto text = file.metadata.find("state");
    if (text == file.metadata.end()) throw SafetensorsError(path + ": the metadata has no \"state\"");
    TrainingState s;
    const auto from_hex = [&](const nlohmann::json& v, const char* field) {
        const std::string h = v.get<std::string>();
        if (h.size() != 16 || h.find_first_not_of("0123456789abcdef") != std::string::npos)
            throw SafetensorsError(path + ": \"" + field + "\" is not 16 hex digits");
        return static_cast<uint64_t>(std::stoull(h, nullptr, 16));
    };
    try {
        const nlohmann::json j = nlohmann::json::parse(text->second);
        s.step = j.at("step").get<int64_t>();
        s.adam_steps = j.at("adam_steps").get<int64_t>();
        s.elapsed_s = j.at("elapsed_s").get<double>();
        s.tokens = j.at("tokens").get<int64_t>();
        s.parameters_hash = from_hex(j.at("parameters_hash"), "parameters_hash");
        const nlohmann::json& st = j.at("stream");
        s.stream.rng_state = from_hex(st.at("rng_state"), "rng_state");
        s.stream.queued = st.at("queued").get<bool>();
        s.stream.refill_rng_state = from_hex(st.at("refill_rng_state"), "refill_rng_state");
        s.stream.batches_taken = st.at("batches_taken").get<int64_t>();
        s.stream.batch_rows = st.at("batch_rows").get<int>();
        if (j.contains("loss_scale")) {
            s.loss_scale = j.at("loss_scale").get<double>();
            s.loss_scale_good_steps = j.at("loss_scale_good_steps").get<int64_t>();
            s.skipped_steps = j.at("skipped_steps").get<int64_t>();
        }
    } catch (const nlohmann::json::exception& e) {
        throw SafetensorsError(path + ": the state metadata is unreadable (" + std::string(e.what()) + ")");
    }
    if (s.step < 0 || s.adam_steps < 0 || s.adam_steps > s.step || s.tokens < 0 || !(s.elapsed_s >= 0) ||
        s.stream.batches_taken < 0 || s.stream.batch_rows < 0 || !(s.loss_scale >= 0.0 && std::isfinite(s.loss_scale)) ||
        s.loss_scale_good_steps < 0 || s.skipped_steps < 0 || s.skipped_steps > s.step)
        throw SafetensorsError(path + ": a step, count or time in the state is out of range");
    const NamedTensor* m = file.find("optimizer.m");
    const NamedTensor* v = file.find("optimizer.v");
    if (!m || !v) throw SafetensorsError(path + ": missing tensor \"" + std::string(m ? "optimizer.v" : "optimizer.m") + "\"");
    for (const NamedTensor* t : {m, v})
        if (t->dtype != "F32" || t->shape.size() != 1)
            throw SafetensorsError(path + ": \"" + t->name + "\" must be a one-dimensional F32 tensor");
    if (m->data.size() != v->data.size())
        throw SafetensorsError(path + ": \"optimizer.m\" and \"optimizer.v\" differ in length");
    if (file.tensors.size() != 2) throw SafetensorsError(path + ": unexpected tensors beside the two moments");
    s.adam_m = m->data;
    s.adam_v = v->data;
    return s;
}

}  // namespace tx
