#!/usr/bin/env python3
# The PyTorch peers' shared code (bench/torch_peer.py, bench_generate.cached_greedy, bench_train.Model)
# against references written here from the formulas: the PE from math.sin/cos, the checkpoint readers
# against tests/safetensors_py.py, the cached greedy loop against a full recompute with no cache, and
# Model.greedy against a step-by-step decode of the whole prefix; plus the worker round trip and the
# tuned environment. Needs python3-torch (exit 77, skipped, without it).
#   usage: torch_peer_test.py REPO_ROOT
import math
import os
import struct
import subprocess
import sys

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "bench"))
sys.path.insert(0, os.path.join(root, "tests"))
try:
    import torch
except ImportError:
    print("python3-torch is not installed: skipped")
    sys.exit(77)
import safetensors_py
import torch_peer
from bench_generate import SRC_LEN, cached_greedy, load_weights
from bench_train import BOS, EOS, PAD, Model

MODEL = os.path.join(root, "assets", "models", "everyday.safetensors")   # Post-LN, 4+4 layers, with a tokenizer
failures = []


def check(ok, what):
    print(("ok      " if ok else "FAILED  ") + what)
    if not ok:
        failures.append(what)


# --- sinusoidal_pe: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(the same), in float64 here.
pe = torch_peer.sinusoidal_pe(50, 16)
worst = max(abs(pe[p, i + k].item() - f(p / 10000 ** (i / 16)))
            for p in range(50) for i in range(0, 16, 2) for k, f in ((0, math.sin), (1, math.cos)))
check(pe.shape == (50, 16) and pe.dtype == torch.float32 and worst <= 6e-8,
      f"sinusoidal_pe within float32 rounding of the formula (worst {worst:.1e})")

# --- The checkpoint readers against the plain-Python reader of the test suite.
config, header = torch_peer.checkpoint_header(MODEL)
config2, arrays = torch_peer.read_checkpoint(MODEL)
check(config == config2 and config["norm"] == "post" and config["d_model"] == 256,
      "checkpoint_header and read_checkpoint give the same config")
name = "decoder.layers.1.ffn.linear2.bias"
shape = header[name]["shape"]
small = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"torch_peer_test_{os.getpid()}.safetensors")
safetensors_py.write(small, [("a", [2, 3], [0.5, -1.0, 2.25, 3.0, -4.5, 0.125]), ("b", [1], [7.0])],
                     {"config": '{"d_model": 2}'})
try:
    c_small, t_small = torch_peer.read_checkpoint(small)
    check(c_small == {"d_model": 2} and t_small["a"].shape == (2, 3)
          and t_small["a"].ravel().tolist() == [0.5, -1.0, 2.25, 3.0, -4.5, 0.125]
          and t_small["b"].tolist() == [7.0], "read_checkpoint reads what safetensors_py.write wrote")
finally:
    os.remove(small)
check(list(arrays[name].shape) == shape, f"read_checkpoint keeps {name}'s shape {shape}")
parameters = [n for n, e in header.items() if n != "__metadata__" and e["dtype"] != "U8"]
check(sorted(arrays) == sorted(parameters), "read_checkpoint reads every parameter, whatever its dtype")
# A half tensor's first values, widened here with struct from its raw bytes.
for n in parameters:
    dtype = header[n]["dtype"]
    if dtype not in ("BF16", "F16"):
        continue
    begin, _ = header[n]["data_offsets"]
    with open(MODEL, "rb") as f:
        (header_bytes,) = struct.unpack("<Q", f.read(8))
        f.seek(8 + header_bytes + begin)
        raw = f.read(8)
    halves = struct.unpack("<4H", raw)
    expected = ([struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in halves] if dtype == "BF16"
                else list(struct.unpack("<4e", raw)))
    check(arrays[n].ravel()[:4].tolist() == expected, f"read_checkpoint widens {dtype} {n} exactly")
    break
tokenizer = torch_peer.checkpoint_u8(MODEL, "tokenizer.model")
begin, end = header["tokenizer.model"]["data_offsets"]
check(len(tokenizer) == end - begin and tokenizer[:1] == b"\n",
      "checkpoint_u8 returns the tokenizer's bytes (a protobuf opening with field 1)")

# --- The tuned environment: OPENBLAS_CORETYPE unset (Haswell under TX_ISA=avx2), no empty
# LD_LIBRARY_PATH entry (the loader reads one as the working directory), one thread in both.
saved = dict(os.environ)
real_isdir = torch_peer.os.path.isdir
try:
    torch_peer.os.path.isdir = lambda p: p == torch_peer.OPENBLAS_OPENMP or real_isdir(p)
    os.environ.pop("LD_LIBRARY_PATH", None)
    os.environ.pop("TX_ISA", None)
    os.environ["OPENBLAS_CORETYPE"] = "Zen"
    base, tuned, notes = torch_peer.peer_envs()
    check(tuned["LD_LIBRARY_PATH"] == torch_peer.OPENBLAS_OPENMP and "OPENBLAS_CORETYPE" not in tuned
          and base["OPENBLAS_CORETYPE"] == "Zen" and tuned["GLIBC_TUNABLES"] == torch_peer.TUNED_MALLOC
          and base["OPENBLAS_NUM_THREADS"] == tuned["OPENBLAS_NUM_THREADS"] == "1",
          "peer_envs: tuned unsets OPENBLAS_CORETYPE, adds the OpenMP OpenBLAS alone and the malloc tunables")
    os.environ["LD_LIBRARY_PATH"] = "/opt/x"
    os.environ["TX_ISA"] = "avx2"
    base, tuned, notes = torch_peer.peer_envs()
    check(tuned["LD_LIBRARY_PATH"] == torch_peer.OPENBLAS_OPENMP + ":/opt/x" and tuned["OPENBLAS_CORETYPE"] == "Haswell"
          and notes[0].startswith("OPENBLAS_CORETYPE=Haswell"),
          "peer_envs: the OpenMP OpenBLAS before an existing LD_LIBRARY_PATH; Haswell kernels under TX_ISA=avx2")
finally:
    torch_peer.os.path.isdir = real_isdir
    os.environ.clear()
    os.environ.update(saved)

# --- pin_threads, in a process started with 2 threads everywhere: torch's pool and, where OpenBLAS is
# installed, the pool of the OpenBLAS torch loaded (the one libopenblas.so.0 names) end at 1.
probe = ("import ctypes, torch, torch_peer\n"
         "try:\n    blas = ctypes.CDLL('libopenblas.so.0').openblas_get_num_threads\n"
         "except (OSError, AttributeError):\n    blas = lambda: 1\n"
         "before = blas()\ntorch_peer.pin_threads(1)\nprint(before, blas(), torch.get_num_threads())\n")
out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=os.path.join(root, "bench"),
                     env=dict(os.environ, OPENBLAS_NUM_THREADS="2", OMP_NUM_THREADS="2")).stdout.split()
check(out[1:] == ["1", "1"], f"pin_threads(1): OpenBLAS {out[0] if out else '?'} -> {out[1:2]} threads, torch {out[2:]}")

# --- wall_ms: WARMUP untimed calls, then REPEATS timed ones.
calls = []
ms = torch_peer.wall_ms(lambda: calls.append(1), 3, 2)
check(len(calls) == 5 and len(ms) == 3 and all(m >= 0 for m in ms), "wall_ms: 2 warm-up + 3 timed calls")

# --- The cached greedy loop against a full recompute: every step runs the whole prefix through the
# decoder with a causal mask, heads one by one, no cache, LayerNorm from its formula.
config, w = load_weights(MODEL)
n = 10
with torch.no_grad():
    cached = cached_greedy(config, w, n)()
D, H = config["d_model"], config["heads"]
dk, eps = D // H, config.get("ln_eps", 1e-5)
P = torch.tensor([[(math.sin if i % 2 == 0 else math.cos)(p / 10000 ** ((i - i % 2) / D)) for i in range(D)]
                  for p in range(SRC_LEN + n + 1)], dtype=torch.float32)


def lin(x, name):
    return x @ w[name + ".weight"].T + w[name + ".bias"]


def layer_norm(x, name):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w[name + ".weight"] + w[name + ".bias"]


def attention(xq, xkv, name, causal):
    q, k, v = lin(xq, name + ".q_proj"), lin(xkv, name + ".k_proj"), lin(xkv, name + ".v_proj")
    heads = []
    for h in range(H):
        cols = slice(h * dk, (h + 1) * dk)
        s = q[:, cols] @ k[:, cols].T / math.sqrt(dk)
        if causal:
            s = s + torch.triu(torch.full(s.shape, float("-inf")), 1)
        heads.append(torch.softmax(s, -1) @ v[:, cols])
    return lin(torch.cat(heads, 1), name + ".out_proj")


g = torch.Generator().manual_seed(1)
src = torch.randint(4, config["src_vocab"], (SRC_LEN - 1,), generator=g).tolist() + [config["special"]["eos"]]
with torch.no_grad():
    x = w["src_embed.weight"][src] * math.sqrt(D) + P[:SRC_LEN]
    for l in range(config["encoder_layers"]):
        p = f"encoder.layers.{l}"
        x = layer_norm(x + attention(x, x, p + ".self_attn", False), p + ".norm1")
        x = layer_norm(x + lin(torch.relu(lin(x, p + ".ffn.linear1")), p + ".ffn.linear2"), p + ".norm2")
    full = [config["special"]["bos"]]
    for _ in range(n):
        y = w["tgt_embed.weight"][full] * math.sqrt(D) + P[:len(full)]
        for l in range(config["decoder_layers"]):
            p = f"decoder.layers.{l}"
            y = layer_norm(y + attention(y, y, p + ".self_attn", True), p + ".norm1")
            y = layer_norm(y + attention(y, x, p + ".cross_attn", False), p + ".norm2")
            y = layer_norm(y + lin(torch.relu(lin(y, p + ".ffn.linear1")), p + ".ffn.linear2"), p + ".norm3")
        full.append(int(torch.argmax(lin(y[-1:], "generator")[0])))
check(cached == full, f"cached_greedy's {n} ids equal a full recompute's ({cached[1:]} vs {full[1:]})")

# --- bench_train.Model.greedy against decoding the whole prefix each step, without stopping early;
# its rows are cut at their EOS as the evaluations do.
torch.manual_seed(3)
model = Model(14, 32, 4, 64, 2, 0.1).eval()
src = torch.randint(4, 14, (6, 7))
src[:, -1] = EOS
with torch.no_grad():
    ys = model.greedy(src, 9)
    memory, pad = model.encode(src)
    ref = torch.full((6, 1), BOS, dtype=torch.long)
    for _ in range(9):
        ref = torch.cat([ref, model.decode(memory, pad, ref)[:, -1].argmax(-1)[:, None]], 1)


def cut(row):
    return row[: row.index(EOS) + 1] if EOS in row else row


check(ys.shape[1] <= 10 and all(cut(a[1:]) == cut(b[1:])[: len(a) - 1] and PAD not in cut(a[1:])
                                for a, b in zip(ys.tolist(), ref.tolist())),
      "Model.greedy's rows equal a whole-prefix greedy decode up to their EOS")

# --- The worker round trip (bench_generate.py --worker through Peer and serve), and a dead worker named.
base, _, _ = torch_peer.peer_envs()
peer = torch_peer.Peer("test", base, os.path.join(root, "bench", "bench_generate.py"))
try:
    reply = peer.run({"checkpoint": MODEL, "tokens": 3, "repeats": 2, "precision": "fp32"})
    check(set(reply) == {"ms"} and reply["ms"] > 0, f"a generation worker answers one request ({reply})")
finally:
    peer.close()
peer = torch_peer.Peer("test", base, os.path.join(root, "bench", "bench_generate.py"))
print("(a worker is now sent a line that is not JSON: its traceback below is expected)", flush=True)
try:
    peer.proc.stdin.write("not json\n")
    peer.proc.stdin.flush()
    peer.run({})
    check(False, "a dead worker raises")
except RuntimeError as e:
    check(str(e) == "the test PyTorch worker died", f"a dead worker is named: {e}")
finally:
    peer.proc.stdin.close()
    peer.proc.wait()

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("bench PyTorch peers: every check passed")
