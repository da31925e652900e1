// SPDX-License-Identifier: MIT
// Mean-pooling each head's n×n matrix to R×R cells, accumulated over chunks of rows: cell
// (u, v) covers rows [⌊u n/R⌋, ⌊(u+1) n/R⌋) and columns likewise. This pass adds the chunk's
// rows [iOff, iOff + m) to sum[] and count[]; the host divides. −inf entries (masked logits)
// are skipped; a cell with none left has count 0.
#version 430
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 1) buffer Sum { float sum[]; };
layout(std430, binding = 2) buffer Count { float count[]; };

uniform int n;
uniform int m;
uniform int iOff;
uniform int hOff;
uniform int R;

void main() {
    const int v = int(gl_GlobalInvocationID.x);
    const int u = int(gl_GlobalInvocationID.y);
    const int h = int(gl_GlobalInvocationID.z);
    if (u >= R || v >= R)
        return;
    const int i0 = max((u * n) / R, iOff), i1 = min(((u + 1) * n) / R, iOff + m);
    if (i0 >= i1)
        return;
    const int j0 = (v * n) / R, j1 = ((v + 1) * n) / R;
    float s = 0.0;
    int cnt = 0;
    for (int i = i0; i < i1; ++i) {
        const int base = (h * m + (i - iOff)) * n;
        for (int j = j0; j < j1; ++j) {
            const float x = src[base + j];
            if (!isinf(x)) {
                s += x;
                ++cnt;
            }
        }
    }
    const int cell = ((h + hOff) * R + u) * R + v;
    sum[cell] += s;
    count[cell] += float(cnt);
}
