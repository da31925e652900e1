#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end comparison of `pe-explorer-cli trace` with the independent float64 reference.

  compare_trace.py --cli PATH --case '{"scheme": "t5", "n": 8, "unidirectional": true}'
  compare_trace.py --cli PATH --all [--group NAME] [--dtype float32|float64|both] [-v]
  compare_trace.py --list

For each case: random float32 weights (seeded) go to a temporary .safetensors; the CLI runs with
--weights F --dtype float64 and again with --dtype float32; every .npy written is compared with
pe_reference.trace(). Exit 0 when everything matches, 1 on any mismatch, 2 on bad usage,
77 (CTest skip) when numpy is missing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("numpy not available: skipping")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pe_reference as ref  # noqa: E402
import safetensors_np  # noqa: E402

RTOL = {"float32": 2e-4, "float64": 1e-9}
# Float32 runs only: an absolute floor of 16 float32 ulps of the tensor's largest value. The
# robust criterion alone allows 2e-4 * 1e-3 = 2e-7 of max|b| near zero, which is about 3 ulps:
# an entry of `out` that cancels O(max) terms (seen with d = 4, n = 100: error 4.1e-7 * max)
# fails it by pure float32 rounding. The float64 runs keep the strict criterion.
F32_FLOOR = 16 * 2.0 ** -24
NPY_DTYPE = {"float32": "<f4", "float64": "<f8"}

# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------


def _cases() -> dict[str, list[dict]]:
    g: dict[str, list[dict]] = {}
    small = {"n": 6, "d": 8, "heads": 2}

    g["absolute"] = [
        {"scheme": "none"},  # every default (n=16, d=64, heads=4)
        {"scheme": "none", "n": 1, "d": 8, "heads": 1},
        {"scheme": "none", "n": 5, "d": 12, "heads": 1, "mask": "causal"},
        {"scheme": "none", "n": 5, "d": 12, "heads": 3, "cls": True, "mask": "causal"},
        {"scheme": "sinusoidal", "n": 7, "d": 16, "heads": 4},
        {"scheme": "sinusoidal", "n": 7, "d": 16, "heads": 2, "layout": "concat"},
        {"scheme": "sinusoidal", "n": 7, "d": 16, "heads": 2, "layout": "t2t"},
        {"scheme": "sinusoidal", "n": 9, "d": 16, "heads": 2, "base": 500},
        {"scheme": "sinusoidal", "n": 9, "d": 12, "heads": 3, "layout": "concat", "base": 37.5},
        {"scheme": "sinusoidal", "n": 6, "d": 15, "heads": 3, "layout": "interleaved"},
        {"scheme": "sinusoidal", "n": 6, "d": 15, "heads": 5, "layout": "t2t"},
        {"scheme": "sinusoidal", "n": 5, "d": 15, "heads": 1, "layout": "t2t", "base": 100,
         "cls": True, "sep": True},
        {"scheme": "sinusoidal", "n": 1, "d": 8, "heads": 1, "cls": True},
        {"scheme": "learned", "n": 6, "d": 8, "heads": 2},
        {"scheme": "learned", "n": 5, "d": 8, "heads": 4, "cls": True, "sep": True,
         "_p_max_extra": 0},
        {"scheme": "learned", "n": 1, "d": 4, "heads": 1, "sep": True},
    ]

    norm_cases = []
    for norm in ("softmax", "exp", "l2", "relu2", "relu2_visible"):
        norm_cases += [
            dict(small, scheme="sinusoidal", norm=norm),
            dict(small, scheme="sinusoidal", norm=norm, mask="causal"),
            dict(small, scheme="sinusoidal", norm=norm, valid_len=4),
            dict(small, scheme="sinusoidal", norm=norm, mask="causal", valid_len=3, cls=True),
            dict(small, scheme="none", norm=norm, n=1, heads=1),
        ]
    g["norm"] = norm_cases

    g["shaw"] = [
        dict(small, scheme="shaw", clip=2),
        dict(small, scheme="shaw", clip=1, mask="causal"),
        dict(small, scheme="shaw", clip=0),
        dict(small, scheme="shaw", clip=20),
        dict(small, scheme="shaw"),  # default clip 16 > n
        dict(small, scheme="shaw", clip=3, cls=True, sep=True),
        dict(small, scheme="shaw", clip=2, norm="exp", valid_len=5),
        dict(small, scheme="shaw", clip=2, norm="l2", mask="causal"),
        dict(small, scheme="shaw", clip=2, norm="relu2_visible", mask="causal", valid_len=4),
        dict(small, scheme="shaw", clip=2, norm="relu2"),
        {"scheme": "shaw", "n": 1, "d": 4, "heads": 1, "clip": 2},
        {"scheme": "shaw", "n": 9, "d": 12, "heads": 3, "clip": 4},
    ]

    g["txl"] = [
        dict(small, scheme="txl"),
        dict(small, scheme="txl", mask="causal"),
        dict(small, scheme="txl", mask="causal", cls=True, sep=True),
        dict(small, scheme="txl", norm="exp", valid_len=4),
        dict(small, scheme="txl", norm="l2", mask="causal"),
        dict(small, scheme="txl", norm="relu2", base=500),  # TXL's R ignores --base
        {"scheme": "txl", "n": 1, "d": 4, "heads": 1},
        {"scheme": "txl", "n": 7, "d": 16, "heads": 4, "mask": "causal", "valid_len": 5},
    ]

    g["t5"] = [
        dict(small, scheme="t5"),
        dict(small, scheme="t5", unidirectional=True, mask="causal"),
        dict(small, scheme="t5", unidirectional=True),
        {"scheme": "t5", "n": 24, "d": 8, "heads": 2, "buckets": 16, "max_distance": 50},
        {"scheme": "t5", "n": 24, "d": 8, "heads": 2, "buckets": 16, "max_distance": 50,
         "unidirectional": True},
        # rel -20 with 32/50: float32 bucket 12 (spec); 11 only with other arithmetic
        {"scheme": "t5", "n": 22, "d": 8, "heads": 2, "buckets": 32, "max_distance": 50},
        {"scheme": "t5", "n": 20, "d": 8, "heads": 1, "buckets": 8, "max_distance": 12,
         "unidirectional": True, "norm": "l2"},
        dict(small, scheme="t5", cls=True, sep=True, norm="exp"),
        dict(small, scheme="t5", valid_len=4, norm="relu2"),
        dict(small, scheme="t5", mask="causal", valid_len=4, norm="relu2_visible"),
        {"scheme": "t5", "n": 1, "d": 4, "heads": 1},
        # long sequences: every rel in (-130, 130) through the float32 log branch
        {"scheme": "t5", "n": 130, "d": 4, "heads": 1},
        {"scheme": "t5", "n": 130, "d": 4, "heads": 1, "unidirectional": True},
        {"scheme": "t5", "n": 100, "d": 4, "heads": 1, "buckets": 16, "max_distance": 50},
        {"scheme": "t5", "n": 100, "d": 4, "heads": 1, "buckets": 20, "max_distance": 37,
         "unidirectional": True},
        {"scheme": "t5", "n": 100, "d": 4, "heads": 1, "buckets": 64, "max_distance": 90},
    ]

    g["deberta"] = [
        dict(small, scheme="deberta", clip=2),
        dict(small, scheme="deberta", clip=2, deberta_terms="c2p"),
        dict(small, scheme="deberta", clip=2, deberta_terms="p2c"),
        dict(small, scheme="deberta", clip=2, p2c_convention="paper"),
        dict(small, scheme="deberta", clip=3, deberta_terms="p2c", p2c_convention="paper"),
        dict(small, scheme="deberta", clip=3, p2c_convention="code"),
        dict(small, scheme="deberta", clip=8),  # span larger than n
        dict(small, scheme="deberta"),  # default clip 16
        dict(small, scheme="deberta", clip=2, cls=True, sep=True, mask="causal"),
        dict(small, scheme="deberta", clip=2, norm="l2", valid_len=4),
        dict(small, scheme="deberta", clip=1, norm="relu2"),
        {"scheme": "deberta", "n": 1, "d": 4, "heads": 1, "clip": 2},
    ]

    g["rope"] = [
        dict(small, scheme="rope"),
        dict(small, scheme="rope", rope_convention="half"),
        dict(small, scheme="rope", rope_convention="interleaved", base=500),
        dict(small, scheme="rope", rope_convention="half", base=500, cls=True, sep=True),
        {"scheme": "rope", "n": 9, "d": 24, "heads": 2, "rope_convention": "half",
         "mask": "causal"},
        {"scheme": "rope", "n": 9, "d": 24, "heads": 3, "norm": "exp", "valid_len": 6},
        {"scheme": "rope", "n": 1, "d": 4, "heads": 1},
        dict(small, scheme="rope", norm="relu2_visible", mask="causal"),
    ]

    alibi = []
    for h in (4, 6, 12):
        alibi += [
            {"scheme": "alibi", "n": 6, "d": 2 * h, "heads": h},
            {"scheme": "alibi", "n": 6, "d": 2 * h, "heads": h, "alibi_mode": "causal",
             "mask": "causal"},
        ]
    alibi += [
        {"scheme": "alibi", "n": 7, "d": 16, "heads": 8, "alibi_mode": "causal",
         "mask": "causal", "norm": "exp"},
        {"scheme": "alibi", "n": 7, "d": 16, "heads": 8, "alibi_mode": "causal",
         "mask": "causal", "norm": "relu2"},
        {"scheme": "alibi", "n": 7, "d": 12, "heads": 6, "norm": "l2", "valid_len": 5},
        {"scheme": "alibi", "n": 5, "d": 12, "heads": 3, "cls": True, "sep": True},
        {"scheme": "alibi", "n": 1, "d": 4, "heads": 1},
    ]
    g["alibi"] = alibi

    g["urpe"] = [
        dict(small, scheme="urpe"),
        dict(small, scheme="urpe", urpe_bias="t5"),
        dict(small, scheme="urpe", urpe_bias="t5", unidirectional=True, mask="causal"),
        dict(small, scheme="urpe", urpe_bias="t5", buckets=8, max_distance=10, n=12),
        dict(small, scheme="urpe", cls=True, sep=True),
        dict(small, scheme="urpe", urpe_bias="t5", cls=True, norm="l2"),
        dict(small, scheme="urpe", valid_len=4, norm="relu2_visible"),
        {"scheme": "urpe", "n": 1, "d": 4, "heads": 1},
    ]
    # CLI extensions beyond SPEC-trace; the math is SPEC-encodings §4 (clamp_len), §6 (v2/v3
    # log buckets: span = position_buckets, table 2*span rows), §7 (partial rotary).
    # The mlp encoding (docs/encodings-mlp-rope.md): P = GELU(phi W1 + b1) W2 + b2.
    g["mlp"] = [
        dict(small, scheme="mlp"),  # F = 8, H = 64
        dict(small, scheme="mlp", mlp_features=1, mlp_hidden=1),
        dict(small, scheme="mlp", mlp_features=3, mlp_hidden=5, base=100, cls=True, sep=True),
        {"scheme": "mlp", "n": 9, "d": 12, "heads": 3, "mlp_features": 4, "mlp_hidden": 7,
         "mask": "causal", "norm": "l2"},
        {"scheme": "mlp", "n": 1, "d": 4, "heads": 1, "mlp_features": 2, "mlp_hidden": 3},
        # no table: n past any --max-positions
        dict(small, scheme="mlp", n=12, max_positions=4, mlp_features=2, mlp_hidden=6),
    ]
    # RoPE context stretching (docs/encodings-mlp-rope.md): pi angle (p/s) theta_m; ntk base'.
    g["rope_scaling"] = [
        dict(small, scheme="rope", rope_scaling="pi", rope_scale=4),
        dict(small, scheme="rope", rope_scaling="pi", rope_scale=2.5, rope_convention="half",
             cls=True),
        dict(small, scheme="rope", rope_scaling="ntk", rope_scale=4),
        dict(small, scheme="rope", rope_scaling="ntk", rope_scale=0.5, base=500,
             mask="causal"),
        dict(small, scheme="rope", d=16, rope_dims=4, rope_scaling="ntk", rope_scale=3),
        dict(small, scheme="rope", d=16, rope_dims=2, rope_scaling="pi", rope_scale=3),
        dict(small, scheme="rope", rope_scaling="none", rope_scale=7),  # s ignored
    ]
    g["extensions"] = [
        dict(small, scheme="rope", d=16, rope_dims=2),
        dict(small, scheme="rope", d=16, rope_dims=4, rope_convention="half"),
        dict(small, scheme="rope", d=24, heads=2, rope_dims=6, rope_convention="half",
             cls=True),
        dict(small, scheme="txl", clamp_len=2, mask="causal"),
        dict(small, scheme="txl", clamp_len=3),
        {"scheme": "deberta", "n": 16, "d": 8, "heads": 2, "deberta_log_buckets": True,
         "deberta_buckets": 8, "deberta_max_position": 20},
        {"scheme": "deberta", "n": 12, "d": 8, "heads": 2, "deberta_log_buckets": True,
         "deberta_buckets": 6, "deberta_max_position": 12, "p2c_convention": "paper"},
    ]
    g["edge"] = [
        # valid-len 0: every row fully masked -> all-zero weights, never NaN (SPEC-encodings §0)
        dict(small, scheme="sinusoidal", valid_len=0, norm=nm)
        for nm in ("softmax", "exp", "l2", "relu2", "relu2_visible")
    ] + [
        dict(small, scheme="t5", valid_len=0, mask="causal"),
        dict(small, scheme="urpe", valid_len=0, norm="l2"),
        dict(small, scheme="shaw", clip=2, valid_len=0),
        dict(small, scheme="none", valid_len=6),  # L = N: nothing masked
        dict(small, scheme="none", valid_len=7, cls=True, sep=True, mask="causal"),
        dict(small, scheme="t5", n=14, buckets=8, max_distance=6),  # saturating buckets
        dict(small, scheme="alibi", _input_npy=True, cls=True),
        dict(small, scheme="shaw", clip=2, _tensors="logits,shaw_v_term,out"),
    ]
    return g


# Usage/input errors: (options, weight edits, words of which one must appear in the message)
def _bad_shape(name, shape):
    def edit(w):
        w[name] = np.zeros(shape, dtype=np.float32)
    edit.label = f"{name} of shape {list(shape)}"
    return edit


ERROR_CASES = [
    ({"scheme": "alibi", "n": 4, "d": 8, "heads": 2, "alibi_mode": "causal"}, None,
     ["alibi-mode", "alibi_mode", "mask"]),
    ({"scheme": "none", "n": 4, "d": 8, "heads": 3}, None, ["heads"]),
    ({"scheme": "foo", "n": 4, "d": 8, "heads": 2}, None, ["scheme"]),
    ({"scheme": "none", "n": 4, "d": 8, "heads": 2, "norm": "softmax2"}, None, ["norm"]),
    ({"scheme": "none", "n": 4, "d": 8, "heads": 2, "mask": "upper"}, None, ["mask"]),
    ({"scheme": "sinusoidal", "n": 4, "d": 8, "heads": 2, "layout": "zigzag"}, None,
     ["layout"]),
    ({"scheme": "rope", "n": 4, "d": 8, "heads": 2, "rope_convention": "sideways"}, None,
     ["rope-convention", "rope_convention"]),
    ({"scheme": "deberta", "n": 4, "d": 8, "heads": 2, "clip": 2, "deberta_terms": "c2x"},
     None, ["deberta-terms", "deberta_terms", "c2x"]),
    ({"scheme": "deberta", "n": 4, "d": 8, "heads": 2, "clip": 2, "p2c_convention": "x"},
     None, ["p2c-convention", "p2c_convention"]),
    ({"scheme": "urpe", "n": 4, "d": 8, "heads": 2, "urpe_bias": "alibi"}, None,
     ["urpe-bias", "urpe_bias"]),
    ({"scheme": "none", "n": 4, "d": 8, "heads": 2, "valid_len": -1}, None, ["valid-len",
                                                                           "valid_len"]),
    ({"scheme": "none", "n": 0, "d": 8, "heads": 2}, None, ["--n"]),
    ({"scheme": "shaw", "n": 4, "d": 8, "heads": 2, "clip": -1}, None, ["clip"]),
    ({"scheme": "sinusoidal", "n": 4, "d": 7, "heads": 1, "layout": "concat"}, None,
     ["--d", "even"]),  # SPEC §1: concat is even d only
    ({"scheme": "txl", "n": 4, "d": 9, "heads": 3}, None, ["--d", "even"]),  # R is concat
    ({"scheme": "rope", "n": 4, "d": 6, "heads": 2}, None, ["head", "even"]),  # pairs
    ({"scheme": "none", "n": 4, "d": 8, "heads": 2}, _bad_shape("W_q", (8, 9)), ["W_q"]),
    ({"scheme": "none", "n": 4, "d": 8, "heads": 2}, _bad_shape("E", (4, 7)), ["E"]),
    ({"scheme": "learned", "n": 4, "d": 8, "heads": 2, "cls": True},
     _bad_shape("learned.table", (4, 8)), ["learned.table", "P_max", "learned"]),
    ({"scheme": "shaw", "n": 4, "d": 8, "heads": 2, "clip": 2},
     _bad_shape("shaw.w_k", (4, 4)), ["shaw.w_k"]),
    ({"scheme": "t5", "n": 4, "d": 8, "heads": 2}, _bad_shape("t5.table", (16, 2)),
     ["t5.table"]),
    ({"scheme": "txl", "n": 4, "d": 8, "heads": 2}, _bad_shape("txl.u", (2, 3)), ["txl.u"]),
    ({"scheme": "deberta", "n": 4, "d": 8, "heads": 2, "clip": 2},
     _bad_shape("deberta.rel", (5, 8)), ["deberta.rel"]),
    ({"scheme": "mlp", "n": 4, "d": 8, "heads": 2, "mlp_features": 0}, None,
     ["mlp-features"]),
    ({"scheme": "mlp", "n": 4, "d": 8, "heads": 2, "mlp_hidden": 0}, None, ["mlp-hidden"]),
    ({"scheme": "mlp", "n": 4, "d": 8, "heads": 2, "mlp_features": 2, "mlp_hidden": 3},
     _bad_shape("mlp.w1", (3, 3)), ["mlp.w1"]),
    ({"scheme": "mlp", "n": 4, "d": 8, "heads": 2, "mlp_features": 2, "mlp_hidden": 3},
     _bad_shape("mlp.b2", (7,)), ["mlp.b2"]),
    ({"scheme": "rope", "n": 4, "d": 8, "heads": 2, "rope_scaling": "pi", "rope_scale": 0},
     None, ["rope-scale"]),
    ({"scheme": "rope", "n": 4, "d": 8, "heads": 2, "rope_scaling": "ntk", "rope_scale": -1},
     None, ["rope-scale"]),
    ({"scheme": "rope", "n": 4, "d": 8, "heads": 2, "rope_scaling": "yarn"}, None,
     ["rope-scaling"]),
    ({"scheme": "rope", "n": 4, "d": 8, "heads": 2, "rope_scaling": "ntk", "rope_scale": 2,
      "rope_dims": 2}, None, ["rope-scaling", "d_rot"]),
    # urpe.c must have 2N-1 columns with N counting the special tokens
    ({"scheme": "urpe", "n": 4, "d": 8, "heads": 2, "cls": True},
     _bad_shape("urpe.c", (2, 7)), ["urpe.c"]),
]


CASES = _cases()

# ---------------------------------------------------------------------------------------------
# Weights and CLI
# ---------------------------------------------------------------------------------------------


def make_weights(case: dict, seed: int) -> dict:
    """Float32 weights at realistic scales, only the tensors the scheme uses."""
    o = ref.full_options(case)
    rng = np.random.default_rng(seed)
    d, H, n = int(o["d"]), int(o["heads"]), int(o["n"])
    dh = d // H
    N = n + int(bool(o["cls"])) + int(bool(o["sep"]))
    s = o["scheme"]
    w = {"E": rng.normal(size=(n, d))}
    for nm in ("W_q", "W_k", "W_v", "W_o"):
        w[nm] = rng.normal(size=(d, d)) / math.sqrt(d)
    if o["cls"]:
        w["special.cls"] = rng.normal(size=d)
    if o["sep"]:
        w["special.sep"] = rng.normal(size=d)
    k = int(o["clip"])
    if s == "learned":
        w["learned.table"] = rng.normal(size=(N + int(case.get("_p_max_extra", 3)), d))
    elif s == "shaw":
        w["shaw.w_k"] = rng.normal(size=(2 * k + 1, dh))
        w["shaw.w_v"] = rng.normal(size=(2 * k + 1, dh))
    elif s == "txl":
        w["txl.u"] = rng.normal(size=(H, dh)) * 0.1
        w["txl.v"] = rng.normal(size=(H, dh)) * 0.1
        w["txl.W_r"] = rng.normal(size=(d, d)) / math.sqrt(d)
    elif s == "t5" or (s == "urpe" and o["urpe_bias"] == "t5"):
        w["t5.table"] = rng.normal(size=(int(o["buckets"]), H))
    if s == "deberta":
        w["deberta.rel"] = rng.normal(size=(2 * ref.deberta_span(o), d))
        w["deberta.W_qr"] = rng.normal(size=(d, d)) / math.sqrt(d)
        w["deberta.W_kr"] = rng.normal(size=(d, d)) / math.sqrt(d)
    if s == "urpe":
        w["urpe.c"] = 1.0 + 0.3 * rng.normal(size=(H, 2 * N - 1))
    if s == "mlp":
        F, Hd = int(o["mlp_features"]), int(o["mlp_hidden"])
        if F >= 1 and Hd >= 1:
            w["mlp.w1"] = rng.normal(size=(2 * F, Hd)) / math.sqrt(F)
            w["mlp.b1"] = rng.normal(size=Hd) * 0.1
            w["mlp.w2"] = rng.normal(size=(Hd, d)) * math.sqrt(2.0 / Hd)
            w["mlp.b2"] = rng.normal(size=d) * 0.1
    return {key: np.asarray(v, dtype=np.float32) for key, v in w.items()}


def _fmt(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def cli_args(case: dict) -> list[str]:
    args = []
    for key, val in case.items():
        if key.startswith("_") or (key == "n" and case.get("_input_npy")):
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(val, bool):
            if val:
                args.append(flag)
        elif val is None:
            continue
        else:
            args += [flag, _fmt(val)]
    return args


def case_label(case: dict) -> str:
    label = " ".join(cli_args(case))
    if case.get("_input_npy"):
        label += " (E via --input .npy)"
    if case.get("_tensors"):
        label += " --tensors " + case["_tensors"]
    return label


# ---------------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------------


def read_npy(path: str):
    """Load an .npy and return (array, header problems)."""
    problems = []
    with open(path, "rb") as f:
        major, minor = np.lib.format.read_magic(f)
        if (major, minor) != (1, 0):
            problems.append(f"npy version {major}.{minor}, expected 1.0")
        if major == 1:
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        if fortran:
            problems.append("fortran_order is True, expected C order")
    arr = np.load(path, allow_pickle=False)
    return arr, dtype, problems


def compare_tensor(name: str, got: np.ndarray, want: np.ndarray, rtol: float,
                   floor: float = 0.0):
    """Return (ok, max_abs_err, worst_rel, detail)."""
    if got.shape != want.shape:
        return False, float("nan"), float("nan"), f"shape {got.shape} != reference {want.shape}"
    if got.size == 0:
        return True, 0.0, 0.0, ""
    if np.issubdtype(want.dtype, np.integer):
        bad = got != want
        if bad.any():
            pos = tuple(int(x) for x in np.argwhere(bad)[0])
            return (False, float(np.abs(got.astype(np.int64) - want).max()), float("nan"),
                    f"{int(bad.sum())} int entries differ, first at {pos}: got {got[pos]} "
                    f"want {want[pos]}")
        return True, 0.0, 0.0, ""
    g = got.astype(np.float64)
    if np.isnan(g).any():
        pos = tuple(int(x) for x in np.argwhere(np.isnan(g))[0])
        return False, float("nan"), float("nan"), f"NaN at {pos}"
    ninf_g, ninf_w = np.isneginf(g), np.isneginf(want)
    if (ninf_g != ninf_w).any():
        pos = tuple(int(x) for x in np.argwhere(ninf_g != ninf_w)[0])
        return (False, float("inf"), float("inf"),
                f"-inf pattern differs ({int((ninf_g != ninf_w).sum())} entries), first at "
                f"{pos}: got {g[pos]} want {want[pos]}")
    fin = ~ninf_w
    if (np.isinf(g[fin])).any():
        return False, float("inf"), float("inf"), "unexpected inf"
    gf, wf = g[fin], want[fin]
    if gf.size == 0:
        return True, 0.0, 0.0, ""
    err = np.abs(gf - wf)
    vmax = float(np.abs(wf).max())
    scale = 1e-3 * vmax
    denom = np.maximum(np.abs(wf), max(scale, floor * vmax / rtol))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(denom > 0, err / np.where(denom > 0, denom, 1.0),
                       np.where(err > 0, np.inf, 0.0))
    worst = int(np.argmax(rel))
    ok = bool((err <= rtol * denom).all())
    detail = ""
    if not ok:
        full_idx = np.argwhere(fin)[worst]
        pos = tuple(int(x) for x in full_idx)
        nbad = int((err > rtol * denom).sum())
        detail = (f"{nbad}/{err.size} entries beyond rtol {rtol:g}; worst at {pos}: "
                  f"got {gf[worst]!r} want {wf[worst]!r}")
    return ok, float(err.max()), float(rel[worst]), detail


def run_cli(cli: str, case: dict, wfile: str, dtype: str, outdir: str, extra=()):
    cmd = ([cli, "trace"] + cli_args(case) + list(extra)
           + ["--weights", wfile, "--dtype", dtype, "--out", outdir])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return cmd, None, "timeout after 60 s"
    return cmd, p.returncode, (p.stderr or "") + (p.stdout or "")


def check_case(cli: str, case: dict, seed: int, dtypes: list[str], verbose: bool) -> list[str]:
    """Run one case; return a list of failure messages (empty = pass)."""
    failures: list[str] = []
    label = case_label(case)
    weights = make_weights(case, seed)
    want = ref.trace(case, weights)
    names_want = ref.expected_tensor_names(case)
    assert set(want) >= names_want
    extra_args: list[str] = []
    if case.get("_tensors"):
        # --tensors: only these are written (everything is still computed)
        extra_args += ["--tensors", case["_tensors"]]
        names_want = names_want & set(case["_tensors"].split(","))
    with tempfile.TemporaryDirectory(prefix="pe_cmp_") as tmp:
        wfile = os.path.join(tmp, "weights.safetensors")
        if case.get("_input_npy"):
            # E through --input (.npy) instead of --weights; --input overrides --n
            npy = os.path.join(tmp, "E.npy")
            np.save(npy, weights["E"])
            extra_args += ["--input", npy]
            safetensors_np.save(wfile, {k: v for k, v in weights.items() if k != "E"})
        else:
            safetensors_np.save(wfile, weights)
        for dtype in dtypes:
            outdir = os.path.join(tmp, "out_" + dtype)
            cmd, rc, msg = run_cli(cli, case, wfile, dtype, outdir, extra_args)
            head = f"[{label} --dtype {dtype}]"
            if rc != 0:
                failures.append(f"{head} CLI exit {rc}: {msg.strip()[:500]}\n    command: "
                                + " ".join(cmd))
                continue
            files = sorted(f for f in os.listdir(outdir) if f.endswith(".npy"))
            got_names = {f[:-4] for f in files}
            # manifest
            try:
                with open(os.path.join(outdir, "manifest.json"), encoding="utf-8") as f:
                    manifest = json.load(f)
            except (OSError, ValueError) as e:
                failures.append(f"{head} manifest.json unreadable: {e}")
                manifest = {}
            for key in ("options", "tensors", "backend", "device", "timings_ms"):
                if key not in manifest:
                    failures.append(f"{head} manifest lacks \"{key}\"")
            tm = manifest.get("timings_ms", {})
            if isinstance(tm, dict):
                for key in ("compute", "write"):
                    if key not in tm:
                        failures.append(f"{head} manifest timings_ms lacks \"{key}\"")
            listed = {}
            for t in manifest.get("tensors", []) or []:
                if isinstance(t, dict) and "name" in t:
                    listed[t["name"]] = t
            if set(listed) != got_names:
                failures.append(f"{head} manifest tensors {sorted(listed)} != files "
                                f"{sorted(got_names)}")
            missing = sorted(names_want - got_names)
            extra = sorted(got_names - names_want)
            if missing:
                failures.append(f"{head} missing tensors: {missing}")
            if extra:
                failures.append(f"{head} extra tensors (not in SPEC-trace table for this "
                                f"scheme): {extra}")
            rows = []
            for name in sorted(got_names & set(want)):
                path = os.path.join(outdir, name + ".npy")
                arr, npy_dtype, problems = read_npy(path)
                exp_dtype = "<i4" if name == "rel_index" else NPY_DTYPE[dtype]
                if npy_dtype.str != exp_dtype:
                    problems.append(f"dtype {npy_dtype.str}, expected {exp_dtype}")
                m = listed.get(name)
                if m is not None:
                    if list(m.get("shape", [])) != list(arr.shape):
                        problems.append(f"manifest shape {m.get('shape')} != file {arr.shape}")
                    if m.get("file") not in (name + ".npy", None):
                        problems.append(f"manifest file {m.get('file')!r}")
                    md = str(m.get("dtype", ""))
                    ok_names = {exp_dtype, np.dtype(exp_dtype).name}
                    if md not in ok_names:
                        problems.append(f"manifest dtype {md!r} not in {sorted(ok_names)}")
                ok, abs_err, rel_err, detail = compare_tensor(
                    name, arr, want[name], RTOL[dtype], F32_FLOOR if dtype == "float32" else 0.0)
                status = "ok" if ok and not problems else "MISMATCH"
                rows.append((name, "x".join(map(str, arr.shape)), npy_dtype.str, abs_err,
                             rel_err, status))
                if not ok:
                    failures.append(f"{head} tensor {name}: max|err| {abs_err:.3g}, worst "
                                    f"robust rel {rel_err:.3g} — {detail}")
                for pr in problems:
                    failures.append(f"{head} tensor {name}: {pr}")
            if verbose or any(r[5] != "ok" for r in rows):
                print(f"  {head}")
                print(f"    {'tensor':<12} {'shape':<12} {'dtype':<5} {'max|err|':>10} "
                      f"{'robust rel':>10}  status")
                for r in rows:
                    print(f"    {r[0]:<12} {r[1]:<12} {r[2]:<5} {r[3]:>10.3g} {r[4]:>10.3g}  "
                          f"{r[5]}")
    return failures


def check_error_case(cli: str, case: dict, edit, words: list[str], seed: int) -> list[str]:
    """The CLI must exit 2 with one clear stderr line naming the fault, leaving no outputs."""
    label = case_label(case)
    o = ref.full_options(case)
    safe = dict(case)
    if o["scheme"] not in ("none", "sinusoidal", "learned", "shaw", "txl", "t5", "deberta",
                           "rope", "alibi", "urpe", "mlp"):
        safe["scheme"] = "none"
    if int(o["d"]) % int(o["heads"]) != 0:
        safe["heads"] = 1
    safe["clip"] = max(int(o["clip"]), 0)
    safe["n"] = max(int(o["n"]), 1)
    w = make_weights(safe, seed)
    if int(o["n"]) < 1:
        w.pop("E")  # let --n itself be the fault
    if edit is not None:
        edit(w)
    with tempfile.TemporaryDirectory(prefix="pe_err_") as tmp:
        wfile = os.path.join(tmp, "weights.safetensors")
        safetensors_np.save(wfile, w)
        outdir = os.path.join(tmp, "out")
        cmd = [cli, "trace"] + cli_args(case) + ["--weights", wfile, "--dtype", "float32",
                                                 "--out", outdir]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return [f"[error case: {label}] CLI timed out (60 s)"]
        fails = []
        head = f"[error case: {label}{' + ' + edit.label if edit else ''}]"
        if p.returncode != 2:
            fails.append(f"{head} exit {p.returncode}, expected 2; stderr: "
                         f"{p.stderr.strip()[:300]!r}")
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        if p.returncode == 2:
            if len(lines) != 1:
                fails.append(f"{head} expected one stderr line, got {len(lines)}: "
                             f"{p.stderr.strip()[:300]!r}")
            if not any(wd.lower() in p.stderr.lower() for wd in words):
                fails.append(f"{head} message does not name any of {words}: "
                             f"{p.stderr.strip()[:300]!r}")
        if os.path.isdir(outdir):
            left = [f for f in os.listdir(outdir) if f.endswith(".npy") or f == "manifest.json"]
            if left:
                fails.append(f"{head} left files in --out: {sorted(left)[:6]}")
    return fails


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", help="path of the built pe-explorer-cli")
    ap.add_argument("--case", help="JSON object of options (keys as CLI options, _ or -)")
    ap.add_argument("--all", action="store_true", help="run the built-in cases")
    ap.add_argument("--group", action="append", help="with --all: only this group (repeatable)")
    ap.add_argument("--dtype", default="both", choices=["both", "float32", "float64"])
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--errors", action="store_true",
                    help="run the usage/input error cases (group 'errors'; --all includes them)")
    ap.add_argument("--list", action="store_true", help="list the built-in groups and cases")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every per-tensor table")
    a = ap.parse_args()

    if a.list:
        for gname, cases in CASES.items():
            print(f"{gname}: {len(cases)} cases")
            for c in cases:
                print("   ", case_label(c))
        print(f"errors: {len(ERROR_CASES)} cases")
        for c, edit, _ in ERROR_CASES:
            print("   ", case_label(c), "+ " + edit.label if edit else "")
        return 0
    if not a.cli or not (a.all or a.case or a.errors):
        ap.error("need --cli and one of --case / --all / --errors")
    if not os.access(a.cli, os.X_OK):
        print(f"error: --cli {a.cli} is not an executable file", file=sys.stderr)
        return 2
    dtypes = ["float64", "float32"] if a.dtype == "both" else [a.dtype]

    todo: list[tuple[str, dict]] = []
    if a.case:
        case = json.loads(a.case)
        case = {k.replace("-", "_"): v for k, v in case.items()}
        todo.append(("case", case))
    groups = []
    if a.all:
        groups = a.group or list(CASES) + ["errors"]
    elif a.errors:
        groups = ["errors"]
    for gname in groups:
        if gname == "errors":
            todo += [("errors", c) for c in ERROR_CASES]
        elif gname in CASES:
            todo += [(gname, c) for c in CASES[gname]]
        else:
            print(f"error: unknown group {gname}; have {list(CASES) + ['errors']}",
                  file=sys.stderr)
            return 2

    all_failures = []
    for k, (gname, case) in enumerate(todo):
        if gname == "errors":
            case, edit, words = case
            fails = check_error_case(a.cli, case, edit, words, a.seed + k)
        else:
            fails = check_case(a.cli, case, a.seed + k, dtypes, a.verbose)
        status = "PASS" if not fails else f"FAIL ({len(fails)})"
        extra = " + " + edit.label if gname == "errors" and edit is not None else ""
        print(f"{status:<9} {gname:<9} {case_label(case)}{extra}")
        for f in fails:
            print("    " + f)
        all_failures += fails
    print(f"\n{len(todo)} cases, {len(all_failures)} failures")
    if all_failures:
        print("MISMATCH between pe-explorer-cli trace and the float64 reference "
              "(see the lines above).")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
