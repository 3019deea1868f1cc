#!/usr/bin/python3
# Cached generation benchmark: ours (`txcli bench --decode`, the KV cache and the full recompute)
# against PyTorch 1.13 doing the same with the usual hand-written cached loop (nn.Transformer has
# no cache): per decoder layer a preallocated K/V cache [H, n, dk], one query row per step, the
# cross-attention K/V projected once. Same checkpoint weights, batch 1, a 16-id source, greedy
# choice of exactly n tokens after BOS (EOS does not stop either side), the encoder included, one
# thread, float32. Rounds alternate ours and the peer's two settings (docs/design.md §10): "as
# installed" and "tuned" (OPENBLAS_CORETYPE unset, the OpenMP OpenBLAS, glibc malloc kept).
# --precision bf16 runs both sides in BF16 autocast: ours `txcli bench --precision bf16` (weights
# stored in BF16, products summed in FP32), the peer inside torch.autocast("cpu", dtype=torch.bfloat16),
# PyTorch's own mixed-precision policy (its linear layers and matmuls in BF16, softmax, layer_norm and
# log_softmax in FP32).
# Usage: bench_generate.py --txcli PATH --checkpoint BASE.safetensors [--lengths 32,128,512]
#        [--rounds 3] [--repeats 3] [--precision fp32|bf16] [--json FILE]
# --json also writes the figures (tokens/s per length: median, min, max of the rounds, per series)
# for the explorer's Backend panel (transformer-explorer --generation-bench FILE).
import argparse
import json
import os
import statistics
import subprocess
import sys

from torch_peer import Peer, peer_envs, read_checkpoint, serve, sinusoidal_pe, wall_ms

SRC_LEN = 16   # txcli bench --decode's default source length


# ---------------------------------------------------------------------------------------------
# The PyTorch peer: the cached loop (bench_cuda.py runs it on the GPU too), and its worker side

def load_weights(path, device="cpu"):
    """(config, {name: tensor on DEVICE}) of a Post-LN checkpoint, for cached_greedy."""
    import torch

    config, arrays = read_checkpoint(path)
    if config.get("norm", "post") != "post":
        sys.exit(f"{path}: the generation peer is written for Post-LN checkpoints, this one is {config['norm']}")
    return config, {k: torch.from_numpy(v.copy()).to(device) for k, v in arrays.items()}


def cached_greedy(config, w, n, device="cpu"):
    """A function that greedily generates exactly N ids after BOS with the usual hand-written cached
    loop and returns them: per decoder layer a preallocated K/V cache [H, n, dk], one query row per
    step, the cross-attention K/V projected once, the encoder included. The source is SRC_LEN - 1
    seeded random ids + EOS; W are load_weights' tensors on DEVICE. The chosen id is read back every
    step (on a GPU, as ours downloads each step's log-probs)."""
    import math

    import torch
    import torch.nn.functional as F

    D, H, L = config["d_model"], config["heads"], config["decoder_layers"]
    dk = D // H
    eps = config.get("ln_eps", 1e-5)
    scale = 1.0 / math.sqrt(dk) if config.get("scale_attention", True) else 1.0
    pe = sinusoidal_pe(n + SRC_LEN + 1, D).to(device)
    g = torch.Generator().manual_seed(1)
    src = torch.tensor(torch.randint(4, config["src_vocab"], (SRC_LEN - 1,), generator=g).tolist()
                       + [config["special"]["eos"]], device=device)
    bos = config["special"]["bos"]

    def lin(x, name):
        return F.linear(x, w[name + ".weight"], w[name + ".bias"])

    def norm(x, name):
        return F.layer_norm(x, (D,), w[name + ".weight"], w[name + ".bias"], eps)

    def heads(x):   # [rows, D] -> [H, rows, dk]
        return x.view(-1, H, dk).transpose(0, 1)

    def attend(q, k, v):   # q [H, r, dk], k/v [H, keys, dk] -> [r, D]
        p = torch.softmax(torch.matmul(q, k.transpose(1, 2)) * scale, -1)
        return torch.matmul(p, v).transpose(0, 1).reshape(-1, D)

    def generate():
        x = w["src_embed.weight"][src] * math.sqrt(D) + pe[:SRC_LEN]
        for l in range(config["encoder_layers"]):
            p = f"encoder.layers.{l}"
            a = attend(heads(lin(x, p + ".self_attn.q_proj")), heads(lin(x, p + ".self_attn.k_proj")),
                       heads(lin(x, p + ".self_attn.v_proj")))
            x = norm(x + lin(a, p + ".self_attn.out_proj"), p + ".norm1")
            x = norm(x + lin(torch.relu(lin(x, p + ".ffn.linear1")), p + ".ffn.linear2"), p + ".norm2")
        cross = []
        self_k = torch.empty(L, H, n, dk, device=device)
        self_v = torch.empty(L, H, n, dk, device=device)
        for l in range(L):
            p = f"decoder.layers.{l}.cross_attn"
            cross.append((heads(lin(x, p + ".k_proj")), heads(lin(x, p + ".v_proj"))))
        ids = [bos]
        for t in range(n):
            y = w["tgt_embed.weight"][ids[-1]][None] * math.sqrt(D) + pe[t:t + 1]   # [1, D]
            for l in range(L):
                p = f"decoder.layers.{l}"
                self_k[l, :, t] = lin(y, p + ".self_attn.k_proj").view(H, dk)
                self_v[l, :, t] = lin(y, p + ".self_attn.v_proj").view(H, dk)
                a = attend(heads(lin(y, p + ".self_attn.q_proj")), self_k[l, :, :t + 1], self_v[l, :, :t + 1])
                y = norm(y + lin(a, p + ".self_attn.out_proj"), p + ".norm1")
                a = attend(heads(lin(y, p + ".cross_attn.q_proj")), *cross[l])
                y = norm(y + lin(a, p + ".cross_attn.out_proj"), p + ".norm2")
                y = norm(y + lin(torch.relu(lin(y, p + ".ffn.linear1")), p + ".ffn.linear2"), p + ".norm3")
            ids.append(int(torch.argmax(torch.log_softmax(lin(y, "generator"), -1)[0])))
        return ids

    return generate


def worker():
    import contextlib

    import torch

    loaded = {}

    def answer(req):
        if req["checkpoint"] not in loaded:
            loaded[req["checkpoint"]] = load_weights(req["checkpoint"])
        generate = cached_greedy(*loaded[req["checkpoint"]], req["tokens"])

        def precision():
            if req["precision"] == "bf16":
                return torch.autocast("cpu", dtype=torch.bfloat16)
            return contextlib.nullcontext()

        def run():
            with torch.no_grad(), precision():
                return generate()

        return {"ms": statistics.median(wall_ms(run, req["repeats"], warmup=1))}

    serve(answer)


# ---------------------------------------------------------------------------------------------
# The driver

def ours(txcli, checkpoint, lengths, repeats, precision):
    """{n: (cached tok/s, full tok/s)} from txcli bench --decode's table."""
    out = subprocess.run([txcli, "bench", "--checkpoint", checkpoint, "--decode", ",".join(map(str, lengths)),
                          "--threads", "1", "--repeats", str(repeats), "--src-len", str(SRC_LEN),
                          "--precision", precision],
                         check=True, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1")).stdout
    result = {}
    for line in out.splitlines():
        f = line.split()
        # tokens, full ms, [min-max], full tok/s, cached ms, [min-max], cached tok/s, speed-up, same ids
        if len(f) == 9 and f[0].isdigit():
            result[int(f[0])] = (float(f[6]), float(f[3]))
            if f[8] != "yes":
                raise SystemExit(f"txcli bench --decode: the cached and full paths chose different ids at {f[0]} tokens")
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--txcli")
    ap.add_argument("--checkpoint")
    ap.add_argument("--lengths", default="32,128,512")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--precision", choices=("fp32", "bf16"), default="fp32",
                    help="bf16: ours in BF16 autocast against torch.autocast('cpu', dtype=torch.bfloat16)")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    if args.worker:
        return worker()
    if not args.txcli or not args.checkpoint:
        ap.error("--txcli and --checkpoint are required")
    lengths = [int(x) for x in args.lengths.split(",")]
    installed_env, tuned_env, _ = peer_envs()
    here = os.path.abspath(__file__)
    peers = {"installed": Peer("as installed", installed_env, here), "tuned": Peer("tuned", tuned_env, here)}
    rows = {n: {"cached": [], "full": [], "installed": [], "tuned": []} for n in lengths}
    for r in range(args.rounds):
        for n, (cached, full) in ours(args.txcli, args.checkpoint, lengths, args.repeats, args.precision).items():
            rows[n]["cached"].append(cached)
            rows[n]["full"].append(full)
        for name, peer in peers.items():
            for n in lengths:
                reply = peer.run({"checkpoint": os.path.abspath(args.checkpoint), "tokens": n,
                                  "repeats": args.repeats, "precision": args.precision})
                rows[n][name].append(1000.0 * n / reply["ms"])
        print(f"round {r + 1} of {args.rounds} done", file=sys.stderr)
    for peer in peers.values():
        peer.close()

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    flags = open("/proc/cpuinfo").read()
    autocast = "BF16 autocast on both sides" if args.precision == "bf16" else "float32"
    print(f"CPU: {cpu} ({'AVX-512' if 'avx512f' in flags else 'AVX2'}); {autocast}; 1 thread; batch 1; source {SRC_LEN} ids; "
          f"greedy, exactly n tokens, encoder included; median tokens/s of {args.rounds} rounds "
          f"(each the median of {args.repeats} runs)")
    print(f"{'tokens':>6}  {'ours cached':>11}  {'ours full':>9}  {'cache saves':>11}  {'torch installed':>15}  "
          f"{'torch tuned':>11}  {'ours / tuned (min-max)':>24}")
    for n in lengths:
        v = rows[n]
        ratios = [a / b for a, b in zip(v["cached"], v["tuned"])]
        med = statistics.median
        print(f"{n:>6}  {med(v['cached']):>11.0f}  {med(v['full']):>9.0f}  {med(v['cached']) / med(v['full']):>10.1f}x  "
              f"{med(v['installed']):>15.0f}  {med(v['tuned']):>11.0f}  "
              f"{med(ratios):>8.2f}x ({min(ratios):.2f}-{max(ratios):.2f})")
    if args.json:
        write_json(args, rows, lengths, cpu, "AVX-512" if "avx512f" in flags else "AVX2")


def write_json(args, rows, lengths, cpu, isa):
    """The figures as transformer-explorer --generation-bench reads them: tokens/s per length."""
    import datetime
    import torch

    config, _ = read_checkpoint(args.checkpoint)
    med = statistics.median
    names = {"cached": "ours, KV cache", "full": "ours, full recompute",
             "tuned": f"PyTorch {torch.__version__.split('+')[0]} cached loop, tuned",
             "installed": f"PyTorch {torch.__version__.split('+')[0]} cached loop, as installed"}
    out = {
        "format": "transformer-explorer/generation-bench/1",
        "machine": f"{cpu} ({isa}), 1 thread",
        "model": f"d_model {config['d_model']}, {config['heads']} heads, d_ff {config['d_ff']}, "
                 f"{config['encoder_layers']}+{config['decoder_layers']} layers, vocabulary {config['tgt_vocab']}",
        "settings": f"{'BF16 autocast on both sides, ' if args.precision == 'bf16' else ''}batch 1, source {SRC_LEN} ids, greedy, exactly n tokens, encoder included; "
                    f"median of {args.rounds} rounds, each the median of {args.repeats} runs",
        "date": datetime.date.today().isoformat(),
        "unit": "tokens/s",
        "lengths": lengths,
        "series": [{"key": key, "name": names[key],
                    "median": [round(med(rows[n][key]), 1) for n in lengths],
                    "min": [round(min(rows[n][key]), 1) for n in lengths],
                    "max": [round(max(rows[n][key]), 1) for n in lengths]}
                   for key in ("cached", "full", "tuned", "installed")],
    }
    tmp = args.json + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(tmp, args.json)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
