// Test helpers for the per-instruction-set kernels (core/include/tx/cpu_isa.h): run a test body once on every
// path this CPU supports (generic, avx2, avx512), or on every BF16 product path (widened,
// vdpbf16ps), each named in failure messages, and restore the path that was active however the
// body ends.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tx/cpu_isa.h"
#include "tx/threads.h"

namespace tx::test {

// Restores the active path and the thread count when it goes out of scope (a failed ASSERT
// returns early).
struct PathGuard {
    tx::cpu::Isa isa = tx::cpu::active_isa();
    int threads = tx::cpu_threads();
    ~PathGuard() {
        tx::cpu::set_active_isa(isa);
        tx::set_cpu_threads(threads);
    }
};

// Runs body once on every BF16 product path (cpu_isa.h's Bf16Path) the active instruction-set
// path can run (widened; vdpbf16ps on AVX-512 with AVX512_BF16), each named in failure messages,
// and restores the path that was active.
template <typename Body>
void on_every_bf16_path(Body body) {
    struct Bf16Guard {
        tx::cpu::Bf16Path path = tx::cpu::bf16_path();
        ~Bf16Guard() { tx::cpu::set_bf16_path(path); }
    } guard;
    for (tx::cpu::Bf16Path path : tx::cpu::supported_bf16_paths()) {
        ASSERT_TRUE(tx::cpu::set_bf16_path(path));
        SCOPED_TRACE(std::string("bf16 products ") + tx::cpu::bf16_path_name(path));
        body();
    }
}

template <typename Body>
void on_every_path(Body body) {
    PathGuard guard;
    for (tx::cpu::Isa isa : tx::cpu::supported_isas()) {
        ASSERT_TRUE(tx::cpu::set_active_isa(isa));
        SCOPED_TRACE(std::string("path ") + tx::cpu::isa_name(isa));
        body();
    }
}

}  // namespace tx::test
