// safetensors reader and writer (format: https://huggingface.co/docs/safetensors). The reader
// accepts exactly what the reference implementation (huggingface/safetensors, Metadata::validate)
// accepts for F32/F16/BF16/I32/U8: header length within the file and under 100 MB, tensors laid end to end
// in offset order covering the whole data area. Every byte is untrusted: the fuzz target
// tests/fuzz/fuzz_checkpoint.cpp calls parse_safetensors directly.
#include "tx/safetensors.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <tuple>
#include <nlohmann/json.hpp>

#include "io/message_text.h"
#include "tx/half_float.h"

namespace tx {

// Tensor data is copied to and from float buffers as raw bytes; the format is little-endian.
static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian host");
static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559, "F32 must be IEEE 754 binary32");

namespace {

// The reference implementation's cap (safetensors MAX_HEADER_SIZE): a corrupt length must not
// make us allocate gigabytes.
constexpr uint64_t MAX_HEADER_BYTES = 100'000'000;

struct Entry {
    std::string name;
    std::string dtype;
    std::vector<int64_t> shape;
    uint64_t begin = 0, end = 0;
};

// Bytes per value of a dtype this file reads or writes.
uint64_t element_bytes(const std::string& dtype) {
    if (dtype == "U8") return 1;
    if (dtype == "F16" || dtype == "BF16") return 2;
    return 4;
}

uint64_t read_u64_le(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

Entry parse_entry(const std::string& name, const nlohmann::json& j, uint64_t data_size, const std::string& what) {
    const std::string where = what + ": tensor '" + printable(name) + "'";
    if (!j.is_object()) throw SafetensorsError(where + " is not a JSON object");
    Entry e;
    e.name = name;

    const auto dtype = j.find("dtype");
    if (dtype == j.end() || !dtype->is_string()) throw SafetensorsError(where + " has no \"dtype\" string");
    e.dtype = dtype->get<std::string>();
    if (e.dtype != "F32" && e.dtype != "F16" && e.dtype != "BF16" && e.dtype != "I32" && e.dtype != "U8")
        throw SafetensorsError(where + " has dtype " + printable(e.dtype) + "; only F32, F16, BF16, I32 and U8 can be read");

    const auto shape = j.find("shape");
    if (shape == j.end() || !shape->is_array()) throw SafetensorsError(where + " has no \"shape\" array");
    // The product of the non-zero dimensions is capped at 2^60, so numel * 4 cannot overflow
    // and a [0, 2^63] shape cannot reach code that multiplies dimensions in int64.
    constexpr uint64_t max_numel = uint64_t{1} << 60;
    uint64_t product = 1;
    for (const auto& d : *shape) {
        if (!d.is_number_unsigned())
            throw SafetensorsError(where + " has a shape entry that is not a non-negative integer: " + printable(d.dump()));
        const uint64_t dim = d.get<uint64_t>();
        if (dim != 0 && (product > max_numel / dim))
            throw SafetensorsError(where + " has a shape " + printable(shape->dump()) + " too large");
        if (dim != 0) product *= dim;
        e.shape.push_back(static_cast<int64_t>(dim));
    }
    uint64_t numel = 1;
    for (int64_t d : e.shape) numel *= static_cast<uint64_t>(d);

    const auto offsets = j.find("data_offsets");
    if (offsets == j.end() || !offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
        !(*offsets)[1].is_number_unsigned())
        throw SafetensorsError(where + " needs \"data_offsets\": [begin, end] as non-negative integers");
    e.begin = (*offsets)[0].get<uint64_t>();
    e.end = (*offsets)[1].get<uint64_t>();
    std::string range = "[";   // built by appending: GCC 12 -Wrestrict misfires on "[" + std::string (PR 105329)
    range.append(std::to_string(e.begin)).append(", ").append(std::to_string(e.end)).append("]");
    if (e.begin > e.end || e.end > data_size)
        throw SafetensorsError(where + " has data_offsets " + range + " outside the data area of " +
                               std::to_string(data_size) + " bytes (a truncated file or bad data_offsets)");
    const uint64_t element = element_bytes(e.dtype);
    if (e.end - e.begin != numel * element)
        throw SafetensorsError(where + " has data_offsets " + range + " holding " + std::to_string(e.end - e.begin) +
                               " bytes, but shape " + shape_text(e.shape) + " of " + e.dtype + " needs " +
                               std::to_string(numel * element));
    return e;
}

}  // namespace

const NamedTensor* SafetensorsFile::find(const std::string& name) const {
    for (const auto& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

SafetensorsFile parse_safetensors(const uint8_t* bytes, size_t size, const std::string& what) {
    if (size < 8)
        throw SafetensorsError(what + ": truncated: " + std::to_string(size) +
                               " bytes, a safetensors file starts with an 8-byte header length");
    const uint64_t header_len = read_u64_le(bytes);
    if (header_len > size - 8)
        throw SafetensorsError(what + ": header length " + std::to_string(header_len) + " is larger than the file (" +
                               std::to_string(size) + " bytes): truncated or not a safetensors file");
    if (header_len > MAX_HEADER_BYTES)
        throw SafetensorsError(what + ": header length " + std::to_string(header_len) + " exceeds the 100 MB limit");
    const char* header_begin = reinterpret_cast<const char*>(bytes + 8);
    const uint8_t* data = bytes + 8 + header_len;
    const uint64_t data_size = size - 8 - header_len;

    nlohmann::json header;
    try {
        header = nlohmann::json::parse(header_begin, header_begin + header_len);
    } catch (const nlohmann::json::exception& e) {
        throw SafetensorsError(what + ": header is not valid JSON (" + printable(e.what()) + ")");
    }
    if (!header.is_object()) throw SafetensorsError(what + ": header is not a JSON object");

    SafetensorsFile file;
    std::vector<Entry> entries;
    for (const auto& [key, value] : header.items()) {
        if (key == "__metadata__") {
            if (value.is_null()) continue;
            if (!value.is_object()) throw SafetensorsError(what + ": __metadata__ is not a JSON object");
            for (const auto& [mkey, mvalue] : value.items()) {
                if (!mvalue.is_string())
                    throw SafetensorsError(what + ": __metadata__ value '" + printable(mkey) + "' is not a string");
                file.metadata[mkey] = mvalue.get<std::string>();
            }
            continue;
        }
        entries.push_back(parse_entry(key, value, data_size, what));
    }

    // Tensors lie end to end in offset order and fill the data area exactly (as the reference
    // implementation requires), so no two tensors share bytes and nothing hides after them.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
    uint64_t expected = 0;
    for (const Entry& e : entries) {
        if (e.begin != expected)
            throw SafetensorsError(what + ": tensor '" + printable(e.name) + "' starts at byte " + std::to_string(e.begin) +
                                   " of the data area but the previous tensor ends at " + std::to_string(expected) +
                                   (e.begin < expected ? " (overlapping data_offsets)" : " (a gap in data_offsets)"));
        expected = e.end;
    }
    if (expected != data_size)
        throw SafetensorsError(what + ": the tensors cover " + std::to_string(expected) + " of the " +
                               std::to_string(data_size) + " data bytes (mismatched data_offsets or a truncated file)");

    file.tensors.reserve(entries.size());
    for (Entry& e : entries) {
        NamedTensor t;
        t.name = std::move(e.name);
        t.shape = std::move(e.shape);
        t.dtype = e.dtype;
        if (e.dtype == "U8") {
            t.bytes.assign(data + e.begin, data + e.end);
            file.tensors.push_back(std::move(t));
            continue;
        }
        const size_t numel = static_cast<size_t>((e.end - e.begin) / element_bytes(e.dtype));
        t.data.resize(numel);
        if (e.dtype == "F32") {
            if (numel) std::memcpy(t.data.data(), data + e.begin, numel * 4);
        } else if (e.dtype == "F16" || e.dtype == "BF16") {   // converted to float, exactly
            std::vector<uint16_t> halves(numel);
            if (numel) std::memcpy(halves.data(), data + e.begin, numel * 2);
            if (e.dtype == "F16") fp16_to_floats(t.data.data(), halves.data(), static_cast<int64_t>(numel));
            else bf16_to_floats(t.data.data(), halves.data(), static_cast<int64_t>(numel));
        } else {
            for (size_t i = 0; i < numel; ++i) {
                int32_t v;
                std::memcpy(&v, data + e.begin + 4 * i, 4);
                t.data[i] = static_cast<float>(v);
            }
        }
        file.tensors.push_back(std::move(t));
    }
    return file;
}

SafetensorsFile read_safetensors(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw SafetensorsError("cannot open '" + path + "': " + std::strerror(errno));
    const std::streamoff size = in.tellg();
    if (size < 0) throw SafetensorsError("cannot read '" + path + "': not a regular file");
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), size))
        throw SafetensorsError("cannot read '" + path + "': " + std::strerror(errno));
    return parse_safetensors(bytes.data(), bytes.size(), path);
}

void write_safetensors(const std::string& path, const SafetensorsFile& file) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!file.metadata.empty()) {
        auto& meta = header["__metadata__"];
        for (const auto& [key, value] : file.metadata) meta[key] = value;
    }
    uint64_t offset = 0;
    for (const NamedTensor& t : file.tensors) {
        const std::string where = path + ": tensor '" + printable(t.name) + "'";
        if (t.name == "__metadata__") throw SafetensorsError(where + ": the name is reserved");
        if (header.contains(t.name)) throw SafetensorsError(where + " appears twice");
        if (t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16" && t.dtype != "U8")
            throw SafetensorsError(where + " has dtype " + printable(t.dtype) + "; only F32, F16, BF16 and U8 are written");
        uint64_t numel = 1;
        for (int64_t d : t.shape) {
            if (d < 0) throw SafetensorsError(where + " has a negative dimension in " + shape_text(t.shape));
            numel *= static_cast<uint64_t>(d);
        }
        const bool u8 = t.dtype == "U8";
        const size_t held = u8 ? t.bytes.size() : t.data.size();
        if (numel != held)
            throw SafetensorsError(where + " has shape " + shape_text(t.shape) + " (" + std::to_string(numel) +
                                   " values) but " + std::to_string(held) + " values");
        const uint64_t bytes = element_bytes(t.dtype) * numel;
        header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text;
    try {
        text = header.dump();
    } catch (const nlohmann::json::exception& e) {
        throw SafetensorsError(path + ": a tensor name or metadata string is not valid UTF-8 (" + printable(e.what()) + ")");
    }
    // Padding with spaces to a multiple of 8 keeps the data 8-byte aligned (safetensors' writer
    // does the same; the JSON stays valid).
    text.append((8 - text.size() % 8) % 8, ' ');
    const uint64_t header_len = text.size();

    const std::string temp = path + ".tmp-" + std::to_string(::getpid());
    const auto fail = [&](std::FILE* f, const char* doing) {
        const int err = errno;
        if (f) std::fclose(f);
        std::remove(temp.c_str());
        throw SafetensorsError("cannot write '" + path + "' (" + doing + "): " + std::strerror(err));
    };
    std::FILE* f = std::fopen(temp.c_str(), "wb");
    if (!f) fail(nullptr, "creating the temporary file");
    if (std::fwrite(&header_len, 8, 1, f) != 1 || std::fwrite(text.data(), 1, text.size(), f) != text.size())
        fail(f, "writing the header");
    std::vector<uint16_t> halves;
    for (const NamedTensor& t : file.tensors) {
        if (!t.data.empty() && (t.dtype == "F16" || t.dtype == "BF16")) {   // rounded to nearest, ties to even
            halves.resize(t.data.size());
            const auto n = static_cast<int64_t>(t.data.size());
            if (t.dtype == "F16") floats_to_fp16(halves.data(), t.data.data(), n);
            else floats_to_bf16(halves.data(), t.data.data(), n);
            if (std::fwrite(halves.data(), 2, halves.size(), f) != halves.size()) fail(f, "writing tensor data");
            continue;
        }
        if (!t.data.empty() && std::fwrite(t.data.data(), 4, t.data.size(), f) != t.data.size())
            fail(f, "writing tensor data");
        if (!t.bytes.empty() && std::fwrite(t.bytes.data(), 1, t.bytes.size(), f) != t.bytes.size())
            fail(f, "writing tensor data");
    }
    // fsync before rename: otherwise a crash can leave the new name pointing at empty data.
    if (std::fflush(f) != 0 || ::fsync(::fileno(f)) != 0) fail(f, "flushing");
    if (std::fclose(f) != 0) fail(nullptr, "closing");
    if (std::rename(temp.c_str(), path.c_str()) != 0) fail(nullptr, "renaming the temporary file into place");
}

}  // namespace tx
