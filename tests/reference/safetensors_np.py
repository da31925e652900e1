# SPDX-License-Identifier: MIT
"""Minimal .safetensors writer/reader with numpy only.

Layout: u64 little-endian header length N, N bytes of UTF-8 JSON
{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, "__metadata__": {...}},
then the raw little-endian, C-order tensor bytes (offsets relative to the end of the header).
"""

from __future__ import annotations

import json
import struct

import numpy as np

_TO_ST = {
    np.dtype("<f4"): "F32", np.dtype("<f8"): "F64", np.dtype("<f2"): "F16",
    np.dtype("<i4"): "I32", np.dtype("<i8"): "I64", np.dtype("<i2"): "I16",
    np.dtype("i1"): "I8", np.dtype("u1"): "U8", np.dtype("bool"): "BOOL",
}
_FROM_ST = {v: k for k, v in _TO_ST.items()}


def save(path: str, tensors: dict, metadata: dict | None = None) -> None:
    header: dict = {}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        arr = np.asarray(tensors[name])
        dt = arr.dtype.newbyteorder("<") if arr.dtype.byteorder == ">" else arr.dtype
        if dt not in _TO_ST:
            raise ValueError(f"unsupported dtype {arr.dtype} for {name}")
        raw = np.ascontiguousarray(arr, dtype=dt).tobytes(order="C")
        header[name] = {"dtype": _TO_ST[dt], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    hjson = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hjson += b" " * ((8 - len(hjson) % 8) % 8)  # pad so data starts 8-aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hjson)))
        f.write(hjson)
        for raw in blobs:
            f.write(raw)


def load(path: str) -> dict:
    with open(path, "rb") as f:
        data = f.read()
    (hlen,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + hlen].decode("utf-8"))
    base = 8 + hlen
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dt = _FROM_ST[info["dtype"]]
        b, e = info["data_offsets"]
        arr = np.frombuffer(data[base + b:base + e], dtype=dt)
        out[name] = arr.reshape(info["shape"]).copy()
    return out
