#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the fuzzers' seed corpora (small valid files) into tests/fuzz/seeds/<harness>/.

.npy files come from numpy itself (every version, dtype and order the reader accepts); the
.safetensors files follow the format's description (8-byte length, JSON header, data); sessions
are what the window saves. Re-run after a format change; the outputs are committed.
"""
import io
import json
import pathlib
import struct

import numpy as np

root = pathlib.Path(__file__).resolve().parent / "seeds"


def put(harness, name, data):
    d = root / harness
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def npy(a, version=None):
    b = io.BytesIO()
    if version is None:
        np.save(b, a)
    else:
        np.lib.format.write_array(b, a, version=version)
    return b.getvalue()


put("npy", "f4_2x3.npy", npy(np.arange(6, dtype="<f4").reshape(2, 3)))
put("npy", "f8_vec.npy", npy(np.array([1.5, -2.0, 3.25], dtype="<f8")))
put("npy", "i4_scalar.npy", npy(np.array(7, dtype="<i4")))
put("npy", "f4_empty.npy", npy(np.zeros((0, 4), dtype="<f4")))
put("npy", "f8_fortran.npy", npy(np.asfortranarray(np.arange(6, dtype="<f8").reshape(2, 3))))
put("npy", "f4_v2.npy", npy(np.ones((2, 2), dtype="<f4"), version=(2, 0)))
put("npy", "i4_v3.npy", npy(np.arange(3, dtype="<i4"), version=(3, 0)))


def safetensors(tensors, metadata=None):
    header, data = {}, b""
    for name, a in tensors:
        raw = a.tobytes()
        dtype = {"float32": "F32", "float64": "F64", "int32": "I32"}[str(a.dtype)]
        header[name] = {"dtype": dtype, "shape": list(a.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


put("safetensors", "one.safetensors", safetensors([("W_q", np.eye(2, dtype="<f4"))]))
put("safetensors", "mixed.safetensors",
    safetensors([("E", np.arange(6, dtype="<f8").reshape(3, 2)),
                 ("t5.table", np.zeros((2, 1), dtype="<f4")),
                 ("ids", np.array([1, 2], dtype="<i4"))], {"format": "pt"}))
put("safetensors", "empty_tensor.safetensors", safetensors([("cls", np.zeros((0, 2), dtype="<f4"))]))
put("safetensors", "no_tensors.safetensors", safetensors([], {"note": "empty"}))

session = {"format": "pe-explorer-session", "version": 1, "scheme": "sinusoidal", "n": 16,
           "d": 32, "heads": 4, "norm": "softmax", "mask": "none", "seed": "42",
           "input": {"kind": "sentence", "sentence": 1, "text": ""}}
put("session", "minimal.json", json.dumps(session, indent=4))
put("session", "rope_text.json", json.dumps(dict(session, scheme="rope", rope_dims=16,
    rope_convention="interleaved", precision="float32",
    input={"kind": "text", "sentence": 0, "text": "Attention 需要 位置 don't"}), indent=4))
put("session", "t5.json", json.dumps(dict(session, scheme="t5", buckets=32, max_distance=128,
    unidirectional=True, cls=True, sep=True), indent=4))
put("session", "empty.json", "{}")

put("tokenizer", "english.txt", "The quick brown fox jumps over the lazy dog, don't it?")
put("tokenizer", "chinese.txt", "我爱自然语言处理。位置编码让模型知道词的顺序。")
put("tokenizer", "mixed.txt", "Self-attention: 注意力\u00a0is\u3000perm\u2003invariant… ｆｕｌｌ")
put("tokenizer", "invalid_utf8.txt", b"ab\xff\xc3(\xe2\x82 \xf0\x9f\x98\x80 end")
