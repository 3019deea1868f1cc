#!/usr/bin/env python3
# End-to-end test of `txcli inspect` (cli/cmd_inspect.cpp): each view with --json on a small
# shipped model, checked for the properties docs/look-inside.md states: the lens's last row is the
# model's output, the attribution's parts and remainder add up to the logit, patching is 0 / 1 at
# its ends and refuses sentences of different lengths (exit non-zero, one line naming both).
#   usage: inspect_cli_test.py TXCLI MODELS_DIR
import json
import math
import os
import subprocess
import sys

from cli_checks import check, finish  # tests/cli/cli_checks.py, beside this script

txcli, models = sys.argv[1], sys.argv[2]
# The small-grammar translation model (fast), and the decoder-only LM.
model = os.path.join(models, "grammar.safetensors")
lm = os.path.join(models, "lm.safetensors")
if not os.path.exists(model):
    sys.exit("FAIL: " + model + " is not there")
CLEAN, CORRUPT = "The red car is big.", "The red car is small."


def run(*args, expect_ok=True):
    p = subprocess.run([txcli, "inspect", *args], capture_output=True, text=True, timeout=300)
    if expect_ok and p.returncode != 0:
        print(p.stdout, p.stderr)
        raise SystemExit("txcli inspect " + " ".join(args) + " failed with exit " + str(p.returncode))
    return p


def view(name, *args, checkpoint=model):
    return json.loads(run(name, "--checkpoint", checkpoint, "--json", *args).stdout)


# Lens: the last row is the model's output: at every position its top token is the token the model
# chose there, which (greedy decoder input) is the next decoder input token, then EOS.
for ckpt, src in ((model, CLEAN), (lm, "The small white dogs")):
    if not os.path.exists(ckpt):
        continue
    lens = view("lens", "--src", src, checkpoint=ckpt)
    L, T = lens["layers"], lens["positions"]
    last = [c for c in lens["cells"] if c["layer"] == L - 1]
    check(len(last) == T and len(lens["cells"]) == L * T, ckpt + ": lens grid is layers x positions")
    check([c["top"][0] for c in last] == lens["chosen"], ckpt + ": lens last row's top tokens are the chosen tokens")
    check(all(abs(c["chosen_prob"] - math.exp(c["top_log_probs"][0])) < 1e-5 for c in last),
          ckpt + ": lens last row gives the chosen token the top probability")
    toks = lens["position_tokens"]
    if ckpt == model:
        chosen_text = [c["top_tokens"][0] for c in last]
        check(chosen_text[:-1] == toks[1:] and chosen_text[-1] == "<eos>",
              "lens last row = the greedy output: " + " ".join(chosen_text) + " vs decoder input " + " ".join(toks))
    check(all(0.0 <= c["chosen_prob"] <= 1.0 for c in lens["cells"]), ckpt + ": lens probabilities in [0, 1]")

# Attribution: parts + remainder = the logit, at the last and at a chosen position.
for extra in ((), ("--position", "1")):
    a = view("attribution", "--src", CLEAN, *extra)
    total = sum(p["value"] for p in a["parts"]) + a["remainder"]
    check(abs(total - a["logit"]) <= 1e-3 * max(1.0, abs(a["logit"])),
          "attribution %s: parts + remainder %.5f = logit %.5f" % (" ".join(extra), total, a["logit"]))
    check(abs(a["sum"] - total) < 1e-6, "attribution prints the sum of its parts and remainder")

# Patching: the metric's ends, the grids' shapes, every layer's output at every position restores.
p = view("patch", "--src", CLEAN, "--corrupt", CORRUPT)
check(p["clean"] != p["corrupted"], "patch: the clean and corrupted metric differ (" + p["metric"] + ")")
names = {g["name"]: g for g in p["grids"]}
check(any(n.startswith("heads.") for n in names), "patch has per-head grids")
for g in p["grids"]:
    check(len(g["normalised"]) == g["rows"] * g["cols"], "patch grid " + g["name"] + " is rows x cols")
check(all(names.get(n) for n in ("encoder.layer", "decoder.layer")), "patch has the encoder and decoder layer grids")
check(all(v is None or -10.0 < v < 10.0 for g in p["grids"] for v in g["normalised"]), "patch values are numbers or null")
changed = [i for i, (a, b) in enumerate(zip(p["clean_tokens"], p["corrupted_tokens"])) if a != b]
check(len(p["clean_tokens"]) == len(p["corrupted_tokens"]) and len(changed) >= 1, "patch reports both piece sequences, which differ")

# Different lengths: refused, exit non-zero, one line naming both lengths.
r = run("patch", "--checkpoint", model, "--src", CLEAN, "--corrupt", "The red car is very big today.", expect_ok=False)
message = (r.stderr + r.stdout).strip()
check(r.returncode != 0, "patch with different lengths exits non-zero (got %d)" % r.returncode)
check(len(message.splitlines()) == 1 and any(ch.isdigit() for ch in message), "the refusal is one line naming the lengths: " + message)
r = run("lens", "--checkpoint", model, "--src", "", expect_ok=False)
check(r.returncode != 0 and "empty" in (r.stderr + r.stdout), "an empty sentence is refused: " + (r.stderr + r.stdout).strip())

# Heads, rollout, entropy: shapes and ranges.
h = view("heads", "--src", CLEAN)
check(len(h["grids"]) == 3 and all(len(g["delta"]) == g["layers"] * g["heads"] for g in h["grids"]),
      "heads: three layers x heads grids")
ro = view("rollout", "--src", CLEAN)
N = ro["positions"]
check(all(abs(sum(ro["rollout"][i * N:(i + 1) * N]) - 1.0) < 1e-4 for i in range(N)), "rollout rows sum to 1")
check(ro["cross_layers"] > 0 and len(ro["cross"]) == ro["cross_layers"] * ro["target_positions"] * N,
      "rollout has decoder-over-source grids")
e = view("entropy", "--src", CLEAN)
check(all(0.0 <= x <= g["max_entropy"] + 1e-6 for g in e["grids"] for x in g["entropy"]),
      "entropy between 0 and the uniform maximum")

finish("txcli inspect: every check passed")
