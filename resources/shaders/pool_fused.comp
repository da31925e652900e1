// SPDX-License-Identifier: MIT
// The pooled path in one pass over key tiles, the way fused attention kernels work: no n × n
// logits or weights ever reach memory. A work group takes BR query rows of one head; LANES
// invocations share a row, each walking its own run of whole pooled cells along the keys
// (cells [l·R/LANES, (l+1)·R/LANES) for lane l), TK keys of it per tile. Per tile: the keys
// (TILE × d_h) come to shared memory, each invocation forms its logits from q in registers
// (scale folded into q; the position term; the mask), turns them into weights, adds them to
// its running cell, and the weights multiply the values from shared memory into the row's
// output. A finished cell (one row, one column cell) goes to rowSums: its sum of visible
// logits, their count and its sum of weights; pool_rows.comp then adds the rows of each cell.
//
// The weights need the row's maximum and sum first (softmax, L2) or its visible count
// (relu2_visible): a first sweep over the keys computes them (an online maximum), the second
// forms the weights. kind as in normalise.comp: 0 softmax, 1 exp, 2 l2, 3 relu2, 4 relu2_visible.
//
// The host defines DH4 (d_h / 4, rounded up), may define BR, LANES, TK and GROUP, and picks the
// position term with at most one of:
//  - (none): a per-offset bias (T5, ALiBi) and URPE's C, both [H, 2L − 1] tables;
//  - SHAW: the key term shawKey[h, il, t], t = clip(j − i, −k, k) + k, from a [H, m, 2k + 1]
//    table of the chunk's rows, and the weight each row puts on every t into shawSums, which
//    the host clears first and multiplies by w^V afterwards (Shaw's value term);
//  - TXL: the band (q + v)_i · r_o, o = j − i + L − 1, as (q + u)_i · r_o + (v − u) · r_o: the
//    first shares the content's dot product (q + u)·(k_j + r_o), the second is a per-offset bias.
//    A lane's r rows for a tile of BR rows × TK keys are WIN = BR + TK − 1 consecutive rows of
//    r, held in shared memory as a ring: the next tile needs TK more rows and drops TK;
//  - DEBERTA: c2p[h, il, δ(i − j)] + p2c[h, j, δ(i − j) or δ(j − i)] (p2cPaper), δ from idx.
// Bindings 3 and 4 change meaning with the variant: a GL 4.3 implementation need only offer
// eight storage blocks.
#version 430
#ifndef DH4
#define DH4 16
#endif
#ifndef BR
#define BR 64
#endif
#ifndef LANES
#define LANES 4
#endif
#ifndef TK
#define TK 8
#endif
#ifndef GROUP
#define GROUP 256 // BR × LANES, a literal: GLSL 4.30 takes no expression in local_size_x
#endif
#define TILE (LANES * TK)
#define KSTRIDE (DH4 + 1)
#define NACC ((DH4 + LANES - 1) / LANES)
#define WIN (BR + TK - 1)
layout(local_size_x = GROUP) in;

layout(std430, binding = 0) readonly buffer Qb { float qb[]; };      // [H, L, dh] (TXL: q + u)
layout(std430, binding = 1) readonly buffer Kb { float kb[]; };      // [H, L, dh]
layout(std430, binding = 2) readonly buffer Vb { float vb[]; };      // [H, L, dh]
#if defined(SHAW)
layout(std430, binding = 3) readonly buffer ShawKey { float shawKey[]; };   // [H, m, 2k + 1]
layout(std430, binding = 4) writeonly buffer ShawSums { float shawSums[]; }; // [H, m, 2k + 1]
#elif defined(DEBERTA)
layout(std430, binding = 3) readonly buffer C2P { float c2p[]; };    // [H, m, 2s] (hasC2P)
layout(std430, binding = 4) readonly buffer P2C { float p2c[]; };    // [H, L, 2s] (hasP2C)
layout(std430, binding = 7) readonly buffer Idx { int idx[]; };      // [2L − 1]: δ(L − 1 − o)
#else
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };  // [H, 2L−1] (hasBias)
#if defined(TXL)
layout(std430, binding = 4) readonly buffer Rb { float rb[]; };      // r = R·W_r [2L − 1, d]
#else
layout(std430, binding = 4) readonly buffer Cm { float cm[]; };      // URPE's C [H, 2L−1] (hasC)
#endif
#endif
layout(std430, binding = 5) writeonly buffer Concat { float concat[]; }; // [L, d]
layout(std430, binding = 6) writeonly buffer RowSums { float rowSums[]; }; // 3 planes [H, m, R]

uniform int L;        // keys (and positions)
uniform int dh;
uniform int d;
uniform int iOff;     // first query row of this chunk
uniform int m;        // query rows in this chunk
uniform int R;        // pooled cells per side
uniform int plane;    // floats per plane of rowSums
uniform float scale;
uniform int kind;
uniform int causal;
uniform int validLen;
uniform int hasBias;  // bias[h·(2L−1) + o], o = j − i + L − 1
uniform int hasC;     // weights ⊙ cm[h·(2L−1) + o]
uniform int shawK;    // Shaw's clip distance k
uniform int debSpan2; // DeBERTa: 2s columns of c2p and p2c
uniform int hasC2P;
uniform int hasP2C;
uniform int p2cPaper; // p2c at δ(j − i) rather than δ(i − j)

shared vec4 kv[TILE * KSTRIDE];
#if defined(TXL)
shared vec4 rw[LANES * WIN * KSTRIDE]; // lane l's ring of r rows: see loadTile
#endif
shared float sw[BR * (TILE + 1)];
shared float redM[GROUP];
shared float redS[GROUP];
shared int redN[GROUP];

const float NEG_INF = uintBitsToFloat(0xff800000u);

vec4 qr[DH4];

// First key of column cell v: ⌊v·L / R⌋ without overflowing 32 bits.
int cellStart(int v) {
    return v * (L / R) + (v * (L % R)) / R;
}
int laneBegin(int lane) {
    return cellStart((lane * R) / LANES);
}

void loadTile(int h, int tIdx, bool values) {
    for (int e = int(gl_LocalInvocationID.x); e < TILE * DH4; e += GROUP) {
        const int s = e / DH4, x = e % DH4;
        const int lane = s % LANES, k = s / LANES;
        const int j = laneBegin(lane) + tIdx * TK + k;
        vec4 val = vec4(0.0);
        if (j < laneBegin(lane + 1)) {
            const int base = (h * L + j) * dh + 4 * x;
            for (int c = 0; c < 4; ++c)
                if (4 * x + c < dh)
                    val[c] = values ? vb[base + c] : kb[base + c];
        }
        kv[s * KSTRIDE + x] = val;
    }
#if defined(TXL)
    if (values)
        return;
    // Row r (i = i0 + r) and the lane's key k of tile t meet at o = j − i + L − 1 =
    // oBase(t) + w, w = BR − 1 − r + k < WIN, oBase(t) = laneBegin + t·TK − (i0 + BR − 1) + L − 1;
    // row o sits in ring slot (o − oBase(0)) mod WIN = (t·TK + w) mod WIN. Tile 0 loads the whole
    // window, a later tile its last TK rows, into the slots of the TK rows it no longer needs.
    const int i0 = int(gl_WorkGroupID.x) * BR + iOff;
    const int wFrom = tIdx == 0 ? 0 : WIN - TK;
    const int fresh = WIN - wFrom;
    for (int e = int(gl_LocalInvocationID.x); e < LANES * fresh * DH4; e += GROUP) {
        const int s = e / DH4, x = e % DH4;
        const int lane = s / fresh, w = wFrom + s % fresh;
        const int o = laneBegin(lane) + tIdx * TK - (i0 + BR - 1) + L - 1 + w;
        vec4 val = vec4(0.0);
        if (o >= 0 && o < 2 * L - 1) {
            const int base = o * d + h * dh + 4 * x;
            for (int c = 0; c < 4; ++c)
                if (4 * x + c < dh)
                    val[c] = rb[base + c];
        }
        rw[(lane * WIN + (tIdx * TK + w) % WIN) * KSTRIDE + x] = val;
    }
#endif
}

// The unmasked logit of query row i (group row r, chunk row il) and key j, the lane's key k of
// tile tIdx in shared memory.
float logit(int h, int i, int il, int r, int lane, int tIdx, int k, int j) {
    float s = 0.0;
    const int kb0 = (k * LANES + lane) * KSTRIDE;
    const int o = j - i + L - 1;
#if defined(TXL)
    const int slot = (tIdx * TK) % WIN + BR - 1 - r + k; // ring slot, before wrapping
    const int rb0 = (lane * WIN + (slot < WIN ? slot : slot - WIN)) * KSTRIDE;
    for (int x = 0; x < DH4; ++x)
        s += dot(qr[x], kv[kb0 + x] + rw[rb0 + x]);
    s += bias[h * (2 * L - 1) + o];
#else
    for (int x = 0; x < DH4; ++x)
        s += dot(qr[x], kv[kb0 + x]);
#if defined(SHAW)
    s += shawKey[(h * m + il) * (2 * shawK + 1) + clamp(j - i, -shawK, shawK) + shawK];
#elif defined(DEBERTA)
    const int back = idx[o]; // δ(i − j)
    if (hasC2P != 0)
        s += c2p[(h * m + il) * debSpan2 + back];
    if (hasP2C != 0)
        s += p2c[(h * L + j) * debSpan2 + (p2cPaper != 0 ? idx[2 * L - 2 - o] : back)];
#else
    if (hasBias != 0)
        s += bias[h * (2 * L - 1) + o];
#endif
#endif
    return s;
}

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int r = t / LANES, lane = t % LANES;
    const int h = int(gl_WorkGroupID.y);
    const int il = int(gl_WorkGroupID.x) * BR + r;
    const bool rowOn = il < m;
    const int i = il + iOff;
    const int vBeg = (lane * R) / LANES;
    const int jBeg = laneBegin(lane), jEnd = laneBegin(lane + 1);
    int longest = 0;
    for (int l = 0; l < LANES; ++l)
        longest = max(longest, laneBegin(l + 1) - laneBegin(l));
    const int tiles = (longest + TK - 1) / TK;

    for (int x = 0; x < DH4; ++x) {
        vec4 v = vec4(0.0);
        if (rowOn) {
            const int base = (h * L + i) * dh + 4 * x;
            for (int c = 0; c < 4; ++c)
                if (4 * x + c < dh)
                    v[c] = qb[base + c];
        }
        qr[x] = v * scale;
    }

    // --- First sweep: the row's maximum, sum and visible count -------------------------------
    float rowMax = NEG_INF, denom = 1.0;
    int visible = 0;
    if (kind == 0 || kind == 2 || kind == 4) {
        float mx = NEG_INF, sm = 0.0;
        int vis = 0;
        for (int tIdx = 0; tIdx < tiles; ++tIdx) {
            barrier();
            loadTile(h, tIdx, false);
            barrier();
            for (int k = 0; k < TK; ++k) {
                const int j = jBeg + tIdx * TK + k;
                if (!rowOn || j >= jEnd)
                    continue;
                if ((causal != 0 && j > i) || j >= validLen)
                    continue;
                const float s = logit(h, i, il, r, lane, tIdx, k, j);
                if (isinf(s) && s < 0.0)
                    continue;
                ++vis;
                if (kind == 4)
                    continue;
                if (s > mx) {
                    const float f = vis == 1 ? 0.0 : exp(mx - s);
                    sm = sm * (kind == 2 ? f * f : f) + 1.0;
                    mx = s;
                } else {
                    const float e = exp(s - mx);
                    sm += kind == 2 ? e * e : e;
                }
            }
        }
        redM[t] = mx;
        redS[t] = sm;
        redN[t] = vis;
        barrier();
        const int r0 = r * LANES;
        for (int l = 0; l < LANES; ++l)
            if (redN[r0 + l] > 0)
                rowMax = max(rowMax, redM[r0 + l]);
        float total = 0.0;
        for (int l = 0; l < LANES; ++l) {
            visible += redN[r0 + l];
            if (redN[r0 + l] > 0 && kind != 4) {
                const float f = exp(redM[r0 + l] - rowMax);
                total += redS[r0 + l] * (kind == 2 ? f * f : f);
            }
        }
        denom = kind == 0 ? total : (kind == 2 ? sqrt(total) : float(visible));
    }

    // --- Second sweep: logits, weights, their cells and weights · V ---------------------------
    vec4 acc[NACC];
    for (int c = 0; c < NACC; ++c)
        acc[c] = vec4(0.0);
    int v = vBeg;
    int nextCell = cellStart(v + 1);
    float ls = 0.0, lc = 0.0, ws = 0.0;
    const int rowBase = (h * m + il) * R;
#if defined(SHAW)
    // Shaw: the lane's share of the two end indices (t = 0: j ≤ i − k; t = 2k: j ≥ i + k); a
    // middle index is one key, written by the lane that owns it.
    const int shawRow = (h * m + il) * (2 * shawK + 1);
    float end0 = 0.0, end2 = 0.0;
#endif
    for (int tIdx = 0; tIdx < tiles; ++tIdx) {
        barrier();
        loadTile(h, tIdx, false);
        barrier();
        for (int k = 0; k < TK; ++k) {
            const int j = jBeg + tIdx * TK + k;
            float a = 0.0;
            if (rowOn && j < jEnd) {
                if (j == nextCell) { // this key starts the next column cell: the last one is done
                    rowSums[rowBase + v] = ls;
                    rowSums[plane + rowBase + v] = lc;
                    rowSums[2 * plane + rowBase + v] = ws;
                    ls = 0.0;
                    lc = 0.0;
                    ws = 0.0;
                    ++v;
                    nextCell = cellStart(v + 1);
                }
                float s = NEG_INF;
                if (!((causal != 0 && j > i) || j >= validLen))
                    s = logit(h, i, il, r, lane, tIdx, k, j);
                if (!(isinf(s) && s < 0.0)) {
                    ls += s;
                    lc += 1.0;
                    if (kind == 0 || kind == 2) {
                        a = exp(s - rowMax) / denom;
                    } else if (kind == 1) {
                        a = exp(s);
                    } else {
                        const float p = max(s, 0.0);
                        a = p * p / (kind == 3 ? float(L) : denom);
                    }
#if !defined(SHAW) && !defined(TXL) && !defined(DEBERTA)
                    if (hasC != 0)
                        a *= cm[h * (2 * L - 1) + j - i + L - 1];
#endif
                }
                ws += a;
#if defined(SHAW)
                const int ti = clamp(j - i, -shawK, shawK) + shawK;
                if (ti == 0)
                    end0 += a;
                else if (ti == 2 * shawK)
                    end2 += a;
                else
                    shawSums[shawRow + ti] = a;
#endif
            }
            sw[r * (TILE + 1) + k * LANES + lane] = a;
        }
        barrier();
        loadTile(h, tIdx, true);
        barrier();
        for (int c = 0; c < NACC; ++c) {
            const int x = lane + LANES * c;
            if (x < DH4) {
                vec4 o = acc[c];
                for (int s = 0; s < TILE; ++s)
                    o += sw[r * (TILE + 1) + s] * kv[s * KSTRIDE + x];
                acc[c] = o;
            }
        }
    }
    if (rowOn && jBeg < jEnd) {
        rowSums[rowBase + v] = ls;
        rowSums[plane + rowBase + v] = lc;
        rowSums[2 * plane + rowBase + v] = ws;
    }
    if (rowOn) {
        for (int c = 0; c < NACC; ++c) {
            const int x = lane + LANES * c;
            for (int comp = 0; comp < 4; ++comp)
                if (x < DH4 && 4 * x + comp < dh)
                    concat[i * d + h * dh + 4 * x + comp] = acc[c][comp];
        }
    }
#if defined(SHAW)
    // The ends add up over the lanes (middle indices without a key are left as the host
    // cleared them: 0).
    barrier();
    redM[t] = end0;
    redS[t] = end2;
    barrier();
    if (rowOn && lane == 0) {
        float e0 = 0.0, e2 = 0.0;
        for (int l = 0; l < LANES; ++l) {
            e0 += redM[r * LANES + l];
            e2 += redS[r * LANES + l];
        }
        shawSums[shawRow] = e0; // k = 0: every key is at t = 0
        if (shawK > 0)
            shawSums[shawRow + 2 * shawK] = e2;
    }
#endif
}
