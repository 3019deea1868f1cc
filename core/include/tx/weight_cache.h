// Linear weights packed once for the forward product, for a model whose parameters stay as they
// are from one forward pass to the next: the explorer recomputing a sentence, evaluation, a
// benchmark. The packed product (gemm_packed.h) otherwise copies each weight into its panel
// layout on every call, and a base model's weights, 60 MB, come from memory each pass: packing
// them took ~11% of a forward pass at 128 tokens. The owner clears the cache whenever the
// parameters may change (Transformer::parameters() and set_parameters()); training passes do not
// use it. Each entry remembers the tile (cpu_isa.h's packed_tile()) and shape it was packed for,
// and is packed again when they differ (TX_ISA or a test may switch paths or tiles). Clearing keeps the memory for the next
// packing: the trainer's evaluation passes come between steps, and a fresh page costs ~10 µs.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "tx/cpu_isa.h"

namespace tx {

class WeightCache {
public:
    // The weight (OC, C) packed for sgemm_nt's packed product on the active path (gemm.h), packed
    // now if it is not here yet; null where sgemm_nt runs another kernel for N rows.
    const float* packed(const float* weight, int N, int C, int OC);
    // Forgets every packed weight (they are packed again when next asked for).
    void clear() { ++m_generation; }

private:
    struct FreeDeleter {
        void operator()(float* p) const;
    };
    struct Entry {
        uint64_t generation = 0;   // packed while m_generation had this value
        int C = 0, OC = 0;
        cpu::Isa tile = cpu::Isa::Generic;   // cpu::packed_tile() when packed
        std::unique_ptr<float, FreeDeleter> data;   // 64-byte aligned: the tiles load panels aligned
        int64_t capacity = 0;                       // floats of data
    };
    std::unordered_map<const float*, Entry> m_entries;
    uint64_t m_generation = 1;
};

}  // namespace tx
