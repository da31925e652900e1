// SPDX-License-Identifier: MIT
// The same product as gemm.comp (same uniforms, same 64×64 block per work group, 4×4 outputs
// per invocation) without shared memory or barriers: every operand is read from the buffers.
// Used on CPU rasterisers (llvmpipe), where shared memory is ordinary memory and barriers cost
// a context switch per invocation.
#version 430
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer BufA { float A[]; };
layout(std430, binding = 1) readonly buffer BufB { float B[]; };
layout(std430, binding = 2) buffer BufC { float C[]; };

uniform int M;
uniform int N;
uniform int K;
uniform int aOff;
uniform int aBatch;
uniform int aRow;
uniform int aCol;
uniform int bOff;
uniform int bBatch;
uniform int bRow;
uniform int bCol;
uniform int cOff;
uniform int cBatch;
uniform int cRow;
uniform int cCol;
uniform int cSplit;
uniform int cSplitStride;
uniform float alpha;
uniform float beta;

void main() {
    const int b = int(gl_WorkGroupID.z);
    const int tx = int(gl_LocalInvocationID.x);
    const int ty = int(gl_LocalInvocationID.y);
    const int row0 = int(gl_WorkGroupID.y) * 64 + ty;
    const int col0 = int(gl_WorkGroupID.x) * 64 + tx;
    const int aBase = aOff + b * aBatch;
    const int bBase = bOff + b * bBatch;
    int ai[4];
    int bj[4];
    for (int r = 0; r < 4; ++r) {
        ai[r] = aBase + min(row0 + 16 * r, M - 1) * aRow;
        bj[r] = bBase + min(col0 + 16 * r, N - 1) * bCol;
    }
    vec4 acc[4];
    for (int r = 0; r < 4; ++r)
        acc[r] = vec4(0.0);
    for (int k = 0; k < K; ++k) {
        const int ak = k * aCol, bk = k * bRow;
        const vec4 a = vec4(A[ai[0] + ak], A[ai[1] + ak], A[ai[2] + ak], A[ai[3] + ak]);
        const vec4 bv = vec4(B[bj[0] + bk], B[bj[1] + bk], B[bj[2] + bk], B[bj[3] + bk]);
        acc[0] += a.x * bv;
        acc[1] += a.y * bv;
        acc[2] += a.z * bv;
        acc[3] += a.w * bv;
    }
    const int cBase = cOff + b * cBatch;
    for (int r = 0; r < 4; ++r) {
        const int gi = row0 + 16 * r;
        if (gi >= M)
            continue;
        for (int c = 0; c < 4; ++c) {
            const int gj = col0 + 16 * c;
            if (gj >= N)
                continue;
            const int idx = cSplit > 0
                                ? cBase + (gj / cSplit) * cSplitStride + gi * cRow + (gj % cSplit) * cCol
                                : cBase + gi * cRow + gj * cCol;
            float v = alpha * acc[r][c];
            if (beta != 0.0)
                v += beta * C[idx];
            C[idx] = v;
        }
    }
}
