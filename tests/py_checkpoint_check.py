#!/usr/bin/python3
# Cross-checks a checkpoint written by txcli against an independent PyTorch reference (docs/design.md §6):
#  1. reads the .safetensors file with a pure-Python reader (json + struct; F32 and U8; the data
#     offsets are checked), the "config" JSON in __metadata__ and the U8 tensor "tokenizer.model",
#     which goes into sentencepiece.SentencePieceProcessor(model_proto=...); the processor's pieces
#     must equal the config's "vocabulary" and ids 0..3 must be <pad> <bos> <eos> <unk>;
#  2. builds the encoder-decoder from the parameters in PyTorch (float32 unless --double) from the
#     paper's formulas, as tests/gen_golden_forward.py does (embeddings x sqrt(D), sinusoidal PE,
#     Post-LN or Pre-LN per "norm", 1/sqrt(dk) per "scale_attention", LayerNorm eps per "ln_eps",
#     y = x W^T + b, generator + log_softmax) and greedy-decodes every --src sentence: source ids =
#     sp.encode(text) + [EOS], decoder input from [BOS], argmax each step, stop at EOS or after
#     2 * len(source ids) + 10 tokens (within max_len - 1); the text is sp.decode(ids);
#  3. runs `txcli decode` on each sentence and compares the texts; runs `txcli forward --dump` (no
#     --tgt: the decoder input is BOS + txcli's greedy output) and compares the source ids, the greedy
#     ids and the log-probabilities of that pass; and runs `txcli forward --tgt TEXT --dump` for the
#     teacher-forced pairs (--tgt, paired with the first sources; default: the first source with
#     itself as target) and compares generator.log_probs [B,T,V] to --tol (default 1e-4).
# Prints a table; exits 1 if anything differs, 2 on a malformed checkpoint or unsupported config.
#
# Run: /usr/bin/python3 tests/py_checkpoint_check.py CHECKPOINT [--src TEXT ...] [--tgt TEXT ...]
#        [--tsv FILE --n N] [--txcli build/app/txcli] [--tol 1e-4] [--double] [--no-txcli]
# (Debian's python3-torch and python3-sentencepiece; no pip packages.)
import argparse
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import sentencepiece
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_SENTENCES = ["I like the cat.", "Where is the train station?", "We have two children."]
SPECIAL_PIECES = ["<pad>", "<bos>", "<eos>", "<unk>"]


class CheckpointError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# safetensors, pure Python

_DTYPES = {"F32": ("f", 4), "U8": ("B", 1), "I32": ("i", 4), "F64": ("d", 8), "I64": ("q", 8)}


def read_safetensors(path):
    """Returns (metadata {str: str}, {name: (dtype, shape, raw bytes)}). Checks the header, that every
    tensor's byte range matches its dtype and shape, lies inside the data section, and that the ranges
    neither overlap nor leave the data section with unused bytes."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise CheckpointError(f"{path}: {len(raw)} bytes, shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", raw[:8])
    if n > len(raw) - 8:
        raise CheckpointError(f"{path}: header length {n} exceeds the file ({len(raw)} bytes)")
    try:
        header = json.loads(raw[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path}: header is not UTF-8 JSON: {e}")
    if not isinstance(header, dict):
        raise CheckpointError(f"{path}: header is not a JSON object")
    data = raw[8 + n:]
    metadata = header.pop("__metadata__", {}) or {}
    tensors = {}
    ranges = []
    for name, entry in header.items():
        dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
        if dtype not in _DTYPES:
            raise CheckpointError(f"{path}: {name} has unsupported dtype {dtype!r}")
        if (not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape)):
            raise CheckpointError(f"{path}: {name} has a bad shape {shape!r}")
        if (not isinstance(offsets, list) or len(offsets) != 2 or not all(isinstance(o, int) for o in offsets)):
            raise CheckpointError(f"{path}: {name} has bad data_offsets {offsets!r}")
        begin, end = offsets
        numel = math.prod(shape)
        if not 0 <= begin <= end <= len(data):
            raise CheckpointError(f"{path}: {name} data_offsets {offsets} outside the data section ({len(data)} bytes)")
        if end - begin != numel * _DTYPES[dtype][1]:
            raise CheckpointError(f"{path}: {name} holds {end - begin} bytes for {dtype} {shape}")
        tensors[name] = (dtype, shape, data[begin:end])
        ranges.append((begin, end, name))
    ranges.sort()
    pos = 0
    for begin, end, name in ranges:
        if begin < pos:
            raise CheckpointError(f"{path}: {name} overlaps the tensor before it")
        if begin > pos:
            raise CheckpointError(f"{path}: {begin - pos} unused bytes before {name}")
        pos = end
    if pos != len(data):
        raise CheckpointError(f"{path}: {len(data) - pos} bytes after the last tensor")
    return metadata, tensors


def to_torch(entry, dtype=torch.float32):
    kind, shape, blob = entry
    code, size = _DTYPES[kind]
    want = dtype if kind in ("F32", "F64") else torch.long
    if sys.byteorder == "little" and kind in ("F32", "U8") and blob:
        native = torch.float32 if kind == "F32" else torch.uint8
        return torch.frombuffer(bytearray(blob), dtype=native).to(want).reshape(shape)
    values = struct.unpack(f"<{len(blob) // size}{code}", blob)
    return torch.tensor(values, dtype=want).reshape(shape)


# ---------------------------------------------------------------------------------------------
# The reference model

def positional_table(length, d):
    # PE[p, j] = sin(p / 10000^(2i/D)) for even j, cos for odd j, i = j // 2
    pe = torch.zeros(length, d, dtype=torch.float64)
    pos = torch.arange(length, dtype=torch.float64)
    for j in range(d):
        inv_freq = 1.0 / (10000.0 ** (2.0 * (j // 2) / d))
        pe[:, j] = torch.sin(pos * inv_freq) if j % 2 == 0 else torch.cos(pos * inv_freq)
    return pe


class Reference:
    """One unpadded sentence at a time ([1, S] source, [1, T] decoder input)."""

    def __init__(self, params, cfg, dtype):
        self.p = {k: v.to(dtype) for k, v in params.items()}
        self.cfg = cfg
        self.dtype = dtype
        self.D, self.H = cfg["d_model"], cfg["heads"]
        self.dk = self.D // self.H
        self.eps = float(cfg.get("ln_eps", 1e-5))
        self.pre = cfg.get("norm", "post") == "pre"
        self.scale = bool(cfg.get("scale_attention", True))
        self.positional = cfg.get("positional", "sinusoidal")
        self.pe = positional_table(cfg["max_len"], self.D).to(dtype)
        # tied embeddings (a config flag, name not fixed): fall back to the one table that exists
        if "tgt_embed.weight" not in self.p:
            self.p["tgt_embed.weight"] = self.p["src_embed.weight"]
        if "generator.weight" not in self.p:
            self.p["generator.weight"] = self.p["tgt_embed.weight"]

    def linear(self, x, name):
        return F.linear(x, self.p[name + ".weight"], self.p.get(name + ".bias"))

    def norm(self, x, name):
        return F.layer_norm(x, (self.D,), self.p[name + ".weight"], self.p[name + ".bias"], self.eps)

    def embed(self, ids, side):
        x = F.embedding(ids, self.p[f"{side}_embed.weight"]) * math.sqrt(self.D)
        if self.positional == "learned":
            return x + self.p[f"{side}_pos.weight"][: ids.shape[1]]
        return x + self.pe[: ids.shape[1]]

    def attention(self, prefix, xq, xkv, causal):
        B, Tq, Tk, H, dk = xq.shape[0], xq.shape[1], xkv.shape[1], self.H, self.dk
        q = self.linear(xq, prefix + ".q_proj").view(B, Tq, H, dk).transpose(1, 2)
        k = self.linear(xkv, prefix + ".k_proj").view(B, Tk, H, dk).transpose(1, 2)
        v = self.linear(xkv, prefix + ".v_proj").view(B, Tk, H, dk).transpose(1, 2)
        scores = q @ k.transpose(-1, -2)
        if self.scale:
            scores = scores / math.sqrt(dk)
        if causal:
            keep = torch.tril(torch.ones(Tq, Tk, dtype=torch.bool))
            scores = scores.masked_fill(~keep, float("-inf"))
        context = torch.softmax(scores, -1) @ v
        return self.linear(context.transpose(1, 2).reshape(B, Tq, self.D), prefix + ".out_proj")

    def ffn(self, x, prefix):
        return self.linear(torch.relu(self.linear(x, prefix + ".linear1")), prefix + ".linear2")

    def encode(self, src):
        x = self.embed(src, "src")
        for i in range(self.cfg["encoder_layers"]):
            p = f"encoder.layers.{i}"
            if self.pre:
                n1 = self.norm(x, p + ".norm1")
                x = x + self.attention(p + ".self_attn", n1, n1, False)
                x = x + self.ffn(self.norm(x, p + ".norm2"), p + ".ffn")
            else:
                x = self.norm(x + self.attention(p + ".self_attn", x, x, False), p + ".norm1")
                x = self.norm(x + self.ffn(x, p + ".ffn"), p + ".norm2")
        return self.norm(x, "encoder.norm") if self.pre else x

    def decode(self, memory, tgt):
        """log-probabilities [1, T, V] for the decoder input tgt [1, T]."""
        y = self.embed(tgt, "tgt")
        for i in range(self.cfg["decoder_layers"]):
            p = f"decoder.layers.{i}"
            if self.pre:
                n1 = self.norm(y, p + ".norm1")
                y = y + self.attention(p + ".self_attn", n1, n1, True)
                y = y + self.attention(p + ".cross_attn", self.norm(y, p + ".norm2"), memory, False)
                y = y + self.ffn(self.norm(y, p + ".norm3"), p + ".ffn")
            else:
                y = self.norm(y + self.attention(p + ".self_attn", y, y, True), p + ".norm1")
                y = self.norm(y + self.attention(p + ".cross_attn", y, memory, False), p + ".norm2")
                y = self.norm(y + self.ffn(y, p + ".ffn"), p + ".norm3")
        if self.pre:
            y = self.norm(y, "decoder.norm")
        return F.log_softmax(self.linear(y, "generator"), -1)

    def log_probs(self, src_ids, tgt_ids):
        with torch.no_grad():
            src = torch.tensor([src_ids], dtype=torch.long)
            return self.decode(self.encode(src), torch.tensor([tgt_ids], dtype=torch.long))[0]

    def greedy(self, src_ids, bos, eos):
        """Returns (output ids without EOS, smallest top-1/top-2 log-prob margin seen)."""
        limit = min(self.cfg["max_len"] - 1, 2 * len(src_ids) + 10)
        out, margin = [], float("inf")
        with torch.no_grad():
            memory = self.encode(torch.tensor([src_ids], dtype=torch.long))
            prefix = [bos]
            for _ in range(limit):
                lp = self.decode(memory, torch.tensor([prefix], dtype=torch.long))[0, -1]
                top = torch.topk(lp, 2).values
                margin = min(margin, float(top[0] - top[1]))
                nxt = int(lp.argmax())
                if nxt == eos:
                    break
                out.append(nxt)
                prefix.append(nxt)
        return out, margin


# ---------------------------------------------------------------------------------------------
# Loading and checking the checkpoint

def expected_parameters(cfg):
    """{name: shape} for the encoder-decoder of docs/design.md §4 (tests/model_layout.py plus learned positions)."""
    sys.path.insert(0, HERE)
    import model_layout  # noqa: E402
    if cfg["encoder_layers"] != cfg["decoder_layers"]:
        raise CheckpointError("encoder_layers != decoder_layers is not supported by this check")
    table = model_layout.parameter_table(cfg["tgt_vocab"], cfg["d_model"], cfg["d_ff"], cfg["encoder_layers"],
                                         cfg.get("norm", "post") == "pre")
    shapes = dict(table)
    shapes["src_embed.weight"] = [cfg["src_vocab"], cfg["d_model"]]
    if cfg.get("positional", "sinusoidal") == "learned":
        shapes["src_pos.weight"] = [cfg["max_len"], cfg["d_model"]]
        shapes["tgt_pos.weight"] = [cfg["max_len"], cfg["d_model"]]
    return shapes


def check_supported(cfg):
    unsupported = []
    for key, ok in (("arch", ("encoder-decoder",)), ("positional", ("sinusoidal", "learned")), ("ffn", ("relu",)),
                    ("norm_kind", ("layernorm",)), ("norm", ("post", "pre"))):
        if key in cfg and cfg[key] not in ok:
            unsupported.append(f"{key}={cfg[key]!r}")
    if cfg.get("window", 0) not in (0, None):
        unsupported.append(f"window={cfg['window']!r}")
    if unsupported:
        raise CheckpointError("this reference covers only encoder-decoder / sinusoidal|learned / relu / layernorm / "
                              "full attention; the checkpoint has " + ", ".join(unsupported))


def load(path, dtype):
    metadata, tensors = read_safetensors(path)
    if "config" not in metadata:
        raise CheckpointError(f"{path}: no __metadata__ \"config\"")
    cfg = json.loads(metadata["config"])
    check_supported(cfg)
    if cfg.get("tokenizer") != "sentencepiece":
        raise CheckpointError(f"tokenizer {cfg.get('tokenizer')!r}: this check needs a sentencepiece checkpoint")
    if "tokenizer.model" not in tensors:
        raise CheckpointError("no U8 tensor \"tokenizer.model\"")
    kind, shape, blob = tensors.pop("tokenizer.model")
    if kind != "U8" or len(shape) != 1:
        raise CheckpointError(f"tokenizer.model is {kind} {shape}, want U8 [N]")
    sp = sentencepiece.SentencePieceProcessor(model_proto=blob)

    problems = []
    pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    vocab = cfg.get("vocabulary")
    if pieces != vocab:
        if not isinstance(vocab, list):
            problems.append("config has no \"vocabulary\" list")
        else:
            first = next((i for i in range(min(len(pieces), len(vocab))) if pieces[i] != vocab[i]), None)
            problems.append(f"vocabulary differs from the SentencePiece pieces: {len(vocab)} vs {len(pieces)} entries"
                            + (f", first at id {first}: {vocab[first]!r} vs {pieces[first]!r}" if first is not None else ""))
    if pieces[:4] != SPECIAL_PIECES:
        problems.append(f"ids 0..3 are {pieces[:4]}, want {SPECIAL_PIECES}")
    special = cfg.get("special", {})
    if [special.get(k) for k in ("pad", "bos", "eos", "unk")] != [0, 1, 2, 3]:
        problems.append(f"config special ids {special}, want pad 0 bos 1 eos 2 unk 3")
    if (sp.pad_id(), sp.bos_id(), sp.eos_id(), sp.unk_id()) != (0, 1, 2, 3):
        problems.append(f"processor special ids pad {sp.pad_id()} bos {sp.bos_id()} eos {sp.eos_id()} unk {sp.unk_id()}")
    for side in ("src_vocab", "tgt_vocab"):
        if cfg.get(side) != len(pieces):
            problems.append(f"{side} {cfg.get(side)} != {len(pieces)} pieces")

    shapes = expected_parameters(cfg)
    for name in ("tgt_embed.weight", "generator.weight"):   # tied embeddings may omit these
        if name not in tensors:
            shapes.pop(name, None)
    missing = sorted(set(shapes) - set(tensors))
    extra = sorted(set(tensors) - set(shapes))
    if missing:
        problems.append(f"missing parameters: {missing}")
    if extra:
        problems.append(f"unexpected tensors: {extra}")
    params = {}
    for name, (kind, shape, _) in tensors.items():
        if kind != "F32":
            problems.append(f"{name} is {kind}, want F32")
        elif name in shapes and list(shape) != list(shapes[name]):
            problems.append(f"{name} has shape {shape}, want {shapes[name]}")
        else:
            params[name] = to_torch(tensors[name])
    if not all(torch.isfinite(v).all() for v in params.values()):
        problems.append("non-finite parameter values")
    return cfg, sp, params, problems, metadata


# ---------------------------------------------------------------------------------------------
# txcli

def run_txcli(txcli, args):
    r = subprocess.run([txcli] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    if r.returncode != 0:
        raise RuntimeError(f"txcli {' '.join(args[:1])} failed ({r.returncode}): "
                           f"{r.stderr.decode('utf-8', 'replace').strip()[-400:]}")
    return r.stdout


def txcli_decode_text(txcli, ckpt, text):
    """txcli decode prints one line per source; with one source, stdout minus its final newline is the text
    (the text itself could contain a newline from byte pieces). Falls back to the last line if stdout has
    other lines in front (a future log line)."""
    out = run_txcli(txcli, ["decode", "--checkpoint", ckpt, "--src", text]).decode("utf-8", "surrogateescape")
    if out.endswith("\n"):
        out = out[:-1]
    return out


def txcli_forward(txcli, ckpt, text, tgt=None):
    """Returns (src_ids, tgt_ids, log_probs [T, V]) from a one-sentence trace."""
    with tempfile.TemporaryDirectory(prefix="pycheck") as d:
        dump = os.path.join(d, "trace.safetensors")
        args = ["forward", "--checkpoint", ckpt, "--src", text, "--dump", dump]
        if tgt is not None:
            args += ["--tgt", tgt]
        run_txcli(txcli, args)
        _, t = read_safetensors(dump)
    src = [int(v) for v in to_torch(t["src_ids"]).reshape(-1).tolist()]
    tgt_ids = [int(v) for v in to_torch(t["tgt_ids"]).reshape(-1).tolist()]
    lp = to_torch(t["generator.log_probs"], torch.float64)
    if lp.shape[0] != 1:
        raise RuntimeError(f"generator.log_probs has shape {list(lp.shape)}, want [1, T, V]")
    return src, tgt_ids, lp[0]


def max_diff(a, b):
    a, b = a.double(), b.double()
    if a.shape != b.shape:
        return float("inf")
    both_inf = torch.isinf(a) & torch.isinf(b) & (torch.sign(a) == torch.sign(b))
    return float(torch.where(both_inf, torch.zeros(()), (a - b).abs()).max()) if a.numel() else 0.0


def clip(s, n):
    s = s.replace("\n", "\\n")
    return s if len(s) <= n else s[: n - 1] + "…"


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("--src", action="append", default=[], help="source sentence (repeatable)")
    ap.add_argument("--tgt", action="append", default=[],
                    help="teacher-forcing target for the i-th --src (repeatable; default: the first source itself)")
    ap.add_argument("--tsv", help="take sentence pairs (source<TAB>target) from this file as well")
    ap.add_argument("--n", type=int, default=3, help="how many --tsv lines (default 3)")
    ap.add_argument("--txcli", default=os.path.join(REPO, "build", "app", "txcli"))
    ap.add_argument("--tol", type=float, default=1e-4, help="log-probability tolerance (default 1e-4)")
    ap.add_argument("--double", action="store_true", help="reference in float64 instead of float32")
    ap.add_argument("--no-txcli", action="store_true", help="only the Python side (checks 1 and 2)")
    args = ap.parse_args()

    if len(args.tgt) > len(args.src):
        ap.error("more --tgt than --src")
    pairs = [(s, args.tgt[i] if i < len(args.tgt) else None) for i, s in enumerate(args.src)]
    if args.tsv:
        with open(args.tsv, encoding="utf-8") as f:
            pairs += [tuple(line.rstrip("\n").split("\t")[:2]) for line in f if "\t" in line][: args.n]
    if not pairs:
        pairs = [(s, None) for s in DEFAULT_SENTENCES]
    sources = [s for s, _ in pairs]
    forced = [(s, t) for s, t in pairs if t is not None] or [(sources[0], sources[0])]
    dtype = torch.float64 if args.double else torch.float32

    try:
        cfg, sp, params, problems, metadata = load(args.checkpoint, dtype)
    except CheckpointError as e:
        print(f"FAIL: {e}")
        return 2
    print(f"checkpoint {args.checkpoint}: format {metadata.get('format')!r}, D {cfg['d_model']}, H {cfg['heads']}, "
          f"F {cfg['d_ff']}, layers {cfg['encoder_layers']}+{cfg['decoder_layers']}, norm {cfg.get('norm', 'post')}, "
          f"V {cfg['tgt_vocab']}, max_len {cfg['max_len']}, ln_eps {cfg.get('ln_eps')}, "
          f"scale {cfg.get('scale_attention', True)}; {len(params)} parameters, reference in "
          f"{'float64' if args.double else 'float32'}")
    if problems:
        for p in problems:
            print(f"FAIL: {p}")
        return 2
    print(f"tokenizer.model: {sp.get_piece_size()} pieces == config vocabulary; ids 0..3 = {SPECIAL_PIECES}")

    PAD, BOS, EOS = 0, 1, 2
    ref = Reference(params, cfg, dtype)
    failures = 0
    rows = []
    for i, text in enumerate(sources):
        src_ids = sp.encode(text) + [EOS]
        if len(src_ids) > cfg["max_len"]:
            print(f"skip source {i + 1}: {len(src_ids)} ids > max_len {cfg['max_len']}")
            continue
        out_ids, margin = ref.greedy(src_ids, BOS, EOS)
        py_text = sp.decode(out_ids)
        row = {"i": i + 1, "src": text, "py": py_text, "n": len(out_ids), "margin": margin}
        if not args.no_txcli:
            cx_text = txcli_decode_text(args.txcli, args.checkpoint, text)
            cx_src, cx_tgt, cx_lp = txcli_forward(args.txcli, args.checkpoint, text)
            cx_out = cx_tgt[1:]
            lp_diff = max_diff(ref.log_probs(src_ids, cx_tgt).double(), cx_lp)
            text_ok = cx_text == py_text
            ids_ok = cx_src == src_ids and cx_tgt[:1] == [BOS] and cx_out == out_ids
            lp_ok = lp_diff <= args.tol
            notes = []
            if cx_src != src_ids:
                notes.append(f"source ids differ: txcli {cx_src} vs sp {src_ids}")
            if cx_out != out_ids:
                k = next((j for j in range(min(len(cx_out), len(out_ids))) if cx_out[j] != out_ids[j]),
                         min(len(cx_out), len(out_ids)))
                notes.append(f"greedy ids differ from position {k}: txcli {cx_out[k:k + 5]} vs python "
                             f"{out_ids[k:k + 5]} (lengths {len(cx_out)} / {len(out_ids)})")
            if not text_ok and ids_ok:
                notes.append(f"same ids, different text: txcli {cx_text!r} vs sp.decode {py_text!r}")
            row.update(cx=cx_text, ok=text_ok and ids_ok and lp_ok, text_ok=text_ok, ids_ok=ids_ok, lp=lp_diff,
                       notes=notes)
            failures += not row["ok"]
        rows.append(row)

    print()
    print("greedy decoding (python = PyTorch reference + sp.decode; txcli = `txcli decode`; ids and log-probs "
          "from `txcli forward --dump`)")
    header = f"{'#':>2}  {'source':<34} {'python':<34} {'txcli':<34} {'text':>4} {'ids':>4} {'max|dlp|':>9} {'margin':>7}"
    print(header)
    print("-" * len(header))
    for r in rows:
        if args.no_txcli:
            print(f"{r['i']:>2}  {clip(r['src'], 34):<34} {clip(r['py'], 34):<34} {'-':<34} {'-':>4} {'-':>4} "
                  f"{'-':>9} {r['margin']:>7.4f}")
            continue
        print(f"{r['i']:>2}  {clip(r['src'], 34):<34} {clip(r['py'], 34):<34} {clip(r['cx'], 34):<34} "
              f"{'ok' if r['text_ok'] else 'DIFF':>4} {'ok' if r['ids_ok'] else 'DIFF':>4} {r['lp']:>9.2e} "
              f"{r['margin']:>7.4f}")
        for note in r["notes"]:
            print(f"      {note}")
    print("(margin: the smallest top-1 minus top-2 log-probability over the python greedy steps; below ~1e-4 a "
          "float32 tie could flip)")

    if not args.no_txcli:
        print()
        print("teacher forcing (`txcli forward --src S --tgt T --dump`, generator.log_probs [1,T,V])")
        header = f"{'#':>2}  {'source':<34} {'target':<34} {'T':>3} {'ids':>4} {'max|dlp|':>9} {'result':>6}"
        print(header)
        print("-" * len(header))
        for i, (text, tgt) in enumerate(forced):
            src_ids = sp.encode(text) + [EOS]
            tgt_ids = [BOS] + sp.encode(tgt)
            cx_src, cx_tgt, cx_lp = txcli_forward(args.txcli, args.checkpoint, text, tgt)
            ids_ok = cx_src == src_ids and cx_tgt == tgt_ids
            d = max_diff(ref.log_probs(src_ids, tgt_ids).double(), cx_lp) if ids_ok else float("inf")
            ok = ids_ok and d <= args.tol
            failures += not ok
            print(f"{i + 1:>2}  {clip(text, 34):<34} {clip(tgt, 34):<34} {len(tgt_ids):>3} {'ok' if ids_ok else 'DIFF':>4} "
                  f"{d:>9.2e} {'ok' if ok else 'FAIL':>6}")
            if not ids_ok:
                print(f"      ids differ: txcli src {cx_src} tgt {cx_tgt} vs sp src {src_ids} tgt {tgt_ids}")

    print()
    if failures:
        print(f"FAIL: {failures} comparison(s) differ (tolerance {args.tol:g})")
        return 1
    print("OK: python and txcli agree" if not args.no_txcli else "OK (python side only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
