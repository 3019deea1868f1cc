#!/usr/bin/env python3
# `txcli evaluate --translations FILE` (cli/cmd_evaluate.cpp) end to end on the small shipped
# translation model: the file has one line per pair, in order, and `txcli score` on it gives the
# BLEU, chrF and exact match that evaluate printed; a path that cannot be written is refused before
# any decoding (exit 2, one line naming it) and leaves nothing behind.
#   usage: evaluate_translations_test.py TXCLI MODELS_DIR
import json
import os
import subprocess
import sys
import tempfile

from cli_checks import check, finish  # tests/cli/cli_checks.py, beside this script

txcli, models = sys.argv[1], sys.argv[2]
model = os.path.join(models, "grammar.safetensors")
PAIRS = ["The red car is big.\tEl coche rojo es grande.",
         "The small dog sleeps.\tEl perro pequeño duerme.",
         "",   # an empty line is skipped, as every pairs reader here does
         "My sister reads a green book.\tMi hermana lee un libro verde."]


def run(*args):
    return subprocess.run([txcli, *args], capture_output=True, text=True, timeout=300)


with tempfile.TemporaryDirectory() as work:
    pairs = os.path.join(work, "pairs.tsv")
    with open(pairs, "w", encoding="utf-8") as f:
        f.write("\n".join(PAIRS) + "\n")
    out = os.path.join(work, "out.txt")
    p = run("evaluate", "--checkpoint", model, "--data", pairs, "--translations", out, "--json")
    check(p.returncode == 0, "evaluate --translations exits 0: " + p.stderr.strip())
    evaluated = json.loads(p.stdout)
    lines = open(out, encoding="utf-8").read().split("\n")
    check(lines[-1] == "" and len(lines) - 1 == 3, "one line per pair (3): " + repr(lines))
    check(not os.path.exists(out + ".tmp"), "the temporary file is renamed away")
    for line in lines[:-1]:
        check(line.strip() != "", "every pair has a translation: " + repr(line))
    scored = json.loads(run("score", "--ref", pairs, "--hyp", out, "--json").stdout)
    for key in ("bleu", "chrf"):
        check(abs(scored[key] - evaluated[key]) < 1e-6,
              "score on the file gives evaluate's " + key + ": " + str(scored[key]) + " vs " + str(evaluated[key]))
    check(abs(scored.get("exact_match", evaluated["exact_match"]) - evaluated["exact_match"]) < 1e-6,
          "score on the file gives evaluate's exact match")

    missing = os.path.join(work, "no-such-folder", "out.txt")
    p = run("evaluate", "--checkpoint", model, "--data", pairs, "--translations", missing)
    check(p.returncode == 2 and p.stdout == "" and "no-such-folder" in p.stderr and p.stderr.count("\n") == 1,
          "an unwritable --translations path is refused before decoding, naming it: " + repr(p.stderr))
    check(not os.path.exists(os.path.dirname(missing)), "nothing is created for a refused path")

finish("ok   evaluate --translations writes what score reads back to the same scores")
