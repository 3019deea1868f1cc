#!/bin/sh
# BF16 at the CPU's own speed (docs/speed.md, docs/precision.md): the base model's forward pass
# (512/8/2048, 2+2 layers) at L = 32 and 128, one thread, in alternating rounds: ours in FP32, ours
# in BF16 on each BF16 product path (widened: FP32 FMAs on widened weights; vdpbf16ps: AVX512_BF16,
# where the CPU has it), PyTorch's CPU autocast in BF16 and PyTorch in FP32 (python3-torch); then
# the products alone (lowp_gemm_bench, the base decoder's 26 weights at N = 128 and N = 1). The
# FP32 FMA and vdpbf16ps peaks come first (fma_peak), for the fractions of the peak.
# Usage: bench/run_bf16_bench.sh [BUILD_DIR] [ROUNDS]
#   BUILD_DIR (default: build) is a configured CMake build of this tree; txcli, fma_peak and
#   lowp_gemm_bench are built there if needed. Waits (up to 10 minutes) for a quiet machine
#   (TX_BENCH_NO_WAIT=1 skips the wait).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-"$ROOT/build"}
ROUNDS=${2:-7}
cmake --build "$BUILD" --target txcli fma_peak lowp_gemm_bench -j 1 >/dev/null
TXCLI="$BUILD/app/txcli"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$TXCLI" init --out "$WORK/base.safetensors" --d-model 512 --heads 8 --d-ff 2048 --layers 2 --max-len 1024 >/dev/null

. "$ROOT/bench/wait_for_quiet.sh"
grep -m1 'model name' /proc/cpuinfo
echo "cpu family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), model $(grep -m1 '^model[[:space:]]' /proc/cpuinfo | cut -d: -f2 | tr -d ' '); flags: $(grep -o 'avx512f \|avx512_bf16\|amx_bf16\|amx_int8' /proc/cpuinfo | sort -u | tr '\n' ' ')"
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then TORCH=; else TORCH=--no-torch; echo "python3-torch is not installed: ours only"; fi
/usr/bin/python3 "$ROOT/bench/bench_bf16.py" --txcli "$TXCLI" --base "$WORK/base.safetensors" --lengths 32,128 \
    --rounds "$ROUNDS" --repeats 10 --warmup 2 --fma-peak "$BUILD/bench/fma_peak" $TORCH
echo
echo "## The products alone: the base decoder's 26 linear weights, N = 128 and N = 1"
OMP_NUM_THREADS=1 "$BUILD/bench/lowp_gemm_bench" --rounds 20 --rows 128
OMP_NUM_THREADS=1 "$BUILD/bench/lowp_gemm_bench" --rounds 40 --rows 1
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
