#!/bin/sh
# The LLaMA-like preset's speed against PyTorch 1.13 (bench/bench_variants.py), one thread:
# forward ms at L = 32 / 128 and training tokens/s, at a base-like size (512/8, SwiGLU from d_ff
# 2048, 2 layers) and a small one (128/4, d_ff 512, 2 layers). Neither has dropout (LLaMA has none).
# Usage: bench/run_variants_bench.sh [BUILD_DIR] [ROUNDS]
#   BUILD_DIR (default: build) holds a built txcli. Run it under the machine's benchmark lock
#   (flock /tmp/bench.lock ...) where others share the machine.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-"$ROOT/build"}
ROUNDS=${2:-5}
TXCLI="$BUILD/app/txcli"
[ -x "$TXCLI" ] || { echo "no txcli at $TXCLI: build it first (cmake --build $BUILD --target txcli)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
LLAMA="--arch decoder-only --positional rope --ffn swiglu --norm-kind rmsnorm --norm pre --dropout 0 --max-len 160"
"$TXCLI" init --out "$WORK/base.safetensors" --d-model 512 --heads 8 --d-ff 2048 --layers 2 $LLAMA >/dev/null
"$TXCLI" init --out "$WORK/small.safetensors" --d-model 128 --heads 4 --d-ff 512 --layers 2 $LLAMA >/dev/null
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 "$ROOT/bench/bench_variants.py" --txcli "$TXCLI" --model "base=$WORK/base.safetensors" \
    --model "small=$WORK/small.safetensors" --rounds "$ROUNDS"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
