# SPDX-License-Identifier: MIT
"""Independent float64 reference of the pe-explorer trace contract.

Written from /work/shared/SPEC-encodings.md and /work/shared/SPEC-trace.md only (never from the
C++ sources), with the most direct formulas: per-(i, j) loops for Transformer-XL's R_t, a naive
gather for Shaw, explicit per-head loops everywhere. Speed is irrelevant; clarity is the point.

`trace(options, weights)` returns every tensor named in SPEC-trace.md's "Files written" table.
"""

from __future__ import annotations

import math

import numpy as np

# ---------------------------------------------------------------------------------------------
# Building blocks (SPEC-encodings.md section numbers in brackets)
# ---------------------------------------------------------------------------------------------


def sinusoid(n: int, d: int, base: float = 10000.0, layout: str = "interleaved",
             start: int = 0) -> np.ndarray:
    """[§1] Absolute sinusoid PE [n, d] in float64, positions start … start+n-1."""
    pe = np.zeros((n, d), dtype=np.float64)
    for p_idx in range(n):
        p = float(start + p_idx)
        if layout == "interleaved":
            for c in range(d):
                m = c // 2
                w = float(base) ** (-2.0 * m / d)
                pe[p_idx, c] = math.sin(p * w) if c % 2 == 0 else math.cos(p * w)
        elif layout == "concat":
            if d % 2 != 0:
                raise ValueError("concat layout needs even d")
            half = d // 2
            for m in range(half):
                w = float(base) ** (-2.0 * m / d)
                pe[p_idx, m] = math.sin(p * w)
                pe[p_idx, half + m] = math.cos(p * w)
        elif layout == "t2t":
            k = d // 2
            for m in range(k):
                w = math.exp(-m * math.log(float(base)) / max(k - 1, 1))
                pe[p_idx, m] = math.sin(p * w)
                pe[p_idx, k + m] = math.cos(p * w)
            # odd d: the last column stays zero
        else:
            raise ValueError(f"unknown layout {layout}")
    return pe


def t5_bucket(rel: int, num_buckets: int = 32, max_distance: int = 128,
              bidirectional: bool = True) -> int:
    """[§5] Mesh-TF relative position bucket; rel = j - (i + q_off). Step 3 in float32."""
    n = -rel
    if bidirectional:
        half = num_buckets // 2
        offset = half if rel > 0 else 0
        n = abs(n)
    else:
        half = num_buckets
        offset = 0
        n = max(n, 0)
    max_exact = half // 2
    if n < max_exact:
        return offset + n
    f32 = np.float32
    ratio = f32(n) / f32(max_exact)                      # float32 division
    log_ratio = np.log(ratio)                            # float32 log
    denom = f32(math.log(max_distance / max_exact))      # python float -> float32 (as TF/torch)
    scaled = (log_ratio / denom) * f32(half - max_exact)  # float32 divide and multiply
    assert scaled.dtype == np.float32
    large = max_exact + int(math.trunc(float(scaled)))
    return offset + min(half - 1, large)


def t5_bucket_float64(rel: int, num_buckets: int = 32, max_distance: int = 128,
                      bidirectional: bool = True) -> int:
    """Same as t5_bucket but step 3 in float64 (only used to show the documented difference)."""
    n = -rel
    if bidirectional:
        half = num_buckets // 2
        offset = half if rel > 0 else 0
        n = abs(n)
    else:
        half = num_buckets
        offset = 0
        n = max(n, 0)
    max_exact = half // 2
    if n < max_exact:
        return offset + n
    scaled = math.log(n / max_exact) / math.log(max_distance / max_exact) * (half - max_exact)
    return offset + min(half - 1, max_exact + int(math.trunc(scaled)))


def deberta_log_bucket(rel: int, bucket_size: int = 256, max_position: int = 512) -> int:
    """[§6] DeBERTa v2/v3 log bucket of rel = i - j (odd function)."""
    mid = bucket_size // 2
    a = abs(rel)
    if a <= mid:
        return rel
    sign = 1 if rel > 0 else -1
    log_pos = math.ceil(math.log(a / mid) / math.log((max_position - 1) / mid) * (mid - 1)) + mid
    return sign * int(log_pos)


def deberta_index(n_q: int, n_k: int, span: int, buckets: int | None = None,
                  max_position: int = 512, q_off: int = 0) -> np.ndarray:
    """[§6] delta(i, j) = clip(bucket(i - j) + span, 0, 2 span - 1); no bucketing when buckets is None."""
    idx = np.zeros((n_q, n_k), dtype=np.int64)
    for i in range(n_q):
        for j in range(n_k):
            rel = (i + q_off) - j
            b = rel if buckets is None else deberta_log_bucket(rel, buckets, max_position)
            idx[i, j] = min(max(b + span, 0), 2 * span - 1)
    return idx


def alibi_slopes(h: int) -> np.ndarray:
    """[§8] ALiBi slopes, closed form 2^(-8k/c) with the non-power-of-two interleave."""
    def pow2(c: int) -> list[float]:
        return [2.0 ** (-8.0 * k / c) for k in range(1, c + 1)]

    if h & (h - 1) == 0:
        return np.array(pow2(h), dtype=np.float64)
    c = 1 << int(math.floor(math.log2(h)))
    extra = pow2(2 * c)[0::2][: h - c]
    return np.array(pow2(c) + extra, dtype=np.float64)


def rope(x: np.ndarray, positions: np.ndarray, base: float = 10000.0,
         convention: str = "interleaved", d_rot: int = 0, scaling: str = "none",
         scale: float = 1.0) -> np.ndarray:
    """[§7] Rotate rows of x [n, d_h] at the given absolute positions. d_rot = d_h unless
    partial (0 means d_h): features [0, d_rot) rotate with theta from d_rot, the rest pass.

    Context stretching by s (docs/encodings-mlp-rope.md): "pi" (position interpolation) rotates
    by (p / s) * theta_m; "ntk" uses theta'_m = base'^(-2m/d_rot) with
    base' = base * s^(d_rot / (d_rot - 2)); "none" ignores s."""
    n, dh = x.shape
    dr = dh if d_rot in (0, None) else int(d_rot)
    if dr % 2 != 0 or dr > dh:
        raise ValueError("rope needs an even rotated width <= head width")
    rope_base = float(base)
    if scaling == "ntk":
        if dr < 4:
            raise ValueError("ntk needs d_rot >= 4")
        rope_base = rope_base * float(scale) ** (dr / (dr - 2))
    elif scaling not in ("none", "pi"):
        raise ValueError(f"unknown rope scaling {scaling}")
    out = np.array(x, dtype=np.float64, copy=True)
    for r in range(n):
        p = float(positions[r])
        if scaling == "pi":
            p = p / float(scale)
        for m in range(dr // 2):
            theta = rope_base ** (-2.0 * m / dr)
            ang = p * theta
            c, s = math.cos(ang), math.sin(ang)
            if convention == "interleaved":
                ia, ib = 2 * m, 2 * m + 1
            elif convention == "half":
                ia, ib = m, m + dr // 2
            else:
                raise ValueError(f"unknown rope convention {convention}")
            a, b = x[r, ia], x[r, ib]
            out[r, ia] = a * c - b * s
            out[r, ib] = b * c + a * s
    return out


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU 0.5 x (1 + erf(x / sqrt 2)), elementwise."""
    return np.vectorize(lambda v: 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))))(x)


def mlp_features(n: int, features: int, base: float = 10000.0) -> np.ndarray:
    """Fourier features phi [n, 2F]: phi[p, 2k] = sin(p w_k), phi[p, 2k+1] = cos(p w_k),
    w_k = base^(-k/F)."""
    phi = np.zeros((n, 2 * features), dtype=np.float64)
    for p in range(n):
        for k in range(features):
            a = float(p) * float(base) ** (-float(k) / features)
            phi[p, 2 * k] = math.sin(a)
            phi[p, 2 * k + 1] = math.cos(a)
    return phi


def mlp_encoding(n: int, features: int, base: float, w1, b1, w2, b2) -> np.ndarray:
    """The mlp encoding P [n, d] = GELU(phi W1 + b1) W2 + b2 (row vectors), written out as
    sums over the hidden units."""
    phi = mlp_features(n, features, base)
    H, d = w2.shape
    P = np.zeros((n, d))
    for p in range(n):
        hidden = [sum(phi[p, i] * w1[i, j] for i in range(2 * features)) + b1[j]
                  for j in range(H)]
        g = gelu(np.array(hidden))
        for c in range(d):
            P[p, c] = sum(g[j] * w2[j, c] for j in range(H)) + b2[c]
    return P


def shaw_index(n_q: int, n_k: int, k: int, q_off: int = 0) -> np.ndarray:
    """[§3] idx(i, j) = clip(j - (i + q_off), -k, k) + k."""
    idx = np.zeros((n_q, n_k), dtype=np.int64)
    for i in range(n_q):
        for j in range(n_k):
            idx[i, j] = min(max(j - (i + q_off), -k), k) + k
    return idx


def txl_rel_sinusoid(t: float, d: int) -> np.ndarray:
    """[§4] R_t = [sin(t w_m) | cos(t w_m)], w_m = 10000^(-2m/d), concat layout, base 10000."""
    if d % 2 != 0:
        raise ValueError("Transformer-XL R needs even d")
    half = d // 2
    r = np.zeros(d, dtype=np.float64)
    for m in range(half):
        w = 10000.0 ** (-2.0 * m / d)
        r[m] = math.sin(t * w)
        r[half + m] = math.cos(t * w)
    return r


def txl_scores_direct(q, k, u, v, W_r_head, mem: int = 0, clamp_len: int = 0):
    """[§4] Direct TXL logits (unscaled sum) for one head, R_t evaluated per (i, j).

    q [L, dh], k [M+L, dh], u, v [dh], W_r_head [d, dh]. Returns (ac, bd) unscaled, [L, M+L].
    """
    L, K = q.shape[0], k.shape[0]
    d = W_r_head.shape[0]
    ac = np.zeros((L, K))
    bd = np.zeros((L, K))
    for i in range(L):
        for j in range(K):
            t = mem + i - j
            if clamp_len > 0:
                t = min(t, clamp_len)
            r = txl_rel_sinusoid(float(t), d) @ W_r_head
            ac[i, j] = (q[i] + u) @ k[j]
            bd[i, j] = (q[i] + v) @ r
    return ac, bd


def txl_bd_shift(q, v, W_r_head, mem: int = 0) -> np.ndarray:
    """[§4] The original rel-shift computation of the bd term (valid for j <= M + i only)."""
    L = q.shape[0]
    K = mem + L
    d = W_r_head.shape[0]
    pos_seq = np.arange(K - 1, -1, -1, dtype=np.float64)  # descending
    R = np.stack([txl_rel_sinusoid(float(t), d) for t in pos_seq])  # [K, d]
    r = R @ W_r_head  # [K, dh]
    B = (q + v) @ r.T  # [L, K]
    padded = np.concatenate([np.zeros((L, 1)), B], axis=1)  # [L, K+1]
    flat = padded.reshape(-1)
    shifted = flat.reshape(K + 1, L)[1:].reshape(L, K)
    return shifted


def urpe_unique_index(n_q: int, n_k: int, L: int) -> np.ndarray:
    """[§9] 'unique' URPE index (j - i) + L - 1."""
    idx = np.zeros((n_q, n_k), dtype=np.int64)
    for i in range(n_q):
        for j in range(n_k):
            idx[i, j] = (j - i) + L - 1
    return idx


def _t5_magnitude(a: int, half: int = 32, max_distance: int = 128) -> int:
    e = half // 2
    if a < e:
        return a
    f32 = np.float32
    scaled = (np.log(f32(a) / f32(e)) / f32(math.log(max_distance / e))) * f32(half - e)
    return min(half - 1, e + int(math.trunc(float(scaled))))


def urpe_official_index(L: int) -> np.ndarray:
    """[§9] Official URPE bucketed index over the L x L grid (rel = j - i), 65-row table."""
    per_rel = {}
    for rel in range(-(L - 1), L):
        s = (rel > 0) - (rel < 0)
        b = s * _t5_magnitude(abs(rel))
        per_rel[rel] = b + 2 if b >= 0 else b
    lo = min(per_rel.values())  # the minimum over the full L x L grid
    idx = np.zeros((L, L), dtype=np.int64)
    for i in range(L):
        for j in range(L):
            idx[i, j] = per_rel[j - i] - lo
    return idx


def normalise(s: np.ndarray, kind: str, visible: np.ndarray) -> np.ndarray:
    """[§10] Normaliser over the last axis. s: [.., n_q, n_k] (masked entries -inf),
    visible: bool [n_q, n_k]. Masked weights are exactly 0; fully masked rows are all zero."""
    s = np.asarray(s, dtype=np.float64)
    out = np.zeros_like(s)
    n_k = s.shape[-1]
    flat_s = s.reshape(-1, s.shape[-2], n_k)
    flat_o = out.reshape(-1, s.shape[-2], n_k)
    for h in range(flat_s.shape[0]):
        for i in range(flat_s.shape[1]):
            vis = visible[i]
            if not vis.any():
                continue
            row = flat_s[h, i, vis]
            if kind == "softmax":
                e = np.exp(row - row.max())
                w = e / e.sum()
            elif kind == "exp":
                w = np.exp(row)
            elif kind == "l2":
                e = np.exp(row - row.max())
                w = e / math.sqrt(float((e * e).sum()))
            elif kind == "relu2":
                w = np.maximum(row, 0.0) ** 2 / n_k
            elif kind == "relu2_visible":
                w = np.maximum(row, 0.0) ** 2 / int(vis.sum())
            else:
                raise ValueError(f"unknown normaliser {kind}")
            flat_o[h, i, vis] = w
    return out


# ---------------------------------------------------------------------------------------------
# The trace
# ---------------------------------------------------------------------------------------------

DEFAULTS = {
    "scheme": "none", "n": 16, "d": 64, "heads": 4, "norm": "softmax", "mask": "none",
    "valid_len": None, "clip": 16, "base": 10000.0, "layout": "interleaved",
    "rope_convention": "interleaved", "buckets": 32, "max_distance": 128,
    "unidirectional": False, "alibi_mode": "symmetric", "deberta_terms": "c2p,p2c",
    "p2c_convention": "code", "urpe_bias": "none", "cls": False, "sep": False,
    # extensions of the CLI beyond SPEC-trace (math from SPEC-encodings)
    "rope_dims": 0, "clamp_len": 0, "deberta_log_buckets": False, "deberta_buckets": 256,
    "deberta_max_position": 512, "rope_scaling": "none", "rope_scale": 1.0,
    "mlp_features": 8, "mlp_hidden": 64,
}


def deberta_span(o: dict) -> int:
    """v1: span = --clip k. v2/v3 log buckets: span = position_buckets (SPEC §6: 256 -> 256)."""
    return int(o["deberta_buckets"]) if o["deberta_log_buckets"] else int(o["clip"])


def full_options(options: dict) -> dict:
    o = dict(DEFAULTS)
    for key, val in options.items():
        o[key.replace("-", "_")] = val
    return o


def deberta_terms(o: dict) -> list[str]:
    terms = o["deberta_terms"]
    if isinstance(terms, str):
        terms = [t.strip() for t in terms.split(",") if t.strip()]
    return list(terms)


def trace(options: dict, weights: dict) -> dict:
    """Every tensor of SPEC-trace.md 'Files written', float64 (rel_index int32)."""
    o = full_options(options)
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    scheme = o["scheme"]
    d, H = int(o["d"]), int(o["heads"])
    if d % H != 0:
        raise ValueError("heads must divide d")
    dh = d // H

    # --- tokens: [CLS] E [SEP]
    rows = []
    if o["cls"]:
        rows.append(w["special.cls"].reshape(1, d))
    rows.append(w["E"].reshape(-1, d))
    if o["sep"]:
        rows.append(w["special.sep"].reshape(1, d))
    E = np.concatenate(rows, axis=0)
    n = E.shape[0]  # counts special tokens
    pos = np.arange(n)

    out: dict[str, np.ndarray] = {"E": E}

    # --- input encoding [IN]
    if scheme == "sinusoidal":
        P = sinusoid(n, d, float(o["base"]), o["layout"])
        out["P"] = P
        X = E + P
    elif scheme == "learned":
        table = w["learned.table"]
        if n > table.shape[0]:
            raise ValueError("n exceeds P_max")
        P = table[:n].copy()
        out["P"] = P
        X = E + P
    elif scheme == "mlp":
        P = mlp_encoding(n, int(o["mlp_features"]), float(o["base"]), w["mlp.w1"],
                         w["mlp.b1"].reshape(-1), w["mlp.w2"], w["mlp.b2"].reshape(-1))
        out["P"] = P
        X = E + P
    else:
        X = E.copy()
    out["X"] = X

    # --- projections
    def heads_of(M):
        return np.stack([M[:, h * dh:(h + 1) * dh] for h in range(H)])  # [H, n, dh]

    Q = heads_of(X @ w["W_q"])
    K = heads_of(X @ w["W_k"])
    V = heads_of(X @ w["W_v"])
    if scheme == "rope":
        rd = int(o["rope_dims"])
        sc, stretch = o["rope_scaling"], float(o["rope_scale"])
        Q = np.stack([rope(Q[h], pos, float(o["base"]), o["rope_convention"], rd, sc, stretch)
                      for h in range(H)])
        K = np.stack([rope(K[h], pos, float(o["base"]), o["rope_convention"], rd, sc, stretch)
                      for h in range(H)])
    out["Q"], out["K"], out["V"] = Q, K, V

    # --- mask (true = visible)
    visible = np.ones((n, n), dtype=bool)
    if o["mask"] == "causal":
        visible &= np.tril(np.ones((n, n), dtype=bool))
    elif o["mask"] != "none":
        raise ValueError("mask")
    if o["valid_len"] is not None:
        L = int(o["valid_len"])
        visible[:, L:] = False

    # --- logits
    inv = 1.0 / math.sqrt(dh)
    qk = np.einsum("hid,hjd->hij", Q, K)
    if scheme in ("none", "sinusoidal", "learned", "mlp", "rope"):
        logits = qk * inv
    elif scheme == "shaw":
        k = int(o["clip"])
        idx = shaw_index(n, n, k)
        wk, wv = w["shaw.w_k"], w["shaw.w_v"]
        kterm = np.zeros((H, n, n))
        for h in range(H):
            for i in range(n):
                for j in range(n):
                    kterm[h, i, j] = Q[h, i] @ wk[idx[i, j]] * inv
        out["rel_index"] = idx.astype(np.int32)
        out["shaw_k_term"] = kterm
        logits = qk * inv + kterm
    elif scheme == "txl":
        u, v, Wr = w["txl.u"], w["txl.v"], w["txl.W_r"]
        ac = np.zeros((H, n, n))
        bd = np.zeros((H, n, n))
        for h in range(H):
            a_, b_ = txl_scores_direct(Q[h], K[h], u[h], v[h], Wr[:, h * dh:(h + 1) * dh],
                                       0, int(o["clamp_len"]))
            ac[h], bd[h] = a_ * inv, b_ * inv
        out["txl_ac"], out["txl_bd"] = ac, bd
        logits = ac + bd
    elif scheme == "t5":
        idx = np.array([[t5_bucket(j - i, int(o["buckets"]), int(o["max_distance"]),
                                   not o["unidirectional"]) for j in range(n)] for i in range(n)])
        T = w["t5.table"]
        bias = np.stack([T[idx, h] for h in range(H)])
        out["rel_index"] = idx.astype(np.int32)
        out["bias"] = bias
        logits = qk + bias  # no 1/sqrt(d_h) in T5
    elif scheme == "alibi":
        m = alibi_slopes(H)
        bias = np.zeros((H, n, n))
        for h in range(H):
            for i in range(n):
                for j in range(n):
                    if o["alibi_mode"] == "causal":
                        bias[h, i, j] = -m[h] * (i - j)
                    elif o["alibi_mode"] == "symmetric":
                        bias[h, i, j] = -m[h] * abs(i - j)
                    else:
                        raise ValueError("alibi_mode")
        out["bias"] = bias
        logits = qk * inv + bias
    elif scheme == "deberta":
        terms = deberta_terms(o)
        span = deberta_span(o)
        scale = 1.0 / math.sqrt(dh * (1 + len(terms)))
        if o["deberta_log_buckets"]:
            delta = deberta_index(n, n, span, int(o["deberta_buckets"]),
                                  int(o["deberta_max_position"]))
        else:
            delta = deberta_index(n, n, span)
        rel = w["deberta.rel"]
        Kr = heads_of(rel @ w["deberta.W_kr"])  # [H, 2span, dh]
        Qr = heads_of(rel @ w["deberta.W_qr"])
        c2c = qk * scale
        out["rel_index"] = delta.astype(np.int32)
        out["c2c"] = c2c
        logits = c2c.copy()
        if "c2p" in terms:
            c2p = np.zeros((H, n, n))
            for h in range(H):
                for i in range(n):
                    for j in range(n):
                        c2p[h, i, j] = Q[h, i] @ Kr[h, delta[i, j]] * scale
            out["c2p"] = c2p
            logits = logits + c2p
        if "p2c" in terms:
            p2c = np.zeros((H, n, n))
            for h in range(H):
                for i in range(n):
                    for j in range(n):
                        r = delta[i, j] if o["p2c_convention"] == "code" else delta[j, i]
                        p2c[h, i, j] = K[h, j] @ Qr[h, r] * scale
            out["p2c"] = p2c
            logits = logits + p2c
    elif scheme == "urpe":
        logits = qk * inv
        if o["urpe_bias"] == "t5":
            idx = np.array([[t5_bucket(j - i, int(o["buckets"]), int(o["max_distance"]),
                                       not o["unidirectional"]) for j in range(n)]
                            for i in range(n)])
            T = w["t5.table"]
            bias = np.stack([T[idx, h] for h in range(H)])
            logits = logits + bias
            out["rel_index"] = idx.astype(np.int32)
            # Not in the SPEC-trace table for urpe (bias: "t5, alibi"); computed so that a
            # CLI that writes it can still be checked value by value (reported as extra).
            out["bias"] = bias
        elif o["urpe_bias"] != "none":
            raise ValueError("urpe_bias")
    else:
        raise ValueError(f"unknown scheme {scheme}")

    logits = np.where(visible[None, :, :], logits, -np.inf)
    out["logits"] = logits

    A = normalise(logits, o["norm"], visible)
    if scheme == "urpe":
        c = w["urpe.c"]
        C = np.zeros((H, n, n))
        for h in range(H):
            for i in range(n):
                for j in range(n):
                    C[h, i, j] = c[h, (j - i) + n - 1]
        out["urpe_C"] = C
        A = A * C
    out["weights"] = A

    head_out = np.einsum("hij,hjd->hid", A, V)
    if scheme == "shaw":
        wv = w["shaw.w_v"]
        idx = out["rel_index"]
        vterm = np.zeros((H, n, dh))
        for h in range(H):
            for i in range(n):
                for j in range(n):
                    vterm[h, i] += A[h, i, j] * wv[idx[i, j]]
        out["shaw_v_term"] = vterm
        head_out = head_out + vterm
    out["head_out"] = head_out
    concat = np.concatenate([head_out[h] for h in range(H)], axis=1)
    out["out"] = concat @ w["W_o"]
    return out


def expected_tensor_names(options: dict) -> set[str]:
    """Names SPEC-trace.md says are written for these options."""
    o = full_options(options)
    s = o["scheme"]
    names = {"E", "X", "Q", "K", "V", "logits", "weights", "head_out", "out"}
    if s in ("sinusoidal", "learned", "mlp"):
        names.add("P")
    if s == "shaw":
        names |= {"rel_index", "shaw_k_term", "shaw_v_term"}
    if s == "t5":
        names |= {"rel_index", "bias"}
    if s == "alibi":
        names.add("bias")
    if s == "txl":
        names |= {"txl_ac", "txl_bd"}
    if s == "deberta":
        names |= {"rel_index", "c2c"}
        for t in deberta_terms(o):
            names.add(t)
    if s == "urpe":
        names.add("urpe_C")
        if o["urpe_bias"] == "t5":
            names.add("rel_index")
    return names
