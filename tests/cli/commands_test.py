#!/usr/bin/env python3
# txcli's command table (cli/txcli.cpp, COMMANDS) against its documentation: `txcli --help` lists
# exactly the commands of docs/cli.md's synopsis, in its order; each of them answers `--help` with its
# own usage line and exit 0; an unknown command and a bare `txcli` exit 2 with the usage on stderr; the
# window options are refused or read back.
#   usage: commands_test.py TXCLI DOCS_CLI_MD
import os
import re
import subprocess
import sys
import tempfile

from cli_checks import check, finish  # tests/cli/cli_checks.py, beside this script

txcli, cli_md = sys.argv[1], sys.argv[2]


def run(*args):
    return subprocess.run([txcli, *args], capture_output=True, text=True, timeout=120)


# docs/cli.md's synopsis: the first ``` block, one "txcli NAME ..." line per command.
synopsis = open(cli_md, encoding="utf-8").read().split("```")[1]
documented = re.findall(r"^txcli ([a-z-]+)", synopsis, re.M)
check(len(documented) >= 12, "docs/cli.md's synopsis names at least 12 commands: " + " ".join(documented))

usage = run("--help")
check(usage.returncode == 0 and usage.stderr == "", "txcli --help exits 0 and writes to stdout only")
listed = re.findall(r"^  ([a-z-]+)  ", usage.stdout, re.M)
check(listed == documented, "txcli --help lists docs/cli.md's commands in its order:\n  listed:     "
      + " ".join(listed) + "\n  documented: " + " ".join(documented))
check(all(len(line) <= 100 for line in usage.stdout.splitlines()), "the usage text fits in 100 columns")
check(run("-h").stdout == usage.stdout and run("help").stdout == usage.stdout, "-h and help print the same usage")

for name in documented:
    p = run(name, "--help")
    check(p.returncode == 0, "txcli " + name + " --help exits 0 (got " + str(p.returncode) + ": " + p.stderr.strip() + ")")
    check(p.stdout.startswith("usage: txcli " + name + " "), "txcli " + name + " --help starts with its own usage line")

bare = run()
check(bare.returncode == 2 and bare.stdout == "" and bare.stderr == usage.stdout,
      "txcli without a command exits 2 with the usage on stderr")
unknown = run("no-such-command")
check(unknown.returncode == 2 and unknown.stderr == "txcli: unknown command 'no-such-command'\n" + usage.stdout,
      "an unknown command exits 2, names it and prints the usage on stderr")

# The window options: a bad list and a dilation without a window are refused with the setting named;
# a good one is written and read back (txcli info's variants line).
with tempfile.TemporaryDirectory() as folder:
    out = os.path.join(folder, "window.safetensors")
    bad = run("init", "--out", out, "--window", "4", "--global-positions", "0,x")
    check(bad.returncode != 0 and "--global-positions: 'x' is not a position" in bad.stderr,
          "txcli init refuses --global-positions 0,x naming the option and the piece: " + bad.stderr.strip())
    lone = run("init", "--out", out, "--window-dilation", "2")
    check(lone.returncode != 0 and "window_dilation (2) needs a sliding window, and window is 0" in lone.stderr,
          "txcli init refuses a dilation without a window, naming both: " + lone.stderr.strip())
    check(not os.path.exists(out), "nothing is written for a refused model")
    good = run("init", "--out", out, "--d-model", "16", "--heads", "2", "--window", "4", "--window-dilation", "2",
               "--global-positions", "3, 0")
    info = run("info", "--checkpoint", out)
    check(good.returncode == 0 and "window 4 (dilation 2; global 0, 3)" in info.stdout,
          "txcli init writes the window, and txcli info reads it back: " + good.stderr.strip() + info.stdout[:400])

# Speculative decoding: bad settings are refused with the option named; one sentence decodes to greedy's
# output. Quantization-aware training refuses a low-precision run, naming both settings.
zero = run("speculative", "--src", "The red car is big.", "--k", "0")
check(zero.returncode == 2 and "--k" in zero.stderr, "txcli speculative refuses --k 0: " + zero.stderr.strip())
both = run("speculative", "--src", "The red car is big.", "--draft-layers", "1", "--draft", "x.safetensors")
check(both.returncode == 2 and "--draft FILE and --draft-layers L" in both.stderr,
      "txcli speculative refuses two drafts: " + both.stderr.strip())
many = run("speculative", "--src", "The red car is big.", "--draft-layers", "9")
check(many.returncode == 2 and "--draft-layers" in many.stderr, "txcli speculative refuses a draft as deep as the model: "
      + many.stderr.strip())
one = run("speculative", "--src", "The red car is big.", "--k", "3", "--repeat", "1")
check(one.returncode == 0 and "outputs equal to greedy decoding's: 1 of 1" in one.stdout,
      "txcli speculative decodes one sentence as greedy decoding does: " + one.stdout[-400:] + one.stderr.strip())
qat = run("train", "--task", "copy", "--steps", "1", "--qat", "--precision", "bf16")
check(qat.returncode == 2 and "--qat" in qat.stderr and "--precision bf16" in qat.stderr,
      "txcli train refuses --qat with --precision bf16, naming both: " + qat.stderr.strip())

finish("ok   txcli lists, dispatches and documents the same " + str(len(documented)) + " commands")
