#!/usr/bin/env bash
# Trains every row of the variant comparison (txcli compare-variants --list: copy with an
# encoder-decoder and induction with a decoder-only model, each position scheme with ReLU, each
# FFN with sinusoidal positions, 2 and 1 key/value heads, a rank-4 FFN, a window of 4 keys (dilated,
# with a global position), every seed; one model size, schedule and
# step budget) and prints a Markdown table: steps to the target (copy: 100% held-out exact match; induction: second-half
# loss < 0.1) and the result at test length 32 after training on length 16. Writes the per-row
# results that the app's Training panel shows next to a rerun (default assets/compare/results.json).
#   usage: tools/compare_variants.sh [BUILD_DIR] [RESULTS.json] [ROW_FILTER (grep -E on the ids)]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
txcli="${1:-$root/build}/app/txcli"
out="${2:-$root/assets/compare/results.json}"
filter="${3:-.}"
[ -x "$txcli" ] || { echo "no txcli at $txcli: build it first (cmake --build build --target txcli)" >&2; exit 1; }
python=/usr/bin/python3
[ -x "$python" ] || python=python3
runs="$(mktemp)"
trap 'rm -f "$runs" "$runs.err"' EXIT
"$txcli" compare-variants --list | while IFS=$'\t' read -r id task pos ffn seed budget test_length target kv_heads other; do
    grep -qE -- "$filter" <<< "$id" || continue
    if ! result=$("$txcli" train --compare-row "$id" --quiet --json 2>"$runs.err" | tail -n 1); then
        echo "row $id failed: $(tail -n 1 "$runs.err")" >&2
        exit 1
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$task" "$pos" "$ffn" "$kv_heads" "$other" "$seed" "$budget" "$result" >> "$runs"
    echo "done: $id: $("$python" -c 'import json,sys; print(json.loads(sys.argv[1])["message"])' "$result")" >&2
done
"$python" - "$runs" "$out" <<'PY'
import json, os, sys
rows, results = {}, {}
for line in open(sys.argv[1]):
    id_, task, pos, ffn, kv_heads, other, seed, budget, text = line.rstrip("\n").split("\t")
    spec = {"id": id_, "task": task, "positional": pos, "ffn": ffn, "kv_heads": int(kv_heads), "other": other,
            "seed": int(seed), "budget": int(budget)}
    r = json.loads(text)
    reached = r["message"].startswith("reached")
    if spec["task"] == "copy":
        train = f"{100 * r['exact_match']:.0f}% exact"
        test = f"{100 * r['test_exact_match']:.0f}% exact, {100 * r['test_token_accuracy']:.0f}% tokens"
    else:
        train = f"loss {r['second_half_loss']:.3f}, {100 * r['second_half_accuracy']:.0f}%"
        test = f"loss {r['test_second_half_loss']:.2f}, {100 * r['test_second_half_accuracy']:.0f}%"
    results[spec["id"]] = {"steps": r["steps"] if reached else None, "budget": spec["budget"],
                           "at_train_length": train, "at_test_length": test,
                           "train_s": r["train_s"], "cpu": r["cpu"], "isa": r["isa"]}
    rows.setdefault((spec["task"], spec["positional"], spec["ffn"], spec["kv_heads"], spec["other"]), []).append(
        (spec, results[spec["id"]]))
if not rows:
    sys.exit("no row matches the filter (txcli compare-variants --list shows the ids)")
print("| task | positions | FFN | key/value heads | other | steps to target (seeds " +
      ", ".join(str(s["seed"]) for s, _ in next(iter(rows.values()))) + ") | at training length | at length 32 | time |")
print("|---|---|---|---|---|---|---|---|---|")
for (task, pos, ffn, kv, other), runs in rows.items():
    steps = ", ".join(str(r["steps"]) if r["steps"] is not None else f"> {r['budget']}" for _, r in runs)
    train = "; ".join(r["at_train_length"] for _, r in runs)
    test = "; ".join(r["at_test_length"] for _, r in runs)
    time = ", ".join(f"{r['train_s']:.0f} s" for _, r in runs)
    print(f"| {task} | {pos} | {ffn} | {kv} | {other} | {steps} | {train} | {test} | {time} |")
os.makedirs(os.path.dirname(os.path.abspath(sys.argv[2])), exist_ok=True)
old = {}
if os.path.exists(sys.argv[2]):
    old = json.load(open(sys.argv[2])).get("rows", {})
old.update(results)
tmp = sys.argv[2] + ".tmp"
with open(tmp, "w") as f:
    json.dump({"command": "tools/compare_variants.sh", "rows": old}, f, indent=1, sort_keys=True)
    f.write("\n")
os.replace(tmp, sys.argv[2])
PY
