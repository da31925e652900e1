// SPDX-License-Identifier: MIT
// A position term gathered from a per-offset table: for head h, query row il of the chunk
// (absolute row i = il + iOff, m rows), key j,
//   out[h,il,j] = tab[(h + hOff)*tBatch + row*tRow + col]   (hOff: first head of this chunk),
// row = il (rowMode 0: tables built for the chunk's rows), j (1) or 0 (2); col = o (colMode 0), idx[o] (1) or idx[oT] (2),
// with o = (j − i) + n − 1 and oT = (i − j) + n − 1. Every relative scheme reduces to this:
// biases (T5, ALiBi), URPE's C, the Shaw key term, TXL's bd and DeBERTa's c2p/p2c.
#version 430
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer Tab { float tab[]; };
layout(std430, binding = 1) readonly buffer Idx { int idx[]; };
layout(std430, binding = 2) writeonly buffer Out { float outv[]; };

uniform int n;
uniform int m;
uniform int iOff;
uniform int hOff;
uniform int tBatch;
uniform int tRow;
uniform int rowMode;
uniform int colMode;

void main() {
    const int j = int(gl_GlobalInvocationID.x);
    const int il = int(gl_GlobalInvocationID.y);
    const int h = int(gl_GlobalInvocationID.z);
    if (il >= m || j >= n)
        return;
    const int i = il + iOff;
    const int o = (j - i) + n - 1;
    const int oT = (i - j) + n - 1;
    const int row = rowMode == 0 ? il : (rowMode == 1 ? j : 0);
    const int col = colMode == 0 ? o : (colMode == 1 ? idx[o] : idx[oT]);
    outv[(h * m + il) * n + j] = tab[(h + hOff) * tBatch + row * tRow + col];
}
