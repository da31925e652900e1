// SPDX-License-Identifier: MIT
// The rows of each pooled cell, added up after pool_fused.comp: for cell (h, u, v), the chunk's
// rows of cell row u (rows [iOff, iOff + m) ∩ [⌊u·L/R⌋, ⌊(u+1)·L/R⌋)) add their sums of
// visible logits and their counts to the logit cells, their sums of weights and the number of
// entries they cover to the weight cells. pool_mean.comp divides once every chunk is in.
// (x, y, z) = (v, u − uLo, h).
#version 430
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer RowSums { float rowSums[]; }; // 3 planes [H, m, R]
layout(std430, binding = 1) buffer LogitSum { float logitSum[]; };
layout(std430, binding = 2) buffer LogitCount { float logitCount[]; };
layout(std430, binding = 3) buffer WeightSum { float weightSum[]; };
layout(std430, binding = 4) buffer WeightCount { float weightCount[]; };

uniform int L;
uniform int R;
uniform int iOff;
uniform int m;
uniform int uLo;
uniform int plane;

int cellStart(int v) {
    return v * (L / R) + (v * (L % R)) / R;
}

void main() {
    const int v = int(gl_GlobalInvocationID.x);
    const int u = int(gl_GlobalInvocationID.y) + uLo;
    const int h = int(gl_GlobalInvocationID.z);
    if (v >= R || u >= R)
        return;
    const int i0 = max(cellStart(u), iOff), i1 = min(cellStart(u + 1), iOff + m);
    if (i0 >= i1)
        return;
    float ls = 0.0, lc = 0.0, ws = 0.0;
    for (int i = i0; i < i1; ++i) {
        const int e = (h * m + (i - iOff)) * R + v;
        ls += rowSums[e];
        lc += rowSums[plane + e];
        ws += rowSums[2 * plane + e];
    }
    const int cell = (h * R + u) * R + v;
    logitSum[cell] += ls;
    logitCount[cell] += lc;
    weightSum[cell] += ws;
    weightCount[cell] += float((i1 - i0) * (cellStart(v + 1) - cellStart(v)));
}
