// SPDX-License-Identifier: MIT
#include "cpu_gemm.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef PE_HAVE_OPENBLAS
#include <cblas.h>
// OpenBLAS's pthread thread server (blas_server.c) exports this; weak, so that a build without
// it (the OpenMP or serial variant) links and has no threads to end.
extern "C" int blas_thread_shutdown_(void) __attribute__((weak));
// Its DYNAMIC_ARCH builds choose their kernel table when the library loads, from the CPU or
// OPENBLAS_CORETYPE; these two (driver/others/dynamic.c) drop that choice and make it again.
extern "C" void gotoblas_dynamic_quit(void) __attribute__((weak));
extern "C" void gotoblas_dynamic_init(void) __attribute__((weak));
#endif

namespace pe::cpu {

#ifdef PE_GEMM_X86_VARIANTS
#define PE_DECLARE_GEMM(t)                                                                         \
    void gemmAB_##t(int, int, int, float, const float*, int, const float*, int, float, float*,     \
                    int);                                                                          \
    void gemmABt_##t(int, int, int, float, const float*, int, const float*, int, float, float*,    \
                     int);                                                                         \
    void gramLowerRows_##t(int, int, int, const double*, int, double*, int);
PE_DECLARE_GEMM(avx512)
PE_DECLARE_GEMM(avx2)
PE_DECLARE_GEMM(base)
#else
void gemmAB_generic(int, int, int, float, const float*, int, const float*, int, float, float*, int);
void gemmABt_generic(int, int, int, float, const float*, int, const float*, int, float, float*,
                     int);
void gramLowerRows_generic(int, int, int, const double*, int, double*, int);
#endif

namespace {

struct GemmTable {
    GemmFunction ab;
    GemmFunction abt;
    GramRowsFunction gramLowerRows;
    const char* name;
};

GemmTable pickEigen() {
    for (const EigenGemmVariant& v : eigenGemmVariants())
        if (v.supported)
            return {v.ab, v.abt, v.gramLowerRows, v.name};
    return {nullptr, nullptr, nullptr, "none"}; // unreachable: the last variant runs everywhere
}

const GemmTable& eigen() {
    static const GemmTable t = pickEigen();
    return t;
}

#ifdef PE_HAVE_OPENBLAS
/** OpenBLAS, told once to run every call on the calling thread (our pool splits the work). */
bool openBlasReady() {
    static const bool ready = [] {
        openblas_set_num_threads(1);
        return true;
    }();
    return ready;
}

#endif

/** The library in force: chosen by setGemmLibrary or, until then, defaultGemmLibrary(). */
class LibraryChoice {
public:
    GemmLibrary get() const {
        const int v = m_value.load(std::memory_order_relaxed);
        if (v >= 0)
            return static_cast<GemmLibrary>(v);
        static const GemmLibrary initial = defaultGemmLibrary();
        return initial;
    }
    void set(GemmLibrary lib) { m_value.store(static_cast<int>(lib)); }

private:
    std::atomic<int> m_value{-1}; ///< −1: not chosen
};

LibraryChoice g_library;
std::atomic<bool> g_counting{false};
std::atomic<std::int64_t> g_countedNs{0};
std::atomic<double> g_countedFlops{0.0};

bool useBlas(GemmLibrary lib) {
#ifdef PE_HAVE_OPENBLAS
    return lib == GemmLibrary::OpenBlas;
#else
    (void)lib;
    return false;
#endif
}

} // namespace

namespace {

/** C = alpha · A · op(B) + beta · C on the chosen library; op(B) = Bᵀ when transB. */
void gemm(GemmLibrary lib, bool transB, int m, int n, int k, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc) {
    if (m <= 0 || n <= 0)
        return;
    const GemmCallCounter counter(m, n, k);
#ifdef PE_HAVE_OPENBLAS
    if (useBlas(lib) && k > 0) {
        (void)openBlasReady();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans, m, n, k, alpha,
                    A, lda, B, ldb, beta, C, ldc);
        return;
    }
#else
    (void)lib;
#endif
    (transB ? eigen().abt : eigen().ab)(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

} // namespace

void gemmAB(GemmLibrary lib, int m, int n, int k, float alpha, const float* A, int lda,
            const float* B, int ldb, float beta, float* C, int ldc) {
    gemm(lib, false, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemmABt(GemmLibrary lib, int m, int n, int k, float alpha, const float* A, int lda,
             const float* B, int ldb, float beta, float* C, int ldc) {
    gemm(lib, true, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gramLowerRows(GemmLibrary lib, int r0, int r1, int k, const double* A, int lda, double* C,
                   int ldc) {
    if (r0 < 0 || r1 <= r0)
        return;
#ifdef PE_HAVE_OPENBLAS
    if (useBlas(lib) && k > 0) {
        (void)openBlasReady();
        const int h = r1 - r0;
        const double* below = A + static_cast<std::ptrdiff_t>(r0) * lda;
        double* rows = C + static_cast<std::ptrdiff_t>(r0) * ldc;
        if (r0 > 0)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, h, r0, k, 1.0, below, lda, A, lda,
                        0.0, rows, ldc);
        cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, h, k, 1.0, below, lda, 0.0, rows + r0,
                    ldc);
        return;
    }
#else
    (void)lib;
#endif
    eigen().gramLowerRows(r0, r1, k, A, lda, C, ldc);
}

void gramLowerRows(int r0, int r1, int k, const double* A, int lda, double* C, int ldc) {
    gramLowerRows(g_library.get(), r0, r1, k, A, lda, C, ldc);
}

void gemmAB(int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
            float beta, float* C, int ldc) {
    gemmAB(g_library.get(), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemmABt(int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
             float beta, float* C, int ldc) {
    gemmABt(g_library.get(), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

/**
 * The library to use when nobody chose: PE_GEMM=openblas|eigen if set; else OpenBLAS, unless
 * the CPU has AVX-512 and OpenBLAS does not run AVX-512 kernels on it. That happens where the
 * installed OpenBLAS predates the CPU (Debian 12's 0.3.21 on AMD Zen 5 picks its Haswell AVX2
 * kernels): there Eigen's AVX-512 build was measured 1.8× faster (464 against 254 GFLOP/s on two
 * cores). Where OpenBLAS has AVX-512 kernels (Intel Xeon) it was the faster one.
 */
GemmLibrary defaultGemmLibrary() {
#ifdef PE_HAVE_OPENBLAS
    if (const char* env = std::getenv("PE_GEMM")) {
        if (std::strcmp(env, "eigen") == 0)
            return GemmLibrary::Eigen;
        if (std::strcmp(env, "openblas") == 0)
            return GemmLibrary::OpenBlas;
    }
    if (std::strcmp(eigen().name, "avx512") == 0 && !openBlasUsesAvx512())
        return GemmLibrary::Eigen;
    return GemmLibrary::OpenBlas;
#else
    return GemmLibrary::Eigen;
#endif
}

std::vector<EigenGemmVariant> eigenGemmVariants() {
#ifdef PE_GEMM_X86_VARIANTS
    const CpuFeatures cpu = cpuFeatures();
    return {{"avx512", gemmAB_avx512, gemmABt_avx512, gramLowerRows_avx512, cpu.avx512},
            {"avx2", gemmAB_avx2, gemmABt_avx2, gramLowerRows_avx2, cpu.avx2 && cpu.fma},
            {"sse2", gemmAB_base, gemmABt_base, gramLowerRows_base, true}};
#else
    return {{"generic", gemmAB_generic, gemmABt_generic, gramLowerRows_generic, true}};
#endif
}

bool openBlasUsesAvx512() {
#ifdef PE_HAVE_OPENBLAS
    (void)openBlasReady();
    const char* core = openblas_get_corename(); // its names for AVX-512 kernels, any case
    std::string name = core ? core : "";
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* k : {"skylakex", "cooperlake", "sapphirerapids", "zen4", "zen5"})
        if (name.find(k) != std::string::npos)
            return true;
#endif
    return false;
}

std::string openBlasCoreFor(const std::string& chosenCore, const CpuFeatures& cpu) {
    // OpenBLAS's fallback for an x86-64 model missing from its tables (dynamic.c).
    if (chosenCore != "Prescott")
        return {};
    if (cpu.avx512)
        return cpu.avx512bf16 ? "Cooperlake" : "SkylakeX";
    if (cpu.avx2 && cpu.fma)
        return "Haswell";
    if (cpu.avx)
        return "Sandybridge";
    return {};
}

CpuFeatures cpuFeatures() {
    CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    f.avx = __builtin_cpu_supports("avx");
    f.avx2 = __builtin_cpu_supports("avx2");
    f.fma = __builtin_cpu_supports("fma");
    // OpenBLAS's own test for its SkylakeX kernels (F, VL, BW, DQ, CD); Eigen's AVX-512 build
    // needs F, VL, BW and DQ, and every CPU with those has CD.
    f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512cd");
    f.avx512bf16 = f.avx512 && __builtin_cpu_supports("avx512bf16");
#endif
    return f;
}

std::string chooseGemmLibraryKernels() {
#ifdef PE_HAVE_OPENBLAS
    if (std::getenv("OPENBLAS_CORETYPE") || !gotoblas_dynamic_quit || !gotoblas_dynamic_init)
        return {};
    const char* chosen = openblas_get_corename();
    const std::string core = openBlasCoreFor(chosen ? chosen : "", cpuFeatures());
    if (core.empty())
        return {};
    // As OpenBLAS does at start-up with OPENBLAS_CORETYPE set; the variable is not left behind
    // for the programs this one starts.
    setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
    gotoblas_dynamic_quit();
    gotoblas_dynamic_init();
    unsetenv("OPENBLAS_CORETYPE");
    const char* now = openblas_get_corename();
    return now ? now : "";
#else
    return {};
#endif
}

bool haveOpenBlas() {
#ifdef PE_HAVE_OPENBLAS
    return true;
#else
    return false;
#endif
}

void stopGemmLibraryThreads() {
#ifdef PE_HAVE_OPENBLAS
    // One thread first: setting the count starts the server if it is not running.
    openBlasReady();
    if (blas_thread_shutdown_)
        blas_thread_shutdown_();
#endif
}

GemmLibrary gemmLibrary() {
    return useBlas(g_library.get()) ? GemmLibrary::OpenBlas : GemmLibrary::Eigen;
}

void setGemmLibrary(GemmLibrary lib) {
    g_library.set(lib);
}

void setGemmCounting(bool on) {
    g_counting.store(on);
}

GemmCallCounter::GemmCallCounter(int m, int n, int k)
    : m_on(g_counting.load(std::memory_order_relaxed)) {
    if (!m_on)
        return;
    m_flops = 2.0 * m * n * k;
    m_start = std::chrono::steady_clock::now();
}

GemmCallCounter::~GemmCallCounter() {
    if (!m_on)
        return;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - m_start)
                        .count();
    g_countedNs.fetch_add(ns, std::memory_order_relaxed);
    g_countedFlops.fetch_add(m_flops, std::memory_order_relaxed);
}

GemmCounters takeGemmCounters() {
    GemmCounters c;
    c.threadSeconds = static_cast<double>(g_countedNs.exchange(0)) * 1e-9;
    c.flops = g_countedFlops.exchange(0.0);
    return c;
}

const char* eigenGemmTarget() {
    return eigen().name;
}

const char* gemmTarget() {
#ifdef PE_HAVE_OPENBLAS
    static const std::string blasName = [] {
        (void)openBlasReady();
        const char* core = openblas_get_corename();
        return std::string("openblas ") + (core ? core : "?");
    }();
    if (gemmLibrary() == GemmLibrary::OpenBlas)
        return blasName.c_str();
#endif
    static const std::string eigenName = std::string("eigen ") + eigen().name;
    return eigenName.c_str();
}

} // namespace pe::cpu
