// precision.h: the names of the precision modes and the one rule between their fields.
#include "tx/precision.h"

namespace tx {

const char* to_string(Precision precision) {
    switch (precision) {
        case Precision::Fp32: return "fp32";
        case Precision::Bf16: return "bf16";
        case Precision::Fp16: return "fp16";
        case Precision::Int8: return "int8";
    }
    return "?";
}

std::optional<Precision> precision_from_string(const std::string& text) {
    for (Precision p : {Precision::Fp32, Precision::Bf16, Precision::Fp16, Precision::Int8})
        if (text == to_string(p)) return p;
    return std::nullopt;
}

std::string describe(PrecisionMode mode) {
    switch (mode.format) {
        case Precision::Fp32: return "fp32";
        case Precision::Int8: return "int8 weight-only";
        case Precision::Bf16:
        case Precision::Fp16: return std::string(to_string(mode.format)) + (mode.all_low ? " everything low" : " autocast");
    }
    return "?";
}

std::optional<std::string> validate(PrecisionMode mode) {
    if (mode.all_low && mode.format != Precision::Bf16 && mode.format != Precision::Fp16)
        return std::string("\"everything in low precision\" needs bf16 or fp16, not ") + to_string(mode.format);
    return std::nullopt;
}

}  // namespace tx
