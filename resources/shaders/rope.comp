// SPDX-License-Identifier: MIT
// RoPE in place on [H, L, d_h] queries or keys: each pair (a, b) of row i is rotated by the
// angle of position i and frequency m, (a, b) ← (a·cos − b·sin, b·cos + a·sin). The pairs are
// (2m, 2m + 1) (interleaved, the paper) or (m, m + d_rot/2) (half, GPT-NeoX/LLaMA); features
// from d_rot on pass through. cs holds (cos, sin) per (position, m), computed on the host in
// float64 as the CPU engines compute them.
#version 430
layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer CosSin { vec2 cs[]; };

uniform int L;
uniform int dh;
uniform int halfRot;     // d_rot / 2: pairs per row
uniform int interleaved; // 1: (2m, 2m + 1); 0: (m, m + d_rot/2)
uniform int total;       // H · L · halfRot

void main() {
    // A grid-stride loop: more pairs than one dispatch's work groups can cover.
    const int stride = int(gl_NumWorkGroups.x) * 64;
    for (int t = int(gl_GlobalInvocationID.x); t < total; t += stride) {
        const int m = t % halfRot;
        const int row = t / halfRot; // h · L + i
        const int i = row % L;
        const vec2 c = cs[i * halfRot + m];
        const int base = row * dh;
        const int ia = base + (interleaved != 0 ? 2 * m : m);
        const int ib = base + (interleaved != 0 ? 2 * m + 1 : m + halfRot);
        const float a = x[ia], b = x[ib];
        x[ia] = a * c.x - b * c.y;
        x[ib] = b * c.x + a * c.y;
    }
}
