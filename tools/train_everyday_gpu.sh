#!/usr/bin/env bash
# Trains the everyday English -> Spanish model (txcli's everyday preset) with the CUDA backend, on
# a GPU machine that has nvcc, CMake, ninja and g++ but no Debian packages and no network (as
# docs/gpu.md describes): the dependencies come as one archive made on a Debian machine, and the
# checkpoint goes back in parts small enough for the transfer (join them with cat).
#
# Usage: tools/train_everyday_gpu.sh DEPS.tar.xz DEADLINE_SECONDS OUT_DIR [txcli train options...]
#   DEPS.tar.xz      eigen3/ nlohmann/ sentencepiece/{include,lib}/ zlib/{include,lib}/ (see below)
#   DEADLINE_SECONDS the training stops (Ctrl-C: saves the last good step) this many seconds after
#                    the script started, the build included; the checkpoint and its training state
#                    stay in /tmp/everyday-run/ for a later command to fetch
#   OUT_DIR       gets build.log, train.log, curve.csv and everyday.safetensors.part-aa, -ab, ...
# Making DEPS.tar.xz on Debian 12 (libeigen3-dev nlohmann-json3-dev libsentencepiece-dev zlib1g-dev):
#   d=$(mktemp -d); cp -r /usr/include/eigen3 /usr/include/nlohmann $d/
#   mkdir -p $d/sentencepiece/{include,lib} $d/zlib/{include,lib}
#   cp /usr/include/sentencepiece_*.h $d/sentencepiece/include/
#   cp -P /usr/lib/x86_64-linux-gnu/libsentencepiece*.so* $d/sentencepiece/lib/
#   cp /usr/include/zlib.h /usr/include/zconf.h $d/zlib/include/; cp /usr/lib/x86_64-linux-gnu/libz.a $d/zlib/lib/
#   tar cJf deps.tar.xz -C $d .
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps_archive=$1 deadline=$2 out=$3
shift 3
work=/tmp/everyday-run
rm -rf "$work"
mkdir -p "$out" "$work/deps"
tar xJf "$deps_archive" -C "$work/deps"
start=$SECONDS
cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTX_BUILD_APP=OFF \
    -DTX_DEPS_DIR="$work/deps" -DZLIB_ROOT="$work/deps/zlib" -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/build.log" 2>&1
cmake --build "$work/build" -j "$(nproc)" --target txcli >>"$out/build.log" 2>&1 ||
    { grep -E ": error|^FAILED:" "$out/build.log" | head -20; exit 1; }
echo "built txcli in $((SECONDS - start)) s"
export LD_LIBRARY_PATH="$work/deps/sentencepiece/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
cd "$root"
# SIGINT is txcli train's Ctrl-C: it stops after the current step and saves the last good weights.
seconds=$((deadline - SECONDS))
echo "training for $seconds s"
timeout --signal=INT --kill-after=60 "$seconds" "$work/build/app/txcli" train --task translate --preset everyday \
    --backend cuda --save "$work/everyday.safetensors" --log "$out/curve.csv" "$@" >"$out/train.log" 2>&1 || true
tail -5 "$out/train.log"
split -b 15M "$work/everyday.safetensors" "$out/everyday.safetensors.part-"
ls -la "$out"
