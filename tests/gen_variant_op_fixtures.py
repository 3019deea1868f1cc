#!/usr/bin/python3
# Golden fixtures for the modern variants' ops (the VariantOpFixtures tests in tests/ops/test_rope.cpp,
# test_alibi.cpp, test_embedding.cpp, test_activation.cpp and test_norm.cpp), computed in
# PyTorch from the papers' formulas, independently of our C++: RoPE (RoFormer eq. 34, in the complex
# form of its §3.2), ALiBi (Press et al. 2022, with the slopes of the paper's own get_slopes),
# learned absolute positions, GELU (F.gelu, exact erf form), SwiGLU's hidden (F.silu(gate)·up,
# Shazeer 2020) and RMSNorm (Zhang & Sennrich 2019, eq. 4). Inputs are drawn in float64, rounded to
# float32 (what our ops read), the forward runs in float64 and autograd back-propagates a fixed
# random upstream gradient `<op>.dout`. Writes tests/fixtures/variant_ops.safetensors (F32):
#   <op>.<input>, <op>.out, <op>.dout, <op>.d<input>   (shapes as our ops' arguments)
# and __metadata__ {"params": JSON of the scalar arguments per op (pos0, q0, eps, ...)}.
# Run: /usr/bin/python3 tests/gen_variant_op_fixtures.py  (Debian's python3-torch 1.13; deterministic)
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_py  # noqa: E402

SEED = 20261124
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "variant_ops.safetensors")

gen = torch.Generator().manual_seed(SEED)


def draw(*shape, lo=-1.0, hi=1.0):
    """Uniform in [lo, hi), rounded to float32 and held in float64 with gradients on."""
    x = torch.rand(*shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo
    return x.float().double().requires_grad_(True)


# ---- RoPE: pair (2i, 2i+1) as the complex number x_2i + i·x_2i+1, times e^{i·m·θ_i} ----
def rope(x, pos0):
    B, H, T, dk = x.shape
    theta = 10000.0 ** (-2.0 * torch.arange(dk // 2, dtype=torch.float64) / dk)
    angle = (pos0 + torch.arange(T, dtype=torch.float64))[:, None] * theta[None, :]      # (T, dk/2)
    z = torch.view_as_complex(x.reshape(B, H, T, dk // 2, 2))
    rotated = z * torch.polar(torch.ones_like(angle), angle)
    return torch.view_as_real(rotated).reshape(B, H, T, dk)


# ---- ALiBi: the paper's reference code (github.com/ofirpress/attention_with_linear_biases) ----
def get_slopes(n):
    def get_slopes_power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [start * ratio ** i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return get_slopes_power_of_2(closest_power_of_2) + \
        get_slopes(2 * closest_power_of_2)[0::2][:n - closest_power_of_2]


def alibi(scores, q0):
    B, H, T, S = scores.shape
    m = torch.tensor(get_slopes(H), dtype=torch.float64)                                  # (H)
    i = q0 + torch.arange(T, dtype=torch.float64)
    j = torch.arange(S, dtype=torch.float64)
    distance = (i[:, None] - j[None, :]).abs()                                           # (T, S)
    return scores - m[None, :, None, None] * distance[None, None]


def rmsnorm(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def flat(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


tensors = []
params = {}


def emit(name, t):
    tensors.append((name, list(t.shape), flat(t)))


def backprop(out, inputs, prefix, names):
    dout = draw(*out.shape).detach()
    out.backward(dout)
    emit(prefix + ".out", out)
    emit(prefix + ".dout", dout)
    for name, x in zip(names, inputs):
        emit(prefix + ".d" + name, x.grad)


def main():
    # RoPE: pos0 > 0 (a decode step), and dk = 2 at position 0
    for prefix, (B, H, T, dk), pos0 in [("rope", (2, 3, 4, 8), 5), ("rope_dk2", (1, 2, 3, 2), 0)]:
        x = draw(B, H, T, dk)
        emit(prefix + ".inp", x)
        backprop(rope(x, pos0), [x], prefix, ["inp"])
        params[prefix] = {"pos0": pos0}

    # ALiBi: H = 6 (not a power of two), T != S, q0 > 0; and H = 8, square
    for prefix, (B, H, T, S), q0 in [("alibi", (2, 6, 3, 5), 2), ("alibi_h8", (1, 8, 4, 4), 0)]:
        s = draw(B, H, T, S, lo=-2.0, hi=2.0)
        emit(prefix + ".scores", s)
        backprop(alibi(s, q0), [s], prefix, ["scores"])
        params[prefix] = {"q0": q0}
    for H in (3, 6, 12):
        emit(f"alibi.slopes_{H}", torch.tensor(get_slopes(H), dtype=torch.float64))

    # learned positions: out = inp + table[:T]; the gradient reaches the table (L > T: rows T.. get 0)
    B, T, D, L = 3, 4, 5, 6
    x, table = draw(B, T, D), draw(L, D)
    emit("learned.inp", x)
    emit("learned.table", table)
    backprop(x + table[:T][None], [x, table], "learned", ["inp", "table"])

    # GELU, exact erf form; inputs wide enough to reach both tails
    x = draw(64, lo=-5.0, hi=5.0)
    emit("gelu.inp", x)
    backprop(F.gelu(x), [x], "gelu", ["inp"])

    # SwiGLU's hidden
    gate, up = draw(64, lo=-8.0, hi=8.0), draw(64, lo=-2.0, hi=2.0)
    emit("swiglu.gate", gate)
    emit("swiglu.up", up)
    backprop(F.silu(gate) * up, [gate, up], "swiglu", ["gate", "up"])

    # RMSNorm: the model's eps, and a large eps whose effect shows
    for prefix, (N, C), eps in [("rmsnorm", (4, 16), 1e-5), ("rmsnorm_eps", (3, 8), 0.5)]:
        x, w = draw(N, C, lo=-2.0, hi=2.0), draw(C, lo=0.5, hi=1.5)
        emit(prefix + ".inp", x)
        emit(prefix + ".weight", w)
        out = rmsnorm(x, w, eps)
        emit(prefix + ".rstd", torch.rsqrt(x.pow(2).mean(-1) + eps))
        backprop(out, [x, w], prefix, ["inp", "weight"])
        params[prefix] = {"eps": eps}

    safetensors_py.write(OUT, tensors, {"params": json.dumps(params, sort_keys=True)})
    print(f"wrote {OUT}: {len(tensors)} tensors")


if __name__ == "__main__":
    main()
