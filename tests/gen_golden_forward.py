#!/usr/bin/python3
# Golden forward fixtures for tests/model/test_golden.cpp, computed in PyTorch independently of our C++.
# A tiny encoder-decoder (V 13, D 16, H 4, F 32, 2+2 layers, max_len 32) is written from
# torch.nn.functional ops as docs/design.md §3 specifies, in float64, and its layers and stacks are
# checked against torch.nn.TransformerEncoderLayer/DecoderLayer/Encoder/Decoder (weights copied).
# Writes, for Post-LN and Pre-LN:
#   fixtures/golden_<norm>.ckpt.safetensors   the checkpoint (our names, [out,in] layouts, our metadata)
#   fixtures/golden_<norm>.trace.safetensors  src_ids, tgt_ids, src_mask, tgt_mask (F32), every step
#                                             output under core/model/transformer.cpp's step names, and
#                                             greedy.ids [B, MAX_NEW] (generated ids, -1 after EOS)
# Run: /usr/bin/python3 tests/gen_golden_forward.py  (Debian's python3-torch 1.13; deterministic)
import json
import math
import os
import struct
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_layout  # noqa: E402
import safetensors_py  # noqa: E402

VOCAB = ["<pad>", "<bos>", "<eos>", "<unk>", "the", "cat", "sat", "on", "a", "mat", "dog", "ran", "."]
PAD, BOS, EOS, UNK = 0, 1, 2, 3
V, D, H, FF, LAYERS, MAX_LEN = len(VOCAB), 16, 4, 32, 2, 32
DK = D // H
EPS = 1e-5
SEED = 20240611
MAX_NEW = 10
# Two rows of each side with different lengths, so both sides are padded somewhere.
SRC = [[10, 11, 12, EOS], [4, 5, 6, 7, 8, 9, EOS]]    # tokens + EOS
TGT = [[BOS, 4, 5, 6, 7, 8], [BOS, 10, 11]]           # BOS + tokens


def f32(x):
    """The float32 value of a Python float, as a double (what a C++ float holds)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def config_json(norm):
    # Exactly what core/model/config.cpp to_json writes (nlohmann::json: keys sorted, no spaces, floats
    # printed from the float's double value), plus the vocabulary the checkpoint carries.
    c = {
        "d_ff": FF, "d_model": D, "decoder_layers": LAYERS, "dropout": f32(0.1), "encoder_layers": LAYERS,
        "heads": H, "ln_eps": f32(EPS), "max_len": MAX_LEN, "norm": norm, "scale_attention": True,
        "seed": SEED, "special": {"bos": BOS, "eos": EOS, "pad": PAD, "unk": UNK}, "src_vocab": V,
        "tgt_vocab": V, "tokenizer": "word", "vocabulary": VOCAB,
    }
    return json.dumps(c, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parameter_table(pre):
    """(name, shape) in core/model/parameters.cpp order."""
    return model_layout.parameter_table(V, D, FF, LAYERS, pre)


def make_parameters(pre, seed):
    """Random float32 parameters; biases and LayerNorm gains are non-trivial so that every one is tested."""
    g = torch.Generator().manual_seed(seed)
    params = {}
    for name, shape in parameter_table(pre):
        if len(shape) == 2:
            bound = math.sqrt(6.0 / (shape[0] + shape[1]))
            value = (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1) * bound
        elif ".norm" in name and name.endswith(".weight"):
            value = 1.0 + 0.2 * torch.randn(shape, generator=g, dtype=torch.float64)
        else:
            value = 0.2 * torch.randn(shape, generator=g, dtype=torch.float64)
        params[name] = value.float()
    return params


def positional_table(length, d):
    # PE[p, j] = sin(p / 10000^(2i/D)) for even j, cos for odd j, i = j // 2 (any D, odd too)
    pe = torch.zeros(length, d, dtype=torch.float64)
    pos = torch.arange(length, dtype=torch.float64)
    for j in range(d):
        inv_freq = 1.0 / (10000.0 ** (2.0 * (j // 2) / d))
        pe[:, j] = torch.sin(pos * inv_freq) if j % 2 == 0 else torch.cos(pos * inv_freq)
    return pe


def pad_rows(rows):
    n = max(len(r) for r in rows)
    return torch.tensor([r + [PAD] * (n - len(r)) for r in rows], dtype=torch.long)


class Reference:
    """The model as docs/design.md §3 says, from functional ops in float64; records every step."""

    def __init__(self, params, pre):
        self.p = {k: v.double() for k, v in params.items()}
        self.pre = pre
        self.pe = positional_table(MAX_LEN, D)
        self.trace = {}

    def rec(self, name, x):
        self.trace[name] = x
        return x

    def linear(self, x, name):
        return F.linear(x, self.p[name + ".weight"], self.p[name + ".bias"])

    def norm(self, x, name):
        return F.layer_norm(x, (D,), self.p[name + ".weight"], self.p[name + ".bias"], EPS)

    def embed(self, ids, side):
        x = self.rec(f"{side}_embed.out", F.embedding(ids, self.p[f"{side}_embed.weight"]) * math.sqrt(D))
        return self.rec(f"{side}_pos.out", x + self.pe[: ids.shape[1]])

    def attention(self, prefix, xq, xkv, keep):
        # keep [B, Tq, Tk] bool: True = may attend
        B, Tq, Tk = xq.shape[0], xq.shape[1], xkv.shape[1]
        q = self.rec(prefix + ".q", self.linear(xq, prefix + ".q_proj").view(B, Tq, H, DK).transpose(1, 2))
        k = self.rec(prefix + ".k", self.linear(xkv, prefix + ".k_proj").view(B, Tk, H, DK).transpose(1, 2))
        v = self.rec(prefix + ".v", self.linear(xkv, prefix + ".v_proj").view(B, Tk, H, DK).transpose(1, 2))
        scores = self.rec(prefix + ".scores", q @ k.transpose(-1, -2) / math.sqrt(DK))
        masked = self.rec(prefix + ".masked_scores", scores.masked_fill(~keep[:, None], float("-inf")))
        # A row with every key masked attends to nothing: zeros, not softmax's NaN.
        probs = torch.where(keep[:, None].any(-1, keepdim=True), torch.softmax(masked, -1), torch.zeros(()))
        self.rec(prefix + ".probs", probs)
        context = self.rec(prefix + ".context", probs @ v)
        merged = context.transpose(1, 2).reshape(B, Tq, D)
        return self.rec(prefix + ".out", self.linear(merged, prefix + ".out_proj"))

    def ffn(self, x, prefix):
        h = self.rec(prefix + ".hidden", torch.relu(self.linear(x, prefix + ".linear1")))
        return self.rec(prefix + ".out", self.linear(h, prefix + ".linear2"))

    def encoder_layer(self, x, i, src_keep):
        p = f"encoder.layers.{i}"
        if not self.pre:
            x = self.rec(p + ".norm1.out", self.norm(x + self.attention(p + ".self_attn", x, x, src_keep), p + ".norm1"))
            return self.rec(p + ".norm2.out", self.norm(x + self.ffn(x, p + ".ffn"), p + ".norm2"))
        n1 = self.rec(p + ".norm1.out", self.norm(x, p + ".norm1"))
        x = self.rec(p + ".residual1.out", x + self.attention(p + ".self_attn", n1, n1, src_keep))
        n2 = self.rec(p + ".norm2.out", self.norm(x, p + ".norm2"))
        return self.rec(p + ".residual2.out", x + self.ffn(n2, p + ".ffn"))

    def decoder_layer(self, y, memory, i, tgt_keep, cross_keep):
        p = f"decoder.layers.{i}"
        if not self.pre:
            y = self.rec(p + ".norm1.out", self.norm(y + self.attention(p + ".self_attn", y, y, tgt_keep), p + ".norm1"))
            y = self.rec(p + ".norm2.out",
                         self.norm(y + self.attention(p + ".cross_attn", y, memory, cross_keep), p + ".norm2"))
            return self.rec(p + ".norm3.out", self.norm(y + self.ffn(y, p + ".ffn"), p + ".norm3"))
        n1 = self.rec(p + ".norm1.out", self.norm(y, p + ".norm1"))
        y = self.rec(p + ".residual1.out", y + self.attention(p + ".self_attn", n1, n1, tgt_keep))
        n2 = self.rec(p + ".norm2.out", self.norm(y, p + ".norm2"))
        y = self.rec(p + ".residual2.out", y + self.attention(p + ".cross_attn", n2, memory, cross_keep))
        n3 = self.rec(p + ".norm3.out", self.norm(y, p + ".norm3"))
        return self.rec(p + ".residual3.out", y + self.ffn(n3, p + ".ffn"))

    @staticmethod
    def masks(src, tgt):
        S, T = src.shape[1], tgt.shape[1]
        src_open = src != PAD                                            # [B, S]
        tgt_open = tgt != PAD                                            # [B, T]
        causal = torch.tril(torch.ones(T, T, dtype=torch.bool))         # key j <= query i
        src_keep = src_open[:, None, :].expand(-1, S, -1)                # [B, S, S]
        tgt_keep = causal[None] & tgt_open[:, None, :]                   # [B, T, T]
        cross_keep = src_open[:, None, :].expand(-1, T, -1)              # [B, T, S]
        return src_keep, tgt_keep, cross_keep

    def encode(self, src):
        src_keep, _, _ = self.masks(src, src[:, :1])
        x = self.embed(src, "src")
        for i in range(LAYERS):
            x = self.encoder_layer(x, i, src_keep)
        if self.pre:
            x = self.rec("encoder.norm.out", self.norm(x, "encoder.norm"))
        return x

    def decode(self, memory, src, tgt):
        _, tgt_keep, cross_keep = self.masks(src, tgt)
        y = self.embed(tgt, "tgt")
        for i in range(LAYERS):
            y = self.decoder_layer(y, memory, i, tgt_keep, cross_keep)
        if self.pre:
            y = self.rec("decoder.norm.out", self.norm(y, "decoder.norm"))
        logits = self.rec("generator.logits", self.linear(y, "generator"))
        return self.rec("generator.log_probs", F.log_softmax(logits, -1))

    def forward(self, src, tgt):
        return self.decode(self.encode(src), src, tgt)


def copy_attention(mha, p, prefix):
    mha.in_proj_weight.copy_(torch.cat([p[f"{prefix}.{r}_proj.weight"] for r in "qkv"]))
    mha.in_proj_bias.copy_(torch.cat([p[f"{prefix}.{r}_proj.bias"] for r in "qkv"]))
    mha.out_proj.weight.copy_(p[prefix + ".out_proj.weight"])
    mha.out_proj.bias.copy_(p[prefix + ".out_proj.bias"])


def copy_common(layer, p, prefix, norms):
    for n in norms:
        getattr(layer, n).weight.copy_(p[f"{prefix}.{n}.weight"])
        getattr(layer, n).bias.copy_(p[f"{prefix}.{n}.bias"])
    layer.linear1.weight.copy_(p[prefix + ".ffn.linear1.weight"])
    layer.linear1.bias.copy_(p[prefix + ".ffn.linear1.bias"])
    layer.linear2.weight.copy_(p[prefix + ".ffn.linear2.weight"])
    layer.linear2.bias.copy_(p[prefix + ".ffn.linear2.bias"])


def assert_close(name, got, ref, tol=1e-10):
    err = (got - ref).abs().max().item()
    if not err <= tol:
        raise AssertionError(f"{name}: reference and torch.nn differ by {err:g}")
    print(f"  {name}: max |diff| vs torch.nn = {err:.2e}")


def check_against_torch_nn(ref, src, tgt):
    """The functional reference equals torch.nn's layers and stacks (float64, eval, weights copied).
    Grad stays enabled so that torch takes its ordinary (not the fused fast-path) route."""
    p, pre, t = ref.p, ref.pre, ref.trace
    kw = dict(dim_feedforward=FF, dropout=0.0, activation="relu", layer_norm_eps=EPS, batch_first=True,
              norm_first=pre, dtype=torch.float64)
    src_pad, tgt_pad = src == PAD, tgt == PAD
    causal = torch.triu(torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool), 1)   # True = masked
    enc_layers, dec_layers = [], []
    with torch.no_grad():
        for i in range(LAYERS):
            e = torch.nn.TransformerEncoderLayer(D, H, **kw).eval()
            copy_attention(e.self_attn, p, f"encoder.layers.{i}.self_attn")
            copy_common(e, p, f"encoder.layers.{i}", ("norm1", "norm2"))
            enc_layers.append(e)
            d = torch.nn.TransformerDecoderLayer(D, H, **kw).eval()
            copy_attention(d.self_attn, p, f"decoder.layers.{i}.self_attn")
            copy_attention(d.multihead_attn, p, f"decoder.layers.{i}.cross_attn")
            copy_common(d, p, f"decoder.layers.{i}", ("norm1", "norm2", "norm3"))
            dec_layers.append(d)
    last_enc = "residual2.out" if pre else "norm2.out"
    last_dec = "residual3.out" if pre else "norm3.out"
    memory = t["encoder.norm.out"] if pre else t[f"encoder.layers.{LAYERS - 1}.{last_enc}"]
    for i in range(LAYERS):
        x_in = t["src_pos.out"] if i == 0 else t[f"encoder.layers.{i - 1}.{last_enc}"]
        got = enc_layers[i](x_in, src_key_padding_mask=src_pad)
        assert_close(f"encoder.layers.{i}", t[f"encoder.layers.{i}.{last_enc}"], got)
        y_in = t["tgt_pos.out"] if i == 0 else t[f"decoder.layers.{i - 1}.{last_dec}"]
        got = dec_layers[i](y_in, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_pad,
                            memory_key_padding_mask=src_pad)
        assert_close(f"decoder.layers.{i}", t[f"decoder.layers.{i}.{last_dec}"], got)
        # per-head attention probabilities as torch.nn.MultiheadAttention reports them
        for block, attn, q_in, kv_in, kpm, mask in (
                ("encoder", enc_layers[i].self_attn, "src_pos.out", None, src_pad, None),
                ("decoder", dec_layers[i].self_attn, "tgt_pos.out", None, tgt_pad, causal)):
            if pre or i > 0:
                continue   # the raw embedding is the attention input only for Post-LN layer 0
            _, w = attn(t[q_in], t[q_in], t[q_in], key_padding_mask=kpm, attn_mask=mask, need_weights=True,
                        average_attn_weights=False)
            assert_close(f"{block}.layers.0.self_attn.probs", t[f"{block}.layers.0.self_attn.probs"], w)
    # whole stacks (torch.nn adds a final norm only where we do: Pre-LN)
    enc_norm = dec_norm = None
    if pre:
        enc_norm = torch.nn.LayerNorm(D, eps=EPS, dtype=torch.float64)
        dec_norm = torch.nn.LayerNorm(D, eps=EPS, dtype=torch.float64)
        with torch.no_grad():
            for m, n in ((enc_norm, "encoder.norm"), (dec_norm, "decoder.norm")):
                m.weight.copy_(p[n + ".weight"])
                m.bias.copy_(p[n + ".bias"])
    encoder = torch.nn.TransformerEncoder(enc_layers[0], LAYERS, norm=enc_norm, enable_nested_tensor=False).eval()
    decoder = torch.nn.TransformerDecoder(dec_layers[0], LAYERS, norm=dec_norm).eval()
    encoder.layers = torch.nn.ModuleList(enc_layers)
    decoder.layers = torch.nn.ModuleList(dec_layers)
    mem = encoder(t["src_pos.out"], src_key_padding_mask=src_pad)
    assert_close("encoder stack", memory, mem)
    out = decoder(t["tgt_pos.out"], mem, tgt_mask=causal, tgt_key_padding_mask=tgt_pad,
                  memory_key_padding_mask=src_pad)
    final = t["decoder.norm.out"] if pre else t[f"decoder.layers.{LAYERS - 1}.{last_dec}"]
    assert_close("decoder stack", final, out)
    gen = torch.nn.Linear(D, V, dtype=torch.float64)
    with torch.no_grad():
        gen.weight.copy_(p["generator.weight"])
        gen.bias.copy_(p["generator.bias"])
    assert_close("generator.log_probs", t["generator.log_probs"], torch.log_softmax(gen(out), -1))


def greedy(ref, src):
    """Greedy decoding from BOS over the padded batch, as core/decode/decoding.cpp: rows that produced EOS
    are fed PAD while the others go on. Returns [B, MAX_NEW] ids, -1 after a row stopped."""
    with torch.no_grad():
        memory = ref.encode(src)
        B = src.shape[0]
        prefix = [[BOS] for _ in range(B)]
        result = [[-1] * MAX_NEW for _ in range(B)]
        done = [False] * B
        for t in range(1, MAX_NEW + 1):
            lp = ref.decode(memory, src, torch.tensor(prefix, dtype=torch.long))[:, -1]
            for b in range(B):
                if done[b]:
                    prefix[b].append(PAD)
                    continue
                top = torch.topk(lp[b], 2).values
                # float32 C++ must pick the same token: refuse a near-tie rather than a flaky test
                if top[0] - top[1] < 1e-4:
                    raise AssertionError(f"greedy step {t}, row {b}: near-tie {top.tolist()}; change SEED")
                nxt = int(lp[b].argmax())
                prefix[b].append(nxt)
                if nxt == EOS:
                    done[b] = True
                else:
                    result[b][t - 1] = nxt
            if all(done):
                break
    return result


def flat(x):
    return [float(v) for v in x.reshape(-1).tolist()]


def main():
    torch.manual_seed(0)
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = os.path.join(here, "fixtures")
    os.makedirs(out_dir, exist_ok=True)
    src, tgt = pad_rows(SRC), pad_rows(TGT)
    for norm, pre in (("post", False), ("pre", True)):
        print(f"{norm}-LN:")
        params = make_parameters(pre, SEED + (1 if pre else 0))
        ref = Reference(params, pre)
        ref.forward(src, tgt)
        trace = dict(ref.trace)
        check_against_torch_nn(ref, src, tgt)
        decoded = greedy(ref, src)
        print(f"  greedy: {decoded}")

        names = [n for n, _ in parameter_table(pre)]
        ckpt = [(n, list(params[n].shape), flat(params[n])) for n in names]
        safetensors_py.write(os.path.join(out_dir, f"golden_{norm}.ckpt.safetensors"), ckpt,
                             {"format": "transformer-explorer/1", "config": config_json(norm)})

        src_keep, tgt_keep, _ = Reference.masks(src, tgt)
        B, S, T = src.shape[0], src.shape[1], tgt.shape[1]
        tensors = [
            ("src_ids", [B, S], flat(src)),
            ("tgt_ids", [B, T], flat(tgt)),
            ("src_mask", [B, 1, 1, S], flat((src != PAD).double())),
            ("tgt_mask", [B, 1, T, T], flat(tgt_keep.double())),
            ("greedy.ids", [B, MAX_NEW], [float(v) for row in decoded for v in row]),
        ]
        tensors += [(name, list(x.shape), flat(x.float())) for name, x in trace.items()]
        safetensors_py.write(os.path.join(out_dir, f"golden_{norm}.trace.safetensors"), tensors,
                             {"format": "transformer-explorer/1", "what": "golden forward trace, float64 reference"})
        # The files read back to what was written.
        meta, back = safetensors_py.read(os.path.join(out_dir, f"golden_{norm}.trace.safetensors"))
        assert set(back) == {t[0] for t in tensors} and back["src_ids"][1] == flat(src)
        print(f"  wrote {len(ckpt)} parameters and {len(tensors)} trace tensors")


if __name__ == "__main__":
    main()
