#!/bin/sh
# Translation training throughput, ours vs PyTorch, side by side in one run (docs/design.md §10):
# `txcli train --task translate --preset translate` (128/4/512, 3+3, batch 64 grouped by length,
# label smoothing 0.1, dropout 0.1) and its peer bench/bench_translate.py on the same pairs,
# the same SentencePiece ids (from a 1-step checkpoint of ours made first) and the same batches.
# Target tokens/s of STEPS training steps (evaluation excluded), then held-out BLEU and exact match
# of the greedy decodes. Ours and the peer alternate, ROUNDS rounds (default 2), on 1 thread and on
# 2 threads. The peer runs as installed and tuned (OPENBLAS_CORETYPE unset, GLIBC_TUNABLES; the
# OpenMP OpenBLAS when installed). Run on a quiet machine.
#   usage: bench/run_translate_bench.sh [TXCLI] [ROUNDS] [STEPS]
#   DATA=FILE.tsv: your own pairs instead of assets/corpus/en-es (every 20th pair held out, as txcli --data)
#   THREADS="1 2": the thread counts to measure; OUT=DIR keeps the results there
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
TXCLI=${1:-$ROOT/build/app/txcli}
ROUNDS=${2:-2}
STEPS=${3:-200}
THREADS=${THREADS:-1 2}
DATA=${DATA:-}
PY=/usr/bin/python3
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
TUNED_LIB=""
[ -d /usr/lib/x86_64-linux-gnu/openblas-openmp ] && TUNED_LIB=/usr/lib/x86_64-linux-gnu/openblas-openmp
TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296
cd "$ROOT"   # the default corpus is found from here (assets/corpus/en-es)

echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*: //'), $(nproc) cores," \
     "avx512f: $(grep -q -m1 avx512f /proc/cpuinfo && echo yes || echo no)," \
     "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}, tuned OpenBLAS: ${TUNED_LIB:-not installed}"
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $($PY -c 'import torch; print("torch", torch.__version__)')"

# The peer's tokenizer: the SentencePiece model ours trains on the same data (deterministic),
# taken from a 1-step checkpoint (one held-out sequence, so its final evaluation is short).
TOK=$OUT/tokenizer.safetensors
"$TXCLI" train --task translate --preset translate ${DATA:+--data "$DATA"} --steps 1 --eval-sequences 1 \
    --threads 1 --save "$TOK" --quiet >/dev/null 2>&1

ours() {   # seed threads
    env OPENBLAS_NUM_THREADS=$2 OMP_NUM_THREADS=$2 MKL_NUM_THREADS=$2 \
        "$TXCLI" train --task translate --preset translate ${DATA:+--data "$DATA"} --steps "$STEPS" \
        --eval-every "$STEPS" --threads "$2" --seed "$1" --json --quiet 2>/dev/null \
        | sed "s/^{/{\"impl\": \"ours\", \"threads\": $2, /"
}
peer() {   # label seed threads [env options and settings ...]
    label=$1 seed=$2 t=$3
    shift 3
    env "$@" OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t MKL_NUM_THREADS=$t \
        "$PY" "$HERE/bench_translate.py" --tokenizer-from "$TOK" ${DATA:+--data "$DATA"} --steps "$STEPS" \
        --eval --threads "$t" --seed "$seed" --label "$label"
}
peer_installed() { peer pytorch-installed "$1" "$2"; }
peer_tuned() {
    peer pytorch-tuned "$1" "$2" -u OPENBLAS_CORETYPE GLIBC_TUNABLES=$TUNABLES ${TUNED_LIB:+LD_LIBRARY_PATH=$TUNED_LIB}
}

: > "$OUT/translate.jsonl"
for t in $THREADS; do
    echo "# translate preset, $STEPS steps, $t thread(s), $ROUNDS rounds (results also in $OUT/translate.jsonl)"
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        for run in ours peer_installed peer_tuned; do
            $run "$r" "$t" | tee -a "$OUT/translate.jsonl"
        done
        r=$((r + 1))
    done
done

"$PY" - "$OUT/translate.jsonl" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for t in sorted({r["threads"] for r in rows}):
    by = {}
    for r in rows:
        if r["threads"] == t:
            by.setdefault(r["impl"], []).append(r)
    print("# %d thread(s)" % t)
    for impl, rs in by.items():
        v = [r["tokens_per_s"] for r in rs]
        print("%-18s tokens/s median %8.1f (min %.1f, max %.1f)  BLEU %s  exact match %s" %
              (impl, statistics.median(v), min(v), max(v),
               [None if r["bleu"] is None else round(100 * r["bleu"], 2) for r in rs], [r["exact_match"] for r in rs]))
    ours = [r["tokens_per_s"] for r in by.get("ours", [])]
    for impl in ("pytorch-installed", "pytorch-tuned"):
        peers = [r["tokens_per_s"] for r in by.get(impl, [])]
        if ours and peers:
            ratios = [o / p for o, p in zip(ours, peers)]
            print("ours / %-17s median %.2fx (min %.2f, max %.2f)" %
                  (impl, statistics.median(ratios), min(ratios), max(ratios)))
EOF
