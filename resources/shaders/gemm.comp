// SPDX-License-Identifier: MIT
// Batched strided matrix product C_b = alpha * A_b B_b + beta * C_b (fp32).
// A_b(i,k) = A[aOff + b*aBatch + i*aRow + k*aCol], B_b(k,j) = B[bOff + b*bBatch + k*bRow + j*bCol],
// C_b(i,j) = C[cOff + b*cBatch + i*cRow + j*cCol]. Strides let one kernel serve Q Kᵀ, A V,
// per-offset tables and the projections without transposing anything in memory.
// Tiling: a 64×64 block of C per work group, 16×16 threads, each holding a 4×4 register block;
// panels of 16 along k are staged in shared memory. Where the host finds A (or B) contiguous
// and 16-byte aligned along k (or B along j), panels are loaded as vec4, one per thread.
#version 430
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer BufA { float A[]; };
layout(std430, binding = 1) readonly buffer BufB { float B[]; };
layout(std430, binding = 2) buffer BufC { float C[]; };
layout(std430, binding = 0) readonly buffer BufA4 { vec4 A4[]; }; // same storage, vec4 view
layout(std430, binding = 1) readonly buffer BufB4 { vec4 B4[]; };

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
uniform int cSplit;       // > 0: column j goes to block j / cSplit (stride cSplitStride), column j % cSplit
uniform int cSplitStride; // so one product writes [L, H·d_h] straight into per-head [H, L, d_h]
uniform int aVecK; // 1: aCol == 1, K % 4 == 0 and every A offset/stride a multiple of 4
uniform int bVecK; // 1: bRow == 1 (B contiguous along k), likewise aligned
uniform int bVecJ; // 1: bCol == 1 (B contiguous along j), N % 4 == 0, likewise aligned
uniform float alpha;
uniform float beta;

const int BM = 64;
const int BN = 64;
const int BK = 16;

shared float As[BK][BM];
shared float Bs[BK][BN];

void main() {
    const int b = int(gl_WorkGroupID.z);
    const int tx = int(gl_LocalInvocationID.x); // column group
    const int ty = int(gl_LocalInvocationID.y); // row group
    const int tid = ty * 16 + tx;
    const int row0 = int(gl_WorkGroupID.y) * BM;
    const int col0 = int(gl_WorkGroupID.x) * BN;
    const int aBase = aOff + b * aBatch;
    const int bBase = bOff + b * bBatch;

    vec4 acc[4];
    for (int r = 0; r < 4; ++r)
        acc[r] = vec4(0.0);

    for (int k0 = 0; k0 < K; k0 += BK) {
        // 1024 elements of each panel: one vec4 or four scalars per thread.
        if (aVecK != 0) {
            const int mm = tid >> 2, kq = (tid & 3) * 4;
            const int gi = row0 + mm, gk = k0 + kq;
            const vec4 v = (gi < M && gk < K) ? A4[(aBase + gi * aRow + gk) >> 2] : vec4(0.0);
            As[kq][mm] = v.x;
            As[kq + 1][mm] = v.y;
            As[kq + 2][mm] = v.z;
            As[kq + 3][mm] = v.w;
        } else {
            for (int l = 0; l < 4; ++l) {
                const int e = tid + l * 256;
                const int kk = e / BM, mm = e % BM;
                const int gi = row0 + mm, gk = k0 + kk;
                As[kk][mm] = (gi < M && gk < K) ? A[aBase + gi * aRow + gk * aCol] : 0.0;
            }
        }
        if (bVecK != 0) {
            const int jj = tid >> 2, kq = (tid & 3) * 4;
            const int gj = col0 + jj, gk = k0 + kq;
            const vec4 v = (gj < N && gk < K) ? B4[(bBase + gj * bCol + gk) >> 2] : vec4(0.0);
            Bs[kq][jj] = v.x;
            Bs[kq + 1][jj] = v.y;
            Bs[kq + 2][jj] = v.z;
            Bs[kq + 3][jj] = v.w;
        } else if (bVecJ != 0) {
            const int kk = tid >> 4, jq = (tid & 15) * 4;
            const int gj = col0 + jq, gk = k0 + kk;
            const vec4 v = (gj < N && gk < K) ? B4[(bBase + gk * bRow + gj) >> 2] : vec4(0.0);
            Bs[kk][jq] = v.x;
            Bs[kk][jq + 1] = v.y;
            Bs[kk][jq + 2] = v.z;
            Bs[kk][jq + 3] = v.w;
        } else {
            for (int l = 0; l < 4; ++l) {
                const int e = tid + l * 256;
                const int kk = e / BN, jj = e % BN;
                const int gj = col0 + jj, gk = k0 + kk;
                Bs[kk][jj] = (gj < N && gk < K) ? B[bBase + gk * bRow + gj * bCol] : 0.0;
            }
        }
        barrier();
        for (int kk = 0; kk < BK; ++kk) {
            const vec4 a = vec4(As[kk][ty], As[kk][ty + 16], As[kk][ty + 32], As[kk][ty + 48]);
            const vec4 bv = vec4(Bs[kk][tx], Bs[kk][tx + 16], Bs[kk][tx + 32], Bs[kk][tx + 48]);
            acc[0] += a.x * bv;
            acc[1] += a.y * bv;
            acc[2] += a.z * bv;
            acc[3] += a.w * bv;
        }
        barrier();
    }

    const int cBase = cOff + b * cBatch;
    for (int r = 0; r < 4; ++r) {
        const int gi = row0 + ty + 16 * r;
        if (gi >= M)
            continue;
        for (int c = 0; c < 4; ++c) {
            const int gj = col0 + tx + 16 * c;
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
