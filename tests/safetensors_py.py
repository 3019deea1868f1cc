# A minimal pure-Python safetensors writer and reader (https://huggingface.co/docs/safetensors):
# 8-byte little-endian header length, a JSON header {name: {dtype, shape, data_offsets},
# "__metadata__": {str: str}}, then the raw little-endian data. F32 only (what our files hold),
# so the test scripts need nothing beyond the standard library and torch.
import json
import struct


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def write(path, tensors, metadata=None):
    """tensors: list of (name, shape, flat list of floats), written in this order as F32."""
    header = {}
    blobs = []
    offset = 0
    for name, shape, values in tensors:
        if len(values) != _numel(shape):
            raise ValueError(f"{name}: {len(values)} values for shape {shape}")
        blob = struct.pack(f"<{len(values)}f", *values)
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)   # the data section starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def read(path):
    """Returns (metadata dict, {name: (shape, flat list of floats)}) for F32 and I32 tensors."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = raw[8 + n:]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        count = _numel(entry["shape"])
        code = {"F32": "f", "I32": "i"}[entry["dtype"]]
        if end - begin != 4 * count:
            raise ValueError(f"{path}: {name} has {end - begin} bytes for shape {entry['shape']}")
        tensors[name] = (entry["shape"], [float(v) for v in struct.unpack(f"<{count}{code}", data[begin:end])])
    return metadata, tensors
