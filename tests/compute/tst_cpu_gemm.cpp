// SPDX-License-Identifier: MIT
// The engine's GEMMs: OpenBLAS (where the build has it) and the Eigen fallback both equal a
// float64 product on odd shapes, strides, alpha and beta, within 1e-5 · (1 + Σ|terms|) per entry,
// and leave the padding of C (ldc > n) untouched; OpenBLAS on the kernels chosen for this CPU
// where it does not know the model (chooseGemmLibraryKernels, as main does).

#include <QTest>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "cpu_gemm.h"

#include <QDir>

// OpenBLAS's own queries, where the process has OpenBLAS (weak: a build without links too).
extern "C" int openblas_get_parallel(void) __attribute__((weak));
extern "C" int openblas_get_num_threads(void) __attribute__((weak));
extern "C" char* openblas_get_corename(void) __attribute__((weak));

using namespace pe::cpu;

namespace {
/** Threads of this process (Linux: its tasks). */
int threadCount() {
    return static_cast<int>(QDir(QStringLiteral("/proc/self/task"))
                                .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                                .size());
}
} // namespace

class TestCpuGemm : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void openBlasCoreForUnknownModels();
    void kernelsForThisCpu(); // before any product, as in main
    void libraryThreadsEnd(); // before any product sets OpenBLAS to one thread
    void matchesFloat64_data();
    void matchesFloat64();
    void defaultIsTheFasterLibrary();
    void gramLowerRowsOnBothLibraries();
};

void TestCpuGemm::openBlasCoreForUnknownModels() {
    // OpenBLAS's fallback (Prescott) is replaced by the kernels it picks for the same
    // instruction sets on the models it knows; any other choice of its own stands.
    CpuFeatures avx512bf16{true, true, true, true, true};
    CpuFeatures avx512{true, true, true, true, false};
    CpuFeatures avx2{true, true, true, false, false};
    CpuFeatures avx2NoFma{true, true, false, false, false};
    CpuFeatures avxOnly{true, false, false, false, false};
    CpuFeatures sse{};
    QCOMPARE(openBlasCoreFor("Prescott", avx512bf16), std::string("Cooperlake"));
    QCOMPARE(openBlasCoreFor("Prescott", avx512), std::string("SkylakeX"));
    QCOMPARE(openBlasCoreFor("Prescott", avx2), std::string("Haswell"));
    QCOMPARE(openBlasCoreFor("Prescott", avx2NoFma), std::string("Sandybridge"));
    QCOMPARE(openBlasCoreFor("Prescott", avxOnly), std::string("Sandybridge"));
    QCOMPARE(openBlasCoreFor("Prescott", sse), std::string());
    // Known models: Zen 5 on 0.3.21 gets Haswell kernels, which stay (the engine's products run
    // on Eigen's AVX-512 build there instead, defaultGemmLibrary).
    QCOMPARE(openBlasCoreFor("Haswell", avx512), std::string());
    QCOMPARE(openBlasCoreFor("SkylakeX", avx512bf16), std::string());
    QCOMPARE(openBlasCoreFor("Zen", avx2), std::string());
    QCOMPARE(openBlasCoreFor("", avx512), std::string());
}

void TestCpuGemm::kernelsForThisCpu() {
    if (!haveOpenBlas() || !openblas_get_corename)
        QSKIP("built without OpenBLAS");
    const std::string before = openblas_get_corename();
    const std::string chosen = chooseGemmLibraryKernels();
    const std::string now = openblas_get_corename();
    if (qEnvironmentVariableIsSet("OPENBLAS_CORETYPE")) {
        QVERIFY(chosen.empty()); // the user's choice stands
        QCOMPARE(now, before);
        return;
    }
    // Whatever this CPU is, no better kernels are left to choose, and the variable that chose
    // them is not left behind.
    QCOMPARE(openBlasCoreFor(now, cpuFeatures()), std::string());
    QVERIFY(!qEnvironmentVariableIsSet("OPENBLAS_CORETYPE"));
    if (chosen.empty()) {
        QCOMPARE(now, before);
    } else {
        QCOMPARE(before, std::string("Prescott"));
        QCOMPARE(now, chosen);
        QCOMPARE(chosen, openBlasCoreFor(before, cpuFeatures()));
        qInfo("OpenBLAS did not know this CPU: %s kernels instead of %s", now.c_str(),
              before.c_str());
    }
    QCOMPARE(chooseGemmLibraryKernels(), std::string()); // once is enough
    // The products on the new kernels: matchesFloat64 (default library) and libraryThreadsEnd.
}

void TestCpuGemm::libraryThreadsEnd() {
    // OpenBLAS's pthread build starts a thread per core beyond the first when it loads, and
    // they spun while a fresh trace computed (cpu_gemm.h). stopGemmLibraryThreads ends them,
    // and products still run, on the calling thread, with no thread coming back.
    const bool openBlas = haveOpenBlas() && openblas_get_parallel && openblas_get_num_threads;
    const int server =
        openBlas && openblas_get_parallel() == 1 ? openblas_get_num_threads() - 1 : 0;
    const int before = threadCount();
    QVERIFY(before >= 1 + server);
    stopGemmLibraryThreads();
    const int after = threadCount();
    QCOMPARE(after, before - server);
    std::mt19937 rng(3);
    std::normal_distribution<float> nd;
    const int m = 96, n = 80, k = 64;
    std::vector<float> a(m * k), b(k * n), c(m * n, 0.0f);
    for (float& x : a)
        x = nd(rng);
    for (float& x : b)
        x = nd(rng);
    gemmAB(GemmLibrary::OpenBlas, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
    for (int i = 0; i < m; i += 7)
        for (int j = 0; j < n; j += 5) {
            double want = 0;
            for (int p = 0; p < k; ++p)
                want += double(a[i * k + p]) * b[p * n + j];
            QVERIFY(std::abs(c[i * n + j] - want) < 1e-3 * (1 + std::abs(want)));
        }
    QCOMPARE(threadCount(), after);
    stopGemmLibraryThreads(); // again: nothing left to end
    QCOMPARE(threadCount(), after);
}

void TestCpuGemm::matchesFloat64_data() {
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::addColumn<float>("alpha");
    QTest::addColumn<float>("beta");
    QTest::addColumn<int>("pad"); // extra elements per row of A, B and C
    QTest::addColumn<bool>("transposedB");
    QTest::addColumn<bool>("eigen");
    struct Shape {
        const char* tag;
        int m, n, k;
        float alpha, beta;
        int pad;
    };
    const Shape shapes[] = {
        {"1x1x1", 1, 1, 1, 1.0f, 0.0f, 0},
        {"7x13x5", 7, 13, 5, 1.0f, 0.0f, 0},
        {"33x17x65-alpha-beta", 33, 17, 65, 0.125f, 0.5f, 3},
        {"64x130x64-padded", 64, 130, 64, 1.0f, 0.0f, 5},
        {"3x200x1", 3, 200, 1, -2.0f, 1.0f, 0},
        {"19x64x300-beta1", 19, 64, 300, 1.0f, 1.0f, 1},
        {"k0-scales-C", 5, 6, 0, 1.0f, 0.5f, 2},
    };
    for (const Shape& s : shapes)
        for (bool bt : {false, true})
            for (bool eigen : {false, true}) {
                const QByteArray tag =
                    QByteArray(s.tag) + (bt ? "/ABt" : "/AB") + (eigen ? "/eigen" : "/default");
                QTest::newRow(tag.constData())
                    << s.m << s.n << s.k << s.alpha << s.beta << s.pad << bt << eigen;
            }
}

void TestCpuGemm::matchesFloat64() {
    QFETCH(int, m);
    QFETCH(int, n);
    QFETCH(int, k);
    QFETCH(float, alpha);
    QFETCH(float, beta);
    QFETCH(int, pad);
    QFETCH(bool, transposedB);
    QFETCH(bool, eigen);
    const int lda = k + pad;
    const int ldb = (transposedB ? k : n) + pad;
    const int ldc = n + pad;
    const int bRows = transposedB ? n : k;
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> A(static_cast<std::size_t>(m) * lda + 1),
        B(static_cast<std::size_t>(bRows) * ldb + 1), C(static_cast<std::size_t>(m) * ldc);
    for (float& x : A)
        x = u(rng);
    for (float& x : B)
        x = u(rng);
    for (float& x : C)
        x = u(rng);
    const std::vector<float> C0 = C;
    auto b = [&](int kk, int j) {
        return transposedB ? B[static_cast<std::size_t>(j) * ldb + kk]
                           : B[static_cast<std::size_t>(kk) * ldb + j];
    };
    const GemmLibrary lib = eigen ? GemmLibrary::Eigen : gemmLibrary();
    if (transposedB)
        gemmABt(lib, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc);
    else
        gemmAB(lib, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < ldc; ++j) {
            const std::size_t at = static_cast<std::size_t>(i) * ldc + j;
            if (j >= n) {
                QCOMPARE(C[at], C0[at]); // padding untouched
                continue;
            }
            double ref = 0.0, mag = 0.0;
            for (int kk = 0; kk < k; ++kk) {
                const double t = double(A[static_cast<std::size_t>(i) * lda + kk]) * b(kk, j);
                ref += t;
                mag += std::abs(t);
            }
            ref = alpha * ref + double(beta) * C0[at];
            mag = std::abs(alpha) * mag + std::abs(double(beta) * C0[at]);
            const double tol = 1e-5 * (1.0 + mag);
            if (std::abs(C[at] - ref) > tol)
                QFAIL(qPrintable(QStringLiteral("C[%1,%2] = %3, float64 %4, tolerance %5")
                                     .arg(i)
                                     .arg(j)
                                     .arg(double(C[at]), 0, 'g', 9)
                                     .arg(ref, 0, 'g', 9)
                                     .arg(tol)));
        }
}

void TestCpuGemm::defaultIsTheFasterLibrary() {
    // The rule of cpu_gemm.h: OpenBLAS where it is built in, unless the CPU has AVX-512 and
    // OpenBLAS does not use it there (Eigen's AVX-512 build is faster then); PE_GEMM overrides.
    qunsetenv("PE_GEMM");
    const bool eigenAvx512 = QString::fromLatin1(eigenGemmTarget()) == QStringLiteral("avx512");
    const GemmLibrary expected = haveOpenBlas() && !(eigenAvx512 && !openBlasUsesAvx512())
                                     ? GemmLibrary::OpenBlas
                                     : GemmLibrary::Eigen;
    QCOMPARE(defaultGemmLibrary(), expected);
    QCOMPARE(gemmLibrary(), expected);
    const QString target = QString::fromLatin1(gemmTarget());
    QVERIFY2(target.startsWith(expected == GemmLibrary::OpenBlas ? QStringLiteral("openblas ")
                                                                 : QStringLiteral("eigen ")),
             qPrintable(target));
    qputenv("PE_GEMM", "eigen");
    QCOMPARE(defaultGemmLibrary(), GemmLibrary::Eigen);
    qputenv("PE_GEMM", "openblas");
    QCOMPARE(defaultGemmLibrary(), haveOpenBlas() ? GemmLibrary::OpenBlas : GemmLibrary::Eigen);
    qunsetenv("PE_GEMM");

    setGemmLibrary(GemmLibrary::Eigen);
    QCOMPARE(gemmLibrary(), GemmLibrary::Eigen);
    QVERIFY(QString::fromLatin1(gemmTarget()).startsWith(QStringLiteral("eigen ")));
    setGemmLibrary(GemmLibrary::OpenBlas);
    QCOMPARE(gemmLibrary(), haveOpenBlas() ? GemmLibrary::OpenBlas : GemmLibrary::Eigen);
    setGemmLibrary(expected);
}

// gramLowerRows (the Encoding tab's P·Pᵀ, by row bands): on OpenBLAS (dgemm and dsyrk) and on
// Eigen, three bands (the first empty) give the lower triangle of A·Aᵀ in double to round-off,
// past the kernels' panels and with row strides past the widths; the strict upper triangle and
// C's padding keep what they held.
void TestCpuGemm::gramLowerRowsOnBothLibraries() {
    const int n = 203, k = 91, lda = k + 5, ldc = n + 2;
    std::mt19937 rng(5);
    std::normal_distribution<double> nd;
    std::vector<double> a(static_cast<std::size_t>(n) * lda);
    for (double& x : a)
        x = nd(rng);
    for (GemmLibrary lib : {GemmLibrary::OpenBlas, GemmLibrary::Eigen}) {
        std::vector<double> c(static_cast<std::size_t>(n) * ldc, 3.5);
        for (auto [r0, r1] : {std::pair{0, 0}, std::pair{0, 144}, std::pair{144, n}})
            gramLowerRows(lib, r0, r1, k, a.data(), lda, c.data(), ldc);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < ldc; ++j) {
                const double got = c[static_cast<std::size_t>(i) * ldc + j];
                if (j > i) {
                    QCOMPARE(got, 3.5);
                    continue;
                }
                double want = 0, size = 0;
                for (int p = 0; p < k; ++p) {
                    const double t = a[static_cast<std::size_t>(i) * lda + p] *
                                     a[static_cast<std::size_t>(j) * lda + p];
                    want += t;
                    size += std::abs(t);
                }
                QVERIFY2(std::abs(got - want) <= 1e-14 * (1 + size),
                         qPrintable(QStringLiteral("(%1, %2): %3 against %4")
                                        .arg(i)
                                        .arg(j)
                                        .arg(got, 0, 'g', 17)
                                        .arg(want, 0, 'g', 17)));
            }
    }
}

QTEST_GUILESS_MAIN(TestCpuGemm)
#include "tst_cpu_gemm.moc"
