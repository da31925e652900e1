// SPDX-License-Identifier: MIT
#pragma once

/**
 * Single-threaded float GEMMs on row-major raw buffers (callers split the work across threads).
 * Eigen's kernels, compiled once per x86 target (AVX-512, AVX2+FMA, baseline SSE2) and picked at
 * run time. gemmAB:  C[m×n] = alpha · A[m×k] · B[k×n] + beta · C gemmABt: C[m×n] = alpha · A[m×k] ·
 * B[n×k]ᵀ + beta · C lda/ldb/ldc are row strides in elements.
 */

namespace pe::cpu {

void gemmAB(int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
            float beta, float* C, int ldc);
void gemmABt(int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
             float beta, float* C, int ldc);
/** The GEMM target in use: "avx512", "avx2", "sse2" or "generic". */
const char* gemmTarget();

} // namespace pe::cpu
