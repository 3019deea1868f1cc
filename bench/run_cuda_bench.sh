#!/bin/sh
# GPU benchmarks (issue 4) on a machine with a CUDA device: builds txcli and attention_bench
# without the GUI, prints txcli's CPU-vs-CUDA table for the base model, then runs
# bench/bench_cuda.py (ours against PyTorch eager on the same GPU).
# Usage: bench/run_cuda_bench.sh [BUILD_DIR] [DEPS_DIR]
#   DEPS_DIR holds eigen3/, googletest/ and nlohmann/ where Debian's packages are missing (docs/gpu.md).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-"$ROOT/build-gpu"}
DEPS=${2:-"$ROOT/.deps"}
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTX_BUILD_APP=OFF -DTX_DEPS_DIR="$DEPS" \
    -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$BUILD" --target txcli attention_bench -j "$(nproc)" >/dev/null
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BUILD/app/txcli" init --out "$WORK/base.safetensors" --d-model 512 --heads 8 --d-ff 2048 --layers 2 >/dev/null
echo "## txcli bench --backend cpu,cuda (base model, B=1, L=32)"
"$BUILD/app/txcli" bench --checkpoint "$WORK/base.safetensors" --backend cpu,cuda --repeats 10
echo
python3 "$ROOT/bench/bench_cuda.py" --txcli "$BUILD/app/txcli" --attention-bench "$BUILD/bench/attention_bench"
