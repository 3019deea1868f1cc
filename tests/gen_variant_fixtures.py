#!/usr/bin/python3
# Golden forward and gradient fixtures of the model variants for tests/model/test_variants.cpp, from a
# reference written in plain torch (float64) from the papers' formulas, not from our C++: RoPE
# (Su et al., RoFormer §3.2), ALiBi (Press et al. 2022, with the slopes of its reference code),
# learned absolute positions, GELU (Hendrycks & Gimpel, exact erf form), SwiGLU (Shazeer 2020,
# LLaMA's bias-free matrices), RMSNorm (Zhang & Sennrich 2019), sliding windows (Mistral for the
# decoder, Longformer for the encoder), and GPT's decoder-only stack. For each variant a tiny
# model (V 11, D 16, H 4, F 24, 2+2 layers; decoder-only: 2 layers, the source ignored) runs a
# padded batch; fixtures/variant_<name>.safetensors holds
#   param.<name>   every parameter (our names and [out,in] layouts)
#   src_ids, tgt_ids [B,L], targets [B*T], src_mask [B,1,1,S], src_self_mask [B,1,S,S], tgt_mask [B,1,T,T]
#   trace.<step>   every step output under core/model/transformer.cpp's step names
#   loss [1], grad.<name>   label-smoothed loss (smoothing 0.1) and its gradient by autograd
# and __metadata__ {"config": our config JSON}.
# Run: /usr/bin/python3 tests/gen_variant_fixtures.py  (Debian's python3-torch 1.13; deterministic)
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_py  # noqa: E402

PAD, BOS, EOS, UNK = 0, 1, 2, 3
V, LAYERS, MAX_LEN = 11, 2, 16
EPS = 1e-5
SMOOTHING = 0.1
CONTENT = [[4, 5, 6, 7, 8, 9, 10], [10, 4, 4], [5, 6, 7, 8, 9]]
OUTPUTS = [[9, 8, 7, 6, 5, 4, 10], [4, 4, 10], [8, 7, 6, 5, 9]]

# name: config changes from the 2017 model (D 16, H 4, F 24, post-LN, sinusoidal, relu, layernorm, full).
VARIANTS = {
    "learned": {"positional": "learned"},
    "rope": {"positional": "rope"},
    "alibi": {"positional": "alibi", "norm": "pre"},
    "alibi_h6": {"positional": "alibi", "d_model": 12, "heads": 6},   # slopes for H not a power of two
    "none": {"positional": "none"},
    "gelu": {"ffn": "gelu"},
    "swiglu": {"ffn": "swiglu", "norm": "pre"},
    "rmsnorm_post": {"norm_kind": "rmsnorm"},
    "rmsnorm_pre": {"norm_kind": "rmsnorm", "norm": "pre"},
    "window": {"window": 3},
    "llama_like": {"positional": "rope", "ffn": "swiglu", "norm_kind": "rmsnorm", "norm": "pre", "window": 4},
    # GPT-style: the decoder stack alone (self-attention + FFN, no encoder, no cross-attention)
    "decoder_only": {"arch": "decoder-only", "encoder_layers": 0, "positional": "learned", "ffn": "gelu"},
    "decoder_only_llama": {"arch": "decoder-only", "encoder_layers": 0, "positional": "rope", "ffn": "swiglu",
                           "norm_kind": "rmsnorm", "norm": "pre"},
}


def pad(rows):
    n = max(len(r) for r in rows)
    return [r + [PAD] * (n - len(r)) for r in rows]


SRC = pad([c + [EOS] for c in CONTENT])
TGT = pad([[BOS] + o for o in OUTPUTS])
TARGETS = pad([o + [EOS] for o in OUTPUTS])


def make_config(changes):
    c = {"src_vocab": V, "tgt_vocab": V, "d_model": 16, "heads": 4, "d_ff": 24, "encoder_layers": LAYERS,
         "decoder_layers": LAYERS, "max_len": MAX_LEN, "dropout": 0.0, "ln_eps": EPS, "norm": "post",
         "scale_attention": True, "seed": 1, "tokenizer": "word",
         "special": {"pad": PAD, "bos": BOS, "eos": EOS, "unk": UNK}, "arch": "encoder-decoder",
         "positional": "sinusoidal", "ffn": "relu", "norm_kind": "layernorm", "window": 0}
    c.update(changes)
    return c


def ffn_width(c):
    # SwiGLU: round(2/3·d_ff), to the nearest multiple of 8 from 64 on (docs/design.md §3; LLaMA's rule)
    if c["ffn"] != "swiglu":
        return c["d_ff"]
    f = max(1, int(math.floor(2.0 * c["d_ff"] / 3.0 + 0.5)))
    return (f + 4) // 8 * 8 if f >= 64 else f


def parameter_table(c):
    """[(name, shape)]: the names of docs/design.md §4, variants included."""
    D, Fw = c["d_model"], ffn_width(c)
    encoder = c["arch"] == "encoder-decoder"
    t = ([("src_embed.weight", [V, D])] if encoder else []) + [("tgt_embed.weight", [V, D])]
    if c["positional"] == "learned":
        t += ([("src_pos.weight", [MAX_LEN, D])] if encoder else []) + [("tgt_pos.weight", [MAX_LEN, D])]

    def attention(p):
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            t.extend([(f"{p}.{proj}.weight", [D, D]), (f"{p}.{proj}.bias", [D])])

    def norm(p):
        t.append((f"{p}.weight", [D]))
        if c["norm_kind"] == "layernorm":
            t.append((f"{p}.bias", [D]))

    def ffn(p):
        if c["ffn"] == "swiglu":
            t.extend([(f"{p}.linear1.weight", [Fw, D]), (f"{p}.linear3.weight", [Fw, D]), (f"{p}.linear2.weight", [D, Fw])])
        else:
            t.extend([(f"{p}.linear1.weight", [Fw, D]), (f"{p}.linear1.bias", [Fw]),
                      (f"{p}.linear2.weight", [D, Fw]), (f"{p}.linear2.bias", [D])])

    for i in range(c["encoder_layers"]):
        p = f"encoder.layers.{i}"
        attention(p + ".self_attn")
        norm(p + ".norm1")
        norm(p + ".norm2")
        ffn(p + ".ffn")
    for i in range(LAYERS):
        p = f"decoder.layers.{i}"
        attention(p + ".self_attn")
        if encoder:
            attention(p + ".cross_attn")
        for n in ("norm1", "norm2", "norm3") if encoder else ("norm1", "norm2"):
            norm(f"{p}.{n}")
        ffn(p + ".ffn")
    if c["norm"] == "pre":
        if encoder:
            norm("encoder.norm")
        norm("decoder.norm")
    t.extend([("generator.weight", [V, D]), ("generator.bias", [V])])
    return t


def make_parameters(table, seed):
    """float32 values; biases and norm gains away from 0 and 1 so that each one is exercised."""
    g = torch.Generator().manual_seed(seed)
    params = {}
    for name, shape in table:
        if len(shape) == 2:
            bound = math.sqrt(6.0 / (shape[0] + shape[1]))
            x = (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1) * bound
        elif ".norm" in name and name.endswith(".weight"):
            x = 1.0 + 0.2 * torch.randn(shape, generator=g, dtype=torch.float64)
        else:
            x = 0.2 * torch.randn(shape, generator=g, dtype=torch.float64)
        params[name] = x.float().double().requires_grad_(True)
    return params


def sinusoidal_table(length, d):
    pe = torch.zeros(length, d, dtype=torch.float64)
    pos = torch.arange(length, dtype=torch.float64)
    for j in range(d):
        pe[:, j] = (torch.sin if j % 2 == 0 else torch.cos)(pos / 10000.0 ** (2.0 * (j // 2) / d))
    return pe


def rope(x):
    """RoFormer eq. 34 on x [B,H,L,dk]: pair (2i, 2i+1) at position p rotated by p·θ_i, θ_i = 10000^(−2i/dk)."""
    dk, L = x.shape[-1], x.shape[-2]
    theta = 10000.0 ** (-2.0 * torch.arange(dk // 2, dtype=torch.float64) / dk)       # [dk/2]
    angle = torch.arange(L, dtype=torch.float64)[:, None] * theta[None, :]             # [L, dk/2]
    cos, sin = torch.cos(angle), torch.sin(angle)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], -1).flatten(-2)


def alibi_slopes(n):
    """The ALiBi paper's reference code (ofirpress/attention_with_linear_biases, get_slopes)."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]


class Reference:
    def __init__(self, c, params):
        self.c, self.p = c, params
        self.D, self.H = c["d_model"], c["heads"]
        self.dk = self.D // self.H
        self.trace = {}

    def rec(self, name, x):
        self.trace[name] = x
        return x

    def linear(self, x, name, bias=True):
        return F.linear(x, self.p[name + ".weight"], self.p[name + ".bias"] if bias else None)

    def norm(self, x, name):
        if self.c["norm_kind"] == "rmsnorm":   # x / √(mean(x²) + ε) · γ
            return x / torch.sqrt((x * x).mean(-1, keepdim=True) + EPS) * self.p[name + ".weight"]
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) ** 2).mean(-1, keepdim=True)
        return (x - mu) / torch.sqrt(var + EPS) * self.p[name + ".weight"] + self.p[name + ".bias"]

    def embed(self, ids, side):
        x = self.rec(f"{side}_embed.out", self.p[f"{side}_embed.weight"][ids] * math.sqrt(self.D))
        L = ids.shape[1]
        if self.c["positional"] == "sinusoidal":
            return self.rec(f"{side}_pos.out", x + sinusoidal_table(MAX_LEN, self.D)[:L])
        if self.c["positional"] == "learned":
            return self.rec(f"{side}_pos.out", x + self.p[f"{side}_pos.weight"][:L])
        return x

    def attention(self, prefix, xq, xkv, keep, self_attention):
        B, Tq, Tk, H, dk = xq.shape[0], xq.shape[1], xkv.shape[1], self.H, self.dk
        q = self.rec(prefix + ".q", self.linear(xq, prefix + ".q_proj").view(B, Tq, H, dk).transpose(1, 2))
        if self_attention and self.c["positional"] == "rope":
            q = self.rec(prefix + ".q_rot", rope(q))
        k = self.rec(prefix + ".k", self.linear(xkv, prefix + ".k_proj").view(B, Tk, H, dk).transpose(1, 2))
        if self_attention and self.c["positional"] == "rope":
            k = self.rec(prefix + ".k_rot", rope(k))
        v = self.rec(prefix + ".v", self.linear(xkv, prefix + ".v_proj").view(B, Tk, H, dk).transpose(1, 2))
        scores = q @ k.transpose(-1, -2) / math.sqrt(dk)
        if self_attention and self.c["positional"] == "alibi":
            distance = (torch.arange(Tq)[:, None] - torch.arange(Tk)[None, :]).abs().double()
            slopes = torch.tensor(alibi_slopes(H), dtype=torch.float64)
            scores = scores - slopes[:, None, None] * distance[None]
        self.rec(prefix + ".scores", scores)
        masked = self.rec(prefix + ".masked_scores", scores.masked_fill(~keep[:, None], float("-inf")))
        probs = torch.where(keep[:, None].any(-1, keepdim=True), torch.softmax(masked, -1), torch.zeros(()))
        self.rec(prefix + ".probs", probs)
        context = self.rec(prefix + ".context", probs @ v)
        return self.rec(prefix + ".out", self.linear(context.transpose(1, 2).reshape(B, Tq, self.D), prefix + ".out_proj"))

    def ffn(self, x, p):
        if self.c["ffn"] == "swiglu":
            gate = self.rec(p + ".gate", self.linear(x, p + ".linear1", bias=False))
            up = self.rec(p + ".up", self.linear(x, p + ".linear3", bias=False))
            h = self.rec(p + ".hidden", gate * torch.sigmoid(gate) * up)
            return self.rec(p + ".out", self.linear(h, p + ".linear2", bias=False))
        a = self.linear(x, p + ".linear1")
        if self.c["ffn"] == "gelu":
            h = 0.5 * a * (1.0 + torch.erf(a / math.sqrt(2.0)))
        else:
            h = torch.relu(a)
        self.rec(p + ".hidden", h)
        return self.rec(p + ".out", self.linear(h, p + ".linear2"))

    def sublayer(self, x, p, k, f):
        """Post: normK(x + f(x)); Pre: x + f(normK(x)), recording normK.out and residualK.out."""
        if self.c["norm"] == "post":
            return self.rec(f"{p}.norm{k}.out", self.norm(x + f(x), f"{p}.norm{k}"))
        n = self.rec(f"{p}.norm{k}.out", self.norm(x, f"{p}.norm{k}"))
        return self.rec(f"{p}.residual{k}.out", x + f(n))

    def masks(self, src, tgt):
        S, T, W = src.shape[1], tgt.shape[1], self.c["window"]
        i_s, j_s = torch.arange(S)[:, None], torch.arange(S)[None, :]
        i_t, j_t = torch.arange(T)[:, None], torch.arange(T)[None, :]
        src_near = (i_s - j_s).abs() <= W // 2 if W else torch.ones(S, S, dtype=torch.bool)   # Longformer
        tgt_near = j_t > i_t - W if W else torch.ones(T, T, dtype=torch.bool)                  # Mistral
        src_open, tgt_open = src != PAD, tgt != PAD
        src_keep = src_near[None] & src_open[:, None, :]
        tgt_keep = (j_t <= i_t)[None] & tgt_near[None] & tgt_open[:, None, :]
        cross_keep = src_open[:, None, :].expand(-1, T, -1)
        return src_keep, tgt_keep, cross_keep

    def forward(self, src, tgt):
        src_keep, tgt_keep, cross_keep = self.masks(src, tgt)
        if self.c["arch"] == "decoder-only":   # GPT (Radford et al. 2018): the decoder alone, no source
            y = self.embed(tgt, "tgt")
            for i in range(LAYERS):
                p = f"decoder.layers.{i}"
                y = self.sublayer(y, p, 1, lambda h: self.attention(p + ".self_attn", h, h, tgt_keep, True))
                y = self.sublayer(y, p, 2, lambda h: self.ffn(h, p + ".ffn"))
            if self.c["norm"] == "pre":
                y = self.rec("decoder.norm.out", self.norm(y, "decoder.norm"))
            logits = self.rec("generator.logits", self.linear(y, "generator"))
            return self.rec("generator.log_probs", torch.log_softmax(logits, -1))
        x = self.embed(src, "src")
        for i in range(LAYERS):
            p = f"encoder.layers.{i}"
            x = self.sublayer(x, p, 1, lambda h: self.attention(p + ".self_attn", h, h, src_keep, True))
            x = self.sublayer(x, p, 2, lambda h: self.ffn(h, p + ".ffn"))
        if self.c["norm"] == "pre":
            x = self.rec("encoder.norm.out", self.norm(x, "encoder.norm"))
        memory = x
        y = self.embed(tgt, "tgt")
        for i in range(LAYERS):
            p = f"decoder.layers.{i}"
            y = self.sublayer(y, p, 1, lambda h: self.attention(p + ".self_attn", h, h, tgt_keep, True))
            y = self.sublayer(y, p, 2, lambda h: self.attention(p + ".cross_attn", h, memory, cross_keep, False))
            y = self.sublayer(y, p, 3, lambda h: self.ffn(h, p + ".ffn"))
        if self.c["norm"] == "pre":
            y = self.rec("decoder.norm.out", self.norm(y, "decoder.norm"))
        logits = self.rec("generator.logits", self.linear(y, "generator"))
        return self.rec("generator.log_probs", torch.log_softmax(logits, -1))


def label_smoothed_loss(log_probs, targets):
    """The Annotated Transformer's LabelSmoothing (KL divergence, sum) / number of non-PAD targets."""
    lp = log_probs.reshape(-1, V)
    y = targets.reshape(-1)
    true = torch.full_like(lp, SMOOTHING / (V - 2))
    true.scatter_(1, y[:, None], 1.0 - SMOOTHING)
    true[:, PAD] = 0
    true[y == PAD] = 0
    kl = torch.where(true > 0, true * (torch.log(true.clamp_min(1e-300)) - lp), torch.zeros_like(lp))
    return kl.sum() / (y != PAD).sum()


def self_checks():
    """The formulas against what they promise, so a slip in this reference is caught here."""
    x = torch.randn(2, 3, 7, 8, dtype=torch.float64)
    assert torch.allclose(rope(x).norm(dim=-1), x.norm(dim=-1))                   # a rotation keeps lengths
    q, k = torch.randn(8, dtype=torch.float64), torch.randn(8, dtype=torch.float64)
    rq, rk = rope(q.expand(1, 1, 12, 8)), rope(k.expand(1, 1, 12, 8))
    assert abs(float(rq[0, 0, 5] @ rk[0, 0, 2]) - float(rq[0, 0, 9] @ rk[0, 0, 6])) < 1e-12   # only i − j counts
    assert alibi_slopes(8) == [2 ** -(h + 1) for h in range(8)]                    # the paper's 1/2 … 1/256
    a = torch.linspace(-4, 4, 101, dtype=torch.float64)
    assert torch.allclose(0.5 * a * (1.0 + torch.erf(a / math.sqrt(2.0))), F.gelu(a))
    w = torch.randn(5, dtype=torch.float64)
    assert torch.allclose(a[:5] / torch.sqrt((a[:5] ** 2).mean() + EPS) * w,
                          a[:5] * torch.rsqrt((a[:5] ** 2).mean() + EPS) * w)


def main():
    torch.set_num_threads(1)
    self_checks()
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    src, tgt, targets = torch.tensor(SRC), torch.tensor(TGT), torch.tensor(TARGETS)
    B, S, T = src.shape[0], src.shape[1], tgt.shape[1]
    for index, (name, changes) in enumerate(VARIANTS.items()):
        c = make_config(changes)
        table = parameter_table(c)
        params = make_parameters(table, 4242 + index)
        ref = Reference(c, params)
        loss = label_smoothed_loss(ref.forward(src, tgt), targets)
        loss.backward()
        src_keep, tgt_keep, _ = ref.masks(src, tgt)

        def flat(x):
            return [float(v) for v in x.detach().reshape(-1).tolist()]

        tensors = [("src_ids", [B, S], flat(src)), ("tgt_ids", [B, T], flat(tgt)),
                   ("targets", [B * T], flat(targets)),
                   ("src_mask", [B, 1, 1, S], flat((src != PAD).double())),
                   ("src_self_mask", [B, 1, S, S], flat(src_keep.double())),
                   ("tgt_mask", [B, 1, T, T], flat(tgt_keep.double())),
                   ("loss", [1], [float(loss)])]
        tensors += [("param." + n, shape, flat(params[n])) for n, shape in table]
        tensors += [("grad." + n, shape, flat(params[n].grad)) for n, shape in table]
        tensors += [("trace." + n, list(x.shape), flat(x)) for n, x in ref.trace.items()]
        config = json.dumps(c, sort_keys=True, separators=(",", ":"))
        safetensors_py.write(os.path.join(out_dir, f"variant_{name}.safetensors"), tensors,
                             {"config": config, "smoothing": str(SMOOTHING),
                              "generator": f"tests/gen_variant_fixtures.py (PyTorch {torch.__version__}, float64)"})
        print(f"variant_{name}: loss {float(loss):.9f}, {len(table)} parameters, {len(ref.trace)} steps")


if __name__ == "__main__":
    main()
