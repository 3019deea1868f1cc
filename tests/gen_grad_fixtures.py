#!/usr/bin/python3
"""Golden gradients from PyTorch for tests/train/test_training.cpp (GoldenGradients.*).

Builds our encoder-decoder in PyTorch from our parameter layout (docs/design.md §3-4: linear weights
[out, in], y = x·Wᵀ + b, separate q/k/v projections, embeddings × √d_model, sinusoidal PE,
Post-LN without final norms or Pre-LN with encoder.norm/decoder.norm, masks with -inf),
runs forward + label-smoothed KL loss (the Annotated Transformer's LabelSmoothing, mean over
non-PAD targets) + backward on a fixed padded batch in float64, and writes
tests/fixtures/grad_{post,pre}_ln.safetensors with:
  param.<name>, grad.<name> (F32), loss [1], src_ids [B,S], tgt_ids [B,T], targets [B*T] (F32)
and __metadata__ {"config": <our ModelConfig JSON>, "smoothing": "0.1"}.

Run with Debian's PyTorch: /usr/bin/python3 tests/gen_grad_fixtures.py
The C++ tests read the fixtures; they do not need PyTorch.
"""
import json
import math
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_layout  # noqa: E402

PAD, BOS, EOS, UNK = 0, 1, 2, 3
V, D, H, F, LAYERS, MAX_LEN = 11, 16, 2, 32, 2, 16
SMOOTHING = 0.1
EPS = 1e-5

# Padded batch, our convention: src = tokens + EOS, tgt = BOS + tokens, targets = tokens + EOS.
CONTENT = [[4, 5, 6, 7, 8, 9], [10, 4, 4], [5, 6, 7, 8]]
OUTPUTS = [[9, 8, 7, 6, 5, 4], [4, 4, 10], [8, 7, 6, 5]]   # reversed: a non-trivial target


def pad(rows):
    n = max(len(r) for r in rows)
    return [r + [PAD] * (n - len(r)) for r in rows]


SRC = pad([c + [EOS] for c in CONTENT])
TGT = pad([[BOS] + o for o in OUTPUTS])
TARGETS = pad([o + [EOS] for o in OUTPUTS])


def parameter_table(pre_ln):
    """(name, shape) in core/model/parameters.cpp order."""
    return model_layout.parameter_table(V, D, F, LAYERS, pre_ln)


def init(table, seed):
    g = torch.Generator().manual_seed(seed)
    params = {}
    for name, shape in table:
        if len(shape) == 2:
            bound = math.sqrt(6.0 / (shape[0] + shape[1]))
            x = (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1) * bound
        elif name.endswith("norm1.weight") or name.endswith("norm2.weight") or name.endswith("norm3.weight") \
                or name.endswith("norm.weight"):
            x = 1 + (torch.rand(shape, generator=g, dtype=torch.float64) - 0.5) * 0.4
        else:
            x = (torch.rand(shape, generator=g, dtype=torch.float64) - 0.5) * 0.4
        # Stored as float32 (what our model holds); the reference computes in float64 from these values.
        params[name] = x.float().double().requires_grad_(True)
    return params


def positional_table(L, d):
    pe = torch.zeros(L, d, dtype=torch.float64)
    for j in range(d):
        inv = 1.0 / (10000.0 ** (2.0 * (j // 2) / d))
        for p in range(L):
            pe[p, j] = math.sin(p * inv) if j % 2 == 0 else math.cos(p * inv)
    return pe


def linear(P, name, x):
    return x @ P[name + ".weight"].T + P[name + ".bias"]


def layer_norm(P, name, x):
    return torch.nn.functional.layer_norm(x, (D,), P[name + ".weight"], P[name + ".bias"], EPS)


def attention(P, prefix, xq, xkv, keep):
    """keep [B, Tq, Tk] bool: True = may attend. Masked scores are -inf (docs/design.md §3)."""
    B, Tq, _ = xq.shape
    Tk = xkv.shape[1]
    dk = D // H
    q = linear(P, prefix + ".q_proj", xq).view(B, Tq, H, dk).transpose(1, 2)
    k = linear(P, prefix + ".k_proj", xkv).view(B, Tk, H, dk).transpose(1, 2)
    v = linear(P, prefix + ".v_proj", xkv).view(B, Tk, H, dk).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dk)
    scores = scores.masked_fill(~keep.unsqueeze(1), float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    ctx = (probs @ v).transpose(1, 2).reshape(B, Tq, D)
    return linear(P, prefix + ".out_proj", ctx)


def ffn(P, prefix, x):
    return linear(P, prefix + ".linear2", torch.relu(linear(P, prefix + ".linear1", x)))


def forward(P, pre_ln, src, tgt):
    B, S = src.shape
    T = tgt.shape[1]
    pe = positional_table(MAX_LEN, D)
    src_keep_key = src != PAD                                   # [B, S]
    tgt_keep_key = tgt != PAD                                   # [B, T]
    enc_keep = src_keep_key[:, None, :].expand(B, S, S)
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    dec_keep = causal[None] & tgt_keep_key[:, None, :]
    cross_keep = src_keep_key[:, None, :].expand(B, T, S)

    x = P["src_embed.weight"][src] * math.sqrt(D) + pe[:S]
    for i in range(LAYERS):
        p = f"encoder.layers.{i}"
        if pre_ln:
            n = layer_norm(P, p + ".norm1", x)
            x = x + attention(P, p + ".self_attn", n, n, enc_keep)
            x = x + ffn(P, p + ".ffn", layer_norm(P, p + ".norm2", x))
        else:
            x = layer_norm(P, p + ".norm1", x + attention(P, p + ".self_attn", x, x, enc_keep))
            x = layer_norm(P, p + ".norm2", x + ffn(P, p + ".ffn", x))
    if pre_ln:
        x = layer_norm(P, "encoder.norm", x)
    memory = x

    y = P["tgt_embed.weight"][tgt] * math.sqrt(D) + pe[:T]
    for i in range(LAYERS):
        p = f"decoder.layers.{i}"
        if pre_ln:
            n = layer_norm(P, p + ".norm1", y)
            y = y + attention(P, p + ".self_attn", n, n, dec_keep)
            y = y + attention(P, p + ".cross_attn", layer_norm(P, p + ".norm2", y), memory, cross_keep)
            y = y + ffn(P, p + ".ffn", layer_norm(P, p + ".norm3", y))
        else:
            y = layer_norm(P, p + ".norm1", y + attention(P, p + ".self_attn", y, y, dec_keep))
            y = layer_norm(P, p + ".norm2", y + attention(P, p + ".cross_attn", y, memory, cross_keep))
            y = layer_norm(P, p + ".norm3", y + ffn(P, p + ".ffn", y))
    if pre_ln:
        y = layer_norm(P, "decoder.norm", y)
    return torch.log_softmax(linear(P, "generator", y), dim=-1)   # [B, T, V]


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


def write_safetensors(path, tensors, metadata):
    """A minimal safetensors writer: F32 little-endian tensors, 8-byte aligned header."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors:
        data = t.detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = metadata
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * ((8 - len(raw) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def config_json(pre_ln):
    return json.dumps({
        "src_vocab": V, "tgt_vocab": V, "d_model": D, "heads": H, "d_ff": F,
        "encoder_layers": LAYERS, "decoder_layers": LAYERS, "max_len": MAX_LEN, "dropout": 0.0,
        "ln_eps": EPS, "norm": "pre" if pre_ln else "post", "scale_attention": True, "seed": 1,
        "tokenizer": "word", "special": {"pad": PAD, "bos": BOS, "eos": EOS, "unk": UNK}})


def main():
    torch.set_num_threads(1)
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    os.makedirs(out_dir, exist_ok=True)
    src = torch.tensor(SRC)
    tgt = torch.tensor(TGT)
    targets = torch.tensor(TARGETS)
    for pre_ln, file in ((False, "grad_post_ln.safetensors"), (True, "grad_pre_ln.safetensors")):
        table = parameter_table(pre_ln)
        P = init(table, seed=20240 + pre_ln)
        loss = label_smoothed_loss(forward(P, pre_ln, src, tgt), targets)
        loss.backward()
        tensors = [("loss", loss.detach().reshape(1)), ("src_ids", src.double()), ("tgt_ids", tgt.double()),
                   ("targets", targets.reshape(-1).double())]
        tensors += [("param." + name, P[name]) for name, _ in table]
        tensors += [("grad." + name, P[name].grad) for name, _ in table]
        write_safetensors(os.path.join(out_dir, file), tensors,
                          {"config": config_json(pre_ln), "smoothing": str(SMOOTHING),
                           "generator": "tests/gen_grad_fixtures.py (PyTorch %s, float64)" % torch.__version__})
        print("%s: loss %.9f, %d tensors" % (file, loss.item(), len(table)))


if __name__ == "__main__":
    main()
