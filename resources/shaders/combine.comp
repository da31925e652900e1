// SPDX-License-Identifier: MIT
// logits[h,il,j] = content + t1 + t2 (rows il of a chunk of m rows starting at iOff) (the first `terms` of them), then the mask: −inf where the
// key is in the future (causal, j > i) or padding (j ≥ validLen).
#version 430
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer Content { float content[]; };
layout(std430, binding = 1) readonly buffer T1 { float t1[]; };
layout(std430, binding = 2) readonly buffer T2 { float t2[]; };
layout(std430, binding = 3) writeonly buffer Logits { float logits[]; };

uniform int n;
uniform int m;
uniform int iOff;
uniform int terms;
uniform int causal;
uniform int validLen;

void main() {
    const int j = int(gl_GlobalInvocationID.x);
    const int il = int(gl_GlobalInvocationID.y);
    const int h = int(gl_GlobalInvocationID.z);
    if (il >= m || j >= n)
        return;
    const int i = il + iOff;
    const int e = (h * m + il) * n + j;
    float s = content[e];
    if (terms > 0)
        s += t1[e];
    if (terms > 1)
        s += t2[e];
    if ((causal != 0 && j > i) || j >= validLen)
        s = uintBitsToFloat(0xff800000u); // −inf
    logits[e] = s;
}
