// SPDX-License-Identifier: MIT
// One binary, every x86 CPU: the engine's Highway kernels are compiled for several targets and
// its Eigen GEMMs for AVX-512, AVX2 and SSE2, and the best the CPU runs is picked at run time.
// This test runs every compiled target this CPU supports (Highway's test hook restricts the
// dispatch to one target at a time; the Eigen builds are called directly), so the AVX2 and SSE
// paths a packaged build takes on older machines are checked here too:
//  - fusedRow against a float64 row pass, every normaliser, masks, additive and post terms, and
//    streaming destinations at every alignment;
//  - streamCopy and sum exactly / within float rounding;
//  - each Eigen GEMM build against a float64 product;
//  - a whole forward pass of the fast engine against the core's reference, and the pooled
//    path's fused tile pass against the reference pooled;
//  - the tile pass's exponential (cpu::expNonPositive) within 0.97 ulp of float64 over every
//    61st float of [−104, 0].

#include <QTest>

#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cpu_attention_tiles.h"
#include "cpu_fast_backend.h"
#include "cpu_gemm.h"
#include "cpu_kernels.h"
#include "pooling.h"
#include "weights.h"

using namespace pe;

namespace {

/** The row pass in float64: what fusedRow computes (normalisers as in pe::Normaliser). */
void referenceRow(const cpu::RowPass& p, const std::vector<float>& dots, std::vector<double>& lg,
                  std::vector<double>& w) {
    const int n = p.n;
    lg.assign(static_cast<std::size_t>(n), -std::numeric_limits<double>::infinity());
    w.assign(static_cast<std::size_t>(n), 0.0);
    double mx = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < p.limit; ++j) {
        lg[j] = double(dots[j]) * p.scale + (p.add ? double(p.add[j]) : 0.0);
        mx = std::max(mx, lg[j]);
    }
    double total = 0.0;
    for (int j = 0; j < p.limit; ++j) {
        const double x = lg[j];
        switch (p.norm) {
        case 0: // softmax
            w[j] = std::exp(x - mx);
            total += w[j];
            break;
        case 1: // exp
            w[j] = std::exp(x);
            break;
        case 2: // L2
            w[j] = std::exp(x - mx);
            total += w[j] * w[j];
            break;
        default: // relu2, relu2_visible
            w[j] = std::max(x, 0.0) * std::max(x, 0.0) / p.relu2Denominator;
        }
    }
    for (int j = 0; j < p.limit; ++j) {
        if (p.norm == 0)
            w[j] /= total;
        if (p.norm == 2)
            w[j] /= std::sqrt(total);
        if (p.post)
            w[j] *= p.post[j];
    }
}

bool near(double got, double want, double tol) {
    if (std::isinf(want))
        return got == want;
    return std::abs(got - want) <= tol * (1.0 + std::abs(want));
}

} // namespace

class TestCpuDispatch : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void kernelsOnEveryTarget_data();
    void kernelsOnEveryTarget();
    void eigenGemmOnEveryBuild();
    void cleanupTestCase() { hwy::SetSupportedTargetsForTest(0); }
};

void TestCpuDispatch::kernelsOnEveryTarget_data() {
    QTest::addColumn<qint64>("target");
    const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    QVERIFY(!targets.empty());
    for (const std::int64_t t : targets)
        QTest::newRow(hwy::TargetName(t)) << static_cast<qint64>(t);
}

void TestCpuDispatch::kernelsOnEveryTarget() {
    QFETCH(qint64, target);
    hwy::SetSupportedTargetsForTest(target);
    QCOMPARE(QString::fromLatin1(cpu::simdTarget()), QString::fromLatin1(hwy::TargetName(target)));

    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    for (const int n : {1, 7, 16, 61, 200}) {
        std::vector<float> dots(static_cast<std::size_t>(n)), add(dots.size()), post(dots.size());
        for (std::size_t j = 0; j < dots.size(); ++j) {
            dots[j] = normal(rng);
            add[j] = 0.3f * normal(rng);
            post[j] = 1.0f + 0.1f * normal(rng);
        }
        for (int norm = 0; norm < 5; ++norm)
            for (const int limit : {n, (2 * n) / 3})
                for (const int misalign : {0, 1, 5}) {
                    cpu::RowPass p;
                    p.n = n;
                    p.limit = limit;
                    p.scale = 0.7f;
                    p.norm = norm;
                    p.relu2Denominator = norm == 3 ? float(n) : float(limit);
                    p.add = misalign == 1 ? nullptr : add.data();
                    p.post = misalign == 5 ? post.data() : nullptr;
                    std::vector<double> wantL, wantW;
                    referenceRow(p, dots, wantL, wantW);
                    // Separate buffers with streamed copies at an odd offset, then in place.
                    std::vector<float> lg(dots.size()), w(dots.size()),
                        outL(dots.size() + 16, 9.0f), outW(dots.size() + 16, 9.0f);
                    float* sl = outL.data() + misalign;
                    float* sw = outW.data() + misalign;
                    cpu::fusedRow(p, dots.data(), lg.data(), w.data(), sl, sw);
                    std::vector<float> inPlace = dots;
                    cpu::fusedRow(p, inPlace.data(), inPlace.data(), inPlace.data());
                    cpu::streamFence();
                    for (int j = 0; j < n; ++j) {
                        const auto at = static_cast<std::size_t>(j);
                        const QByteArray where = QByteArray("n ") + QByteArray::number(n) +
                                                 " norm " + QByteArray::number(norm) + " limit " +
                                                 QByteArray::number(limit) + " j " +
                                                 QByteArray::number(j);
                        QVERIFY2(near(lg[at], wantL[at], 1e-6), where);
                        QVERIFY2(near(sl[j], wantL[at], 1e-6), where);
                        QVERIFY2(near(w[at], wantW[at], 2e-6), where);
                        QVERIFY2(near(sw[j], wantW[at], 2e-6), where);
                        QCOMPARE(inPlace[at], w[at]);
                    }
                    QCOMPARE(outL[static_cast<std::size_t>(misalign + n)], 9.0f); // no overrun
                    QCOMPARE(outW[static_cast<std::size_t>(misalign + n)], 9.0f);
                }
        std::vector<float> copy(dots.size() + 3, 0.0f);
        cpu::streamCopy(copy.data() + 3, dots.data(), dots.size());
        for (std::size_t j = 0; j < dots.size(); ++j)
            QCOMPARE(copy[j + 3], dots[j]);
        double total = 0.0, mag = 0.0;
        for (const float v : dots) {
            total += v;
            mag += std::abs(v);
        }
        QVERIFY(std::abs(cpu::sum(dots.data(), dots.size()) - total) <= 1e-5 * (1.0 + mag));
    }

    // A whole forward pass on this target (the GEMMs are the default library's).
    Params p;
    p.scheme = Scheme::Shaw;
    p.n = 45;
    p.d = 32;
    p.heads = 2;
    p.clip = 4;
    p.mask = MaskKind::Causal;
    Weights wts;
    completeWeights(p, wts);
    const Expected<Trace> ref = computeTrace(p, wts);
    QVERIFY(ref.ok());
    CpuFastBackend fast(2);
    fast.setMinParallelWork(0);
    fast.setRowBlock(8);
    const Expected<Trace> got = fast.compute(p, wts);
    QVERIFY(got.ok());
    for (const char* name : {"logits", "weights", "out"}) {
        const Tensor* a = ref->find(name);
        const Tensor* b = got->find(name);
        QVERIFY(a && b && a->size() == b->size());
        for (std::int64_t i = 0; i < a->size(); ++i)
            QVERIFY2(near(b->at(i), a->at(i), 1e-4), name);
    }

    // The pooled path's fused tile pass on this target (its register blocks are 8 rows on
    // AVX-512, 4 on the others; the online normalisers' exponential is its own): 47 rows make
    // groups of 8 and a last one of 7, a partial block on every target; softmax, L2 and exp
    // weigh keys over several tiles.
    for (const Normaliser norm : {Normaliser::Softmax, Normaliser::L2, Normaliser::Exp}) {
        Params q;
        q.scheme = Scheme::T5;
        q.n = 47;
        q.d = 40; // d_h 20: a partial vector
        q.heads = 2;
        q.norm = norm;
        q.mask = MaskKind::Causal;
        Weights w;
        completeWeights(q, w);
        const Expected<Trace> want = computeTrace(q, w);
        QVERIFY(want.ok());
        CpuFastBackend tiles(2);
        tiles.setMinParallelWork(0);
        tiles.setTileColumns(16);
        const PoolRequest request{9, PoolMode::Mean, false, {}};
        const Expected<PooledTrace> pooled = tiles.computePooled(q, w, request);
        QVERIFY(pooled.ok());
        const PoolRegion region = poolRegion(request, q.seqLen());
        const Tensor wantW = poolHeads(*want->find("weights"), region, 9, PoolMode::Mean);
        const Tensor wantL = poolHeads(*want->find("logits"), region, 9, PoolMode::Mean);
        QVERIFY(pooled->weights.size() == wantW.size() && pooled->logits.size() == wantL.size());
        for (std::int64_t i = 0; i < wantW.size(); ++i) {
            QVERIFY2(near(pooled->weights.at(i), wantW.at(i), 1e-5), "pooled weights");
            QVERIFY2(near(pooled->logits.at(i), wantL.at(i), 1e-5), "pooled logits");
        }
        // out within 1e-4 of its largest entry: exp's unnormalised weights add large terms
        // that cancel, so an entry's float32 error follows the tensor's scale, not its own.
        const Tensor* out = want->find("out");
        double outMax = 0.0;
        for (std::int64_t i = 0; i < out->size(); ++i)
            outMax = std::max(outMax, std::abs(out->at(i)));
        for (std::int64_t i = 0; i < out->size(); ++i)
            QVERIFY2(std::abs(pooled->out.at(i) - out->at(i)) <= 1e-4 * (1.0 + outMax),
                     qPrintable(QStringLiteral("pooled out, normaliser %1, entry %2: %3 against %4")
                                    .arg(static_cast<int>(norm))
                                    .arg(i)
                                    .arg(pooled->out.at(i))
                                    .arg(out->at(i))));
    }

    // The online normalisers' exponential on this target: every 61st float of [−104, 0]
    // against float64, 0 wherever e^x is no normal float, −∞ included. Within 0.97 ulp: the
    // degree-6 Horner form reads 0.881 where multiply-adds are fused, Cephes's form 0.959 where
    // they are not; the other pairings read 0.990 and 1.144 and fail, as a bad coefficient does.
    // (IEEE arithmetic: the same figures on every CPU that runs the target.)
    {
        std::vector<float> xs;
        for (std::uint32_t bits = 0x80000000u;; bits += 61u) {
            float x;
            std::memcpy(&x, &bits, sizeof x);
            if (!(x >= -104.0f))
                break;
            xs.push_back(x);
        }
        for (const float x : {0.0f, -1e-30f, -0.5f * std::log(2.0f), -87.3365f, -87.3366f, -104.0f,
                              -1e30f, -std::numeric_limits<float>::infinity()})
            xs.push_back(x);
        std::vector<float> ys(xs.size(), -1.0f);
        cpu::expNonPositive(xs.data(), ys.data(), xs.size());
        double worst = 0.0;
        float worstX = 0.0f;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const double e = std::exp(static_cast<double>(xs[i]));
            if (e < std::numeric_limits<float>::min()) {
                QVERIFY2(ys[i] >= 0.0f && ys[i] < std::numeric_limits<float>::min(),
                         qPrintable(QStringLiteral("e^%1 = %2").arg(xs[i]).arg(ys[i])));
                continue;
            }
            const float ef = static_cast<float>(e);
            const double ulp = double(std::nextafter(ef, 2.0f)) - double(ef);
            const double err = std::abs(double(ys[i]) - e) / ulp;
            if (err > worst) {
                worst = err;
                worstX = xs[i];
            }
        }
        qInfo("%s: exp within %.3f ulp over %zu points (worst at %.9g)", hwy::TargetName(target),
              worst, xs.size(), double(worstX));
        QVERIFY2(worst <= 0.97, qPrintable(QStringLiteral("%1 ulp at %2").arg(worst).arg(worstX)));
    }
}

void TestCpuDispatch::eigenGemmOnEveryBuild() {
    const int m = 37, n = 29, k = 70;
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> A(static_cast<std::size_t>(m) * k), B(static_cast<std::size_t>(k) * n),
        Bt(static_cast<std::size_t>(n) * k);
    for (float& v : A)
        v = u(rng);
    for (int r = 0; r < k; ++r)
        for (int c = 0; c < n; ++c)
            Bt[static_cast<std::size_t>(c) * k + r] = B[static_cast<std::size_t>(r) * n + c] =
                u(rng);
    int ran = 0;
    for (const cpu::EigenGemmVariant& v : cpu::eigenGemmVariants()) {
        if (!v.supported)
            continue;
        ++ran;
        std::vector<float> C1(static_cast<std::size_t>(m) * n), C2(C1.size());
        v.ab(m, n, k, 1.0f, A.data(), k, B.data(), n, 0.0f, C1.data(), n);
        v.abt(m, n, k, 1.0f, A.data(), k, Bt.data(), k, 0.0f, C2.data(), n);
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double want = 0.0;
                for (int r = 0; r < k; ++r)
                    want += double(A[static_cast<std::size_t>(i) * k + r]) *
                            B[static_cast<std::size_t>(r) * n + j];
                const auto at = static_cast<std::size_t>(i) * n + j;
                QVERIFY2(std::abs(C1[at] - want) < 1e-4, v.name);
                QVERIFY2(std::abs(C2[at] - want) < 1e-4, v.name);
            }
        // The Gram matrix's lower triangle of A (as doubles, with a row stride past its width)
        // in two row bands; the strict upper triangle keeps what it held.
        std::vector<double> Ad(A.begin(), A.end());
        std::vector<double> G(static_cast<std::size_t>(m) * (m + 3), -7.0);
        v.gramLowerRows(0, 11, k - 1, Ad.data(), k, G.data(), m + 3);
        v.gramLowerRows(11, m, k - 1, Ad.data(), k, G.data(), m + 3);
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < m; ++j) {
                double want = -7.0;
                if (j <= i) {
                    want = 0.0;
                    for (int r = 0; r < k - 1; ++r)
                        want += Ad[static_cast<std::size_t>(i) * k + r] *
                                Ad[static_cast<std::size_t>(j) * k + r];
                }
                QVERIFY2(std::abs(G[static_cast<std::size_t>(i) * (m + 3) + j] - want) < 1e-12,
                         v.name);
            }
    }
    QVERIFY(ran >= 1);
}

QTEST_GUILESS_MAIN(TestCpuDispatch)
#include "tst_cpu_dispatch.moc"
