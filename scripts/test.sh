#!/usr/bin/env bash
# Builds and runs every test CI checks:
#   1. Release build: the CPU suite, the app tests under Xvfb;
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build of the CPU suite;
#   3. ThreadSanitizer build of the trainer-thread tests;
#   4. libFuzzer targets (clang) for the checkpoint loader, the tokenizers and corpus files, run for a
#      bounded time;
#   5. the .deb package: built, unpacked into an empty folder, and run from there.
# The builds are the presets of CMakePresets.json (release, asan, tsan, fuzz, package).
# TX_FUZZ_SECONDS (default 60) sets each fuzzer's time. Exits non-zero at the first failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/setup.sh"
tx_install_packages "${TX_PACKAGES[@]}"
jobs=$(nproc)
fuzz_seconds=${TX_FUZZ_SECONDS:-60}
# One passive OpenMP thread for the tests: a spinning pool on 2 shared cores slows small ops.
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive

section() { printf '\n==== %s ====\n' "$1"; }
cd "$root"   # presets are read from the source folder

section "Release build and tests"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
ctest --preset release

section "AddressSanitizer + UndefinedBehaviorSanitizer"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
# The command random walk (tests/app/test_command_random_walk.cpp) runs here too, 3 seeds of 500
# commands each: about 10 s in Release, a few minutes under the sanitizers.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 TX_RANDOM_WALK_COMMANDS=500 \
  "$root/build-asan/tests/tx_tests" --gtest_brief=1 --gtest_filter='-*Slow*'

section "ThreadSanitizer: trainer thread, thread pool, two-thread ops"
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
TSAN_OPTIONS="halt_on_error=1" "$root/build-tsan/tests/tx_tests" --gtest_brief=1 --gtest_filter='Trainer*:ThreadPool*:Training.OneAndTwoThreadsTrainTheSameBits:TrainingState.TrainerSavesAResumablePair'

section "libFuzzer (${fuzz_seconds}s per target)"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs"
for target in fuzz_checkpoint fuzz_tokenizer fuzz_corpus; do
  corpus=$(mktemp -d)
  cp -r "$root/tests/fuzz/corpus_${target#fuzz_}/." "$corpus/"
  "$root/build-fuzz/tests/fuzz/$target" -max_total_time="$fuzz_seconds" -print_final_stats=1 "$corpus" 2>&1 | tail -n 4
  rm -rf "$corpus"
done

section "Package: the .deb, unpacked into an empty folder and run from there"
cmake --preset package >/dev/null
cmake --build --preset package -j "$jobs"
rm -f "$root"/build-package/transformer-explorer_*.deb
(cd "$root/build-package" && cpack -G DEB >/dev/null)
bash "$root/tests/package/check_package.sh" "$root"/build-package/transformer-explorer_*.deb "$root/build/app/tx-png-check"

section "All test stages passed"
