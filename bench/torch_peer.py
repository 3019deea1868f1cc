# A PyTorch peer of our benchmarks (docs/design.md §10: a fair peer), shared by bench/bench_*.py:
# its threads, its two environments ("as installed" and "tuned"), its worker process (the driver
# sends one JSON request a line, the worker answers one JSON line), its wall-clock timing, the
# sinusoidal PE it adds as ours does, and the parts of our safetensors checkpoints it reads
# (8-byte little-endian header length, JSON header with the config in __metadata__, data).
# torch is imported inside the functions: the drivers that only start workers never load it.
import ctypes
import json
import math
import os
import struct
import subprocess
import sys
import time

TUNED_MALLOC = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296"
OPENBLAS_OPENMP = "/usr/lib/x86_64-linux-gnu/openblas-openmp"


# ---------------------------------------------------------------------------------------------
# Threads and environments

def pin_threads(n):
    """torch's intra-op pool and OpenBLAS's own pool to N threads."""
    import torch

    torch.set_num_threads(n)
    # torch.set_num_threads does not reach OpenBLAS's own pool (docs/design.md §10). Debian's
    # libblas.so.3 from OpenBLAS is a thin front over libopenblas.so.0, so one call reaches the pool.
    for lib in ("libopenblas.so.0", "libblas.so.3"):
        try:
            ctypes.CDLL(lib).openblas_set_num_threads(n)
            break
        except (OSError, AttributeError):
            continue


def peer_envs():
    """(as installed, tuned, notes): the worker environments, both on one thread, and what tuned changes."""
    base = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    tuned = dict(base, GLIBC_TUNABLES=TUNED_MALLOC)
    tuned.pop("OPENBLAS_CORETYPE", None)
    notes = ["OPENBLAS_CORETYPE unset", "GLIBC_TUNABLES=" + TUNED_MALLOC]
    # Our AVX2 path (TX_ISA=avx2) is compared with OpenBLAS on AVX2 kernels too: the same ISA.
    if os.environ.get("TX_ISA") == "avx2":
        tuned["OPENBLAS_CORETYPE"] = "Haswell"
        notes[0] = "OPENBLAS_CORETYPE=Haswell (AVX2, as TX_ISA=avx2)"
    if os.path.isdir(OPENBLAS_OPENMP):
        # no empty entry when LD_LIBRARY_PATH was unset: the loader would read it as the working directory
        tuned["LD_LIBRARY_PATH"] = ":".join(p for p in (OPENBLAS_OPENMP, tuned.get("LD_LIBRARY_PATH")) if p)
        notes.append("LD_LIBRARY_PATH=" + OPENBLAS_OPENMP)
    else:
        notes.append("(no OpenMP OpenBLAS installed: pthread build)")
    return base, tuned, notes


# ---------------------------------------------------------------------------------------------
# The worker process

class Peer:
    """A PyTorch worker process (SCRIPT --worker, which calls serve) that answers one JSON request per line."""

    def __init__(self, label, env, script):
        self.label = label
        self.proc = subprocess.Popen([sys.executable, script, "--worker"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, req):
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.label} PyTorch worker died")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def serve(answer):
    """The worker side of Peer: one thread, then ANSWER(request dict) -> reply dict for each line of stdin."""
    pin_threads(1)
    for line in sys.stdin:
        print(json.dumps(answer(json.loads(line))), flush=True)


def wall_ms(f, repeats, warmup):
    """Wall-clock ms of REPEATS calls of F, after WARMUP untimed ones."""
    for _ in range(warmup):
        f()
    ms = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        ms.append((time.perf_counter() - start) * 1e3)
    return ms


# ---------------------------------------------------------------------------------------------
# The model's inputs, as ours

def sinusoidal_pe(length, d):
    """[length, d] float32: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(the same), computed in
    float64 as ours (core/ops/ops_embedding.cpp)."""
    import torch

    pe = torch.zeros(length, d)
    pos = torch.arange(length, dtype=torch.float64)[:, None]
    inv = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-math.log(10000.0) / d))
    pe[:, 0::2] = torch.sin(pos * inv).float()
    pe[:, 1::2] = torch.cos(pos * inv[: d // 2]).float()
    return pe


def _read_header(f, path):
    """(header dict, offset of the data) of the safetensors file open as F."""
    raw = f.read(8)
    if len(raw) != 8:
        sys.exit(f"{path}: too short for a safetensors file")
    (n,) = struct.unpack("<Q", raw)
    return json.loads(f.read(n).decode("utf-8")), 8 + n


def checkpoint_header(path):
    """(config dict, whole safetensors header) of one of our checkpoints; reads the header only."""
    with open(path, "rb") as f:
        header, _ = _read_header(f, path)
    return json.loads(header["__metadata__"]["config"]), header


def read_checkpoint(path):
    """(config dict, {name: float32 numpy array}) of one of our checkpoints: its F32, BF16 and F16
    tensors (the parameters; BF16 is the top half of a float32's bits, so widening is exact)."""
    import numpy as np

    with open(path, "rb") as f:
        header, _ = _read_header(f, path)
        data = f.read()
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        if entry["dtype"] == "F32":
            values = np.frombuffer(data, dtype="<f4", count=(end - begin) // 4, offset=begin)
        elif entry["dtype"] == "BF16":
            halves = np.frombuffer(data, dtype="<u2", count=(end - begin) // 2, offset=begin)
            values = (halves.astype(np.uint32) << 16).view(np.float32)
        elif entry["dtype"] == "F16":
            values = np.frombuffer(data, dtype="<f2", count=(end - begin) // 2, offset=begin).astype(np.float32)
        else:
            continue
        tensors[name] = values.reshape(entry["shape"])
    return json.loads(metadata["config"]), tensors


def checkpoint_u8(path, name):
    """The bytes of one U8 tensor of one of our checkpoints (the tokenizer's model, for one)."""
    with open(path, "rb") as f:
        header, data_offset = _read_header(f, path)
        if name not in header:
            sys.exit(f"{path}: no tensor '{name}' (a checkpoint of a translate run holds one)")
        entry = header[name]
        if entry["dtype"] != "U8":
            sys.exit(f"{path}: '{name}' is {entry['dtype']}, expected U8")
        begin, end = entry["data_offsets"]
        f.seek(data_offset + begin)
        return f.read(end - begin)
