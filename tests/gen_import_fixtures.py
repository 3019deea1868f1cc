#!/usr/bin/python3
# Fixtures for tests/io/test_import.cpp: small random PyTorch models (torch.nn.Transformer, Post-LN ReLU and
# Pre-LN GELU; a GPT-style nn.TransformerEncoder under a causal mask with learned positions) run in eval
# mode on a fixed padded batch, saved as state_dicts and converted by tools/import_torch.py (run as users
# run it). fixtures/import_<name>.safetensors is the converted checkpoint; import_<name>.expect.safetensors
# holds src_ids, tgt_ids [B,L] and trace.<our step name>: every layer's output, each stack's output and
# the log-probs [B,T,V], from PyTorch's own modules. Then the converter's messages on broken inputs.
# Run: /usr/bin/python3 tests/gen_import_fixtures.py [--out-dir DIR]  (python3-torch 1.13; deterministic)
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import safetensors_py  # noqa: E402

CONVERTER = os.path.join(HERE, "..", "tools", "import_torch.py")
PAD, BOS, EOS = 0, 1, 2
WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran"]
VOCAB = ["<pad>", "<bos>", "<eos>", "<unk>"] + WORDS   # V = 12
V, D, H, F, MAX_LEN = len(VOCAB), 16, 4, 24, 16
SRC = [[4, 5, 6, 7, 4, 8, EOS], [9, 10, 11, EOS, PAD, PAD, PAD]]
TGT = [[BOS, 9, 5, 6, 7], [BOS, 4, 10, PAD, PAD]]


def sinusoidal_table(length, d):
    """The paper's table as ours (core/ops/ops_embedding.cpp): even columns sin, odd cos, of pos / 10000^(2i/d)."""
    pe = torch.zeros(length, d)
    pos = torch.arange(length, dtype=torch.float64)
    for j in range(d):
        pe[:, j] = ((torch.sin if j % 2 == 0 else torch.cos)(pos / 10000.0 ** (2.0 * (j // 2) / d))).float()
    return pe


def perturb_norms(module, g):
    """LayerNorm γ near 1 and β near 0 but not equal, so that a swapped or dropped norm shows."""
    for sub in module.modules():
        if isinstance(sub, nn.LayerNorm):
            with torch.no_grad():
                sub.weight.copy_(1.0 + 0.2 * torch.randn(sub.weight.shape, generator=g))
                sub.bias.copy_(0.2 * torch.randn(sub.bias.shape, generator=g))


class Seq2Seq(nn.Module):
    """The usual wrapper around nn.Transformer: embeddings × √d_model + sinusoidal PE, a generator."""

    def __init__(self, norm_first, activation, scale_embeddings=True):
        super().__init__()
        self.src_tok = nn.Embedding(V, D)
        self.tgt_tok = nn.Embedding(V, D)
        self.transformer = nn.Transformer(d_model=D, nhead=H, num_encoder_layers=2, num_decoder_layers=2,
                                          dim_feedforward=F, dropout=0.1, activation=activation,
                                          batch_first=True, norm_first=norm_first)
        self.out = nn.Linear(D, V)
        self.register_buffer("pe", sinusoidal_table(MAX_LEN, D), persistent=False)
        self.scale = math.sqrt(D) if scale_embeddings else 1.0

    def forward(self, src, tgt, record):
        S, T = src.shape[1], tgt.shape[1]
        x = self.src_tok(src) * self.scale + self.pe[:S]
        y = self.tgt_tok(tgt) * self.scale + self.pe[:T]
        causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
        memory = self.transformer.encoder(x, src_key_padding_mask=src == PAD)
        record["encoder.norm.out"] = memory
        out = self.transformer.decoder(y, memory, tgt_mask=causal, tgt_key_padding_mask=tgt == PAD,
                                       memory_key_padding_mask=src == PAD)
        record["decoder.norm.out"] = out
        return torch.log_softmax(self.out(out), -1)


class Gpt(nn.Module):
    """GPT-style: nn.TransformerEncoder under a causal mask, learned positions, Pre-LN, final norm."""

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D)
        self.pos = nn.Embedding(MAX_LEN, D)
        layer = nn.TransformerEncoderLayer(D, H, F, dropout=0.1, activation="gelu", batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(D), enable_nested_tensor=False)
        self.head = nn.Linear(D, V, bias=False)

    def forward(self, src, tgt, record):
        T = tgt.shape[1]
        y = self.tok(tgt) * math.sqrt(D) + self.pos.weight[:T]
        causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
        out = self.blocks(y, mask=causal, src_key_padding_mask=tgt == PAD)
        record["decoder.norm.out"] = out
        return torch.log_softmax(self.head(out), -1)


def layer_hooks(model, record, names):
    """Each torch layer's output under our step name: Post-LN ends a layer at its last add & norm
    (normK.out), Pre-LN at its last residual (residualK.out)."""
    for layers, ours in names:
        for i, layer in enumerate(layers):
            layer.register_forward_hook(lambda _m, _in, out, name=ours.format(i): record.__setitem__(name, out))


CASES = {
    # nn.Transformer as its documentation builds it: Post-LN, ReLU (and its final norms)
    "transformer_post_relu": dict(make=lambda: Seq2Seq(False, "relu"), post=True, seq2seq=True,
                                  config={"module": "transformer", "prefix": "transformer.", "norm_first": False,
                                          "activation": "relu", "encoder_layers": 2, "decoder_layers": 2,
                                          "tensors": {"src_embed": "src_tok.weight", "tgt_embed": "tgt_tok.weight",
                                                      "generator.weight": "out.weight",
                                                      "generator.bias": "out.bias"}}),
    # Pre-LN, GELU, and embeddings the model does not scale (the converter folds 1/√d_model in)
    "transformer_pre_gelu": dict(make=lambda: Seq2Seq(True, "gelu", scale_embeddings=False), post=False,
                                 seq2seq=True,
                                 config={"module": "transformer", "prefix": "transformer.", "norm_first": True,
                                         "activation": "gelu", "encoder_layers": 2, "decoder_layers": 2,
                                         "embeddings_scaled": False,
                                         "tensors": {"src_embed": "src_tok.weight", "tgt_embed": "tgt_tok.weight",
                                                     "generator.weight": "out.weight",
                                                     "generator.bias": "out.bias"}}),
    "encoder_causal_gpt": dict(make=Gpt, post=False, seq2seq=False,
                               config={"module": "encoder", "causal": True, "prefix": "blocks.", "norm_first": True,
                                       "activation": "gelu", "layers": 2, "positional": "learned",
                                       "tensors": {"tgt_embed": "tok.weight", "tgt_pos": "pos.weight",
                                                   "generator.weight": "head.weight"}}),
}


def run_converter(state_dict_path, config_path, out_path):
    return subprocess.run([sys.executable, CONVERTER, "--state-dict", state_dict_path, "--config", config_path,
                           "--out", out_path], capture_output=True, text=True)


def make_case(name, case, index, work, out_dir):
    torch.manual_seed(1000 + index)
    model = case["make"]()
    perturb_norms(model, torch.Generator().manual_seed(2000 + index))
    model.eval()
    record = {}
    if case["seq2seq"]:
        k = "norm{}.out" if case["post"] else "residual{}.out"
        layer_hooks(model, record, [(model.transformer.encoder.layers, "encoder.layers.{}." + k.format(2)),
                                    (model.transformer.decoder.layers, "decoder.layers.{}." + k.format(3))])
    else:
        layer_hooks(model, record, [(model.blocks.layers, "decoder.layers.{}.residual2.out")])
    src, tgt = torch.tensor(SRC), torch.tensor(TGT)
    # Grad mode on: torch 1.13's inference fast path (nested tensors) zeroes padded rows, which the
    # reference must not do (our trace computes every row).
    log_probs = model(src, tgt, record)
    record["generator.log_probs"] = log_probs

    state_path = os.path.join(work, name + ".pt")
    torch.save(model.state_dict(), state_path)
    vocab_path = os.path.join(work, "vocab.txt")
    with open(vocab_path, "w", encoding="utf-8") as f:
        f.write("\n".join(VOCAB) + "\n")
    config = dict(case["config"], d_model=D, heads=H, d_ff=F, max_len=MAX_LEN,
                  tokenizer={"kind": "word", "vocabulary": "vocab.txt"})
    config_path = os.path.join(work, name + ".json")
    with open(config_path, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=1)
    result = run_converter(state_path, config_path, os.path.join(out_dir, f"import_{name}.safetensors"))
    if result.returncode != 0:
        raise SystemExit(f"{name}: the converter failed: {result.stderr.strip()}")

    def flat(x):
        return [float(v) for v in x.detach().reshape(-1).tolist()]

    tensors = [("src_ids", list(src.shape), flat(src)), ("tgt_ids", list(tgt.shape), flat(tgt))]
    tensors += [("trace." + n, list(x.shape), flat(x)) for n, x in sorted(record.items())]
    safetensors_py.write(os.path.join(out_dir, f"import_{name}.expect.safetensors"), tensors,
                         {"generator": f"tests/gen_import_fixtures.py (PyTorch {torch.__version__}, float32, eval)"})
    print(f"import_{name}: {result.stdout.strip()}; {len(record)} reference outputs")
    return state_path, config


def check_messages(work, state_path, config):
    """The converter refuses broken inputs with a message that names the problem, and writes nothing."""
    state = torch.load(state_path)
    out = os.path.join(work, "refused.safetensors")

    def expect(label, message, config_changes=None, state_change=None):
        s = dict(state)
        if state_change:
            state_change(s)
        sp = os.path.join(work, "broken.pt")
        torch.save(s, sp)
        c = dict(config, **(config_changes or {}))
        cp = os.path.join(work, "broken.json")
        with open(cp, "w", encoding="utf-8") as f:
            json.dump(c, f)
        result = run_converter(sp, cp, out)
        if result.returncode == 0 or message not in result.stderr or os.path.exists(out):
            raise SystemExit(f"converter on {label}: expected a refusal naming {message!r}, got rc "
                             f"{result.returncode}: {result.stderr.strip() or result.stdout.strip()}")
        print(f"refused {label}: {result.stderr.strip()}")

    key = "transformer.encoder.layers.1.self_attn.in_proj_weight"
    expect("a missing tensor", f"has no '{key}'", state_change=lambda s: s.pop(key))
    expect("an extra tensor", "does not explain: extra.weight",
           state_change=lambda s: s.__setitem__("extra.weight", torch.zeros(3)))
    expect("a mis-shaped tensor", "'transformer.decoder.layers.0.linear1.weight' has shape [25, 16]",
           state_change=lambda s: s.__setitem__("transformer.decoder.layers.0.linear1.weight", torch.zeros(25, 16)))
    expect("too few layers in the config", "does not explain: transformer.decoder.layers.1",
           config_changes={"decoder_layers": 1})
    expect("an encoder-only model", "encoder-only (BERT-style)", config_changes={"module": "encoder"})
    expect("nn.TransformerDecoder alone", "cross-attend to an encoder's memory", config_changes={"module": "decoder"})
    expect("heads that do not divide d_model", "must be divisible by heads", config_changes={"heads": 5})
    expect("a missing embedding name", "needs \"src_embed\"",
           config_changes={"tensors": {k: v for k, v in config["tensors"].items() if k != "src_embed"}})
    with open(os.path.join(work, "short_vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(VOCAB[:-1]) + "\n")
    expect("a vocabulary of the wrong size", "has 11 tokens but the embeddings have 12 rows",
           config_changes={"tokenizer": {"kind": "word", "vocabulary": "short_vocab.txt"}})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out-dir", default=os.path.join(HERE, "fixtures"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    os.makedirs(args.out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        first = None
        for index, (name, case) in enumerate(CASES.items()):
            made = make_case(name, case, index, work, args.out_dir)
            first = first or made
        check_messages(work, *first)


if __name__ == "__main__":
    main()
