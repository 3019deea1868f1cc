#!/bin/bash
# The GPU machine's whole sequence in one command (see docs/gpu.md): build without the GUI
# for sm_90 from the dependencies in .deps/, run the GPU tests, the three compute-sanitizer tools
# on them, and the benchmarks against PyTorch eager. Each stage has its own time limit so that a
# slow one still leaves the logs of the others; logs go to $OUT (one file per stage).
# Usage: tests/gpu/run_on_gpu.sh STAGE... with stages info build test memcheck racecheck initcheck
#        steps bench; BUILD (default build-gpu), DEPS (default .deps), OUT (default /tmp/tx-gpu-out) and
#        BUDGET_S (default 570: no stage runs past this many seconds after the start).
#        FALLBACK="FROM:TO" (optional): if the tests fail, copy FROM over TO, rebuild and test again,
#        so that one call can still check and measure the previous version of a kernel on trial.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-"$ROOT/build-gpu"}
DEPS=${DEPS:-"$ROOT/.deps"}
OUT=${OUT:-/tmp/tx-gpu-out}
BUDGET_S=${BUDGET_S:-570}
mkdir -p "$OUT"
TESTS="$BUILD/tests/tx_gpu_tests"
status=0

stage() {   # stage NAME LIMIT_S COMMAND...: runs it with a limit, logs to $OUT/NAME.log
    local name=$1 limit=$2
    shift 2
    local left=$((BUDGET_S - SECONDS))
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -lt 5 ]; then
        echo "=== $name: skipped, the budget is spent" | tee -a "$OUT/$name.log"
        status=1
        return 124
    fi
    local t0=$SECONDS
    echo "=== $name (limit ${limit}s): $*" | tee -a "$OUT/$name.log"
    timeout --signal=INT --kill-after=10 "$limit" "$@" >>"$OUT/$name.log" 2>&1
    local rc=$?
    echo "=== $name: exit $rc after $((SECONDS - t0)) s" | tee -a "$OUT/$name.log"
    [ $rc -eq 0 ] || status=1
    return $rc
}

# Under the sanitizers, every GPU test but the one that asks for 4 PiB on purpose: the failed
# cudaMalloc it provokes (and the error it clears) would count as the tool's two API errors.
SANITIZE_FILTER=-OpParity.OutOfMemoryIsAReportedErrorNotACrash

sanitize() {   # sanitize TOOL LIMIT_S: the GPU tests under compute-sanitizer
    local tool=$1 limit=$2 filter=$SANITIZE_FILTER
    local extra=(${SANITIZE_EXTRA:-})
    [ "$tool" = memcheck ] && extra+=(--leak-check full)
    [ "$tool" = racecheck ] && extra+=(--racecheck-report hazard)
    stage "$tool" "$limit" compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 --print-limit 50 \
        "$TESTS" --gtest_brief=1 "--gtest_filter=$filter"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|PASSED|FAILED|SKIPPED" "$OUT/$tool.log" | tail -8
}

for s in "$@"; do
    case $s in
    info)
        {
            date -u
            nvidia-smi
            nvcc --version | tail -2
            compute-sanitizer --version | head -2
            python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
            lscpu | grep -E 'Model name|^CPU\(s\)'
        } >"$OUT/info.log" 2>&1
        head -30 "$OUT/info.log"
        ;;
    build)
        stage build 420 cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTX_BUILD_APP=OFF \
            -DTX_DEPS_DIR="$DEPS" -DZLIB_ROOT="$DEPS/zlib" -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=-Xptxas=-v" &&
            stage build 420 cmake --build "$BUILD" -j "$(nproc)" --target tx_gpu_tests txcli attention_bench -- -k 0 ||
            { grep -E ": error|^FAILED:" "$OUT/build.log" | head -40; exit 1; }
        # the kernels' resources (registers, spills, shared memory) from ptxas
        grep -A2 -E "Compiling entry function '.*fused_attention" "$OUT/build.log" | grep -E "Compiling|Used|spill" |
            sed -E 's/^.*(Compiling|ptxas info *:)//' | tail -20
        ;;
    test)
        if ! stage test 300 "$TESTS" --gtest_color=no && [ -n "${FALLBACK:-}" ]; then
            grep -E "^\[  FAILED  \]" "$OUT/test.log" | tail -20
            echo "=== FALLBACK: ${FALLBACK%%:*} -> ${FALLBACK#*:}" | tee -a "$OUT/test.log"
            cp "$ROOT/${FALLBACK%%:*}" "$ROOT/${FALLBACK#*:}"
            stage build 300 cmake --build "$BUILD" -j "$(nproc)" --target tx_gpu_tests txcli attention_bench &&
                stage test 300 "$TESTS" --gtest_color=no
        fi
        grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|tests ran|FALLBACK" "$OUT/test.log" | tail -30
        ;;
    memcheck) sanitize memcheck 240 ;;
    racecheck)
        # Every op test under the full tool (all our kernels, cuBLAS's too); the model tests only
        # our kernels (names with tx::cuda): racecheck makes cuBLAS's shared-memory kernels so slow
        # that a training run's test (60 s deadline) cannot finish.
        SANITIZE_FILTER="OpParity.*:VariantParity.*-OpParity.OutOfMemoryIsAReportedErrorNotACrash" sanitize racecheck 120
        SANITIZE_FILTER="CudaModel/*:CudaParity.*" SANITIZE_EXTRA="--kernel-name kns=cuda" sanitize racecheck 120
        ;;
    initcheck) sanitize initcheck 200 ;;
    steps)   # where the time goes: txcli's per-step table, base model, B=32, L=512, both attentions
        for attention in steps fused; do
            stage steps 120 "$BUILD/app/txcli" bench --d-model 512 --heads 8 --d-ff 2048 --layers 2 --max-len 512 \
                --batch 32 --src-len 512 --tgt-len 512 --backend cuda --attention $attention --repeats 10 \
                --train-repeats 5
        done
        grep -iE "forward|train|total" "$OUT/steps.log" | head -12
        ;;
    bench)
        stage bench 420 env PYTHONUNBUFFERED=1 python3 "$ROOT/bench/bench_cuda.py" --txcli "$BUILD/app/txcli" \
            --attention-bench "$BUILD/bench/attention_bench"
        tail -40 "$OUT/bench.log"
        ;;
    *) echo "unknown stage $s" >&2; exit 2 ;;
    esac
done
exit $status
