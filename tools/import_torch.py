#!/usr/bin/python3
# Converts a PyTorch model built from torch.nn.Transformer (or a GPT-style nn.TransformerEncoder run
# with a causal mask) into a Transformer Explorer checkpoint (.safetensors, docs/design.md §6): each
# attention's in_proj_weight [3D, D] / in_proj_bias [3D] is split into q_proj, k_proj, v_proj
# ([D, D] / [D] each, torch's row order q, k, v), the other names are mapped, and the config and
# vocabulary go into __metadata__. Linear weights stay [out, in] (y = x·Wᵀ + b, as ours).
# Run: /usr/bin/python3 tools/import_torch.py --state-dict model.pt --config import.json --out model.safetensors
import argparse
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # safetensors_file.py, beside this file
import safetensors_file  # noqa: E402

USAGE_NOTE = """\
The import config (JSON; paths relative to the config file):
  "module":       "transformer" (nn.Transformer: encoder + decoder with cross-attention)
                  | "encoder" with "causal": true (nn.TransformerEncoder under a causal mask: GPT-style,
                  imported as our decoder-only model)
  "prefix":       the module's key prefix in the state_dict, e.g. "transformer." (default "")
  "d_model", "heads", "d_ff", "encoder_layers", "decoder_layers" ("layers" for module encoder), "max_len"
  "norm_first":   as the torch layers (default false); "activation": "relu" | "gelu" (default "relu")
  "layer_norm_eps": default 1e-5
  "positional":   "sinusoidal" (the paper's table, added to the embeddings) | "learned" | "none"
  "embeddings_scaled": true when the model multiplies embeddings by sqrt(d_model), as ours (default true)
  "tensors":      names of what nn.Transformer does not hold: {"src_embed", "tgt_embed", "generator.weight",
                  "generator.bias" (optional), "src_pos", "tgt_pos" (learned positions)}
  "tokenizer":    {"kind": "word" | "char", "vocabulary": "vocab.txt"} (one token a line, line i = id i)
                  or {"kind": "sentencepiece", "model": "spm.model"}; ids 0..3 are <pad> <bos> <eos> <unk>
  "ignore":       state_dict keys to leave out (default none)
Not supported: nn.TransformerEncoder without a causal mask (an encoder-only, BERT-style model: the explorer
runs encoder-decoder and decoder-only models) and nn.TransformerDecoder alone (its layers cross-attend to an
encoder's memory that the state_dict does not hold; import the whole nn.Transformer instead).
"""

CHECKPOINT_FORMAT = "transformer-explorer/1"
SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]


class ImportError_(Exception):
    """A problem with the user's files, reported as one clear line."""


def fail(message):
    raise ImportError_(message)


def shape_text(shape):
    return "[" + ", ".join(str(int(d)) for d in shape) + "]"


# ---------------------------------------------------------------- the import config

def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except OSError as e:
        fail(f"cannot read the import config {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"the import config {path} is not valid JSON: {e}")
    if not isinstance(value, dict):
        fail(f"the import config {path} must be a JSON object")
    return value


def whole(cfg, key, low, high, default=None):
    value = cfg.get(key, default)
    if value is None:
        fail(f"the import config has no '{key}' (a whole number)")
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        fail(f"the import config's '{key}' ({value!r}) must be a whole number from {low} to {high}")
    return value


def choice(cfg, key, allowed, default):
    value = cfg.get(key, default)
    if value not in allowed:
        fail(f"the import config's '{key}' ({value!r}) must be one of " + ", ".join(repr(a) for a in allowed))
    return value


def flag(cfg, key, default):
    value = cfg.get(key, default)
    if not isinstance(value, bool):
        fail(f"the import config's '{key}' ({value!r}) must be true or false")
    return value


# ---------------------------------------------------------------- the tokenizer

def read_tokenizer(spec, base):
    """(kind, vocabulary list, SentencePiece model bytes or None)."""
    if not isinstance(spec, dict):
        fail("the import config needs 'tokenizer': {\"kind\": \"word\", \"vocabulary\": FILE} or "
             "{\"kind\": \"sentencepiece\", \"model\": FILE}")
    kind = choice(spec, "kind", ["word", "char", "sentencepiece"], None)

    def path_of(key):
        if not isinstance(spec.get(key), str):
            fail(f"the tokenizer of kind '{kind}' needs '{key}': a file name")
        return os.path.join(base, spec[key])

    if kind == "sentencepiece":
        path = path_of("model")
        try:
            with open(path, "rb") as f:
                model = f.read()
        except OSError as e:
            fail(f"cannot read the SentencePiece model {path}: {e.strerror}")
        try:
            import sentencepiece
            sp = sentencepiece.SentencePieceProcessor(model_proto=model)
        except ImportError:
            fail("reading a SentencePiece model needs python3-sentencepiece")
        except Exception as e:  # the library raises RuntimeError or OSError on a bad proto
            fail(f"{path} is not a SentencePiece model ({e})")
        vocabulary = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
        return kind, vocabulary, model
    path = path_of("vocabulary")
    try:
        with open(path, encoding="utf-8") as f:
            vocabulary = f.read().split("\n")
    except OSError as e:
        fail(f"cannot read the vocabulary {path}: {e.strerror}")
    except UnicodeDecodeError:
        fail(f"the vocabulary {path} is not UTF-8 text")
    if vocabulary and vocabulary[-1] == "":
        vocabulary.pop()
    return kind, vocabulary, None


def check_vocabulary(vocabulary, rows, what):
    if vocabulary[:4] != SPECIALS:
        fail(f"the {what}'s first four tokens are {vocabulary[:4]}, but ids 0..3 must be {SPECIALS} "
             "(PAD, BOS, EOS, UNK: the explorer's convention)")
    seen = {}
    for i, token in enumerate(vocabulary):
        if token in seen:
            fail(f"the {what} has the token {token!r} twice (ids {seen[token]} and {i})")
        seen[token] = i
    if len(vocabulary) != rows:
        fail(f"the {what} has {len(vocabulary)} tokens but the embeddings have {rows} rows")


# ---------------------------------------------------------------- the state_dict

def load_state_dict(path):
    try:
        import torch
    except ImportError:
        fail("reading a PyTorch state_dict needs python3-torch")
    try:
        obj = torch.load(path, map_location="cpu")
    except FileNotFoundError:
        fail(f"no such state_dict file: {path}")
    except Exception as e:  # torch.load raises many kinds on a corrupt or foreign file
        fail(f"{path} is not a PyTorch file torch.load can read ({type(e).__name__}: {e})")
    if isinstance(obj, torch.nn.Module):
        obj = obj.state_dict()
    if not isinstance(obj, dict) or not all(isinstance(v, torch.Tensor) for v in obj.values()):
        fail(f"{path} holds no state_dict (a dict of tensor names to tensors); save one with "
             "torch.save(model.state_dict(), path)")
    return {k: v.detach().to(torch.float64) for k, v in obj.items()}


class Mapper:
    """Takes tensors from the state_dict by name, checks their shapes, and records what was used."""

    def __init__(self, state, ignore):
        self.state, self.used = state, set(ignore)
        self.out = []   # [(our name, float64 tensor)]

    def take(self, name, shape):
        if name not in self.state:
            fail(f"the state_dict has no '{name}' (expected shape {shape_text(shape)})")
        t = self.state[name]
        if list(t.shape) != list(shape):
            fail(f"'{name}' has shape {shape_text(t.shape)} but the config needs {shape_text(shape)}")
        self.used.add(name)
        return t

    def put(self, ours, tensor):
        self.out.append((ours, tensor))

    def check_all_used(self):
        extra = sorted(k for k in self.state if k not in self.used)
        if extra:
            more = f" and {len(extra) - 8} more" if len(extra) > 8 else ""
            fail("the state_dict holds tensors the config does not explain: " + ", ".join(extra[:8]) + more +
                 " (check the layer counts and 'module', or list them under \"ignore\")")


def map_attention(m, theirs, ours, D):
    w = m.take(theirs + ".in_proj_weight", [3 * D, D])
    b = m.take(theirs + ".in_proj_bias", [3 * D])
    for k, proj in enumerate(("q_proj", "k_proj", "v_proj")):   # torch stacks q, k, v in this order
        m.put(f"{ours}.{proj}.weight", w[k * D:(k + 1) * D])
        m.put(f"{ours}.{proj}.bias", b[k * D:(k + 1) * D])
    m.put(ours + ".out_proj.weight", m.take(theirs + ".out_proj.weight", [D, D]))
    m.put(ours + ".out_proj.bias", m.take(theirs + ".out_proj.bias", [D]))


def map_norm(m, theirs, ours, D):
    m.put(ours + ".weight", m.take(theirs + ".weight", [D]))
    m.put(ours + ".bias", m.take(theirs + ".bias", [D]))


def map_ffn(m, theirs, ours, D, F):
    m.put(ours + ".linear1.weight", m.take(theirs + ".linear1.weight", [F, D]))
    m.put(ours + ".linear1.bias", m.take(theirs + ".linear1.bias", [F]))
    m.put(ours + ".linear2.weight", m.take(theirs + ".linear2.weight", [D, F]))
    m.put(ours + ".linear2.bias", m.take(theirs + ".linear2.bias", [D]))


def final_norm_present(state, name):
    return name + ".weight" in state or name + ".bias" in state


def convert(cfg, base, state):
    """Returns (our config dict with vocabulary, [(name, float64 tensor)], SentencePiece bytes or None)."""
    module = choice(cfg, "module", ["transformer", "encoder", "decoder"], None)
    if module == "decoder":
        fail("nn.TransformerDecoder alone cannot be imported: its layers cross-attend to an encoder's memory that "
             "the state_dict does not hold. Import the whole nn.Transformer (\"module\": \"transformer\"), or a "
             "GPT-style nn.TransformerEncoder run with a causal mask (\"module\": \"encoder\", \"causal\": true)")
    causal = flag(cfg, "causal", False)
    if module == "encoder" and not causal:
        fail("nn.TransformerEncoder without a causal mask is an encoder-only (BERT-style) model, which the explorer "
             "does not have: it runs encoder-decoder and decoder-only models. If the model runs its encoder with a "
             "causal mask (a GPT-style language model), set \"causal\": true")
    prefix = cfg.get("prefix", "")
    if not isinstance(prefix, str):
        fail("the import config's 'prefix' must be a string such as \"transformer.\"")
    ignore = cfg.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(k, str) for k in ignore):
        fail("the import config's 'ignore' must be a list of state_dict keys")
    names = cfg.get("tensors", {})
    if not isinstance(names, dict) or not all(isinstance(v, str) for v in names.values()):
        fail("the import config's 'tensors' must map our names (\"tgt_embed\", \"generator.weight\", ...) to "
             "state_dict keys")

    D = whole(cfg, "d_model", 1, 4096)
    H = whole(cfg, "heads", 1, 64)
    if D % H:
        fail(f"d_model ({D}) must be divisible by heads ({H})")
    F = whole(cfg, "d_ff", 1, 16384)
    if module == "transformer":
        enc_layers = whole(cfg, "encoder_layers", 1, 24)
        dec_layers = whole(cfg, "decoder_layers", 1, 24)
    else:
        enc_layers, dec_layers = 0, whole(cfg, "layers", 1, 24)
    max_len = whole(cfg, "max_len", 2, 4096)
    norm_first = flag(cfg, "norm_first", False)
    activation = choice(cfg, "activation", ["relu", "gelu"], "relu")
    positional = choice(cfg, "positional", ["sinusoidal", "learned", "none"], "sinusoidal")
    scaled = flag(cfg, "embeddings_scaled", True)
    eps = cfg.get("layer_norm_eps", 1e-5)
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < 1:
        fail(f"the import config's 'layer_norm_eps' ({eps!r}) must be a number in (0, 1)")
    dropout = cfg.get("dropout", 0.1)
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
        fail(f"the import config's 'dropout' ({dropout!r}) must be a number in [0, 1)")

    m = Mapper(state, ignore)

    def named(key, required=True):
        if key not in names:
            if required:
                fail(f"the import config's \"tensors\" needs \"{key}\": the state_dict key of that tensor "
                     "(nn.Transformer has no embeddings or generator of its own)")
            return None
        return names[key]

    tgt_key = named("tgt_embed")
    if tgt_key not in state:
        fail(f"the state_dict has no '{tgt_key}' (\"tensors\": \"tgt_embed\")")
    V = int(state[tgt_key].shape[0])
    kind, vocabulary, sp_model = read_tokenizer(cfg.get("tokenizer"), base)
    check_vocabulary(vocabulary, V, "vocabulary" if sp_model is None else "SentencePiece model")
    # The explorer's checkpoints share one vocabulary between source and target (docs/design.md §6).
    embed_scale = 1.0 if scaled else 1.0 / math.sqrt(D)   # ours multiplies by √D, so fold the inverse in
    if module == "transformer":
        m.put("src_embed.weight", m.take(named("src_embed"), [V, D]) * embed_scale)
    elif "src_embed" in names:
        fail("a decoder-only model has no source side: remove \"src_embed\" from \"tensors\"")
    m.put("tgt_embed.weight", m.take(tgt_key, [V, D]) * embed_scale)
    if positional == "learned":
        if module == "transformer":
            m.put("src_pos.weight", m.take(named("src_pos"), [max_len, D]))
        m.put("tgt_pos.weight", m.take(named("tgt_pos"), [max_len, D]))
    else:
        for key in ("src_pos", "tgt_pos"):
            if key in names:
                fail(f"\"tensors\" names \"{key}\" but 'positional' is \"{positional}\"; set \"positional\": "
                     "\"learned\" to use a learned table")

    # nn.Transformer always ends both stacks with a LayerNorm (encoder.norm, decoder.norm), whatever
    # norm_first; our Pre-LN has them too, our Post-LN has them as the config's "final_norm".
    if module == "transformer":
        stacks = [(prefix + "encoder", "encoder"), (prefix + "decoder", "decoder")]
    else:
        stacks = [(prefix.rstrip("."), "decoder")] if prefix else [("", "decoder")]
    present = [final_norm_present(state, (t + "." if t else "") + "norm") for t, _ in stacks]
    if any(present) and not all(present):
        fail("the encoder has a final norm and the decoder none, or the other way round; the explorer's stacks "
             "either both end with a norm or neither does")
    final = all(present)
    if norm_first and not final:
        fail("norm_first is true but the stack has no final norm ('norm.weight'): the explorer's Pre-LN stacks always "
             "end with one (build nn.TransformerEncoder with norm=nn.LayerNorm(d_model))")

    def key(stack, rest):
        return f"{stack}.{rest}" if stack else rest

    if module == "transformer":
        enc = prefix + "encoder"
        for i in range(enc_layers):
            t, o = key(enc, f"layers.{i}"), f"encoder.layers.{i}"
            map_attention(m, t + ".self_attn", o + ".self_attn", D)
            map_norm(m, t + ".norm1", o + ".norm1", D)
            map_norm(m, t + ".norm2", o + ".norm2", D)
            map_ffn(m, t, o + ".ffn", D, F)
        dec = prefix + "decoder"
        for i in range(dec_layers):
            t, o = key(dec, f"layers.{i}"), f"decoder.layers.{i}"
            map_attention(m, t + ".self_attn", o + ".self_attn", D)
            map_attention(m, t + ".multihead_attn", o + ".cross_attn", D)
            for n in ("norm1", "norm2", "norm3"):
                map_norm(m, f"{t}.{n}", f"{o}.{n}", D)
            map_ffn(m, t, o + ".ffn", D, F)
        if final:
            map_norm(m, key(enc, "norm"), "encoder.norm", D)
            map_norm(m, key(dec, "norm"), "decoder.norm", D)
    else:
        stack = prefix.rstrip(".")
        for i in range(dec_layers):
            t, o = key(stack, f"layers.{i}"), f"decoder.layers.{i}"
            map_attention(m, t + ".self_attn", o + ".self_attn", D)
            map_norm(m, t + ".norm1", o + ".norm1", D)
            map_norm(m, t + ".norm2", o + ".norm2", D)
            map_ffn(m, t, o + ".ffn", D, F)
        if final:
            map_norm(m, key(stack, "norm"), "decoder.norm", D)
    m.put("generator.weight", m.take(named("generator.weight"), [V, D]))
    bias_key = named("generator.bias", required=False)
    if bias_key is None:
        import torch
        m.put("generator.bias", torch.zeros(V, dtype=torch.float64))
    else:
        m.put("generator.bias", m.take(bias_key, [V]))
    m.check_all_used()

    config = {"src_vocab": V, "tgt_vocab": V, "d_model": D, "heads": H, "d_ff": F, "encoder_layers": enc_layers,
              "decoder_layers": dec_layers, "max_len": max_len, "dropout": float(dropout), "ln_eps": float(eps),
              "norm": "pre" if norm_first else "post", "scale_attention": True, "seed": 1, "tokenizer": kind,
              "special": {"pad": 0, "bos": 1, "eos": 2, "unk": 3},
              "arch": "encoder-decoder" if module == "transformer" else "decoder-only",
              "positional": positional, "ffn": activation, "norm_kind": "layernorm", "window": 0}
    if final and not norm_first:
        config["final_norm"] = True
    config["vocabulary"] = vocabulary
    return config, order_like_ours(m.out, config), sp_model


def order_like_ours(tensors, config):
    """Our ParameterTable order (core/model/parameters.cpp): embeddings, positions, encoder, decoder, final norms,
    generator; the loader matches by name, the order keeps files comparable."""
    def rank(name):
        for i, head in enumerate(("src_embed", "tgt_embed", "src_pos", "tgt_pos", "encoder.layers", "decoder.layers",
                                  "encoder.norm", "decoder.norm", "generator")):
            if name.startswith(head):
                return i
        return 99
    return [t for _, t in sorted(enumerate(tensors), key=lambda it: (rank(it[1][0]), it[0]))]


# ---------------------------------------------------------------- the checkpoint

def write_safetensors(path, tensors, metadata, sp_model):
    """F32 parameters, then the SentencePiece model as the U8 tensor "tokenizer.model"; atomic."""
    entries = []
    for name, t in tensors:
        values = t.to("cpu").reshape(-1).tolist()
        entries.append((name, "F32", t.shape, struct.pack(f"<{len(values)}f", *values)))
    if sp_model is not None:
        entries.append(("tokenizer.model", "U8", [len(sp_model)], sp_model))
    try:
        safetensors_file.write_safetensors(path, entries, metadata)
    except OSError as e:
        fail(f"cannot write {path}: {e.strerror}")


def main(argv=None):
    parser = argparse.ArgumentParser(description="Convert a PyTorch nn.Transformer state_dict into a Transformer "
                                     "Explorer checkpoint.", epilog=USAGE_NOTE,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state-dict", required=True, help="the .pt file torch.save(model.state_dict(), ...) wrote")
    parser.add_argument("--config", required=True, help="the import config (JSON, described below)")
    parser.add_argument("--out", required=True, help="the checkpoint to write (.safetensors)")
    args = parser.parse_args(argv)
    try:
        cfg = read_json(args.config)
        state = load_state_dict(args.state_dict)
        config, tensors, sp_model = convert(cfg, os.path.dirname(os.path.abspath(args.config)), state)
        metadata = {"format": CHECKPOINT_FORMAT, "config": json.dumps(config, ensure_ascii=False)}
        write_safetensors(args.out, tensors, metadata, sp_model)
    except ImportError_ as e:
        print(f"import_torch: error: {e}", file=sys.stderr)
        return 1
    arch = config["arch"]
    print(f"wrote {args.out}: {arch}, d_model {config['d_model']}, {config['heads']} heads, "
          f"{config['encoder_layers']}+{config['decoder_layers']} layers, norm {config['norm']}"
          f"{' + final norm' if config.get('final_norm') else ''}, {config['ffn']}, vocabulary {config['src_vocab']}, "
          f"{len(tensors)} tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
