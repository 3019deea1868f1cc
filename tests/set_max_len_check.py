#!/usr/bin/python3
# End-to-end check of tools/set_max_len.py (a ctest): on a copy of the shipped translation model,
# raising max_len to 1024 keeps every tensor byte for byte, `txcli info` reads the new max_len, and
# the trace of the default sentence (`txcli forward --dump`, every step's output) is bit-identical
# to the original's; a learned-positions checkpoint (txcli init), a max_len out of range and a file
# that is not a checkpoint are refused with a message naming the problem, and left unchanged.
# Run: set_max_len_check.py TXCLI ROOT   (ROOT: the source tree, for the tool and the model)
import json
import os
import shutil
import subprocess
import sys
import tempfile


def tensors(path):
    """{name: raw bytes} of a safetensors file, and its metadata."""
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    return {k: raw[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]] for k, v in header.items()}, meta


def main():
    txcli, root = sys.argv[1], sys.argv[2]
    tool = os.path.join(root, "tools", "set_max_len.py")
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    def run(*args):
        return subprocess.run(list(args), capture_output=True, text=True)

    with tempfile.TemporaryDirectory() as d:
        original = os.path.join(d, "original.safetensors")
        shutil.copy(os.path.join(root, "assets", "models", "grammar.safetensors"), original)
        # A max_len the shipped model does not have, so that the rewrite is a real change.
        subprocess.run([sys.executable, tool, original, "64"], check=True, capture_output=True)
        longer = os.path.join(d, "longer.safetensors")
        r = run(sys.executable, tool, original, "1024", "--out", longer)
        check(r.returncode == 0 and "max_len 64 -> 1024" in r.stdout, "rewrites 64 -> 1024: " + r.stdout.strip())
        a, meta_a = tensors(original)
        b, meta_b = tensors(longer)
        check(a == b, f"all {len(a)} tensors byte-identical")
        ca, cb = json.loads(meta_a["config"]), json.loads(meta_b["config"])
        check(cb["max_len"] == 1024 and {**ca, "max_len": 1024} == cb, "the config differs only in max_len")
        check("max_len 1024" in run(txcli, "info", "--checkpoint", longer).stdout, "txcli info reads max_len 1024")
        sentence = "The small white dogs will not sleep in the old house."
        for name, path in (("a", original), ("b", longer)):
            subprocess.run([txcli, "forward", "--checkpoint", path, "--src", sentence, "--dump",
                            os.path.join(d, f"trace-{name}.safetensors")], check=True, capture_output=True)
        ta, _ = tensors(os.path.join(d, "trace-a.safetensors"))
        tb, _ = tensors(os.path.join(d, "trace-b.safetensors"))
        check(len(ta) > 100 and ta == tb, f"the default sentence's trace is bit-identical ({len(ta)} tensors)")

        learned = os.path.join(d, "learned.safetensors")
        subprocess.run([txcli, "init", "--out", learned, "--positional", "learned"], check=True, capture_output=True)
        garbage = os.path.join(d, "garbage.safetensors")
        with open(garbage, "wb") as f:
            f.write(b"not a checkpoint at all")
        for path, value, want in ((learned, "1024", "learned positions"), (longer, "1", "must be between 2"),
                                  (longer, "5000", "must be between 2"), (garbage, "128", garbage)):
            before = open(path, "rb").read()
            r = run(sys.executable, tool, path, value)
            check(r.returncode == 1 and want in r.stderr and open(path, "rb").read() == before,
                  f"refuses {os.path.basename(path)} max_len {value}: {r.stderr.strip()}")
        check(not [f for f in os.listdir(d) if f.startswith(".max_len-")], "no temporary file left behind")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
