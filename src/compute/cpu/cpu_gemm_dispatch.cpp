// SPDX-License-Identifier: MIT
#include "cpu_gemm.h"

namespace pe::cpu {

using GemmFn = void (*)(int, int, int, float, const float*, int, const float*, int, float, float*,
                        int);

#ifdef PE_GEMM_X86_VARIANTS
#define PE_DECLARE_GEMM(t)                                                                         \
    void gemmAB_##t(int, int, int, float, const float*, int, const float*, int, float, float*,     \
                    int);                                                                          \
    void gemmABt_##t(int, int, int, float, const float*, int, const float*, int, float, float*,    \
                     int);
PE_DECLARE_GEMM(avx512)
PE_DECLARE_GEMM(avx2)
PE_DECLARE_GEMM(base)
#else
void gemmAB_generic(int, int, int, float, const float*, int, const float*, int, float, float*, int);
void gemmABt_generic(int, int, int, float, const float*, int, const float*, int, float, float*,
                     int);
#endif

namespace {

struct GemmTable {
    GemmFn ab;
    GemmFn abt;
    const char* name;
};

GemmTable pickGemm() {
#ifdef PE_GEMM_X86_VARIANTS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
        return {gemmAB_avx512, gemmABt_avx512, "avx512"};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return {gemmAB_avx2, gemmABt_avx2, "avx2"};
    return {gemmAB_base, gemmABt_base, "sse2"};
#else
    return {gemmAB_generic, gemmABt_generic, "generic"};
#endif
}

const GemmTable& table() {
    static const GemmTable t = pickGemm();
    return t;
}

} // namespace

void gemmAB(int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
            float beta, float* C, int ldc) {
    if (m <= 0 || n <= 0)
        return;
    table().ab(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemmABt(int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
             float beta, float* C, int ldc) {
    if (m <= 0 || n <= 0)
        return;
    table().abt(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

const char* gemmTarget() {
    return table().name;
}

} // namespace pe::cpu
