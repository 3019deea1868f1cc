#!/usr/bin/python3
# Forward-pass benchmark: ours (`txcli bench --json`) against PyTorch 1.13 side by side, one
# thread, batch 1, float32, eval, in alternating rounds (docs/design.md §10: a fair peer).
# The peer does the same work as our forward: embeddings × √D + sinusoidal PE, nn.Transformer
# (batch_first, causal target mask) and the generator's linear + log-softmax over the same
# vocabulary; the time of nn.Transformer alone is reported too (earlier peer figures timed it alone).
# The peer runs in two long-lived worker processes: "as installed" (the environment as it is)
# and "tuned" (OPENBLAS_CORETYPE unset, the OpenMP OpenBLAS when installed, glibc malloc kept
# from returning and re-faulting PyTorch's temporaries).
# --precision bf16 runs both sides in BF16 autocast: ours `txcli bench --precision bf16`, the peer inside
# torch.autocast("cpu", dtype=torch.bfloat16), PyTorch's own mixed-precision policy.
# Usage: bench_forward.py --txcli PATH --tiny CKPT --base CKPT [--rounds 5] [--repeats 30]
#        [--precision fp32|bf16]
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

from torch_peer import Peer, checkpoint_header, peer_envs, serve, sinusoidal_pe, wall_ms

CONFIGS = [("tiny", 32), ("base", 32), ("base", 128)]
TARGETS = {("tiny", 32): 2.0, ("base", 32): 1.5, ("base", 128): 1.5}


# ---------------------------------------------------------------------------------------------
# The PyTorch peer: our forward's work (bench_cuda.py runs it on the GPU too), and its worker side

def peer_model(D, heads, d_ff, layers, V):
    """Seeded embeddings, nn.Transformer (LAYERS + LAYERS, batch_first) and generator, in eval mode."""
    import torch

    torch.manual_seed(0)
    return torch.nn.ModuleDict({
        "src_embed": torch.nn.Embedding(V, D),
        "tgt_embed": torch.nn.Embedding(V, D),
        "transformer": torch.nn.Transformer(D, heads, layers, layers, d_ff, batch_first=True),
        "generator": torch.nn.Linear(D, V),
    }).eval()


def peer_embed(m, src, tgt, pe):
    """(x [B, S, D], y [B, T, D]): each side's embeddings × √D + PE."""
    scale = math.sqrt(m["generator"].in_features)
    return m["src_embed"](src) * scale + pe[: src.shape[1]], m["tgt_embed"](tgt) * scale + pe[: tgt.shape[1]]


def peer_forward(m, src, tgt, pe, tgt_mask, src_mask=None):
    """Our forward's work: peer_embed, nn.Transformer, the generator's linear + log-softmax."""
    import torch

    x, y = peer_embed(m, src, tgt, pe)
    return torch.log_softmax(m["generator"](m["transformer"](x, y, src_mask=src_mask, tgt_mask=tgt_mask)), -1)


def worker():
    import contextlib

    import torch

    models = {}

    def model_for(req):
        key = (req["d_model"], req["heads"], req["d_ff"], req["layers"], req["vocab"])
        if key not in models:
            models[key] = (peer_model(*key), sinusoidal_pe(4096, req["d_model"]))
        return models[key]

    def answer(req):
        m, pe = model_for(req)
        S, T, V = req["src_len"], req["tgt_len"], req["vocab"]
        g = torch.Generator().manual_seed(1)
        src = torch.randint(4, V, (1, S), generator=g)
        tgt = torch.randint(4, V, (1, T), generator=g)
        tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(T)
        # PyTorch 1.13's fused encoder-layer fast path tests only CUDA autocast and then fails on CPU
        # autocast's BF16 weights ("expected scalar type BFloat16"); an all-zero source mask (adds
        # nothing) sends it down the ordinary, autocast-aware path.
        src_mask = torch.zeros(S, S) if req.get("precision") == "bf16" else None
        tr = m["transformer"]

        def full():
            return peer_forward(m, src, tgt, pe, tgt_mask, src_mask)

        x0, y0 = peer_embed(m, src, tgt, pe)

        def core():
            return tr(x0, y0, src_mask=src_mask, tgt_mask=tgt_mask)

        autocast = (torch.autocast("cpu", dtype=torch.bfloat16) if req.get("precision") == "bf16"
                    else contextlib.nullcontext())
        result = {}
        with torch.inference_mode(), autocast:
            x0, y0 = x0.detach(), y0.detach()
            for name, f in (("forward_ms", full), ("transformer_ms", core)):
                ms = wall_ms(f, req["repeats"], req["warmup"])
                result[name] = {"median": statistics.median(ms), "min": min(ms), "max": max(ms)}
        result["torch"] = torch.__version__
        return result

    serve(answer)


# ---------------------------------------------------------------------------------------------
# Ours

def run_txcli_bench(txcli, ckpt, args):
    """`txcli bench` on one thread with extra ARGS: its JSON line for the CPU backend."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([txcli, "bench", "--checkpoint", ckpt, "--threads", "1", "--json"] + args,
                         env=env, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith("{"):
            obj = json.loads(line)
            if obj.get("backend") == "cpu":
                return obj
    raise RuntimeError("txcli bench printed no cpu line:\n" + out)


def run_ours(txcli, ckpt, L, repeats, warmup, precision):
    return run_txcli_bench(txcli, ckpt, ["--src-len", str(L), "--tgt-len", str(L), "--repeats", str(repeats),
                                         "--warmup", str(warmup), "--train-repeats", "0", "--precision", precision])


# ---------------------------------------------------------------------------------------------

def summary(values):
    return statistics.median(values), min(values), max(values)


def fmt(values):
    med, lo, hi = summary(values)
    return f"{med:.3f} [{lo:.3f}–{hi:.3f}]"


def step_role(name):
    """encoder.layers.1.self_attn.scores -> encoder self_attn.scores (summed over layers)."""
    parts = name.split(".")
    if len(parts) > 2 and parts[1] == "layers":
        return parts[0] + " " + ".".join(parts[3:])
    return name


def main():
    if "--worker" in sys.argv:
        worker()
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--txcli", required=True)
    ap.add_argument("--tiny", required=True, help="checkpoint of the tiny model (64/4/256, 2+2)")
    ap.add_argument("--base", required=True, help="checkpoint of the base model (512/8/2048, 2+2)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--precision", choices=("fp32", "bf16"), default="fp32",
                    help="bf16: ours in BF16 autocast against torch.autocast('cpu', dtype=torch.bfloat16)")
    ap.add_argument("--json", help="also write all raw results here")
    args = ap.parse_args()

    base_env, tuned_env, notes = peer_envs()
    here = os.path.abspath(__file__)
    peers = [Peer("as installed", base_env, here), Peer("tuned", tuned_env, here)]
    ckpts = {"tiny": args.tiny, "base": args.base}
    results = {}
    where = {}   # the first of our runs: the CPU, GEMM path and FMA ceiling it reports
    try:
        for round_ in range(args.rounds):
            for name, L in CONFIGS:
                c, _ = checkpoint_header(ckpts[name])
                req = {"d_model": c["d_model"], "heads": c["heads"], "d_ff": c["d_ff"], "layers": c["encoder_layers"],
                       "vocab": c["tgt_vocab"], "src_len": L, "tgt_len": L, "repeats": args.repeats,
                       "warmup": args.warmup, "precision": args.precision}
                r = results.setdefault((name, L), {"ours": [], "installed": [], "tuned": [], "installed_core": [],
                                                   "tuned_core": [], "steps": [], "config": c})
                # alternate who goes first, so that neither side always runs on a warmer machine
                order = ["ours", "installed", "tuned"] if round_ % 2 == 0 else ["tuned", "installed", "ours"]
                for who in order:
                    if who == "ours":
                        o = run_ours(args.txcli, ckpts[name], L, args.repeats, args.warmup, args.precision)
                        where.setdefault("ours", o)
                        r["ours"].append(o["forward_ms"]["median"])
                        r["steps"].append({s["name"]: s["ms"] for s in o["steps"]})
                    else:
                        p = peers[0 if who == "installed" else 1].run(req)
                        r[who].append(p["forward_ms"]["median"])
                        r[who + "_core"].append(p["transformer_ms"]["median"])
                print(f"round {round_ + 1}/{args.rounds} {name} L={L}: ours {r['ours'][-1]:.3f} ms, "
                      f"torch installed {r['installed'][-1]:.3f}, tuned {r['tuned'][-1]:.3f}", file=sys.stderr)
    finally:
        for p in peers:
            p.close()

    if "ours" in where:
        o = where["ours"]
        ceiling = (f"{o['fma_ceiling_gflops']:.1f} GFLOP/s per core ({o['flops_per_cycle']} FLOP/cycle)"
                   if "fma_ceiling_gflops" in o else f"unknown clock x {o['flops_per_cycle']} FLOP/cycle per core")
        print(f"\n# CPU: {o.get('cpu', '?')}; GEMM path (ours): {o.get('isa', '?')}; FMA ceiling: {ceiling}")
    dtype = "BF16 autocast on both sides" if args.precision == "bf16" else "float32"
    print(f"\nForward pass, batch 1, 1 thread, {dtype}, eval; {args.rounds} alternating rounds × "
          f"{args.repeats} timed runs (median of each round's median [min–max over rounds], ms).")
    print("PyTorch does the same work (embeddings + PE + nn.Transformer + generator + log-softmax); "
          "speed-up = PyTorch median / ours median per round.")
    print(f"Tuned peer: {', '.join(notes)}.\n")
    print("| model | L | ours ms | PyTorch as installed ms | speed-up | PyTorch tuned ms | speed-up | target |")
    print("|---|---|---|---|---|---|---|---|")
    for (name, L), r in results.items():
        c = r["config"]
        label = f"{name} ({c['d_model']}/{c['heads']}/{c['d_ff']}, {c['encoder_layers']}+{c['decoder_layers']}, V {c['tgt_vocab']})"
        up_i = [p / o for p, o in zip(r["installed"], r["ours"])]
        up_t = [p / o for p, o in zip(r["tuned"], r["ours"])]
        target = 1.5 if args.precision == "bf16" else TARGETS[(name, L)]   # bf16: ≥ 1.5× PyTorch's autocast
        met = "met" if summary(up_t)[0] >= target and summary(up_i)[0] >= target else (
            "met (installed only)" if summary(up_i)[0] >= target else "MISSED")
        print(f"| {label} | {L} | {fmt(r['ours'])} | {fmt(r['installed'])} | {fmt(up_i)}× | {fmt(r['tuned'])} | "
              f"{fmt(up_t)}× | ≥{target}× {met} |")
    print("\nnn.Transformer alone (no embeddings, PE or generator), PyTorch median ms: " + "; ".join(
        f"{n} L={L}: installed {summary(r['installed_core'])[0]:.3f}, tuned {summary(r['tuned_core'])[0]:.3f}"
        for (n, L), r in results.items()))
    print("\nOurs, where the time goes (median per step over rounds, summed over layers):")
    for (name, L), r in results.items():
        roles = {}
        for steps in r["steps"]:
            for step, ms in steps.items():
                roles.setdefault(step_role(step), []).append(ms)
        per_role = {k: statistics.median(v) * (len(v) / len(r["steps"])) for k, v in roles.items()}
        total = sum(per_role.values())
        top = sorted(per_role.items(), key=lambda kv: -kv[1])[:8]
        print(f"  {name} L={L} (sum of steps {total:.3f} ms): " +
              ", ".join(f"{k} {v:.3f} ({100 * v / total:.0f}%)" for k, v in top))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({f"{n}/{L}": r for (n, L), r in results.items()}, f, indent=1)


if __name__ == "__main__":
    main()
