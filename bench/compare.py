#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Runs the same full forward passes through pe-bench-cpu (the fast CPU engine), numpy and
torch, and prints a ratio table.

Each forward is faithful to the trace: projections (of E + P for the absolute schemes, RoPE
applied), per-head logits with the scheme's bias/position terms, mask (none), softmax (times C
for URPE), weights·V (plus Shaw's value term), output projection; numpy and torch materialise
every head's n×n logits and weights (and the bias), and "numpy lean" updates one n×n buffer in
place. Every scheme the engine has: none, sinusoidal, learned, rope, t5, shaw, alibi, txl,
deberta, urpe (the default). Use Debian's /usr/bin/python3: with libopenblas0-pthread installed
numpy and torch use OpenBLAS.

    /usr/bin/python3 bench/compare.py [--bench build/dev/bench/cpu/pe-bench-cpu]
        [--n 2048,4096] [--schemes none,t5,...] [--repeat 3] [--d 512] [--heads 8]

The engines alternate run by run (fast, numpy, numpy lean, torch, fast, ...; --repeat rounds
after one warm-up each), so on a shared machine all of them see the same load; the table gives medians
over the rounds and the ratios of those medians. pe-bench-cpu first prints the machine's sgemm
peak and memory bandwidth, and each fast run its GEMM rate as a share of that peak.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time


def _cpu_has_avx512():
    try:
        with open("/proc/cpuinfo") as f:
            return any(ln.startswith("flags") and " avx512f" in ln for ln in f)
    except OSError:
        return False


# numpy and torch get OpenBLAS at its best on this machine. OpenBLAS's kernel choice can be
# slower than the CPU allows: OPENBLAS_CORETYPE may pin older kernels (this project's build
# machines set Haswell), and an OpenBLAS older than the CPU may not know it. On AMD Zen 5 with
# Debian 12's 0.3.21: 257 GFLOP/s on two cores with the AVX2 "Haswell" kernels, 476 with its own
# choice (Cooperlake, AVX-512). Unless --blas-as-is is given, when the CPU has AVX-512 this script
# re-runs itself with OpenBLAS's own choice if that is an AVX-512 kernel, else with
# OPENBLAS_CORETYPE=SkylakeX (OpenBLAS reads the variable only when it is loaded, so the check
# runs in a child). pe-bench-cpu inherits the same environment.
_AVX512_CORES = ("skylakex", "cooperlake", "sapphirerapids")


def _openblas_core(env):
    probe = ("import ctypes, glob\n"
             "libs = sorted(glob.glob('/usr/lib/x86_64-linux-gnu/openblas*/libopenblas*.so*'))\n"
             "if libs:\n"
             "    f = ctypes.CDLL(libs[0]).openblas_get_corename\n"
             "    f.restype = ctypes.c_char_p\n"
             "    print(f().decode())\n")
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env).stdout.strip().lower()


if ("--blas-as-is" not in sys.argv and "PE_COMPARE_BLAS_CHOSEN" not in os.environ
        and _cpu_has_avx512()):
    _env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    _core = _openblas_core(_env)
    if _core and not any(k in _core for k in _AVX512_CORES):
        _env["OPENBLAS_CORETYPE"] = "SkylakeX"
    _env["PE_COMPARE_BLAS_CHOSEN"] = "1"
    if _core:
        os.execve(sys.executable, [sys.executable] + sys.argv, _env)

import numpy as np

try:
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
except ImportError:  # torch is optional
    torch = None


def t5_bucket(rel, num_buckets=32, max_distance=128):
    """Bidirectional Mesh-TF bucket of rel = j − i, evaluated in float32 (SPEC §5)."""
    n = -rel
    half = num_buckets // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    is_small = n < max_exact
    nf = np.maximum(n, 1).astype(np.float32)
    val = max_exact + (np.log(nf / np.float32(max_exact)) / np.float32(math.log(max_distance / max_exact))
                       * np.float32(half - max_exact)).astype(np.int64)
    val = np.minimum(val, half - 1)
    return ret + np.where(is_small, n, val)


def alibi_slopes(h):
    def pow2(c):
        s = 2.0 ** (-8.0 / c)
        return [s * s ** k for k in range(c)]
    if math.log2(h).is_integer():
        return pow2(h)
    c = 2 ** int(math.floor(math.log2(h)))
    return pow2(c) + pow2(2 * c)[0::2][: h - c]


def make_inputs(n, d, h, scheme, clip, rng):
    f = np.float32
    inp = {
        "E": rng.standard_normal((n, d)).astype(f),
        "Wq": (rng.standard_normal((d, d)) / math.sqrt(d)).astype(f),
        "Wk": (rng.standard_normal((d, d)) / math.sqrt(d)).astype(f),
        "Wv": (rng.standard_normal((d, d)) / math.sqrt(d)).astype(f),
        "Wo": (rng.standard_normal((d, d)) / math.sqrt(d)).astype(f),
    }
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    rel = j - i
    if scheme == "t5":
        inp["bucket"] = t5_bucket(rel)  # cached, as T5 implementations do
        inp["table"] = rng.standard_normal((32, h)).astype(f)
    if scheme == "shaw":
        inp["idx"] = (np.clip(rel, -clip, clip) + clip).astype(np.int64)
        inp["wk"] = rng.standard_normal((2 * clip + 1, d // h)).astype(f)
        inp["wv"] = rng.standard_normal((2 * clip + 1, d // h)).astype(f)
    if scheme == "alibi":
        inp["absrel"] = np.abs(rel).astype(f)
        inp["slopes"] = np.array(alibi_slopes(h), dtype=f)
    dh = d // h
    if scheme == "sinusoidal":
        ang = np.arange(n)[:, None] * np.power(10000.0, -2.0 * np.arange(d // 2)[None, :] / d)
        P = np.empty((n, d))
        P[:, 0::2], P[:, 1::2] = np.sin(ang), np.cos(ang)
        inp["P"] = P.astype(f)
    if scheme == "learned":
        inp["P"] = (0.02 * rng.standard_normal((n, d))).astype(f)
    if scheme == "rope":  # cos/sin cached per position, as RoPE implementations do
        ang = np.arange(n)[:, None] * np.power(10000.0, -2.0 * np.arange(dh // 2)[None, :] / dh)
        inp["cos"], inp["sin"] = np.cos(ang).astype(f), np.sin(ang).astype(f)
    if scheme in ("txl", "urpe"):
        inp["ridx"] = (rel + n - 1).astype(np.int64)  # row of a per-offset table for j − i
    if scheme == "txl":  # relative sinusoid for t = i − j at row (j − i) + n − 1, cached
        t = (n - 1) - np.arange(2 * n - 1)
        ang = t[:, None] * np.power(10000.0, -2.0 * np.arange(d // 2)[None, :] / d)
        inp["R"] = np.concatenate([np.sin(ang), np.cos(ang)], axis=1).astype(f)
        inp["Wr"] = (rng.standard_normal((d, d)) / math.sqrt(d)).astype(f)
        inp["u"] = (0.02 * rng.standard_normal((h, 1, dh))).astype(f)
        inp["v"] = (0.02 * rng.standard_normal((h, 1, dh))).astype(f)
    if scheme == "deberta":  # span 256 (buckets 256), linear relative positions
        span = 256
        inp["rel"] = rng.standard_normal((2 * span, d)).astype(f)
        inp["Wqr"] = (rng.standard_normal((d, d)) / math.sqrt(d)).astype(f)
        inp["Wkr"] = (rng.standard_normal((d, d)) / math.sqrt(d)).astype(f)
        inp["didx"] = np.clip(-rel + span, 0, 2 * span - 1).astype(np.int64)  # δ(i − j)
    if scheme == "urpe":  # T5 bias, then the weights times C[(j − i) + n − 1]
        inp["bucket"] = t5_bucket(rel)
        inp["table"] = rng.standard_normal((32, h)).astype(f)
        inp["C"] = (1.0 + 0.25 * rng.standard_normal((h, 2 * n - 1))).astype(f)
    return inp


def heads(M, n, h):
    """[n, d] -> [h, n, d/h] view (numpy or torch)."""
    return M.reshape(n, h, -1).transpose(1, 0, 2) if isinstance(M, np.ndarray) \
        else M.reshape(n, h, -1).transpose(0, 1)


def rope(x, cos, sin):
    """Rotates interleaved pairs of x [h, n, dh] by the cached angles [n, dh/2]."""
    out = x * 1  # a copy, numpy or torch
    a, b = x[..., 0::2], x[..., 1::2]
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = b * cos + a * sin
    return out


def project_heads(inp, n, d, h):
    """Q, K, V as [h, n, d/h] (X = E + P for absolute schemes, RoPE applied), the scale."""
    X = inp["E"] + inp["P"] if "P" in inp else inp["E"]
    Q, K, V = heads(X @ inp["Wq"], n, h), heads(X @ inp["Wk"], n, h), heads(X @ inp["Wv"], n, h)
    if "cos" in inp:
        Q, K = rope(Q, inp["cos"], inp["sin"]), rope(K, inp["cos"], inp["sin"])
    return Q, K, V, 1.0 / math.sqrt(d // h)


def gather_last(x, idx, h, n):
    """x[..., i, idx[i, j]] for every head: [h, n, m] gathered by [n, n] (numpy or torch)."""
    if isinstance(x, np.ndarray):
        return np.take_along_axis(x, np.broadcast_to(idx, (h, n, n)), axis=2)
    return torch.gather(x, 2, idx.expand(h, n, n))


def relative_logits(inp, Q, K, n, h, d, scheme):
    """Transformer-XL's and DeBERTa's logits (their content and position terms, scaled), as the
    papers' implementations compute them: per-offset products, then gathers to n × n."""
    T = (lambda M: M.transpose(0, 2, 1)) if isinstance(Q, np.ndarray) else (lambda M: M.transpose(1, 2))
    if scheme == "txl":
        Rp = heads(inp["R"] @ inp["Wr"], 2 * n - 1, h)  # [h, 2n − 1, dh]
        ac = (Q + inp["u"]) @ T(K)
        bd = gather_last((Q + inp["v"]) @ T(Rp), inp["ridx"], h, n)
        return (ac + bd) * (1.0 / math.sqrt(d // h))
    span2 = inp["rel"].shape[0]
    Kr = heads(inp["rel"] @ inp["Wkr"], span2, h)
    Qr = heads(inp["rel"] @ inp["Wqr"], span2, h)
    c2p = gather_last(Q @ T(Kr), inp["didx"], h, n)
    p2c = T(gather_last(K @ T(Qr), T(inp["didx"][None])[0], h, n))
    return (Q @ T(K) + c2p + p2c) * (1.0 / math.sqrt(3 * (d // h)))


def urpe_factor(inp, h, n):
    """URPE's C[h, (j − i) + n − 1] as [h, n, n]."""
    return inp["C"][:, inp["ridx"]]


def forward_numpy(inp, n, d, h, scheme, clip):
    Q, K, V, scale = project_heads(inp, n, d, h)
    scale = np.float32(scale)
    if scheme in ("txl", "deberta"):  # content and position terms together, scaled
        logits = relative_logits(inp, Q, K, n, h, d, scheme)
    else:
        content = Q @ K.transpose(0, 2, 1)
        if scheme in ("t5", "urpe"):
            bias = inp["table"][inp["bucket"]].transpose(2, 0, 1)  # [h, n, n]
            logits = content + bias
        elif scheme == "alibi":
            bias = -inp["slopes"][:, None, None] * inp["absrel"][None]
            logits = content * scale + bias
        elif scheme == "shaw":
            qw = Q @ inp["wk"].T  # [h, n, 2k+1]
            kterm = np.take_along_axis(qw, np.broadcast_to(inp["idx"], (h, n, n)), axis=2) * scale
            logits = content * scale + kterm
        else:
            logits = content * scale
    m = logits.max(axis=-1, keepdims=True)
    weights = np.exp(logits - m)
    weights /= weights.sum(axis=-1, keepdims=True)
    if scheme == "urpe":
        weights = weights * urpe_factor(inp, h, n)
    head_out = weights @ V
    if scheme == "shaw":
        idx = inp["idx"]
        k2 = 2 * clip
        wsum = np.zeros((h, n, k2 + 1), dtype=np.float32)
        wsum[:, :, 0] = np.where(idx == 0, weights, 0).sum(-1)
        wsum[:, :, k2] = np.where(idx == k2, weights, 0).sum(-1)
        for r in range(1, k2):
            off = r - clip
            dg = np.diagonal(weights, offset=off, axis1=1, axis2=2)  # rows i with j = i + off
            if off >= 0:
                wsum[:, : n - off, r] = dg
            else:
                wsum[:, -off:, r] = dg
        head_out = head_out + wsum @ inp["wv"]
    out = head_out.transpose(1, 0, 2).reshape(n, d) @ inp["Wo"]
    return out, logits, weights


def forward_numpy_lean(inp, n, d, h, scheme, clip):
    """The same forward written for speed, as a performance-minded numpy user would: the per-head
    logits buffer becomes the weights in place (scale, bias, max shift, exp and normalisation
    without n×n temporaries), so only the weights are materialised as n×n. Same algorithm for
    the position terms as forward_numpy."""
    Q, K, V, scale = project_heads(inp, n, d, h)
    scale = np.float32(scale)
    if scheme in ("txl", "deberta"):  # content and position terms together, scaled
        s = relative_logits(inp, Q, K, n, h, d, scheme)
    else:
        s = Q @ K.transpose(0, 2, 1)  # [h, n, n], becomes the weights
        if scheme in ("t5", "urpe"):
            s += inp["table"][inp["bucket"]].transpose(2, 0, 1)
        elif scheme == "alibi":
            s *= scale
            for hh in range(h):
                s[hh] -= inp["slopes"][hh] * inp["absrel"]
        elif scheme == "shaw":
            s *= scale
            qw = (Q @ inp["wk"].T) * scale  # [h, n, 2k+1]
            s += np.take_along_axis(qw, np.broadcast_to(inp["idx"], (h, n, n)), axis=2)
        else:
            s *= scale
    s -= s.max(axis=-1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=-1, keepdims=True)
    if scheme == "urpe":
        for hh in range(h):
            s[hh] *= inp["C"][hh][inp["ridx"]]
    head_out = s @ V
    if scheme == "shaw":
        k2 = 2 * clip
        wsum = np.zeros((h, n, k2 + 1), dtype=np.float32)
        for r in range(k2 + 1):
            off = r - clip
            if r == 0 or r == k2:  # the clipped ends: sums of the rows' outer parts
                mask = inp["idx"] == r
                wsum[:, :, r] = np.where(mask, s, 0).sum(-1)
                continue
            dg = np.diagonal(s, offset=off, axis1=1, axis2=2)
            if off >= 0:
                wsum[:, : n - off, r] = dg
            else:
                wsum[:, -off:, r] = dg
        head_out += wsum @ inp["wv"]
    out = head_out.transpose(1, 0, 2).reshape(n, d) @ inp["Wo"]
    return out, s


def forward_torch(inp, n, d, h, scheme, clip):
    Q, K, V, scale = project_heads(inp, n, d, h)
    if scheme in ("txl", "deberta"):  # content and position terms together, scaled
        logits = relative_logits(inp, Q, K, n, h, d, scheme)
    else:
        content = Q @ K.transpose(1, 2)
        if scheme in ("t5", "urpe"):
            bias = inp["table"][inp["bucket"]].permute(2, 0, 1)
            logits = content + bias
        elif scheme == "alibi":
            bias = -inp["slopes"][:, None, None] * inp["absrel"][None]
            logits = content * scale + bias
        elif scheme == "shaw":
            qw = Q @ inp["wk"].T
            kterm = torch.gather(qw, 2, inp["idx"].expand(h, n, n)) * scale
            logits = content * scale + kterm
        else:
            logits = content * scale
    weights = torch.softmax(logits, dim=-1)
    if scheme == "urpe":
        weights = weights * urpe_factor(inp, h, n)
    head_out = weights @ V
    if scheme == "shaw":
        # Per-offset sums of the weights (scatter_add over the clipped index), then W · w_v.
        wsum = torch.zeros((h, n, 2 * clip + 1), dtype=torch.float32)
        wsum.scatter_add_(2, inp["idx"].expand(h, n, n), weights)
        head_out = head_out + wsum @ inp["wv"]
    out = head_out.transpose(0, 1).reshape(n, d) @ inp["Wo"]
    return out, logits, weights


def time_once(fn):
    # Idle first: OpenBLAS's and torch's OpenMP worker threads spin for a while after each call
    # and would otherwise compete with the next engine.
    time.sleep(0.3)
    t0 = time.perf_counter()
    r = fn()
    ms = (time.perf_counter() - t0) * 1000.0
    del r
    return ms


def blas_info():
    lines = []
    try:
        out = subprocess.run(["update-alternatives", "--query", "libblas.so.3-x86_64-linux-gnu"],
                             capture_output=True, text=True).stdout
        for ln in out.splitlines():
            if ln.startswith("Value:"):
                lines.append("libblas.so.3 -> " + ln.split(":", 1)[1].strip())
    except OSError:
        pass
    try:
        with open(f"/proc/{os.getpid()}/maps") as f:
            libs = sorted({ln.split()[-1] for ln in f if "blas" in ln.lower() and "/" in ln})
        lines += ["loaded: " + lib for lib in libs]
    except OSError:
        pass
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--bench", default=os.path.join(here, "..", "build", "dev", "bench", "cpu", "pe-bench-cpu"))
    ap.add_argument("--n", default="2048,4096")
    ap.add_argument("--schemes", default="none,sinusoidal,learned,rope,t5,shaw,alibi,txl,deberta,urpe")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--clip", type=int, default=16)
    ap.add_argument("--no-fast", action="store_true", help="skip pe-bench-cpu")
    ap.add_argument("--blas-as-is", action="store_true",
                    help="leave OpenBLAS's kernel choice for numpy and torch as it is")
    args = ap.parse_args()
    ns = [int(x) for x in args.n.split(",")]
    schemes = args.schemes.split(",")

    # The machine: sgemm peak and memory bandwidth, once.
    machine = {}
    device = ""
    if not args.no_fast:
        res = subprocess.run([args.bench, "--n", str(ns[0]), "--schemes", "none", "--repeat", "1",
                              "--d", str(args.d), "--heads", str(args.heads)],
                             capture_output=True, text=True, check=True)
        for ln in res.stdout.splitlines():
            r = json.loads(ln)
            if r.get("engine") == "machine":
                machine = r
                print(json.dumps(r), flush=True)
        device = res.stderr.strip()

    def fast_once(n, s):
        """One warm run of the engine (pe-bench-cpu --repeat 1: a cold run, then the timed one)."""
        cmd = [args.bench, "--n", str(n), "--schemes", s, "--repeat", "1", "--no-machine",
               "--d", str(args.d), "--heads", str(args.heads)]
        time.sleep(0.3)  # let numpy's and torch's spinning worker threads go idle
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
        for ln in res.stdout.splitlines():
            r = json.loads(ln)
            if r.get("engine") == "fast":
                return r
        return {}

    # Rounds alternate the engines (fast, numpy, torch, fast, ...) so all three see the same load.
    rows = []
    for n in ns:
        for s in schemes:
            rng = np.random.default_rng(0)
            inp = make_inputs(n, args.d, args.heads, s, args.clip, rng)
            tinp = None
            if torch is not None:
                tinp = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in inp.items()}
            np_fn = lambda: forward_numpy(inp, n, args.d, args.heads, s, args.clip)
            th_fn = lambda: forward_torch(tinp, n, args.d, args.heads, s, args.clip)
            lean_fn = lambda: forward_numpy_lean(inp, n, args.d, args.heads, s, args.clip)
            ref_out, _, ref_w = np_fn()  # warm-up, and the lean forward checked against it
            lean_out, lean_w = lean_fn()
            if not (np.allclose(lean_out, ref_out, rtol=1e-3, atol=1e-4)
                    and np.allclose(lean_w, ref_w, rtol=1e-3, atol=1e-6)):
                sys.exit(f"numpy lean forward differs from the faithful one ({s}, n = {n})")
            del ref_out, ref_w, lean_out, lean_w
            if tinp is not None:
                with torch.no_grad():
                    th_fn()
            fast_runs, np_times, lean_times, th_times = [], [], [], []
            for _ in range(args.repeat):
                if not args.no_fast:
                    r = fast_once(n, s)
                    print(json.dumps(r), flush=True)
                    fast_runs.append(r)
                np_times.append(time_once(np_fn))
                lean_times.append(time_once(lean_fn))
                if tinp is not None:
                    with torch.no_grad():
                        th_times.append(time_once(th_fn))
            np_ms = statistics.median(np_times)
            print(json.dumps({"engine": "numpy", "scheme": s, "n": n, "ms_median": round(np_ms, 3),
                              "ms_runs": [round(t, 1) for t in np_times]}), flush=True)
            lean_ms = statistics.median(lean_times)
            print(json.dumps({"engine": "numpy-lean", "scheme": s, "n": n, "ms_median": round(lean_ms, 3),
                              "ms_runs": [round(t, 1) for t in lean_times]}), flush=True)
            th_ms = statistics.median(th_times) if th_times else None
            if th_ms is not None:
                print(json.dumps({"engine": "torch", "scheme": s, "n": n, "ms_median": round(th_ms, 3),
                                  "ms_runs": [round(t, 1) for t in th_times]}), flush=True)
            f_ms = statistics.median([r["ms_median"] for r in fast_runs]) if fast_runs else None
            f_cold = statistics.median([r["ms_first"] for r in fast_runs]) if fast_runs else None
            gemm_pct = statistics.median([r.get("gemm_pct_peak", 0) for r in fast_runs]) if fast_runs else None
            del inp, tinp
            rows.append((n, s, f_ms, f_cold, np_ms, lean_ms, th_ms, gemm_pct))

    print()
    print(f"d = {args.d}, heads = {args.heads}, fp32, medians of {args.repeat} alternating rounds")
    if not args.no_fast:
        print(device)
    if machine:
        print(f"machine ({machine['threads']} threads): sgemm peak {machine['sgemm_peak_gflops']} GFLOP/s "
              f"(OpenBLAS threaded {machine['sgemm_openblas_threaded_gflops']}, split per thread "
              f"{machine['sgemm_openblas_split_gflops']}, Eigen split {machine['sgemm_eigen_split_gflops']}), "
              f"memcpy {machine['memcpy_gbps']} GB/s, streaming stores {machine['stream_store_gbps']} GB/s")
    print(f"numpy {np.__version__}" + (f", torch {torch.__version__} ({torch.get_num_threads()} threads)" if torch else ""))
    for ln in blas_info():
        print(ln)
    print("OPENBLAS_CORETYPE=" + os.environ.get("OPENBLAS_CORETYPE", "(unset: OpenBLAS's own choice)")
          + ", OpenBLAS core " + (_openblas_core(dict(os.environ)) or "?"))
    try:
        with open("/proc/loadavg") as f:
            print("load average at the end: " + " ".join(f.read().split()[:3]))
    except OSError:
        pass
    print()
    print("fast: warm run (buffers recycled); cold: the first run of the process (fresh buffers); "
          "GEMM % peak: the engine's matrix products against an sgemm peak measured right before each run")
    print()
    print("| n | scheme | fast (ms) | fast cold (ms) | numpy (ms) | numpy lean (ms) | torch (ms) "
          "| numpy / fast | numpy lean / fast | torch / fast | GEMM % peak |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n, s, f, fc, a, lean, b, g in rows:
        fs = f"{f:.1f}" if f else "–"
        fcs = f"{fc:.1f}" if fc else "–"
        bs = f"{b:.1f}" if b else "–"
        ra = f"{a / f:.2f}×" if f else "–"
        rl = f"{lean / f:.2f}×" if f else "–"
        rb = f"{b / f:.2f}×" if (f and b) else "–"
        gs = f"{g:.0f}%" if g else "–"
        print(f"| {n} | {s} | {fs} | {fcs} | {a:.1f} | {lean:.1f} | {bs} | {ra} | {rl} | {rb} | {gs} |")


if __name__ == "__main__":
    sys.exit(main())
