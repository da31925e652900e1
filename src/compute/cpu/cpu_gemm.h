// SPDX-License-Identifier: MIT
#pragma once

/**
 * Single-threaded float GEMMs on row-major raw buffers (callers split the work across threads).
 *
 *   gemmAB:  C[m×n] = alpha · A[m×k] · B[k×n]  + beta · C
 *   gemmABt: C[m×n] = alpha · A[m×k] · B[n×k]ᵀ + beta · C
 *
 * lda/ldb/ldc are row strides in elements. Two libraries can run them:
 *  - OpenBLAS through CBLAS (when the build found it, PE_HAVE_OPENBLAS): Debian builds it with
 *    DYNAMIC_ARCH, so its kernels are picked for the CPU at run time. Its own threads are set
 *    to one: each call runs on the calling thread.
 *  - Eigen, compiled once per x86 target (AVX-512, AVX2+FMA, baseline SSE2) and picked at run
 *    time: the fallback when OpenBLAS is absent, and the comparison for tests.
 * OpenBLAS is the default where it is available, unless the CPU has AVX-512 and the installed
 * OpenBLAS does not use it there (an OpenBLAS older than the CPU: Debian 12's on AMD Zen 5 runs
 * AVX2 kernels), where Eigen's AVX-512 build is faster. PE_GEMM=openblas|eigen overrides.
 */

#include <chrono>
#include <string>
#include <vector>

namespace pe::cpu {

enum class GemmLibrary { Eigen, OpenBlas };

void gemmAB(int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
            float beta, float* C, int ldc);
void gemmABt(int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
             float beta, float* C, int ldc);

/** The same products on a chosen library (tests, benchmarks); OpenBlas falls back to Eigen
 *  when the build has no OpenBLAS. */
void gemmAB(GemmLibrary lib, int m, int n, int k, float alpha, const float* A, int lda,
            const float* B, int ldb, float beta, float* C, int ldc);
void gemmABt(GemmLibrary lib, int m, int n, int k, float alpha, const float* A, int lda,
             const float* B, int ldb, float beta, float* C, int ldc);

/**
 * Rows [r0, r1) of the lower triangle, diagonal included, of the Gram matrix C = A·Aᵀ of
 * A[n×k] in double (the Encoding tab's P·Pᵀ): C[r, c] for r0 ≤ r < r1, c ≤ r, on the calling
 * thread; nothing else of C is written (callers give row bands to threads). OpenBLAS's dgemm
 * and dsyrk where the library in force is OpenBLAS, else Eigen built for this CPU: the views'
 * own Eigen code is compiled for the x86-64 baseline, where the whole triangle at n = 2,048,
 * d = 256 took 145 ms against dsyrk's 38 (2-core Zen 3 host).
 */
void gramLowerRows(int r0, int r1, int k, const double* A, int lda, double* C, int ldc);
void gramLowerRows(GemmLibrary lib, int r0, int r1, int k, const double* A, int lda, double* C,
                   int ldc);

/** A single-threaded product as gemmAB/gemmABt take it (without the library argument). */
using GemmFunction = void (*)(int m, int n, int k, float alpha, const float* A, int lda,
                              const float* B, int ldb, float beta, float* C, int ldc);
/** gramLowerRows as it takes it (without the library argument). */
using GramRowsFunction = void (*)(int r0, int r1, int k, const double* A, int lda, double* C,
                                  int ldc);
/** One of the Eigen builds in the binary: its target, its products, whether this CPU runs it. */
struct EigenGemmVariant {
    const char* name; ///< "avx512", "avx2", "sse2" or "generic"
    GemmFunction ab;
    GemmFunction abt;
    GramRowsFunction gramLowerRows;
    bool supported;
};
/** Every Eigen build, best first (tests run each one this CPU supports). */
std::vector<EigenGemmVariant> eigenGemmVariants();

/** Whether the build links OpenBLAS. */
bool haveOpenBlas();
/**
 * Ends OpenBLAS's own threads, which the engine never uses (it calls OpenBLAS single-threaded,
 * one call per task of its pool). Debian's build starts one per core when the library loads,
 * and each spins on sched_yield for about a tenth of a second before it sleeps: a fresh `trace`
 * process that computed in that time, on 16 threads, took 1.8× the warm engine's time and twice
 * its CPU time (1.04× with OPENBLAS_NUM_THREADS=1). Call it once, early, before any product; a
 * threaded OpenBLAS call later (a benchmark's peak) starts them again. Nothing without OpenBLAS.
 */
void stopGemmLibraryThreads();
/** The instruction sets of a CPU that the GEMM libraries' choices depend on (x86-64). */
struct CpuFeatures {
    bool avx = false, avx2 = false, fma = false, avx512 = false, avx512bf16 = false;
};
/**
 * The OpenBLAS kernels for a CPU that OpenBLAS does not know, by the instruction sets it has
 * (x86-64): OpenBLAS 0.3.21 (Debian 12) runs its SSE3 "Prescott" kernels on any model newer
 * than its tables, Intel's model 207 (Emerald Rapids) among them, where its products run at a
 * fifth of the machine's AVX-512 peak and the learning lab trains at half speed. Given the core
 * OpenBLAS chose and the CPU's features, the core whose kernels OpenBLAS itself picks for the
 * same instruction sets on the models it knows: "Cooperlake" (AVX-512 with BF16), "SkylakeX"
 * (AVX-512), "Haswell" (AVX2 and FMA), "Sandybridge" (AVX); empty where OpenBLAS chose
 * something other than its fallback (it knows the CPU: its choice stands) or the CPU has none
 * of these.
 */
std::string openBlasCoreFor(const std::string& chosenCore, const CpuFeatures& cpu);
/** This CPU's features (all false off x86-64). */
CpuFeatures cpuFeatures();
/**
 * Switches OpenBLAS to openBlasCoreFor(its core, this CPU), as OPENBLAS_CORETYPE would at
 * start-up; nothing where the user set OPENBLAS_CORETYPE, where its choice stands, or without
 * OpenBLAS. Call once in main, before any product and before other threads exist (the
 * library, the learning lab's libtorch included, reads its kernel table on every call). Returns
 * the core now in use where it changed, else empty.
 */
std::string chooseGemmLibraryKernels();
/**
 * The library used until setGemmLibrary is called: PE_GEMM (openblas or eigen) if set, else the
 * rule described above. Reads the environment on every call.
 */
GemmLibrary defaultGemmLibrary();
/** Whether OpenBLAS runs AVX-512 kernels on this CPU (false without OpenBLAS). */
bool openBlasUsesAvx512();
/** The library gemmAB/gemmABt use (process-wide; the default is described above). */
GemmLibrary gemmLibrary();
/** Selects the library of gemmAB/gemmABt; OpenBlas is ignored without OpenBLAS. Not to be
 *  called while GEMMs run. */
void setGemmLibrary(GemmLibrary lib);

/**
 * Time and flops spent in gemmAB/gemmABt, summed over all calling threads, collected only while
 * counting is on (benchmarks: it reads the clock around every call).
 */
struct GemmCounters {
    double threadSeconds = 0.0;
    double flops = 0.0;
};
void setGemmCounting(bool on);
/**
 * Adds an m × n × k product's time and flops to the counters (when counting is on) when it goes
 * out of scope: gemmAB/gemmABt use it, and so do the engine's own product kernels
 * (dotKeyPanels, weighValues).
 */
class GemmCallCounter {
public:
    GemmCallCounter(int m, int n, int k);
    ~GemmCallCounter();
    GemmCallCounter(const GemmCallCounter&) = delete;
    GemmCallCounter& operator=(const GemmCallCounter&) = delete;

private:
    bool m_on;
    double m_flops = 0.0;
    std::chrono::steady_clock::time_point m_start;
};
/** The counters since the last call; resets them. */
GemmCounters takeGemmCounters();

/** The GEMM in use, e.g. "openblas SkylakeX" or "eigen avx512" ("sse2", "generic"). */
const char* gemmTarget();
/** The Eigen target: "avx512", "avx2", "sse2" or "generic". */
const char* eigenGemmTarget();

} // namespace pe::cpu
