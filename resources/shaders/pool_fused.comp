// SPDX-License-Identifier: MIT
// The pooled path in one pass over key tiles, the way fused attention kernels work: no n × n
// logits or weights ever reach memory. A work group takes BR query rows of one head; LANES
// invocations share a row, each walking its own run of whole pooled cells along the keys
// (cells [l·R/LANES, (l+1)·R/LANES) for lane l), TK keys of it per tile. Per tile: the keys
// (TILE × d_h) come to shared memory, each invocation forms its logits from q in registers
// (scale folded into q; the per-offset bias; the mask), turns them into weights, adds them to
// its running cell, and the weights multiply the values from shared memory into the row's
// output. A finished cell (one row, one column cell) goes to rowSums: its sum of visible
// logits, their count and its sum of weights; pool_rows.comp then adds the rows of each cell.
//
// The weights need the row's maximum and sum first (softmax, L2) or its visible count
// (relu2_visible): a first sweep over the keys computes them (an online maximum), the second
// forms the weights. kind as in normalise.comp: 0 softmax, 1 exp, 2 l2, 3 relu2, 4 relu2_visible.
// DH4 (d_h / 4, rounded up) is defined by the host when it compiles the shader.
#version 430
#ifndef DH4
#define DH4 16
#endif
#define BR 64
#define LANES 4
#define TK 8
#define TILE (LANES * TK)
#define KSTRIDE (DH4 + 1)
#define NACC ((DH4 + LANES - 1) / LANES)
layout(local_size_x = 256) in; // BR × LANES

layout(std430, binding = 0) readonly buffer Qb { float qb[]; };      // [H, L, dh]
layout(std430, binding = 1) readonly buffer Kb { float kb[]; };      // [H, L, dh]
layout(std430, binding = 2) readonly buffer Vb { float vb[]; };      // [H, L, dh]
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };  // [H, 2L−1] (hasBias)
layout(std430, binding = 4) readonly buffer Cm { float cm[]; };      // URPE's C [H, 2L−1] (hasC)
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

shared vec4 kv[TILE * KSTRIDE];
shared float sw[BR * (TILE + 1)];
shared float redM[256];
shared float redS[256];
shared int redN[256];

const float NEG_INF = uintBitsToFloat(0xff800000u);

// First key of column cell v: ⌊v·L / R⌋ without overflowing 32 bits.
int cellStart(int v) {
    return v * (L / R) + (v * (L % R)) / R;
}
int laneBegin(int lane) {
    return cellStart((lane * R) / LANES);
}

void loadTile(int h, int tIdx, bool values) {
    for (int e = int(gl_LocalInvocationID.x); e < TILE * DH4; e += 256) {
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
}

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int r = t / LANES, lane = t % LANES;
    const int h = int(gl_WorkGroupID.y);
    const int il = int(gl_WorkGroupID.x) * BR + r;
    const bool rowOn = il < m;
    const int i = il + iOff;
    const int nOff = 2 * L - 1;
    const int vBeg = (lane * R) / LANES;
    const int jBeg = laneBegin(lane), jEnd = laneBegin(lane + 1);
    int longest = 0;
    for (int l = 0; l < LANES; ++l)
        longest = max(longest, laneBegin(l + 1) - laneBegin(l));
    const int tiles = (longest + TK - 1) / TK;

    vec4 qr[DH4];
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
                float s = 0.0;
                const int kb0 = (k * LANES + lane) * KSTRIDE;
                for (int x = 0; x < DH4; ++x)
                    s += dot(qr[x], kv[kb0 + x]);
                if (hasBias != 0)
                    s += bias[h * nOff + j - i + L - 1];
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
                if (!((causal != 0 && j > i) || j >= validLen)) {
                    s = 0.0;
                    const int kb0 = (k * LANES + lane) * KSTRIDE;
                    for (int x = 0; x < DH4; ++x)
                        s += dot(qr[x], kv[kb0 + x]);
                    if (hasBias != 0)
                        s += bias[h * nOff + j - i + L - 1];
                }
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
                    if (hasC != 0)
                        a *= cm[h * nOff + j - i + L - 1];
                }
                ws += a;
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
}
