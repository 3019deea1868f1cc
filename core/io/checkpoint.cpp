// Checkpoints (checkpoint.h, docs/design.md §6): the parameters as F32 (or BF16, F16) tensors under their §4 names,
// and __metadata__ {"format": CHECKPOINT_FORMAT, "config": to_json(config) + "vocabulary" (+
// "training")}. Loading trusts nothing: every tensor must match ParameterTable(config) exactly.
#include "tx/checkpoint.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "io/message_text.h"
#include "text/text_common.h"
#include "tx/parameters.h"

namespace tx {

namespace {

using text::SPECIAL_TEXT;

void check_vocabulary(const ModelConfig& config, const std::vector<std::string>& vocabulary, const std::string& what) {
    const auto size = static_cast<int64_t>(vocabulary.size());
    if (size != config.src_vocab || size != config.tgt_vocab)
        throw SafetensorsError(what + ": the vocabulary has " + std::to_string(size) + " tokens but the config has src_vocab " +
                               std::to_string(config.src_vocab) + " and tgt_vocab " + std::to_string(config.tgt_vocab));
    try {
        Vocabulary checked(vocabulary);
    } catch (const std::invalid_argument& e) {
        throw SafetensorsError(what + ": " + e.what());
    }
    // Vocabulary puts the specials at 0..3; the config's ids must point at them.
    const int ids[4] = {config.special.pad, config.special.bos, config.special.eos, config.special.unk};
    for (int i = 0; i < 4; ++i)
        if (vocabulary[static_cast<size_t>(ids[i])] != SPECIAL_TEXT[i])
            throw SafetensorsError(what + ": the config's " + SPECIAL_TEXT[i] + " id " + std::to_string(ids[i]) +
                                   " names the token '" + printable(vocabulary[static_cast<size_t>(ids[i])], 200) + "'");
}

// A SentencePiece checkpoint holds its model, and the model's pieces are the vocabulary.
void check_tokenizer(const Checkpoint& checkpoint, const std::string& what) {
    const bool sentencepiece = checkpoint.config.tokenizer == TokenizerKind::SentencePiece;
    if (!sentencepiece) {
        if (!checkpoint.tokenizer_model.empty())
            throw SafetensorsError(what + ": a '" + TOKENIZER_MODEL_TENSOR + "' tensor, but the config's tokenizer is " +
                                   to_string(checkpoint.config.tokenizer));
        return;
    }
    if (checkpoint.tokenizer_model.empty())
        throw SafetensorsError(what + ": the config's tokenizer is sentencepiece but there is no '" +
                               TOKENIZER_MODEL_TENSOR + "' tensor (U8) holding its model");
    Tokenizer tokenizer = [&] {
        try {
            return Tokenizer::sentencepiece(checkpoint.tokenizer_model, checkpoint.config.special);
        } catch (const std::invalid_argument& e) {
            throw SafetensorsError(what + ": tensor '" + TOKENIZER_MODEL_TENSOR + "': " + e.what());
        }
    }();
    const auto& pieces = tokenizer.vocabulary().tokens();
    if (pieces.size() != checkpoint.vocabulary.size())
        throw SafetensorsError(what + ": the SentencePiece model has " + std::to_string(pieces.size()) +
                               " pieces but the vocabulary has " + std::to_string(checkpoint.vocabulary.size()) +
                               " tokens");
    for (size_t i = 0; i < pieces.size(); ++i)
        if (pieces[i] != checkpoint.vocabulary[i])
            throw SafetensorsError(what + ": the SentencePiece model's piece " + std::to_string(i) + " is '" +
                                   printable(pieces[i], 200) + "' but the vocabulary's token " + std::to_string(i) + " is '" +
                                   printable(checkpoint.vocabulary[i], 200) + "'");
}

}  // namespace

Tokenizer make_tokenizer(const Checkpoint& checkpoint) {
    const ModelConfig& c = checkpoint.config;
    if (c.tokenizer == TokenizerKind::SentencePiece) return Tokenizer::sentencepiece(checkpoint.tokenizer_model, c.special);
    return Tokenizer(c.tokenizer, Vocabulary(checkpoint.vocabulary), c.special);
}

void save_checkpoint(const std::string& path, const Checkpoint& checkpoint, const std::string& parameter_dtype,
                     const std::set<std::string>& stored_low) {
    const ModelConfig& config = checkpoint.config;
    if (parameter_dtype != "F32" && parameter_dtype != "BF16" && parameter_dtype != "F16")
        throw SafetensorsError(path + ": parameter dtype '" + printable(parameter_dtype, 200) + "': expected F32, BF16 or F16");
    if (auto error = validate(config)) throw SafetensorsError(path + ": invalid config: " + *error);
    check_vocabulary(config, checkpoint.vocabulary, path);
    check_tokenizer(checkpoint, path);
    const ParameterTable table(config);
    if (static_cast<int64_t>(checkpoint.parameters.size()) != table.total())
        throw SafetensorsError(path + ": " + std::to_string(checkpoint.parameters.size()) +
                               " parameter values, but the config needs " + std::to_string(table.total()));

    std::string config_text;
    try {
        nlohmann::json j = nlohmann::json::parse(to_json(config));
        j["vocabulary"] = checkpoint.vocabulary;
        if (!checkpoint.training_json.empty()) {
            nlohmann::json training = nlohmann::json::parse(checkpoint.training_json);
            if (!training.is_object()) throw SafetensorsError(path + ": the training settings are not a JSON object");
            j["training"] = std::move(training);
        }
        config_text = j.dump();
    } catch (const nlohmann::json::exception& e) {
        throw SafetensorsError(path + ": cannot write the config as JSON (" + printable(e.what(), 200) + ")");
    }

    SafetensorsFile file;
    file.metadata["format"] = CHECKPOINT_FORMAT;
    file.metadata["config"] = std::move(config_text);
    file.tensors.reserve(table.entries().size());
    for (const std::string& name : stored_low)
        if (!table.find(name)) throw SafetensorsError(path + ": no parameter named '" + printable(name, 200) + "' to store as " + parameter_dtype);
    for (const ParameterInfo& p : table.entries()) {
        const auto first = checkpoint.parameters.begin() + p.offset;
        const bool low = stored_low.empty() || stored_low.count(p.name) > 0;
        file.tensors.push_back({p.name, p.shape, std::vector<float>(first, first + p.numel()), {}, low ? parameter_dtype : "F32"});
    }
    if (!checkpoint.tokenizer_model.empty()) {
        NamedTensor model;
        model.name = TOKENIZER_MODEL_TENSOR;
        model.dtype = "U8";
        model.shape = {static_cast<int64_t>(checkpoint.tokenizer_model.size())};
        model.bytes.assign(checkpoint.tokenizer_model.begin(), checkpoint.tokenizer_model.end());
        file.tensors.push_back(std::move(model));
    }
    write_safetensors(path, file);
}

Checkpoint load_checkpoint(const std::string& path) {
    return checkpoint_from_safetensors(read_safetensors(path), path);
}

Checkpoint checkpoint_from_safetensors(const SafetensorsFile& file, const std::string& what) {
    const auto format = file.metadata.find("format");
    if (format == file.metadata.end())
        throw SafetensorsError(what + ": no \"format\" in __metadata__: not a Transformer Explorer checkpoint");
    if (format->second != CHECKPOINT_FORMAT)
        throw SafetensorsError(what + ": format is '" + printable(format->second, 200) + "', expected '" +
                               CHECKPOINT_FORMAT + "'");
    const auto config_text = file.metadata.find("config");
    if (config_text == file.metadata.end()) throw SafetensorsError(what + ": no \"config\" in __metadata__");

    Checkpoint checkpoint;
    try {
        checkpoint.config = config_from_json(config_text->second);
    } catch (const ConfigError& e) {
        throw SafetensorsError(what + ": " + e.what());
    }
    const ModelConfig& config = checkpoint.config;

    // config_from_json accepted the text, so it is a JSON object.
    const nlohmann::json j = nlohmann::json::parse(config_text->second);
    const auto vocabulary = j.find("vocabulary");
    if (vocabulary == j.end() || !vocabulary->is_array())
        throw SafetensorsError(what + ": config: missing field 'vocabulary' (an array of token strings)");
    for (const auto& token : *vocabulary) {
        if (!token.is_string()) throw SafetensorsError(what + ": config: 'vocabulary' holds a value that is not a string");
        checkpoint.vocabulary.push_back(token.get<std::string>());
    }
    check_vocabulary(config, checkpoint.vocabulary, what);
    if (const auto training = j.find("training"); training != j.end()) {
        if (!training->is_object()) throw SafetensorsError(what + ": config: field 'training' must be an object");
        checkpoint.training_json = training->dump();
    }

    // Every parameter present with its exact shape, nothing else, before anything is allocated.
    std::unordered_map<std::string, const NamedTensor*> by_name;
    for (const NamedTensor& t : file.tensors)
        if (!by_name.emplace(t.name, &t).second)
            throw SafetensorsError(what + ": tensor '" + printable(t.name, 200) + "' appears twice");
    size_t tokenizer_tensors = 0;
    if (const auto it = by_name.find(TOKENIZER_MODEL_TENSOR); it != by_name.end()) {
        const NamedTensor& t = *it->second;
        if (t.dtype != "U8" || t.shape.size() != 1)
            throw SafetensorsError(what + ": tensor '" + TOKENIZER_MODEL_TENSOR + "' must be a 1-D U8 tensor (dtype " +
                                   printable(t.dtype, 200) + ", shape " + shape_text(t.shape) + ")");
        checkpoint.tokenizer_model.assign(t.bytes.begin(), t.bytes.end());
        tokenizer_tensors = 1;
    }
    check_tokenizer(checkpoint, what);
    const ParameterTable table(config);
    for (const ParameterInfo& p : table.entries()) {
        const auto it = by_name.find(p.name);
        if (it == by_name.end())
            throw SafetensorsError(what + ": missing tensor '" + p.name + "' (shape " + shape_text(p.shape) + ")");
        const NamedTensor& t = *it->second;
        if (t.dtype != "F32" && t.dtype != "BF16" && t.dtype != "F16")
            throw SafetensorsError(what + ": tensor '" + p.name + "' has dtype " + printable(t.dtype, 200) +
                                   "; checkpoint parameters are F32, BF16 or F16");
        if (t.shape != p.shape)
            throw SafetensorsError(what + ": tensor '" + p.name + "' has shape " + shape_text(t.shape) +
                                   " but the config needs " + shape_text(p.shape));
        if (static_cast<int64_t>(t.data.size()) != p.numel())
            throw SafetensorsError(what + ": tensor '" + p.name + "' holds " + std::to_string(t.data.size()) +
                                   " values but its shape needs " + std::to_string(p.numel()));
    }
    if (file.tensors.size() != table.entries().size() + tokenizer_tensors) {
        for (const NamedTensor& t : file.tensors)
            if (!table.find(t.name) && t.name != TOKENIZER_MODEL_TENSOR)
                throw SafetensorsError(what + ": unexpected tensor '" + printable(t.name, 200) +
                                       "': not a parameter of this config");
    }

    checkpoint.parameters.resize(static_cast<size_t>(table.total()));
    for (const ParameterInfo& p : table.entries())
        std::copy(by_name[p.name]->data.begin(), by_name[p.name]->data.end(), checkpoint.parameters.begin() + p.offset);
    return checkpoint;
}

}  // namespace tx
