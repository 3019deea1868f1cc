#!/bin/sh
# Cached generation against PyTorch on one thread (docs/design.md §10): a base-size model (d_model 512,
# 8 heads, d_ff 2048, 2+2 layers, max_len 1024) made with txcli init, greedy generation of 32, 128
# and 512 tokens with our KV cache, our full recompute, and PyTorch's hand-written cached loop.
# Usage: bench/run_generate_bench.sh [BUILD_DIR] [ROUNDS] [LENGTHS] [REPEATS] [JSON]
#   BUILD_DIR (default: build) is a configured CMake build of this tree; txcli is built there if
#   needed. Waits (up to 10 minutes) for a quiet machine: load average < 1 (TX_BENCH_NO_WAIT=1
#   skips the wait, where a lock already keeps other timings away). JSON: also write the figures
#   there, for transformer-explorer --generation-bench.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-"$ROOT/build"}
ROUNDS=${2:-3}
LENGTHS=${3:-32,128,512}
REPEATS=${4:-3}
JSON=${5:-}
cmake --build "$BUILD" --target txcli -j 1 >/dev/null
TXCLI="$BUILD/app/txcli"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$TXCLI" init --out "$WORK/base.safetensors" --d-model 512 --heads 8 --d-ff 2048 --layers 2 --max-len 1024 >/dev/null

. "$ROOT/bench/wait_for_quiet.sh"
/usr/bin/python3 "$ROOT/bench/bench_generate.py" --txcli "$TXCLI" --checkpoint "$WORK/base.safetensors" \
    --lengths "$LENGTHS" --rounds "$ROUNDS" --repeats "$REPEATS" ${JSON:+--json "$JSON"}
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
