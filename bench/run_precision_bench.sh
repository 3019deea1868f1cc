#!/bin/sh
# The precision modes side by side (docs/precision.md, docs/speed.md): KV-cached greedy generation
# at batch 1 and the forward pass at L = 128, fp32, bf16, fp16 and int8 in one txcli run each, on
# (a) the shipped everyday model and (b) a fresh base-size model (d_model 512, 8 heads, d_ff 2048,
# 6+6 layers), whose ~90 MB of FP32 decoder weights no longer fit the caches: there batch-1
# decoding is bound by reading the weights, which the 16- and 8-bit stored forms read 2× and 4× less of.
# (c) PyTorch's CPU autocast in BF16 doing the same work, where python3-torch is installed.
# Usage: bench/run_precision_bench.sh [BUILD_DIR] [TOKENS] [REPEATS] [THREADS]
#   BUILD_DIR (default: build) is a configured CMake build of this tree; txcli is built there if
#   needed. Waits (up to 10 minutes) for a quiet machine (TX_BENCH_NO_WAIT=1 skips the wait).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-"$ROOT/build"}
TOKENS=${2:-32}
REPEATS=${3:-5}
THREADS=${4:-1}
cmake --build "$BUILD" --target txcli -j 1 >/dev/null
TXCLI="$BUILD/app/txcli"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# Each mode twice, in alternating order: a busy neighbour then weighs on all of them alike.
MODES=fp32,bf16,fp16,int8,int8,fp16,bf16,fp32

"$TXCLI" init --out "$WORK/base.safetensors" --d-model 512 --heads 8 --d-ff 2048 --layers 6 --max-len 256 >/dev/null

. "$ROOT/bench/wait_for_quiet.sh"
for model in "$ROOT/assets/models/everyday.safetensors" "$WORK/base.safetensors"; do
    echo "== $(basename "$model")"
    "$TXCLI" bench --checkpoint "$model" --precision "$MODES" --decode "$TOKENS" --repeats "$REPEATS" \
        --threads "$THREADS"
    echo
    "$TXCLI" bench --checkpoint "$model" --precision "$MODES" --src-len 128 --tgt-len 128 \
        --repeats "$REPEATS" --warmup 1 --threads "$THREADS" | tail -n 10
    echo
done
# Against PyTorch's CPU autocast (torch.autocast("cpu", dtype=torch.bfloat16)), where python3-torch is
# installed: cached generation on a 2+2-layer base model, then the forward pass, both sides in BF16
# and, for reference, both in FP32.
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    "$TXCLI" init --out "$WORK/base2.safetensors" --d-model 512 --heads 8 --d-ff 2048 --layers 2 --max-len 1024 >/dev/null
    "$TXCLI" init --out "$WORK/tiny.safetensors" --d-model 64 --heads 4 --d-ff 256 --layers 2 >/dev/null
    for precision in bf16 fp32; do
        echo "== against PyTorch, $precision: cached generation"
        /usr/bin/python3 "$ROOT/bench/bench_generate.py" --txcli "$TXCLI" --checkpoint "$WORK/base2.safetensors" \
            --lengths 32,128 --rounds 3 --repeats 3 --precision "$precision"
        echo "== against PyTorch, $precision: forward pass"
        /usr/bin/python3 "$ROOT/bench/bench_forward.py" --txcli "$TXCLI" --tiny "$WORK/tiny.safetensors" \
            --base "$WORK/base2.safetensors" --rounds 3 --repeats 5 --warmup 1 --precision "$precision" | sed -n '1,14p'
    done
else
    echo "python3-torch is not installed: the comparison with PyTorch's autocast is skipped"
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
