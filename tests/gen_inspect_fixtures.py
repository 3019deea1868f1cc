#!/usr/bin/python3
# Look-inside fixtures for tests/explain/test_inspect_fixtures.cpp, computed with NumPy in float64
# independently of our C++: the golden models' forward (tests/gen_golden_forward.py's spec,
# docs/design.md §3) is written again here from the formulas, with a hook that replaces step
# outputs, and the views of explain/ (logit lens, activation patching, head importance,
# attention rollout and entropy, direct logit attribution) are computed from it.
# Reads fixtures/golden_{post,pre}.ckpt.safetensors; writes fixtures/inspect_{post,pre}.safetensors.
# Run: /usr/bin/python3 tests/gen_inspect_fixtures.py  (Debian's python3-numpy; deterministic)
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_py  # noqa: E402

PAD, BOS, EOS = 0, 1, 2
EPS = 1e-5
# "the cat sat on a mat" against "the dog sat on a mat" (same length), decoder input held fixed.
CLEAN_SRC = [4, 5, 6, 7, 8, 9, EOS]
CORRUPT_SRC = [4, 10, 6, 7, 8, 9, EOS]
TGT = [BOS, 4, 5, 6, 7, 8]


def load(path):
    meta, tensors = safetensors_py.read(path)
    config = json.loads(meta["config"])
    p = {n: np.array(v, dtype=np.float64).reshape(s) for n, (s, v) in tensors.items()}
    return config, p


def positional_table(length, d):
    pe = np.zeros((length, d))
    pos = np.arange(length, dtype=np.float64)
    for j in range(d):
        inv = 1.0 / (10000.0 ** (2.0 * (j // 2) / d))
        pe[:, j] = np.sin(pos * inv) if j % 2 == 0 else np.cos(pos * inv)
    return pe


def log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


class Model:
    """One batch row, no padding. hook(name, x) may replace any step output (activation patching)."""

    def __init__(self, config, p):
        self.c, self.p = config, p
        self.D, self.H = config["d_model"], config["heads"]
        self.dk = self.D // self.H
        self.L = config["decoder_layers"]
        self.pre = config["norm"] == "pre"
        self.pe = positional_table(config["max_len"], self.D)

    def linear(self, x, name):
        return x @ self.p[name + ".weight"].T + self.p[name + ".bias"]

    def norm(self, x, name):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + EPS) * self.p[name + ".weight"] + self.p[name + ".bias"]

    def rec(self, name, x):
        x = self.hook(name, x)
        self.trace[name] = x
        return x

    def attention(self, prefix, xq, xkv, keep):
        H, dk = self.H, self.dk
        q = self.linear(xq, prefix + ".q_proj").reshape(len(xq), H, dk).transpose(1, 0, 2)
        k = self.linear(xkv, prefix + ".k_proj").reshape(len(xkv), H, dk).transpose(1, 0, 2)
        v = self.linear(xkv, prefix + ".v_proj").reshape(len(xkv), H, dk).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(dk)
        s = np.where(keep[None], s, -np.inf)
        e = np.exp(s - s.max(-1, keepdims=True))
        probs = self.rec(prefix + ".probs", e / e.sum(-1, keepdims=True))   # [H, R, C]
        ctx = probs @ v                                                   # [H, R, dk]
        if prefix in self.ablate:
            ctx = ctx.copy()
            ctx[self.ablate[prefix]] = 0.0
        ctx = self.rec(prefix + ".context", ctx)
        merged = ctx.transpose(1, 0, 2).reshape(len(xq), self.D)
        return self.rec(prefix + ".out", self.linear(merged, prefix + ".out_proj"))

    def ffn(self, x, prefix):
        h = np.maximum(self.linear(x, prefix + ".linear1"), 0.0)
        return self.rec(prefix + ".out", self.linear(h, prefix + ".linear2"))

    def sublayers(self, x, p, subs):
        # subs: (norm name, residual name, function of the sublayer input)
        for norm, res, f in subs:
            if self.pre:
                n = self.rec(f"{p}.{norm}.out", self.norm(x, f"{p}.{norm}"))
                x = self.rec(f"{p}.{res}.out", x + f(n))
            else:
                x = self.rec(f"{p}.{norm}.out", self.norm(x + f(x), f"{p}.{norm}"))
        return x

    def forward(self, src, tgt, hook=None, ablate=None):
        self.hook = hook or (lambda name, x: x)
        self.ablate = ablate or {}
        self.trace = {}
        D, S, T = self.D, len(src), len(tgt)
        keep_s = np.ones((S, S), bool)
        keep_t = np.tril(np.ones((T, T), bool))
        keep_x = np.ones((T, S), bool)
        x = self.p["src_embed.weight"][src] * math.sqrt(D)
        x = self.rec("src_pos.out", x + self.pe[:S])
        for i in range(self.c["encoder_layers"]):
            p = f"encoder.layers.{i}"
            x = self.sublayers(x, p, [
                ("norm1", "residual1", lambda n, p=p: self.attention(p + ".self_attn", n, n, keep_s)),
                ("norm2", "residual2", lambda n, p=p: self.ffn(n, p + ".ffn"))])
        if self.pre:
            x = self.rec("encoder.norm.out", self.norm(x, "encoder.norm"))
        memory = x
        y = self.p["tgt_embed.weight"][tgt] * math.sqrt(D)
        y = self.rec("tgt_pos.out", y + self.pe[:T])
        for i in range(self.L):
            p = f"decoder.layers.{i}"
            y = self.sublayers(y, p, [
                ("norm1", "residual1", lambda n, p=p: self.attention(p + ".self_attn", n, n, keep_t)),
                ("norm2", "residual2", lambda n, p=p: self.attention(p + ".cross_attn", n, memory, keep_x)),
                ("norm3", "residual3", lambda n, p=p: self.ffn(n, p + ".ffn"))])
        if self.pre:
            y = self.rec("decoder.norm.out", self.norm(y, "decoder.norm"))
        logits = self.rec("generator.logits", self.linear(y, "generator"))
        return self.rec("generator.log_probs", log_softmax(logits))

    def layer_out(self, stack, i):
        last = ("residual2" if stack == "encoder" else "residual3") if self.pre else \
               ("norm2" if stack == "encoder" else "norm3")
        return f"{stack}.layers.{i}.{last}.out"


def logit_lens(m, src, tgt):
    m.forward(src, tgt)
    rows = []
    for i in range(m.L):
        y = m.trace[m.layer_out("decoder", i)]
        if m.pre:
            y = m.norm(y, "decoder.norm")
        rows.append(log_softmax(m.linear(y, "generator")))
    return np.stack(rows)   # [L, T, V]


def patching(m, metric):
    """Raw metric of each patch; sites as explain/activation_patching.h lists them."""
    clean = dict(m.forward(CLEAN_SRC, TGT) is not None and m.trace)
    base = metric(m.forward(CORRUPT_SRC, TGT))
    grids = {}
    for stack, n_pos, points in (("encoder", len(CLEAN_SRC), ("self_attn", "ffn", "layer")),
                                 ("decoder", len(TGT), ("self_attn", "cross_attn", "ffn", "layer"))):
        layers = m.c["encoder_layers"] if stack == "encoder" else m.L
        for point in points:
            g = np.zeros((layers, n_pos))
            for i in range(layers):
                name = m.layer_out(stack, i) if point == "layer" else f"{stack}.layers.{i}.{point}.out"
                for pos in range(n_pos):
                    def hook(nm, x, name=name, pos=pos):
                        if nm != name:
                            return x
                        x = x.copy()
                        x[pos] = clean[name][pos]
                        return x
                    g[i, pos] = metric(m.forward(CORRUPT_SRC, TGT, hook))
            grids[f"patch.{stack}.{point}"] = g
    for stack, kind in (("encoder", "self_attn"), ("decoder", "self_attn"), ("decoder", "cross_attn")):
        layers = m.c["encoder_layers"] if stack == "encoder" else m.L
        g = np.zeros((layers, m.H))
        for i in range(layers):
            name = f"{stack}.layers.{i}.{kind}.context"
            for h in range(m.H):
                def hook(nm, x, name=name, h=h):
                    if nm != name:
                        return x
                    x = x.copy()
                    x[h] = clean[name][h]
                    return x
                g[i, h] = metric(m.forward(CORRUPT_SRC, TGT, hook))
        grids[f"patch_heads.{stack}.{kind}"] = g
    return base, grids


def head_importance(m, chosen):
    def total(lp):
        return sum(lp[t, chosen[t]] for t in range(len(chosen)))
    base = total(m.forward(CLEAN_SRC, TGT))
    grids = {}
    for stack, kind in (("encoder", "self_attn"), ("decoder", "self_attn"), ("decoder", "cross_attn")):
        layers = m.c["encoder_layers"] if stack == "encoder" else m.L
        g = np.zeros((layers, m.H))
        for i in range(layers):
            for h in range(m.H):
                g[i, h] = total(m.forward(CLEAN_SRC, TGT, ablate={f"{stack}.layers.{i}.{kind}": h})) - base
        grids[f"heads.{stack}.{kind}"] = g
    return grids


def rollout_and_entropy(m):
    m.forward(CLEAN_SRC, TGT)
    out = {}
    S = len(CLEAN_SRC)
    R = np.eye(S)
    for i in range(m.c["encoder_layers"]):
        A = m.trace[f"encoder.layers.{i}.self_attn.probs"].mean(0)
        A = 0.5 * A + 0.5 * np.eye(S)
        A = A / A.sum(-1, keepdims=True)
        R = A @ R
        out[f"rollout.encoder.{i}"] = R
    out["rollout.cross"] = np.stack([m.trace[f"decoder.layers.{i}.cross_attn.probs"].mean(0) @ R for i in range(m.L)])
    for stack, kind in (("encoder", "self_attn"), ("decoder", "self_attn"), ("decoder", "cross_attn")):
        layers = m.c["encoder_layers"] if stack == "encoder" else m.L
        g = np.zeros((layers, m.H))
        for i in range(layers):
            P = m.trace[f"{stack}.layers.{i}.{kind}.probs"]
            with np.errstate(divide="ignore", invalid="ignore"):
                plogp = np.where(P > 0, P * np.log(np.where(P > 0, P, 1.0)), 0.0)
            g[i] = -plogp.sum(-1).mean(-1)
            keys = (P[0] > 0).sum(-1)   # softmax is never exactly 0 on a kept key at these scores
        out[f"entropy.{stack}.{kind}"] = g
        out[f"entropy_max.{stack}.{kind}"] = np.array([np.log(keys).mean()])
    return out


def attribution(m, t, v):
    """Direct logit attribution of token v at position t; (names, contributions, remainder, logit)."""
    m.forward(CLEAN_SRC, TGT)
    tr, p, H, dk = m.trace, m.p, m.H, m.dk

    def through_norm(d, x, name):
        mu = x.mean()
        sigma = math.sqrt(((x - mu) ** 2).mean() + EPS)
        e = d * p[name + ".weight"] / sigma
        return e - e.mean(), float(d @ p[name + ".bias"])

    def heads(prefix, d):
        W = p[prefix + ".out_proj.weight"]   # [D, D] = [out, in]
        ctx = tr[prefix + ".context"]        # [H, T, dk]
        return [float(ctx[h, t] @ W[:, h * dk:(h + 1) * dk].T @ d) for h in range(H)], \
            float(p[prefix + ".out_proj.bias"] @ d)

    g = p["generator.weight"][v]
    remainder = float(p["generator.bias"][v])
    names, values = [], []
    if m.pre:
        last = m.layer_out("decoder", m.L - 1)
        d, r = through_norm(g, tr[last][t], "decoder.norm")
        remainder += r
        names.append("embeddings")
        values.append(float(tr["tgt_pos.out"][t] @ d))
        for i in range(m.L):
            for kind in ("self_attn", "cross_attn"):
                hv, r = heads(f"decoder.layers.{i}.{kind}", d)
                names += [f"decoder.layers.{i}.{kind}.head{h}" for h in range(H)]
                values += hv
                remainder += r
            names.append(f"decoder.layers.{i}.ffn")
            values.append(float(tr[f"decoder.layers.{i}.ffn.out"][t] @ d))
    else:
        i = m.L - 1
        p_ = f"decoder.layers.{i}"
        y0 = tr[f"decoder.layers.{i - 1}.norm3.out"][t] if i > 0 else tr["tgt_pos.out"][t]
        y1, y2 = tr[p_ + ".norm1.out"][t], tr[p_ + ".norm2.out"][t]
        ffn = tr[p_ + ".ffn.out"][t]
        d3, r = through_norm(g, y2 + ffn, p_ + ".norm3")
        remainder += r
        d2, r = through_norm(d3, y1 + tr[p_ + ".cross_attn.out"][t], p_ + ".norm2")
        remainder += r
        d1, r = through_norm(d2, y0 + tr[p_ + ".self_attn.out"][t], p_ + ".norm1")
        remainder += r
        names.append(f"{p_}.input")
        values.append(float(y0 @ d1))
        for kind, d in (("self_attn", d1), ("cross_attn", d2)):
            hv, r = heads(f"{p_}.{kind}", d)
            names += [f"{p_}.{kind}.head{h}" for h in range(H)]
            values += hv
            remainder += r
        names.append(f"{p_}.ffn")
        values.append(float(ffn @ d3))
    logit = float(tr["generator.logits"][t, v])
    assert abs(sum(values) + remainder - logit) < 1e-9, "the decomposition must add up"
    return names, values, remainder, logit


def flat(x):
    return [float(v) for v in np.asarray(x, dtype=np.float64).reshape(-1)]


def check_against_golden(m, path):
    """This forward equals gen_golden_forward.py's PyTorch one: its trace's second row (no source padding)."""
    _, trace = safetensors_py.read(path)
    (B, S), src = trace["src_ids"]
    (_, T), tgt = trace["tgt_ids"]
    src, tgt = [int(v) for v in src[S:]], [int(v) for v in tgt[T:] if v != PAD]
    lp = m.forward(src, tgt)
    shape, ref = trace["generator.log_probs"]
    ref = np.array(ref).reshape(shape)[1, :len(tgt)]
    err = np.abs(lp - ref).max()
    assert err < 1e-5, f"{path}: the NumPy forward differs from the golden trace by {err}"
    return err


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for norm in ("post", "pre"):
        config, p = load(os.path.join(here, "fixtures", f"golden_{norm}.ckpt.safetensors"))
        m = Model(config, p)
        err = check_against_golden(m, os.path.join(here, "fixtures", f"golden_{norm}.trace.safetensors"))
        print(f"{norm}-LN: NumPy forward vs the golden PyTorch trace: max |diff| {err:.2e}")
        tensors = []
        lens = logit_lens(m, CLEAN_SRC, TGT)
        tensors.append(("lens.log_probs", list(lens.shape), flat(lens)))
        clean_lp = m.forward(CLEAN_SRC, TGT)
        corrupt_lp = m.forward(CORRUPT_SRC, TGT)
        # The metric: at the position where the two runs differ most in the clean argmax's log-prob,
        # log p(clean argmax) - log p(corrupted argmax) (the second best when they agree).
        diff = [clean_lp[t, clean_lp[t].argmax()] - corrupt_lp[t, clean_lp[t].argmax()] for t in range(len(TGT))]
        pos = int(np.argmax(np.abs(diff)))
        tok = int(clean_lp[pos].argmax())
        order = np.argsort(-corrupt_lp[pos])
        versus = int(order[0] if order[0] != tok else order[1])

        def metric(lp):
            return lp[pos, tok] - lp[pos, versus]
        base, grids = patching(m, metric)
        tensors.append(("patch.metric", [5], [pos, tok, versus, metric(clean_lp), base]))
        tensors += [(n, list(g.shape), flat(g)) for n, g in grids.items()]
        chosen = [int(clean_lp[t].argmax()) for t in range(len(TGT))]
        top2 = np.sort(clean_lp, -1)[:, -2:]
        assert (top2[:, 1] - top2[:, 0]).min() > 1e-3, "near-tie in the chosen tokens; change the input"
        tensors.append(("heads.chosen", [len(chosen)], chosen))
        tensors += [(n, list(g.shape), flat(g)) for n, g in head_importance(m, chosen).items()]
        tensors += [(n, list(g.shape), flat(g)) for n, g in rollout_and_entropy(m).items()]
        t = len(TGT) - 1
        names, values, remainder, logit = attribution(m, t, chosen[t])
        tensors.append(("attribution.values", [len(values)], values))
        tensors.append(("attribution.scalars", [4], [t, chosen[t], remainder, logit]))
        meta = {"format": "transformer-explorer-inspect-fixture/1", "clean_src": json.dumps(CLEAN_SRC),
                "corrupt_src": json.dumps(CORRUPT_SRC), "tgt": json.dumps(TGT), "attribution.names": json.dumps(names)}
        path = os.path.join(here, "fixtures", f"inspect_{norm}.safetensors")
        safetensors_py.write(path, tensors, meta)
        print(f"{norm}-LN: metric at t={pos} tok {tok} vs {versus}: clean {metric(clean_lp):.4f} "
              f"corrupted {base:.4f}; wrote {len(tensors)} tensors to {path}")


if __name__ == "__main__":
    main()
