#!/usr/bin/python3
"""The PyTorch peer of `txcli train --preset annotated --task copy` (docs/design.md §10).

Same task and conventions as ours (core/train/tasks.cpp): 10 symbols (ids 4..13), length 9, src =
tokens + EOS, decoder input = BOS + tokens, targets = tokens + EOS, PAD 0 BOS 1 EOS 2; 200
held-out sequences from a stream of their own, never drawn for training. Same model: the
Annotated Transformer's 512/8/2048, 2+2 Post-LN layers without final norms (composed from
nn.TransformerEncoderLayer / nn.TransformerDecoderLayer), embeddings × √d_model, sinusoidal
PE, dropout 0.1, generator = linear + log-softmax; Adam(β 0.9/0.98, ε 1e-9), lr 0.5 × Noam
warmup 400, batch 80, 20 batches × 20 epochs, loss = KL to the one-hot target (smoothing 0)
per target token. Timed: training steps only (evaluation excluded), like ours.

Prints one JSON line: {"impl": "pytorch", "tokens_per_s": ..., "exact_match": ..., ...}.
Threads: --threads N sets torch's intra-op pool and OpenBLAS's own pool (docs/design.md §10).
"""
import argparse
import json
import math
import random
import time

import torch
import torch.nn as nn

from torch_peer import pin_threads, sinusoidal_pe

PAD, BOS, EOS = 0, 1, 2


class Task:
    def __init__(self, symbols, length, eval_sequences, seed):
        self.symbols, self.length = symbols, length
        held = random.Random(0x48454C444F5554)
        self.held_out, seen = [], set()
        while len(self.held_out) < eval_sequences:
            x = tuple(4 + held.randrange(symbols) for _ in range(length))
            if x not in seen:
                seen.add(x)
                self.held_out.append(list(x))
        self.held_set = seen
        self.rng = random.Random(seed)

    def example(self):
        while True:
            x = tuple(4 + self.rng.randrange(self.symbols) for _ in range(self.length))
            if x not in self.held_set:
                return list(x)

    @staticmethod
    def batch(rows):
        src = torch.tensor([r + [EOS] for r in rows])
        tgt = torch.tensor([[BOS] + r for r in rows])
        y = torch.tensor([r + [EOS] for r in rows])
        return src, tgt, y


class Model(nn.Module):
    """The Annotated Transformer's encoder-decoder from nn layers; bench_translate.py trains it too."""

    def __init__(self, V, D, H, F, N, dropout, max_len=64):
        super().__init__()
        self.D = D
        self.src_embed = nn.Embedding(V, D)
        self.tgt_embed = nn.Embedding(V, D)
        self.register_buffer("pe", sinusoidal_pe(max_len, D))
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.ModuleList(
            nn.TransformerEncoderLayer(D, H, F, dropout, batch_first=True) for _ in range(N))
        self.decoder = nn.ModuleList(
            nn.TransformerDecoderLayer(D, H, F, dropout, batch_first=True) for _ in range(N))
        self.generator = nn.Linear(D, V)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def encode(self, src):
        pad = src == PAD
        x = self.drop(self.src_embed(src) * math.sqrt(self.D) + self.pe[: src.shape[1]])
        for layer in self.encoder:
            x = layer(x, src_key_padding_mask=pad)
        return x, pad

    def decode(self, memory, src_pad, tgt, last=False):
        T = tgt.shape[1]
        causal = torch.triu(torch.full((T, T), float("-inf"), device=tgt.device), diagonal=1)
        y = self.drop(self.tgt_embed(tgt) * math.sqrt(self.D) + self.pe[:T])
        for layer in self.decoder:
            y = layer(y, memory, tgt_mask=causal, tgt_key_padding_mask=tgt == PAD, memory_key_padding_mask=src_pad)
        if last:   # greedy decoding needs the newest position only
            y = y[:, -1:]
        return torch.log_softmax(self.generator(y), dim=-1)

    def forward(self, src, tgt):
        memory, pad = self.encode(src)
        return self.decode(memory, pad, tgt)

    @torch.no_grad()
    def greedy(self, src, steps):
        """[B, 1 + k] ids, k <= STEPS: BOS, then each row's greedy choices, PAD after its EOS; stops
        early once every row has chosen EOS (core/train/evaluation.cpp). Eval mode is the caller's."""
        memory, pad = self.encode(src)
        ys = torch.full((src.shape[0], 1), BOS, dtype=torch.long, device=src.device)
        done = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
        for _ in range(steps):
            nxt = self.decode(memory, pad, ys, last=True)[:, -1].argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, PAD), nxt)
            ys = torch.cat([ys, nxt[:, None]], 1)
            done |= nxt == EOS
            if bool(done.all()):
                break
        return ys


def exact_match(model, task, batch=200):
    model.eval()
    dev = next(model.parameters()).device
    correct = 0
    for i in range(0, len(task.held_out), batch):
        rows = task.held_out[i:i + batch]
        src, _, _ = Task.batch(rows)
        ys = model.greedy(src.to(dev), task.length + 1)
        for r, row in enumerate(rows):
            out = ys[r, 1:].tolist()
            out = out[: out.index(EOS)] if EOS in out else out
            correct += out == row
    model.train()
    return correct / len(task.held_out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--d-model", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--d-ff", type=int, default=2048)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--batch", type=int, default=80)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--warmup", type=int, default=400)
    ap.add_argument("--until-exact", type=float, default=0.0, help="evaluate every --eval-every steps, stop at R")
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--label", default="pytorch")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (float32, eager)")
    a = ap.parse_args()
    dev = torch.device(a.device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    pin_threads(a.threads)
    torch.manual_seed(a.seed)
    symbols, length = 10, 9
    task = Task(symbols, length, 200, a.seed)
    model = Model(symbols + 4, a.d_model, a.heads, a.d_ff, a.layers, a.dropout).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    noam = lambda s: a.lr * a.d_model ** -0.5 * min((s + 1) ** -0.5, (s + 1) * a.warmup ** -1.5)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, noam)
    model.train()
    train_s, tokens, wall0, em, steps = 0.0, 0, time.perf_counter(), None, 0
    for step in range(1, a.steps + 1):
        src, tgt, y = (t.to(dev) for t in Task.batch([task.example() for _ in range(a.batch)]))
        sync()
        t0 = time.perf_counter()
        lp = model(src, tgt)
        ntok = int((y != PAD).sum())
        loss = nn.functional.nll_loss(lp.reshape(-1, lp.shape[-1]), y.reshape(-1), ignore_index=PAD,
                                      reduction="sum") / ntok
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        sync()
        train_s += time.perf_counter() - t0
        tokens += ntok
        steps = step
        if a.until_exact > 0 and step % a.eval_every == 0:
            em = exact_match(model, task)
            if em >= a.until_exact:
                break
    if em is None or a.until_exact == 0:
        em = exact_match(model, task)
    print(json.dumps({"impl": a.label, "steps": steps, "loss": round(loss.item(), 6),
                      "tokens_per_s": round(tokens / train_s, 1), "train_s": round(train_s, 3),
                      "wall_s": round(time.perf_counter() - wall0, 3), "exact_match": em,
                      "threads": a.threads, "device": a.device, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
