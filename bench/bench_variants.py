#!/usr/bin/python3
# The LLaMA-like preset (decoder-only, RoPE, SwiGLU, RMSNorm, Pre-norm) against PyTorch 1.13 doing
# the same work, one thread, float32, in alternating rounds (docs/design.md §10: a fair peer): forward
# ms at batch 1 and L = 32 / 128 (eval), and training target tokens/s (batch 8 x 64 tokens:
# forward, label-smoothed loss, backward, gradient norm, Adam). Ours is `txcli bench --json`.
# PyTorch 1.13 has no RoPE or RMSNorm module: the peer writes them in plain torch from the papers'
# formulas (RoFormer eq. 34 on pairs (2i, 2i+1); RMSNorm x/√(mean x² + ε)·g), as gen_variant_fixtures.py.
# Usage: bench_variants.py --txcli PATH --model NAME=CKPT [--model ...] [--rounds 5]
import argparse
import os
import statistics
import sys

from bench_forward import run_txcli_bench
from torch_peer import Peer, checkpoint_header, peer_envs, serve, wall_ms

EPS = 1e-5
SMOOTHING = 0.1   # txcli bench's training step uses label smoothing 0.1


# ---------------------------------------------------------------------------------------------
# The PyTorch peer (worker side)

def worker():
    import math

    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def rms(x, g):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * g

    class Block(nn.Module):
        def __init__(self, D, H, Fw):
            super().__init__()
            self.H, self.dk = H, D // H
            self.q, self.k, self.v, self.o = (nn.Linear(D, D) for _ in range(4))
            self.g1, self.g2 = nn.Parameter(torch.ones(D)), nn.Parameter(torch.ones(D))
            # SwiGLU as LLaMA: gate, up and down without biases
            self.gate, self.up = nn.Linear(D, Fw, bias=False), nn.Linear(D, Fw, bias=False)
            self.down = nn.Linear(Fw, D, bias=False)

        def rope(self, x, cos, sin):
            even, odd = x[..., 0::2], x[..., 1::2]
            return torch.stack([even * cos - odd * sin, even * sin + odd * cos], -1).flatten(-2)

        def forward(self, x, cos, sin, mask):
            B, T, D = x.shape
            h = rms(x, self.g1)
            q = self.rope(self.q(h).view(B, T, self.H, self.dk).transpose(1, 2), cos, sin)
            k = self.rope(self.k(h).view(B, T, self.H, self.dk).transpose(1, 2), cos, sin)
            v = self.v(h).view(B, T, self.H, self.dk).transpose(1, 2)
            p = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.dk) + mask, -1)
            x = x + self.o((p @ v).transpose(1, 2).reshape(B, T, D))
            h = rms(x, self.g2)
            return x + self.down(F.silu(self.gate(h)) * self.up(h))

    class LlamaLike(nn.Module):
        def __init__(self, V, D, H, Fw, layers, max_len):
            super().__init__()
            self.D = D
            self.embed = nn.Embedding(V, D)
            self.blocks = nn.ModuleList(Block(D, H, Fw) for _ in range(layers))
            self.g = nn.Parameter(torch.ones(D))
            self.generator = nn.Linear(D, V)
            dk = D // H
            theta = 10000.0 ** (-2.0 * torch.arange(dk // 2, dtype=torch.float32) / dk)   # θ_i = 10000^(−2i/dk)
            angle = torch.arange(max_len, dtype=torch.float32)[:, None] * theta[None, :]
            self.register_buffer("cos", torch.cos(angle))
            self.register_buffer("sin", torch.sin(angle))

        def logits(self, ids):
            T = ids.shape[1]
            x = self.embed(ids) * math.sqrt(self.D)
            mask = torch.full((T, T), float("-inf")).triu(1)
            for b in self.blocks:
                x = b(x, self.cos[:T], self.sin[:T], mask)
            return self.generator(rms(x, self.g))

    models = {}

    def answer(req):
        key = (req["vocab"], req["d_model"], req["heads"], req["ffn_width"], req["layers"], req["max_len"])
        if key not in models:
            torch.manual_seed(0)
            models[key] = LlamaLike(*key)
        m = models[key]
        V = req["vocab"]
        g = torch.Generator().manual_seed(1)
        if req["kind"] == "forward":
            m.eval()
            ids = torch.randint(4, V, (1, req["length"]), generator=g)
            with torch.inference_mode():
                ms = wall_ms(lambda: torch.log_softmax(m.logits(ids), -1), req["repeats"], req["warmup"])
        else:
            m.train()
            B, T = req["batch"], req["length"]
            ids = torch.randint(4, V, (B, T), generator=g)
            targets = torch.randint(4, V, (B, T), generator=g)
            opt = torch.optim.Adam(m.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)

            def step():
                opt.zero_grad(set_to_none=False)
                loss = F.cross_entropy(m.logits(ids).view(B * T, V), targets.view(-1), label_smoothing=SMOOTHING)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(m.parameters(), 1e9)   # ours computes the norm every step too
                opt.step()

            ms = wall_ms(step, req["repeats"], req["warmup"])
        return {"ms": statistics.median(ms), "torch": torch.__version__}

    serve(answer)


# ---------------------------------------------------------------------------------------------
# Ours

def fmt(values, digits=2):
    return f"{statistics.median(values):.{digits}f} [{min(values):.{digits}f}–{max(values):.{digits}f}]"


def main():
    if "--worker" in sys.argv:
        worker()
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--txcli", required=True)
    ap.add_argument("--model", action="append", required=True, help="NAME=CKPT of a LLaMA-like checkpoint")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=20, help="timed forward passes per round")
    ap.add_argument("--train-repeats", type=int, default=5, help="timed training steps per round")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--train-length", type=int, default=64)
    args = ap.parse_args()

    base_env, tuned_env, notes = peer_envs()
    here = os.path.abspath(__file__)
    peers = {"installed": Peer("as installed", base_env, here), "tuned": Peer("tuned", tuned_env, here)}
    results, where = {}, None
    try:
        for round_ in range(args.rounds):
            for spec in args.model:
                name, ckpt = spec.split("=", 1)
                c, header = checkpoint_header(ckpt)
                if (c.get("arch"), c.get("positional"), c.get("ffn"), c.get("norm_kind"), c.get("norm")) != \
                        ("decoder-only", "rope", "swiglu", "rmsnorm", "pre"):
                    sys.exit(f"{ckpt} is not the LLaMA-like preset (decoder-only, rope, swiglu, rmsnorm, pre)")
                if c.get("dropout", 0) != 0:
                    sys.exit(f"{ckpt}: dropout {c['dropout']}: the peer has none (init with --dropout 0)")
                base_req = {"vocab": c["tgt_vocab"], "d_model": c["d_model"], "heads": c["heads"],
                            "ffn_width": header["decoder.layers.0.ffn.linear1.weight"]["shape"][0],
                            "layers": c["decoder_layers"], "max_len": c["max_len"]}
                jobs = [("forward", 32), ("forward", 128), ("train", args.train_length)]
                for kind, L in jobs:
                    r = results.setdefault((name, kind, L), {"ours": [], "installed": [], "tuned": [], "req": base_req})
                    if kind == "forward":
                        req = dict(base_req, kind=kind, length=L, warmup=3, repeats=args.repeats)
                        ours_args = ["--src-len", str(L), "--tgt-len", str(L), "--repeats", str(args.repeats),
                                     "--warmup", "3", "--train-repeats", "0"]
                    else:
                        req = dict(base_req, kind=kind, length=L, batch=args.batch, warmup=2, repeats=args.train_repeats)
                        ours_args = ["--batch", str(args.batch), "--src-len", "1", "--tgt-len", str(L), "--repeats", "1",
                                     "--warmup", "2", "--train-repeats", str(args.train_repeats)]
                    order = ["ours", "installed", "tuned"] if round_ % 2 == 0 else ["tuned", "installed", "ours"]
                    for who in order:
                        if who == "ours":
                            o = run_txcli_bench(args.txcli, ckpt, ours_args)
                            where = where or o
                            ms = o["forward_ms"]["median"] if kind == "forward" else o["train_step_ms"]["median"]
                        else:
                            ms = peers[who].run(req)["ms"]
                        r[who].append(ms)
                    print(f"round {round_ + 1}/{args.rounds} {name} {kind} L={L}: ours {r['ours'][-1]:.3f} ms, torch "
                          f"installed {r['installed'][-1]:.3f}, tuned {r['tuned'][-1]:.3f}", file=sys.stderr)
    finally:
        for p in peers.values():
            p.close()

    print(f"# CPU: {where.get('cpu', '?')}; GEMM path (ours): {where.get('isa', '?')}")
    print(f"LLaMA-like preset (decoder-only, RoPE, SwiGLU, RMSNorm, Pre-norm), 1 thread, float32; {args.rounds} "
          "alternating rounds; median of the rounds' medians [min–max over rounds]. Speed-up = PyTorch / ours per round.")
    print(f"Tuned peer: {', '.join(notes)}.\n")
    print("| model | measure | ours | PyTorch as installed | speed-up | PyTorch tuned | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for (name, kind, L), r in results.items():
        q = r["req"]
        label = f"{name} ({q['d_model']}/{q['heads']}, SwiGLU {q['ffn_width']}, {q['layers']} layers, V {q['vocab']})"
        up_i = [p / o for p, o in zip(r["installed"], r["ours"])]
        up_t = [p / o for p, o in zip(r["tuned"], r["ours"])]
        if kind == "forward":
            print(f"| {label} | forward ms, L={L} | {fmt(r['ours'], 3)} | {fmt(r['installed'], 3)} | {fmt(up_i)}× | "
                  f"{fmt(r['tuned'], 3)} | {fmt(up_t)}× |")
        else:
            tok = args.batch * L
            rate = {k: [tok / (ms / 1e3) for ms in r[k]] for k in ("ours", "installed", "tuned")}
            print(f"| {label} | training tokens/s, {args.batch}×{L} | {fmt(rate['ours'], 0)} | {fmt(rate['installed'], 0)} | "
                  f"{fmt(up_i)}× | {fmt(rate['tuned'], 0)} | {fmt(up_t)}× |")


if __name__ == "__main__":
    main()
