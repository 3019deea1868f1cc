#!/usr/bin/env python3
"""warm_start_vocabulary.py -- a trained model's weights under a new tokenizer, to fine-tune from.

    python3 tools/warm_start_vocabulary.py --weights TRAINED.safetensors \
        --tokenizer NEW.safetensors --out WARM.safetensors

TRAINED is a trained checkpoint; NEW is any checkpoint of the same shape whose tokenizer is the one
wanted (a fresh `txcli train --subword-vocab N` run saves one after its first --save-every steps).
WARM gets NEW's config and tokenizer and TRAINED's weights, except the four tables indexed by the
vocabulary (src_embed, tgt_embed, generator.weight, generator.bias [V, ...]). Their rows are built
piece by piece (vocabulary transfer):
  - a piece that TRAINED's tokenizer also has keeps its row;
  - any other piece gets the mean of the rows of the pieces TRAINED's tokenizer cuts its text into
    ("▁sister" -> "▁si" "ster" -> the mean of those two rows).
Then `txcli train --init WARM.safetensors ...` fine-tunes: the layers start trained, and the new
rows start near what the pieces meant. Needs python3-numpy and python3-sentencepiece.
"""

import argparse
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # safetensors_file.py, beside this file
import safetensors_file  # noqa: E402

WORD_MARK = "\u2581"
VOCAB_TABLES = ("src_embed.weight", "tgt_embed.weight", "generator.weight", "generator.bias")
DTYPES = {"F32": np.float32, "U8": np.uint8}


def read_safetensors(path):
    """(metadata dict, {name: numpy array}) of a checkpoint; F32 and U8 tensors only."""
    with open(path, "rb") as f:
        blob = f.read()
    (size,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + size])
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, entry in header.items():
        if entry["dtype"] not in DTYPES:
            sys.exit(f"warm_start_vocabulary: {path}: tensor {name} is {entry['dtype']}; "
                     "convert the checkpoint to f32 first (txcli convert --dtype f32)")
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(blob[8 + size + begin:8 + size + end],
                                      dtype=DTYPES[entry["dtype"]]).reshape(entry["shape"])
    return metadata, tensors


def write_checkpoint(path, metadata, tensors):
    """The arrays as F32 / U8 tensors, in their order; written atomically (safetensors_file.py)."""
    entries = [(name, next(k for k, v in DTYPES.items() if v == a.dtype), a.shape, np.ascontiguousarray(a).tobytes())
               for name, a in tensors.items()]
    safetensors_file.write_safetensors(path, entries, metadata)


def processor(tensors):
    import sentencepiece as spm   # python3-sentencepiece
    sp = spm.SentencePieceProcessor()
    sp.LoadFromSerializedProto(tensors["tokenizer.model"].tobytes())
    return sp


def source_rows(new_pieces, old_sp):
    """For each new piece, the ids of the old pieces whose rows it starts from."""
    old_ids = {old_sp.IdToPiece(i): i for i in range(old_sp.GetPieceSize())}
    rows = []
    for piece in new_pieces:
        if piece in old_ids:
            rows.append([old_ids[piece]])
            continue
        # The piece's text, cut by the old tokenizer. A piece inside a word has no word mark; the
        # old tokenizer puts one in front of any text, so a lone leading mark is dropped.
        ids = old_sp.EncodeAsIds(piece.replace(WORD_MARK, " "))
        if not piece.startswith(WORD_MARK) and len(ids) > 1 and old_sp.IdToPiece(ids[0]) == WORD_MARK:
            ids = ids[1:]
        rows.append(ids or [old_ids.get("<unk>", 3)])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", required=True, help="the trained checkpoint (f32)")
    ap.add_argument("--tokenizer", required=True, help="a checkpoint with the new tokenizer and config (f32)")
    ap.add_argument("--out", required=True, help="the checkpoint to write")
    args = ap.parse_args()

    _, trained = read_safetensors(args.weights)
    metadata, shaped = read_safetensors(args.tokenizer)
    for name, array in shaped.items():
        if name in VOCAB_TABLES or name == "tokenizer.model":
            continue
        if name not in trained or trained[name].shape != array.shape:
            sys.exit(f"warm_start_vocabulary: the two checkpoints differ in shape at {name}")
    old_sp, new_sp = processor(trained), processor(shaped)
    new_pieces = [new_sp.IdToPiece(i) for i in range(new_sp.GetPieceSize())]
    rows = source_rows(new_pieces, old_sp)

    out = {}
    for name, array in shaped.items():
        if name in VOCAB_TABLES:
            old = trained[name]
            out[name] = np.stack([old[ids].mean(axis=0) for ids in rows]).astype(np.float32)
        elif name == "tokenizer.model":
            out[name] = array
        else:
            out[name] = trained[name]
    write_checkpoint(args.out, metadata, out)
    kept = sum(1 for piece, ids in zip(new_pieces, rows) if len(ids) == 1)
    print(f"{args.out}: {len(new_pieces)} pieces, {kept} with one old row, "
          f"{len(new_pieces) - kept} the mean of several")


if __name__ == "__main__":
    main()
