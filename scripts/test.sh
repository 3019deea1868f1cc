#!/usr/bin/env bash
# Builds and runs every test CI checks:
#   1. Release build: the CPU suite, the app tests under Xvfb;
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build of the CPU suite;
#   3. ThreadSanitizer build of the trainer-thread tests;
#   4. libFuzzer targets (clang) for the checkpoint loader, the tokenizers and corpus files, run for a
#      bounded time.
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
# Sanitizer and fuzz builds: -O1 without debug info compiles Eigen much faster than -O2 -g and
# still gives symbolised stack traces (function names). They leave out the CUDA backend: the
# sanitizer flags are for the host compiler (the release build compiles and tests gpu/).
quick=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O1 -DTX_BUILD_APP=OFF -DTX_NATIVE=OFF -DTX_CUDA=OFF)

section "Release build and tests"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j "$jobs"
(cd "$root/build" && ctest --output-on-failure -j 1)

section "AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S "$root" -B "$root/build-asan" -G Ninja "${quick[@]}" -DTX_SANITIZE=ON >/dev/null
cmake --build "$root/build-asan" -j "$jobs" --target tx_tests
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  "$root/build-asan/tests/tx_tests" --gtest_brief=1 --gtest_filter='-*Slow*'

section "ThreadSanitizer: trainer thread, thread pool, two-thread ops"
cmake -S "$root" -B "$root/build-tsan" -G Ninja "${quick[@]}" \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread" >/dev/null
cmake --build "$root/build-tsan" -j "$jobs" --target tx_tests
TSAN_OPTIONS="halt_on_error=1" "$root/build-tsan/tests/tx_tests" --gtest_brief=1 --gtest_filter='Trainer*:ThreadPool*:Training.OneAndTwoThreadsTrainTheSameBits:TrainingState.TrainerSavesAResumablePair'

section "libFuzzer (${fuzz_seconds}s per target)"
CC=clang CXX=clang++ cmake -S "$root" -B "$root/build-fuzz" -G Ninja "${quick[@]}" -DTX_FUZZ=ON >/dev/null
cmake --build "$root/build-fuzz" -j "$jobs" --target fuzz_checkpoint fuzz_tokenizer fuzz_corpus
for target in fuzz_checkpoint fuzz_tokenizer fuzz_corpus; do
  corpus=$(mktemp -d)
  cp -r "$root/tests/fuzz/corpus_${target#fuzz_}/." "$corpus/"
  "$root/build-fuzz/tests/fuzz/$target" -max_total_time="$fuzz_seconds" -print_final_stats=1 "$corpus" 2>&1 | tail -n 4
  rm -rf "$corpus"
done

section "All test stages passed"
