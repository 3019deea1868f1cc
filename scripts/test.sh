#!/usr/bin/env bash
# Builds and runs every test CI checks:
#   1. Release build: the CPU suite, the app tests under Xvfb;
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build of the CPU suite (while the suite runs, a
#      shard per core, the next two stages build beside it);
#   3. ThreadSanitizer build of the threaded tests (tx_thread_tests: the trainer thread, the thread
#      pool, the two-thread training);
#   4. libFuzzer targets (clang) for the checkpoint loader, the tokenizers and corpus files, run at
#      once for a bounded time;
#   5. the .deb package: built, unpacked into an empty folder, and run from there.
# The builds are the presets of CMakePresets.json (release, asan, tsan, fuzz, package); each builds
# only what its tests run. With ccache (setup.sh installs it) the Release and package builds share
# one cache, build-ccache/: the package is the Release configuration without CUDA and tests, so its
# objects come from the Release build's. Every stage prints its wall-clock and CPU time, and at
# the end the script prints a table of them with the total (also when a stage fails).
# Every build is a unity build (CMAKE_UNITY_BUILD): CMake compiles the sources of a target in
# batches, one translation unit each, so the standard library and GoogleTest headers are parsed
# once a batch instead of once a file. That needs names in anonymous namespaces to be unique
# within a target; tests/support holds what tests share.
# TX_FUZZ_SECONDS (default 60) sets each fuzzer's CPU time. Exits non-zero at the first failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/setup.sh"
tx_install_packages "${TX_PACKAGES[@]}"
jobs=$(nproc)
fuzz_seconds=${TX_FUZZ_SECONDS:-60}
# One passive OpenMP thread for the tests: a spinning pool on 2 shared cores slows small ops.
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive

# Stage times. CPU time is that of the stage's processes (user + system), which other work on a
# shared machine does not inflate the way it does the wall-clock time.
ticks=$(getconf CLK_TCK)
child_cpu() { local s; read -r -a s < /proc/$$/stat; echo $(( (s[15] + s[16]) / ticks )); }
start=$(date +%s)
start_cpu=$(child_cpu)
stage_name=""
stage_times=()
stage_begin() { stage_name=$1; stage_start=$(date +%s); stage_cpu=$(child_cpu); }
stage_end() {
    local wall=$(( $(date +%s) - stage_start )) cpu=$(( $(child_cpu) - stage_cpu ))
    printf 'time: %s: %d s (CPU %d s)\n' "$stage_name" "$wall" "$cpu"
    stage_times+=("$(printf '%-34s %6d s   CPU %6d s' "$stage_name" "$wall" "$cpu")")
    stage_name=""
}
report() {
    local rc=$?
    local running
    running=$(jobs -pr)
    [ -z "$running" ] || kill $running 2>/dev/null || true   # a stage that failed beside another
    [ -n "$stage_name" ] && stage_times+=("$(printf '%-34s %6d s   FAILED' "$stage_name" $(( $(date +%s) - stage_start )))")
    printf '\n==== Stage times ====\n'
    [ ${#stage_times[@]} -gt 0 ] && printf '%s\n' "${stage_times[@]}"
    printf '%-34s %6d s   CPU %6d s\n' "total" $(( $(date +%s) - start )) $(( $(child_cpu) - start_cpu ))
    exit "$rc"
}
trap report EXIT

section() { printf '\n==== %s ====\n' "$1"; }
cd "$root"   # presets are read from the source folder

# The Release and package builds compile through ccache where it is installed (an empty launcher
# otherwise, so that a folder configured with ccache before does not keep needing it).
# With unity builds each object's source is a generated file in its build folder; paths relative to
# the source root (CCACHE_BASEDIR, without the working folder in the hash) let the package build
# find the Release build's objects all the same.
export CCACHE_DIR=${CCACHE_DIR:-$root/build-ccache} CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$(command -v ccache || true)")
unity=(-DCMAKE_UNITY_BUILD=ON)

section "Release build and tests"
stage_begin "release: build"
cmake --preset release "${launcher[@]}" "${unity[@]}" >/dev/null
cmake --build --preset release -j "$jobs"
stage_end
stage_begin "release: tests"
ctest --preset release -j "$jobs"
stage_end

section "AddressSanitizer + UndefinedBehaviorSanitizer"
stage_begin "asan: build"
cmake --preset asan "${unity[@]}" >/dev/null
cmake --build --preset asan -j "$jobs"
stage_end
# The command random walk (tests/app/test_command_random_walk.cpp) runs here too, its first 3
# seeds of 500 commands each (the Release suite runs all 6 of 2000): a few minutes under the
# sanitizers. The suite runs as one shard per core (GoogleTest's GTEST_TOTAL_SHARDS: each process
# takes every n-th test), and the ThreadSanitizer and fuzz builds share the cores with them; the
# shards' output (brief: the failures and the counts) follows the builds. The lessons' claims
# (LessonClaims.*) are left to the Release and forced-ISA runs: they check numbers, which the
# sanitizers do not change, through code the rest of the suite already runs here, and take
# about 150 s of CPU under ASan.
stage_begin "asan: tests, tsan + fuzz builds"
asan_shards=$jobs
asan_pids=()
for ((shard = 0; shard < asan_shards; shard++)); do
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 TX_RANDOM_WALK_COMMANDS=500 \
    GTEST_TOTAL_SHARDS=$asan_shards GTEST_SHARD_INDEX=$shard \
    "$root/build-asan/tests/tx_tests" --gtest_brief=1 \
    --gtest_filter='-*Slow*:LessonClaims.*:Seeds/CommandRandomWalk.*/3:Seeds/CommandRandomWalk.*/4:Seeds/CommandRandomWalk.*/5' \
    > "$root/build-asan/tests.$shard.log" 2>&1 &
  asan_pids+=($!)
done
side_jobs=$(( jobs > 1 ? jobs - 1 : 1 ))
printf '\n==== ThreadSanitizer and libFuzzer builds, beside the sanitizer suite ====\n'
cmake --preset tsan "${unity[@]}" >/dev/null
cmake --build --preset tsan -j "$side_jobs"
cmake --preset fuzz "${unity[@]}" >/dev/null
cmake --build --preset fuzz -j "$side_jobs"
printf '\n==== AddressSanitizer + UndefinedBehaviorSanitizer: the suite (%d shards) ====\n' "$asan_shards"
asan_failed=0
for ((shard = 0; shard < asan_shards; shard++)); do
  wait "${asan_pids[$shard]}" || asan_failed=1
  echo "-- shard $shard"
  cat "$root/build-asan/tests.$shard.log"
done
[ "$asan_failed" -eq 0 ]
stage_end

section "ThreadSanitizer: trainer thread, thread pool, two-thread ops"
stage_begin "tsan: tests"
TSAN_OPTIONS="halt_on_error=1" "$root/build-tsan/tests/tx_thread_tests" --gtest_brief=1 --gtest_filter='Trainer*:ThreadPool*:Training.OneAndTwoThreadsTrainTheSameBits:TrainingState.TrainerSavesAResumablePair'
stage_end

section "libFuzzer (${fuzz_seconds} s of CPU per target, all at once on ${jobs} cores)"
fuzz() {   # fuzz TARGET: fuzz_seconds on a copy of its seed corpus, the output in build-fuzz/TARGET.log
    local target=$1 corpus rc=0
    corpus=$(mktemp -d)
    cp -r "$root/tests/fuzz/corpus_${target#fuzz_}/." "$corpus/"
    "$root/build-fuzz/tests/fuzz/$target" -max_total_time="$fuzz_seconds" -print_final_stats=1 "$corpus" \
        > "$root/build-fuzz/$target.log" 2>&1 || rc=$?
    rm -rf "$corpus"
    return "$rc"
}
stage_begin "fuzz: run"
# A libFuzzer run is one thread, and -max_total_time is wall-clock time. All targets run at once;
# with more targets than cores each runs longer, so that each still gets about fuzz_seconds of CPU
# (3 targets on 2 cores: 90 s each, rather than two rounds of 60 s with a core idle in the second).
targets=(fuzz_checkpoint fuzz_tokenizer fuzz_corpus)
if (( ${#targets[@]} > jobs )); then fuzz_seconds=$(( (fuzz_seconds * ${#targets[@]} + jobs - 1) / jobs )); fi
failed=()
pids=()
for target in "${targets[@]}"; do fuzz "$target" & pids+=($!); done
for j in "${!targets[@]}"; do wait "${pids[$j]}" || failed+=("${targets[$j]}"); done
for target in "${targets[@]}"; do echo "-- $target"; tail -n 4 "$root/build-fuzz/$target.log"; done
for target in "${failed[@]}"; do echo "FAIL $target:"; tail -n 60 "$root/build-fuzz/$target.log"; done
[ ${#failed[@]} -eq 0 ]
stage_end

section "Package: the .deb, unpacked into an empty folder and run from there"
stage_begin "package: build"
cmake --preset package "${launcher[@]}" "${unity[@]}" >/dev/null
cmake --build --preset package -j "$jobs"
rm -f "$root"/build-package/transformer-explorer_*.deb
(cd "$root/build-package" && cpack -G DEB >/dev/null)
stage_end
stage_begin "package: check"
bash "$root/tests/package/check_package.sh" "$root"/build-package/transformer-explorer_*.deb "$root/build/app/tx-png-check"
stage_end

section "All test stages passed"
