#!/usr/bin/env python3
"""txcli convert end to end on the shipped grammar model: F16 for every parameter, F16 for one named
with --only (the header's dtypes say which), and an unknown --only name refused (exit 2, nothing
written). Python's standard library only.
    usage: convert_test.py TXCLI MODELS_DIR"""

import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_checks import check, finish  # noqa: E402

txcli, models = sys.argv[1], sys.argv[2]
grammar = os.path.join(models, "grammar.safetensors")


def dtypes(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    return {name: e["dtype"] for name, e in header.items() if name != "__metadata__" and e["dtype"] != "U8"}


with tempfile.TemporaryDirectory() as d:
    every = os.path.join(d, "every.safetensors")
    r = subprocess.run([txcli, "convert", "--dtype", "f16", grammar, every], capture_output=True, text=True)
    check(r.returncode == 0, "convert --dtype f16 exits 0: " + r.stderr)
    if r.returncode == 0:
        check(set(dtypes(every).values()) == {"F16"}, "every parameter is F16")

    one = os.path.join(d, "one.safetensors")
    r = subprocess.run([txcli, "convert", "--dtype", "f16", "--only", "generator.weight", grammar, one], capture_output=True, text=True)
    check(r.returncode == 0, "convert --only exits 0: " + r.stderr)
    if r.returncode == 0:
        kinds = dtypes(one)
        check(kinds.get("generator.weight") == "F16", "generator.weight is F16")
        check(all(v == "F32" for k, v in kinds.items() if k != "generator.weight"), "the other parameters stay F32")

    bad = os.path.join(d, "bad.safetensors")
    r = subprocess.run([txcli, "convert", "--dtype", "bf16", "--only", "no.such.weight", grammar, bad], capture_output=True, text=True)
    check(r.returncode == 2 and "--only no.such.weight" in r.stderr, "an unknown --only name is refused by name: " + r.stderr)
    check(not os.path.exists(bad), "nothing is written for a refused conversion")

finish("txcli convert: f16, --only and a refused name as documented")
