#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`pe-explorer-cli insight` against independent numpy computations (docs/insights.md):
bits and the ω ladder, the exact shift map and its residual rebuilt from the sinusoid formula,
the cost table's integers, RoPE's decay curve from RoFormer's sum, the distance profile of ALiBi
(−m_h·|r| exactly) and the shapes of every file. Exits 77 when numpy is missing."""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("numpy not available: skipped")
    sys.exit(77)


# Every page's output goes under one folder, removed when the script exits.
WORK = tempfile.TemporaryDirectory(prefix="pe-insight-")


def run(cli, page, *args):
    out = tempfile.mkdtemp(dir=WORK.name)
    target = os.path.join(out, page)
    r = subprocess.run([cli, "insight", page, *args, "--out", target],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"insight {page} {' '.join(args)}: {r.stderr.strip()}")
    return target


def close(name, got, want, tol):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise AssertionError(f"{name}: shape {got.shape}, expected {want.shape}")
    err = np.max(np.abs(got - want)) if got.size else 0.0
    if not err <= tol:
        raise AssertionError(f"{name}: max |difference| {err:g} > {tol:g}")


def sinusoid(n, d, base, layout):
    p = np.arange(n, dtype=np.float64)[:, None]
    if layout == "t2t":
        k = d // 2
        w = np.exp(-np.arange(k) * math.log(base) / max(k - 1, 1))
        t = np.concatenate([np.sin(p * w), np.cos(p * w)], axis=1)
        return np.pad(t, ((0, 0), (0, d - 2 * k))), w
    w = base ** (-2.0 * (np.arange(d) // 2) / d)
    if layout == "interleaved":
        t = np.where(np.arange(d) % 2 == 0, np.sin(p * w), np.cos(p * w))
        return t, w[::2]
    w = w[::2][: d // 2]
    return np.concatenate([np.sin(p * w), np.cos(p * w)], axis=1), w


def check_binary(cli):
    n, d = 37, 20
    out = run(cli, "binary", "--n", str(n), "--d", str(d))
    bits = np.load(os.path.join(out, "bits.npy"))
    want = (np.arange(n)[:, None] >> np.arange(6)[None, :]) & 1
    close("bits", bits, want, 0)
    close("omega", np.load(os.path.join(out, "omega.npy")), 10000.0 ** (-2.0 * np.arange(d // 2) / d),
          1e-15)
    close("period", np.load(os.path.join(out, "period.npy")),
          2 * np.pi * 10000.0 ** (2.0 * np.arange(d // 2) / d), 1e-9)


def check_offset(cli):
    for layout in ("interleaved", "concat", "t2t"):
        n, d, delta = 96, 24, 7
        out = run(cli, "offset", "--layout", layout, "--n", str(n), "--d", str(d), "--heads", "2",
                  "--delta", str(delta), "--dtype", "float64")
        M = np.load(os.path.join(out, "M.npy"))
        P, _ = sinusoid(n, d, 10000.0, layout)
        resid = P[delta:] - P[:-delta] @ M.T
        rel = np.linalg.norm(resid) / np.linalg.norm(P[delta:])
        j = json.load(open(os.path.join(out, "residual.json")))
        if j["method"] != "exact" or not rel < 1e-12 or abs(j["relative_residual"] - rel) > 1e-12:
            raise AssertionError(f"offset {layout}: numpy residual {rel:g}, file {j}")
        G = P @ P.T
        dev = max(np.ptp(np.diagonal(G, r)) for r in range(-n + 1, n))
        if not dev < 1e-10 or not j["toeplitz_max_deviation"] < 1e-10:
            raise AssertionError(f"offset {layout}: Toeplitz deviation {dev:g}, file {j}")
    # Learned: the least-squares residual matches numpy's lstsq on the same table.
    out = run(cli, "offset", "--scheme", "learned", "--n", "150", "--d", "16", "--heads", "2",
              "--delta", "4", "--dtype", "float64")
    j = json.load(open(os.path.join(out, "residual.json")))
    if j["method"] != "least_squares" or not j["relative_residual"] > 0.1:
        raise AssertionError(f"offset learned: {j}")


def check_cost(cli):
    d, k = 96, 5
    out = run(cli, "cost", "--d", str(d), "--heads", "4", "--kernel", str(k), "--n-max", "4096")
    rows = list(csv.DictReader(open(os.path.join(out, "cost.csv"))))
    if [int(r["n"]) for r in rows] != [2 ** i for i in range(13)]:
        raise AssertionError("cost: rows are not n = 1 … 4096")
    for r in rows:
        n = int(r["n"])
        want = {"cnn_flops": 2 * k * n * d * d, "rnn_flops": 2 * n * d * d,
                "attention_flops": 4 * n * n * d, "cnn_sequential": 1, "rnn_sequential": n,
                "attention_sequential": 1, "cnn_path": -(-(n - 1) // (k - 1)),
                "rnn_path": n - 1, "attention_path": 1 if n > 1 else 0}
        for key, value in want.items():
            if int(r[key]) != value:
                raise AssertionError(f"cost n = {n}: {key} = {r[key]}, expected {value}")


def check_distance(cli):
    n, d, h = 24, 32, 4
    out = run(cli, "distance", "--scheme", "alibi", "--n", str(n), "--d", str(d),
              "--heads", str(h), "--dtype", "float64")
    pos = np.load(os.path.join(out, "position_profile.npy"))
    slopes = 2.0 ** (-8.0 * np.arange(1, h + 1) / h)
    r = np.arange(-n + 1, n)
    close("alibi position profile", pos, -slopes[:, None] * np.abs(r)[None, :], 1e-12)
    prof = np.load(os.path.join(out, "profile.npy"))
    counts = n - np.abs(r)
    close("softmax rows sum to 1", (prof * counts).sum(axis=1), np.full(h, float(n)), 1e-9)
    decay = np.load(os.path.join(out, "rope_decay.npy"))
    K = (d // h) // 2
    theta = 10000.0 ** (-2.0 * np.arange(K) / (d // h))
    S = np.cumsum(np.exp(1j * np.arange(n)[:, None] * theta[None, :]), axis=1)
    close("rope decay", decay, np.abs(S).sum(axis=1) * 2 / (d // h), 1e-12)


def check_depth(cli):
    out = run(cli, "depth", "--n", "32", "--d", "32", "--layers", "6", "--no-residual",
              "--dtype", "float64")
    j = json.load(open(os.path.join(out, "depth.json")))
    layers = j["layers"]
    if len(layers) != 6 or [l["layer"] for l in layers] != list(range(1, 7)):
        raise AssertionError(f"depth: layers {[l.get('layer') for l in layers]}")
    u = [l["uniformity_residual"] for l in layers]
    if not u[-1] < 1e-3 * u[0]:
        raise AssertionError(f"depth: no collapse without residuals: {u}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    args = ap.parse_args()
    for check in (check_binary, check_offset, check_cost, check_distance, check_depth):
        check(args.cli)
        print(f"{check.__name__}: ok")


if __name__ == "__main__":
    main()
