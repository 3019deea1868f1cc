"""safetensors_file.py -- write a checkpoint file the way core/io/safetensors.cpp reads it.

One writer for the tools that make checkpoints in Python (import_torch.py, warm_start_vocabulary.py):
the JSON header padded with spaces to a multiple of 8 bytes, the tensors' bytes in header order,
written to PATH.tmp and renamed, so a failed write never leaves half a file at PATH.
"""

import json
import os
import struct


def write_safetensors(path, entries, metadata):
    """entries: [(name, dtype, shape, data bytes)] in file order; dtype "F32" or "U8"."""
    header, offset = {}, 0
    for name, dtype, shape, data in entries:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)   # the tensor data starts 8-byte aligned
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, _, _, data in entries:
            f.write(data)
    os.replace(temporary, path)
