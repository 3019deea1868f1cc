#!/usr/bin/env bash
# Trains copy (encoder-decoder) and induction (decoder-only) with each position scheme (ReLU FFN)
# and each FFN (sinusoidal positions), same budget and seeds, and prints a Markdown table: steps
# to 100% held-out exact match (copy) or to second-half loss < 0.1 (induction), and the result at
# test length 32 after training on length 16 (copy: 16 symbols; induction: 8 symbols twice).
#   usage: tools/compare_variants.sh [BUILD_DIR] [STEPS] [SEEDS]   (defaults: build, 1500, "1")
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
txcli="${1:-$root/build}/app/txcli"
steps="${2:-1500}"
seeds="${3:-1}"
[ -x "$txcli" ] || { echo "no txcli at $txcli: build it first (cmake --build build --target txcli)" >&2; exit 1; }
variants="sinusoidal:relu learned:relu rope:relu alibi:relu none:relu sinusoidal:gelu sinusoidal:swiglu"
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
for task in copy induction; do
    for v in $variants; do
        pos=${v%%:*} ffn=${v##*:}
        for seed in $seeds; do
            if [ "$task" = copy ]; then
                args=(--task copy --length 16 --until-exact 1 --test-length 32)
            else
                args=(--task induction --length 8 --until-loss 0.1 --test-length 16)
            fi
            json=$("$txcli" train "${args[@]}" --positional "$pos" --ffn "$ffn" --seed "$seed" --steps "$steps" \
                --eval-every 50 --quiet --json 2>/dev/null | tail -n 1)
            echo "$task $pos $ffn $seed $json" >> "$results"
            echo "done: $task $pos $ffn seed $seed" >&2
        done
    done
done
python3 - "$results" "$steps" <<'EOF'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    task, pos, ffn, seed, text = line.split(" ", 4)
    r = json.loads(text)
    reached = r["message"].startswith("reached")
    rows.setdefault((task, pos, ffn), []).append((r["steps"] if reached else None, r))
budget = sys.argv[2]
print("| task | positions | FFN | steps to target | at train length | at length 32 |")
print("|---|---|---|---|---|---|")
for (task, pos, ffn), runs in rows.items():
    steps = ", ".join(str(s) if s is not None else f"> {budget}" for s, _ in runs)
    if task == "copy":
        train = ", ".join(f"{100 * r['exact_match']:.0f}% exact" for _, r in runs)
        test = ", ".join(f"{100 * r['test_exact_match']:.0f}% exact, {100 * r['test_token_accuracy']:.0f}% tokens" for _, r in runs)
    else:
        train = ", ".join(f"loss {r['second_half_loss']:.3f}, {100 * r['second_half_accuracy']:.0f}%" for _, r in runs)
        test = ", ".join(f"loss {r['test_second_half_loss']:.3f}, {100 * r['test_second_half_accuracy']:.0f}%" for _, r in runs)
    print(f"| {task} | {pos} | {ffn} | {steps} | {train} | {test} |")
EOF
