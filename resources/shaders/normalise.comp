// SPDX-License-Identifier: MIT
// The attention normalisers, one work group per row: (x, y) = (i, h). −inf logits are masked: weight 0.
// kind 0 softmax, 1 exp, 2 l2 (e^s / sqrt(Σ e^2s)), 3 relu2 (relu(s)²/n), 4 relu2_visible
// (relu(s)²/#visible). A fully masked row is all zeros. With hasC the weights are multiplied
// by C (URPE) after normalisation.
#version 430
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Logits { float logits[]; };
layout(std430, binding = 1) writeonly buffer Weights { float weights[]; };
layout(std430, binding = 2) readonly buffer Cmat { float cmat[]; };

uniform int n; // keys per row
uniform int m; // rows per head in the buffers
uniform int kind;
uniform int hasC;

shared float redMax[256];
shared float redSum[256];
shared int redCount[256];

void main() {
    const int row = int(gl_WorkGroupID.y) * m + int(gl_WorkGroupID.x); // h * m + i
    const int t = int(gl_LocalInvocationID.x);
    const int base = row * n;

    float m = uintBitsToFloat(0xff800000u);
    int cnt = 0;
    for (int j = t; j < n; j += 256) {
        const float s = logits[base + j];
        if (!isinf(s) || s > 0.0) {
            m = max(m, s);
            ++cnt;
        }
    }
    redMax[t] = m;
    redCount[t] = cnt;
    barrier();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (t < stride) {
            redMax[t] = max(redMax[t], redMax[t + stride]);
            redCount[t] += redCount[t + stride];
        }
        barrier();
    }
    const float rowMax = redMax[0];
    const int visible = redCount[0];

    float sum = 0.0;
    if (kind == 0 || kind == 2) {
        for (int j = t; j < n; j += 256) {
            const float s = logits[base + j];
            if (!isinf(s) || s > 0.0) {
                const float e = exp(s - rowMax);
                sum += kind == 0 ? e : e * e;
            }
        }
    }
    redSum[t] = sum;
    barrier();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (t < stride)
            redSum[t] += redSum[t + stride];
        barrier();
    }
    const float total = redSum[0];
    const float denom = kind == 0 ? total : (kind == 2 ? sqrt(total) : 1.0);

    for (int j = t; j < n; j += 256) {
        const float s = logits[base + j];
        float a = 0.0;
        if (visible > 0 && (!isinf(s) || s > 0.0)) {
            if (kind == 0 || kind == 2) {
                a = exp(s - rowMax) / denom;
            } else if (kind == 1) {
                a = exp(s);
            } else {
                const float r = max(s, 0.0);
                a = r * r / float(kind == 3 ? n : visible);
            }
        }
        if (hasC != 0)
            a *= cmat[base + j];
        weights[base + j] = a;
    }
}
