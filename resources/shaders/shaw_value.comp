// SPDX-License-Identifier: MIT
// Shaw's value side, bucketed: W[h,i,r] = Σ_{j: clip(j−i, −k, k) + k = r} a[h,i,j] for
// r ∈ [0, 2k]. Interior buckets hold one key; the two end buckets sum the clipped tails.
#version 430
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer Wts { float a[]; };
layout(std430, binding = 1) writeonly buffer Out { float outv[]; };

uniform int n;
uniform int m;
uniform int iOff;
uniform int k;

void main() {
    const int r = int(gl_GlobalInvocationID.x);
    const int il = int(gl_GlobalInvocationID.y);
    const int h = int(gl_GlobalInvocationID.z);
    const int R = 2 * k + 1;
    if (r >= R || il >= m)
        return;
    const int i = il + iOff;
    const int lo = r == 0 ? -n : r - k;        // rel = j − i range of this bucket
    const int hi = r == 2 * k ? n : r - k;
    const int j0 = max(0, i + lo);
    const int j1 = min(n - 1, i + hi);
    float s = 0.0;
    const int base = (h * m + il) * n;
    for (int j = j0; j <= j1; ++j)
        s += a[base + j];
    outv[(h * m + il) * R + r] = s;
}
