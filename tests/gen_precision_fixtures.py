#!/usr/bin/env python3
# The golden Post-LN model (tests/fixtures/golden_post.*) run in the precision modes of
# docs/precision.md, in plain Python (float64, standard library only), written to
# tests/fixtures/precision_post.safetensors as "<mode>/<step name>" for every step:
#   bf16, fp16       autocast: each product's inputs (layer input, weight, bias; q, k; probs, v)
#                    rounded to the format, summed in float64, the output rounded; softmax,
#                    LayerNorm, log-softmax, residuals, ReLU and embeddings unrounded
#   bf16_all_low     the same, and every step's output rounded to BF16
#   int8             weights per output channel: scale = max|w| / 127 (FP32), q = round(w / scale)
#                    ties to even, the products on q * scale; activations unrounded
# The rounding is written from the formats' definitions (frexp and Python's round-half-even on
# the significand; FP16 subnormals in steps of 2^-24 and overflow from 65520), not from the C++
# code's bit operations. tests/precision/test_precision_fixtures.cpp compares the C++ modes with it.
# Run: python3 tests/gen_precision_fixtures.py   (no third-party packages)
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_py  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
PAD = 0


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def round_significand(x, bits, min_exponent=None, quantum=None, overflow=None):
    """x rounded to `bits` significant bits, ties to even; below 2^min_exponent to multiples of `quantum`."""
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x
    a = abs(x)
    if min_exponent is not None and a < 2.0 ** min_exponent:
        r = round(a / quantum) * quantum            # subnormal: a fixed step
    else:
        m, e = math.frexp(a)                         # a = m * 2^e, 0.5 <= m < 1
        r = math.ldexp(round(m * 2 ** bits), e - bits)
    if overflow is not None and r >= overflow:
        r = math.inf
    return math.copysign(r, x)


def bf16(x):
    return round_significand(x, 8)


def fp16(x):
    # 11 significant bits; subnormals below 2^-14 in steps of 2^-24; 65504 is the largest, a
    # value that rounds to 65536 (from 65520 up) is inf
    return round_significand(x, 11, min_exponent=-14, quantum=2.0 ** -24, overflow=65536.0)


def identity(x):
    return x


class Model:
    def __init__(self, params, config, mode):
        self.p = params
        self.c = config
        self.mode = mode
        self.round = {"bf16": bf16, "bf16_all_low": bf16, "fp16": fp16}.get(mode, identity)
        self.all_low = mode == "bf16_all_low"
        self.trace = {}
        self.D = config["d_model"]
        self.H = config["heads"]
        self.dk = self.D // self.H
        self.weights = {}
        for name, (shape, values) in params.items():
            if len(shape) == 2 and "embed" not in name:
                self.weights[name] = self.convert_weight(shape, values)

    def convert_weight(self, shape, values):
        OC, C = shape
        if self.mode == "int8":
            out = []
            for o in range(OC):
                row = values[o * C:(o + 1) * C]
                scale = f32(f32(max(abs(w) for w in row)) / 127.0)
                out += [f32(max(-127, min(127, round(w / scale))) * scale) if scale > 0 else 0.0 for w in row]
            return out
        return [self.round(w) for w in values]

    def rec(self, name, x):
        if self.all_low:
            x = [self.round(v) for v in x]
        self.trace[name] = x
        return x

    def linear(self, x, rows, C, name):
        # x: rows * C values; weight (OC, C); out rows * OC, each rounded
        shape, _ = self.p[name + ".weight"]
        OC = shape[0]
        W = self.weights[name + ".weight"]
        b = [self.round(v) for v in self.p[name + ".bias"][1]]
        xr = [self.round(v) for v in x]
        out = []
        for r in range(rows):
            xrow = xr[r * C:(r + 1) * C]
            for o in range(OC):
                s = b[o] + math.fsum(xrow[c] * W[o * C + c] for c in range(C))
                out.append(self.round(s))
        return out

    def heads(self, flat, B, L):
        # (B, L, D) -> (B, H, L, dk)
        D, H, dk = self.D, self.H, self.dk
        return [flat[(b * L + t) * D + h * dk + i] for b in range(B) for h in range(H) for t in range(L) for i in range(dk)]

    def attention(self, prefix, xq, Tq, xkv, Tk, B, keep):
        D, H, dk = self.D, self.H, self.dk
        q = self.rec(prefix + ".q", self.heads(self.linear(xq, B * Tq, D, prefix + ".q_proj"), B, Tq))
        k = self.rec(prefix + ".k", self.heads(self.linear(xkv, B * Tk, D, prefix + ".k_proj"), B, Tk))
        v = self.rec(prefix + ".v", self.heads(self.linear(xkv, B * Tk, D, prefix + ".v_proj"), B, Tk))
        R = self.round
        qr, kr, vr = [R(a) for a in q], [R(a) for a in k], [R(a) for a in v]
        scale = 1.0 / math.sqrt(dk)
        scores, masked, probs, context = [], [], [], []
        for b in range(B):
            for h in range(H):
                bh = b * H + h
                for i in range(Tq):
                    row = []
                    for j in range(Tk):
                        dot = math.fsum(qr[(bh * Tq + i) * dk + d] * kr[(bh * Tk + j) * dk + d] for d in range(dk))
                        row.append(R(f32(scale) * dot))
                    scores += row
                    mrow = [row[j] if keep[b][i][j] else -math.inf for j in range(Tk)]
                    masked += mrow
                    top = max(mrow)
                    if top == -math.inf:
                        prow = [0.0] * Tk
                    else:
                        e = [math.exp(s - top) for s in mrow]
                        total = math.fsum(e)
                        prow = [x / total for x in e]
                    probs += prow
        scores = self.rec(prefix + ".scores", scores)
        masked = self.rec(prefix + ".masked_scores", masked)
        probs = self.rec(prefix + ".probs", probs)
        pr = [R(a) for a in probs]
        for bh in range(B * H):
            for i in range(Tq):
                for d in range(dk):
                    context.append(R(math.fsum(pr[(bh * Tq + i) * Tk + j] * vr[(bh * Tk + j) * dk + d] for j in range(Tk))))
        context = self.rec(prefix + ".context", context)
        merged = [context[((b * H + h) * Tq + t) * dk + i] for b in range(B) for t in range(Tq) for h in range(H) for i in range(dk)]
        return self.rec(prefix + ".out", self.linear(merged, B * Tq, D, prefix + ".out_proj"))

    def add_norm(self, name, x, sub, rows):
        D = self.D
        w, bias = self.p[name + ".weight"][1], self.p[name + ".bias"][1]
        eps = self.c["ln_eps"]
        out = []
        for r in range(rows):
            s = [x[r * D + i] + sub[r * D + i] for i in range(D)]
            mean = math.fsum(s) / D
            var = math.fsum((a - mean) ** 2 for a in s) / D
            rstd = 1.0 / math.sqrt(var + eps)
            out += [(s[i] - mean) * rstd * w[i] + bias[i] for i in range(D)]
        return self.rec(name + ".out", out)

    def ffn(self, prefix, x, rows):
        D, F = self.D, self.c["d_ff"]
        hidden = self.rec(prefix + ".hidden", [max(0.0, a) for a in self.linear(x, rows, D, prefix + ".linear1")])
        return self.rec(prefix + ".out", self.linear(hidden, rows, F, prefix + ".linear2"))

    def embed(self, side, ids, B, L):
        D = self.D
        E = self.p[side + "_embed.weight"][1]
        scale = f32(math.sqrt(D))
        x = self.rec(side + "_embed.out", [E[ids[b][t] * D + i] * scale for b in range(B) for t in range(L) for i in range(D)])
        pe = []
        for t in range(L):
            for j in range(D):
                angle = t / (10000.0 ** (2.0 * (j // 2) / D))
                pe.append(f32(math.sin(angle) if j % 2 == 0 else math.cos(angle)))
        return self.rec(side + "_pos.out", [x[(b * L + t) * D + i] + pe[t * D + i] for b in range(B) for t in range(L) for i in range(D)])

    def forward(self, src, tgt):
        B, S, T = len(src), len(src[0]), len(tgt[0])
        layers = self.c["encoder_layers"]
        src_keep = [[[src[b][j] != PAD for j in range(S)] for _ in range(S)] for b in range(B)]
        tgt_keep = [[[tgt[b][j] != PAD and j <= i for j in range(T)] for i in range(T)] for b in range(B)]
        cross_keep = [[[src[b][j] != PAD for j in range(S)] for _ in range(T)] for b in range(B)]
        x = self.embed("src", src, B, S)
        for i in range(layers):
            p = f"encoder.layers.{i}"
            x = self.add_norm(p + ".norm1", x, self.attention(p + ".self_attn", x, S, x, S, B, src_keep), B * S)
            x = self.add_norm(p + ".norm2", x, self.ffn(p + ".ffn", x, B * S), B * S)
        memory = x
        y = self.embed("tgt", tgt, B, T)
        for i in range(self.c["decoder_layers"]):
            p = f"decoder.layers.{i}"
            y = self.add_norm(p + ".norm1", y, self.attention(p + ".self_attn", y, T, y, T, B, tgt_keep), B * T)
            y = self.add_norm(p + ".norm2", y, self.attention(p + ".cross_attn", y, T, memory, S, B, cross_keep), B * T)
            y = self.add_norm(p + ".norm3", y, self.ffn(p + ".ffn", y, B * T), B * T)
        V = self.c["tgt_vocab"]
        logits = self.rec("generator.logits", self.linear(y, B * T, self.D, "generator"))
        log_probs = []
        for r in range(B * T):
            row = logits[r * V:(r + 1) * V]
            top = max(row)
            lse = top + math.log(math.fsum(math.exp(a - top) for a in row))
            log_probs += [a - lse for a in row]
        self.rec("generator.log_probs", log_probs)


def rows(shape, values):
    return [[int(values[b * shape[1] + t]) for t in range(shape[1])] for b in range(shape[0])]


def main():
    import json
    meta, params = safetensors_py.read(os.path.join(FIXTURES, "golden_post.ckpt.safetensors"))
    config = json.loads(meta["config"])
    _, trace = safetensors_py.read(os.path.join(FIXTURES, "golden_post.trace.safetensors"))
    src, tgt = rows(*trace["src_ids"]), rows(*trace["tgt_ids"])
    # checks of the rounding itself (the numbers docs/precision.md quotes)
    assert bf16(128.5) == 128.0 and bf16(129.5) == 130.0
    assert fp16(65519.0) == 65504.0 and fp16(65520.0) == math.inf
    assert fp16(2.0 ** -25) == 0.0 and fp16(3 * 2.0 ** -25) == 2 * 2.0 ** -24
    tensors = []
    for mode in ["bf16", "fp16", "bf16_all_low", "int8"]:
        model = Model(params, config, mode)
        model.forward(src, tgt)
        for name, values in model.trace.items():
            tensors.append((f"{mode}/{name}", [len(values)], [f32(v) if math.isfinite(v) else v for v in values]))
    out = os.path.join(FIXTURES, "precision_post.safetensors")
    safetensors_py.write(out, tensors, {"format": "transformer-explorer-precision-fixture/1",
                                         "source": "tests/gen_precision_fixtures.py on golden_post"})
    print(f"wrote {out}: {len(tensors)} tensors")


if __name__ == "__main__":
    main()
