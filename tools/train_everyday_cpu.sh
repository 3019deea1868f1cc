#!/usr/bin/env bash
# Trains the everyday English -> Spanish model from fresh weights on the CPU, in the background, and
# resumes the same run when started again (a killed run loses at most --save-every steps).
#
#   tools/train_everyday_cpu.sh RUN_DIR [TXCLI]
#
# RUN_DIR/assets/corpus/everyday/{train,valid}.tsv.gz is the corpus to train on (copy the generator's
# output there first); the run writes RUN_DIR/everyday.safetensors (and .state, every SAVE_EVERY
# steps), RUN_DIR/curve.csv and RUN_DIR/train.log. The training record names the corpus
# "assets/corpus/everyday/train.tsv.gz", as the shipped model's does, because TX_ASSETS_DIR points
# at RUN_DIR/assets. Settings (environment): VOCAB (SentencePiece pieces, default 12000), THREADS
# (default 2), STEPS (a total to stop at, default 400000), SAVE_EVERY (default 500), NICE (default
# 19: the run yields the CPU to everything else). INIT=FILE fine-tunes that checkpoint instead of
# starting from fresh weights (tools/warm_start_vocabulary.py makes one from the shipped model and a
# new tokenizer), with LR (default 0.3) and WARMUP (default 1000). TXCLI defaults to
# build/app/txcli; a copy outside the build folder is safer while the tree is being rebuilt.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
run="${1:?usage: tools/train_everyday_cpu.sh RUN_DIR [TXCLI]}"
txcli="${2:-$root/build/app/txcli}"
vocab="${VOCAB:-12000}" threads="${THREADS:-2}" steps="${STEPS:-400000}"
save_every="${SAVE_EVERY:-500}" niceness="${NICE:-19}"

[ -x "$txcli" ] || { echo "train_everyday_cpu.sh: $txcli not found; build it first" >&2; exit 1; }
[ -r "$run/assets/corpus/everyday/train.tsv.gz" ] || {
  echo "train_everyday_cpu.sh: $run/assets/corpus/everyday/train.tsv.gz not found: copy the corpus there" >&2; exit 1; }
run="$(cd "$run" && pwd)"
export TX_ASSETS_DIR="$run/assets" OMP_NUM_THREADS="$threads"

if [ -e "$run/everyday.safetensors.state" ]; then
  what=(train --resume --save "$run/everyday.safetensors" --steps "$steps" --save-every "$save_every"
        --log "$run/curve.csv" --threads "$threads")
elif [ -n "${INIT:-}" ]; then
  what=(train --init "$INIT" --task translate --preset everyday --lr "${LR:-0.3}" --warmup "${WARMUP:-1000}"
        --clip 1 --steps "$steps" --eval-every 2000 --eval-sequences 200 --save "$run/everyday.safetensors"
        --save-every "$save_every" --log "$run/curve.csv" --threads "$threads")
else
  what=(train --task translate --preset everyday --subword-vocab "$vocab" --clip 1 --steps "$steps"
        --eval-every 2000 --eval-sequences 200 --save "$run/everyday.safetensors" --save-every "$save_every"
        --log "$run/curve.csv" --threads "$threads")
fi
cd "$run"
echo "$(date -u +%FT%TZ) txcli ${what[*]}" >> "$run/train.log"
nohup nice -n "$niceness" "$txcli" "${what[@]}" >> "$run/train.log" 2>&1 &
echo "training in the background (pid $!); log: $run/train.log, curve: $run/curve.csv"
