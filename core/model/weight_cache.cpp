// WeightCache (weight_cache.h): packed weights keyed by the weight's address.
#include "tx/weight_cache.h"

#include <cstdlib>
#include <new>

#include "kernels/gemm.h"

namespace tx {

void WeightCache::FreeDeleter::operator()(float* p) const { std::free(p); }

const float* WeightCache::packed(const float* weight, int N, int C, int OC) {
    if (!cpu::sgemm_nt_uses_packed(N, C, OC)) return nullptr;
    const cpu::Isa tile = cpu::packed_tile();
    Entry& entry = m_entries[weight];
    if (entry.generation == m_generation && entry.C == C && entry.OC == OC && entry.tile == tile)
        return entry.data.get();
    const int64_t floats = cpu::packed_weight_floats(tile, C, OC);
    if (entry.capacity < floats) {
        constexpr size_t ALIGNMENT = 64;
        const size_t bytes = (static_cast<size_t>(floats) * sizeof(float) + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
        entry.data.reset(static_cast<float*>(std::aligned_alloc(ALIGNMENT, bytes)));
        if (!entry.data) {
            entry.capacity = 0;
            throw std::bad_alloc();
        }
        entry.capacity = floats;
    }
    entry.generation = m_generation;
    entry.C = C;
    entry.OC = OC;
    entry.tile = tile;
    float* data = entry.data.get();
    cpu::pack_weight(tile, data, weight, C, OC);
    return data;
}

}  // namespace tx
