// SPDX-License-Identifier: MIT
// The pooled cells' means, in place: sum[c] / count[c], or −inf for a cell with no visible
// entry (every entry masked). Runs once after pool.comp has added every chunk.
#version 430
layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Sum { float sum[]; };
layout(std430, binding = 1) readonly buffer Count { float count[]; };

uniform int cells;

void main() {
    // A grid-stride loop: more cells than one dispatch's work groups (65535 × 256) can cover.
    const int stride = int(gl_NumWorkGroups.x) * 256;
    for (int c = int(gl_GlobalInvocationID.x); c < cells; c += stride)
        sum[c] = count[c] > 0.0 ? sum[c] / count[c] : uintBitsToFloat(0xff800000u);
}
