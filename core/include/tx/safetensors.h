// safetensors files (https://huggingface.co/docs/safetensors): 8-byte little-endian header
// length, a JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {str: str}}, then
// the raw little-endian data. We write and read F32 tensors, F16 and BF16 ones (converted to and
// from float: half_float.h, rounding to nearest even on writing) and U8 byte strings (a
// checkpoint's SentencePiece model); I32 is read too, for ids.
// Writes go to a temporary file that is renamed into place.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tx {

struct SafetensorsError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct NamedTensor {
    std::string name;
    std::vector<int64_t> shape;
    std::vector<float> data;   // row-major, numel(shape) values (F32, F16, BF16, I32)
    std::vector<uint8_t> bytes;   // numel(shape) bytes (U8); data stays empty
    // As stored in the file: "F32", "F16", "BF16" (data as floats; written rounded to the format),
    // "U8", or "I32" (read, converted to float).
    std::string dtype = "F32";
};

struct SafetensorsFile {
    std::map<std::string, std::string> metadata;
    std::vector<NamedTensor> tensors;   // in file order of their data offsets
    const NamedTensor* find(const std::string& name) const;
};

// Throws SafetensorsError with a message that names the file and the problem.
void write_safetensors(const std::string& path, const SafetensorsFile& file);
SafetensorsFile read_safetensors(const std::string& path);
// Parses an in-memory file (the fuzz target's entry); `what` names it in messages.
SafetensorsFile parse_safetensors(const uint8_t* bytes, size_t size, const std::string& what);

}  // namespace tx
