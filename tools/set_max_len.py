#!/usr/bin/python3
# Sets max_len in a Transformer Explorer checkpoint's config (.safetensors, docs/design.md §6) and
# rewrites the file atomically (a temporary file beside it, then a rename). Only for positions
# that are computed, not stored (sinusoidal, RoPE, ALiBi, none): a learned table src_pos/tgt_pos
# has max_len rows, which this does not invent. Tensors are copied byte for byte; the config's
# other fields are kept. Usage: tools/set_max_len.py CHECKPOINT MAX_LEN [--out FILE]
import argparse
import json
import os
import sys
import tempfile

MAX_LEN_LIMIT = 4096   # core/model/config.cpp's bound


def read(path):
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError(f"{path}: too short to be a safetensors file")
    n = int.from_bytes(raw[:8], "little")
    if 8 + n > len(raw):
        raise ValueError(f"{path}: header length {n} runs past the end of the file")
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    return header, raw[8 + n:]


def encode(header):
    # safetensors pads the header with spaces to a multiple of 8 bytes
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text


def main():
    ap = argparse.ArgumentParser(description="Set max_len in a checkpoint whose positions are computed.")
    ap.add_argument("checkpoint")
    ap.add_argument("max_len", type=int)
    ap.add_argument("--out", help="write here instead of rewriting CHECKPOINT")
    args = ap.parse_args()
    try:
        header, data = read(args.checkpoint)
        meta = header.get("__metadata__", {})
        if meta.get("format") != "transformer-explorer/1" or "config" not in meta:
            raise ValueError(f"{args.checkpoint}: not a transformer-explorer/1 checkpoint (no config in its metadata)")
        config = json.loads(meta["config"])
        positional = config.get("positional", "sinusoidal")
        if positional == "learned" or any(k.endswith("_pos.weight") for k in header):
            raise ValueError(f"{args.checkpoint}: learned positions store max_len rows; retrain or re-initialise instead")
        if not 2 <= args.max_len <= MAX_LEN_LIMIT:
            raise ValueError(f"max_len {args.max_len} must be between 2 and {MAX_LEN_LIMIT}")
        if args.max_len < config.get("window", 0):
            raise ValueError(f"max_len {args.max_len} is below the attention window {config['window']}")
        old = config["max_len"]
        config["max_len"] = args.max_len
        meta["config"] = json.dumps(config, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        out = args.out or args.checkpoint
        folder = os.path.dirname(os.path.abspath(out))
        fd, tmp = tempfile.mkstemp(prefix=".max_len-", suffix=".safetensors", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(encode(header))
                f.write(data)
            check_header, check_data = read(tmp)
            if check_data != data or json.loads(check_header["__metadata__"]["config"]) != config:
                raise ValueError("the rewritten file does not read back as written")
            os.chmod(tmp, 0o644)
            os.replace(tmp, out)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        print(f"set_max_len.py: {e}", file=sys.stderr)
        return 1
    print(f"{out}: max_len {old} -> {args.max_len} ({positional} positions, tensors unchanged)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
