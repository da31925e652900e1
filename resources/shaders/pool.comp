// SPDX-License-Identifier: MIT
// Mean-pools each head's n×n matrix to R×R cells; cell (u, v) covers rows
// [⌊u n/R⌋, ⌊(u+1) n/R⌋) and columns likewise. −inf entries (masked logits) are skipped;
// a cell with none left is −inf.
#version 430
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };

uniform int n;
uniform int R;

void main() {
    const int v = int(gl_GlobalInvocationID.x);
    const int u = int(gl_GlobalInvocationID.y);
    const int h = int(gl_GlobalInvocationID.z);
    if (u >= R || v >= R)
        return;
    const int i0 = (u * n) / R, i1 = ((u + 1) * n) / R;
    const int j0 = (v * n) / R, j1 = ((v + 1) * n) / R;
    float s = 0.0;
    int cnt = 0;
    for (int i = i0; i < i1; ++i) {
        const int base = (h * n + i) * n;
        for (int j = j0; j < j1; ++j) {
            const float x = src[base + j];
            if (!isinf(x)) {
                s += x;
                ++cnt;
            }
        }
    }
    dst[(h * R + u) * R + v] = cnt > 0 ? s / float(cnt) : uintBitsToFloat(0xff800000u);
}
