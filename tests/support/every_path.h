// Test helpers for the per-instruction-set kernels (core/include/tx/cpu_isa.h): run a test body once on every
// path this CPU supports (generic, avx2, avx512), each named in failure messages, and restore the
// path that was active however the body ends.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tx/cpu_isa.h"

namespace tx::test {

// Restores the active path when it goes out of scope (a failed ASSERT returns early).
struct PathGuard {
    tx::cpu::Isa isa = tx::cpu::active_isa();
    ~PathGuard() { tx::cpu::set_active_isa(isa); }
};

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
