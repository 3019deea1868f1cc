#!/bin/sh
# Training throughput, ours vs PyTorch, side by side in one run on THREADS threads (docs/design.md §10):
# the annotated copy task (512/8/2048, 2+2, batch 80, 20 × 20 batches, dropout 0.1) — target
# tokens/s of the training steps and held-out greedy exact match on 200 sequences — then the
# tiny preset's time to 100% exact match. Ours and the peer alternate; ROUNDS rounds (default 2).
# The peer runs as installed and tuned (OPENBLAS_CORETYPE unset, GLIBC_TUNABLES; the OpenMP
# OpenBLAS when installed). Run on a quiet machine.
#   usage: bench/run_train_bench.sh [TXCLI] [ROUNDS] [STEPS]
#   THREADS=N: threads for ours and for the peer's torch and OpenBLAS pools (default 1);
#   FIRST=K: the first round's number and seed (default 1), so a long run can be split into calls;
#   TINY=0: skip the tiny preset's time to 100%.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
TXCLI=${1:-$ROOT/build/app/txcli}
ROUNDS=${2:-2}
STEPS=${3:-400}
THREADS=${THREADS:-1}
FIRST=${FIRST:-1}
TINY=${TINY:-1}
PY=/usr/bin/python3
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
export OPENBLAS_NUM_THREADS=$THREADS OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS
TUNED_LIB=""
[ -d /usr/lib/x86_64-linux-gnu/openblas-openmp ] && TUNED_LIB=/usr/lib/x86_64-linux-gnu/openblas-openmp
TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296

ours() {
    "$TXCLI" train --preset annotated --task copy --steps "$STEPS" --eval-every "$STEPS" --threads "$THREADS" --seed "$1" --json --quiet 2>/dev/null \
        | sed 's/^{/{"impl": "ours", /'
}
peer_installed() { "$PY" "$HERE/bench_train.py" --steps "$STEPS" --threads "$THREADS" --seed "$1" --label pytorch-installed; }
# Our AVX2 path (TX_ISA=avx2) is compared with OpenBLAS on AVX2 kernels too: the same ISA.
PEER_CORETYPE=""
[ "${TX_ISA:-}" = avx2 ] && PEER_CORETYPE=Haswell
peer_tuned() {
    env -u OPENBLAS_CORETYPE ${PEER_CORETYPE:+OPENBLAS_CORETYPE=$PEER_CORETYPE} GLIBC_TUNABLES=$TUNABLES ${TUNED_LIB:+LD_LIBRARY_PATH=$TUNED_LIB} \
        "$PY" "$HERE/bench_train.py" --steps "$STEPS" --threads "$THREADS" --seed "$1" --label pytorch-tuned
}

echo "# annotated copy task, $STEPS steps, $THREADS thread(s), $ROUNDS rounds from seed $FIRST (results also in $OUT/annotated.jsonl)"
: > "$OUT/annotated.jsonl"
r=$FIRST
while [ "$r" -lt $((FIRST + ROUNDS)) ]; do
    for run in ours peer_installed peer_tuned; do
        $run "$r" | tee -a "$OUT/annotated.jsonl"
    done
    r=$((r + 1))
done

if [ "$TINY" != 0 ]; then
echo "# tiny preset (64/4/256, 2+2), copy task: time to 100% exact match on 200 held-out sequences"
: > "$OUT/tiny.jsonl"
for seed in 1 2 3; do
    "$TXCLI" train --preset tiny --task copy --until-exact 1.0 --threads "$THREADS" --seed "$seed" --json --quiet 2>/dev/null \
        | sed 's/^{/{"impl": "ours-tiny", /' | tee -a "$OUT/tiny.jsonl"
done
fi

"$PY" - "$OUT/annotated.jsonl" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rows:
    by.setdefault(r["impl"], []).append(r)
ours = [r["tokens_per_s"] for r in by.get("ours", [])]
where = next((r for r in by.get("ours", []) if "isa" in r), None)   # txcli train --json says where it ran
if where:
    ceiling = ("%.2f GHz x %d FLOP/cycle = %.1f GFLOP/s per core" %
               (where["max_ghz"], where["flops_per_cycle"], where["max_ghz"] * where["flops_per_cycle"])
               if where["max_ghz"] > 0 else "unknown clock x %d FLOP/cycle per core" % where["flops_per_cycle"])
    print("# CPU: %s; GEMM path (ours): %s; FMA ceiling: %s" % (where["cpu"], where["isa"], ceiling))
for impl, rs in by.items():
    t = [r["tokens_per_s"] for r in rs]
    print("%-18s tokens/s median %8.1f (min %.1f, max %.1f)  exact match %s" %
          (impl, statistics.median(t), min(t), max(t), [r["exact_match"] for r in rs]))
for impl in ("pytorch-installed", "pytorch-tuned"):
    peers = [r["tokens_per_s"] for r in by.get(impl, [])]
    if ours and peers:
        ratios = [o / p for o, p in zip(ours, peers)]
        print("ours / %-17s median %.2fx (min %.2f, max %.2f)" % (impl, statistics.median(ratios), min(ratios), max(ratios)))
EOF
