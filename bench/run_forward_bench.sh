#!/bin/sh
# Forward and SGEMM benchmarks against PyTorch / OpenBLAS on one thread (docs/design.md §10).
# Usage: bench/run_forward_bench.sh [BUILD_DIR] [ROUNDS]
#   BUILD_DIR (default: build) is a configured CMake build of this tree; txcli and sgemm_bench
#   are built there if needed. Waits (up to 10 minutes) for a quiet machine: load average < 1.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-"$ROOT/build"}
ROUNDS=${2:-5}
cmake --build "$BUILD" --target txcli sgemm_bench -j 1 >/dev/null
TXCLI="$BUILD/app/txcli"
SGEMM="$BUILD/bench/sgemm_bench"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$TXCLI" init --out "$WORK/tiny.safetensors" --d-model 64 --heads 4 --d-ff 256 --layers 2 >/dev/null
"$TXCLI" init --out "$WORK/base.safetensors" --d-model 512 --heads 8 --d-ff 2048 --layers 2 >/dev/null

. "$ROOT/bench/wait_for_quiet.sh"

echo
echo "## SGEMM 512x512x512, 1 thread"
echo "as installed (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}):"
OMP_NUM_THREADS=1 "$SGEMM" 512 512 512 50
echo "OPENBLAS_CORETYPE unset (OpenBLAS picks its AVX-512 kernels where the CPU has them):"
env -u OPENBLAS_CORETYPE OMP_NUM_THREADS=1 "$SGEMM" 512 512 512 50

echo
echo "## Forward pass"
/usr/bin/python3 "$ROOT/bench/bench_forward.py" --txcli "$TXCLI" --tiny "$WORK/tiny.safetensors" \
    --base "$WORK/base.safetensors" --rounds "$ROUNDS"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
