// SPDX-License-Identifier: MIT
// The fast CPU engine's pooled path (row blocks streamed into pooled cells, no n×n stored) equals
// pooling the reference trace: every scheme, mean and max, masks, the whole matrix and tiles;
// a tile no larger than the resolution is the exact slice of the full logits and weights.

#include <QTest>

#include <cmath>

#include "cpu_fast_backend.h"
#include "pooling.h"
#include "trace.h"
#include "weights.h"

using namespace pe;

Q_DECLARE_METATYPE(pe::Params)
Q_DECLARE_METATYPE(pe::PoolRequest)

namespace {

/** Equal within 2e-5 · (1 + max|ref|), infinities at the same places. */
QString compare(const char* name, const Tensor& ref, const Tensor& got) {
    if (ref.shape() != got.shape())
        return QStringLiteral("%1: shape %2 vs %3")
            .arg(QLatin1String(name), QString::fromStdString(ref.shapeString()),
                 QString::fromStdString(got.shapeString()));
    double maxRef = 0;
    for (std::int64_t i = 0; i < ref.size(); ++i)
        if (std::isfinite(ref.at(i)))
            maxRef = std::max(maxRef, std::abs(ref.at(i)));
    const double tol = 2e-5 * (1 + maxRef);
    for (std::int64_t i = 0; i < ref.size(); ++i) {
        const double a = ref.at(i), b = got.at(i);
        if ((std::isinf(a) || std::isinf(b)) ? a != b : !(std::abs(a - b) <= tol))
            return QStringLiteral("%1[%2]: ref %3, pooled %4")
                .arg(QLatin1String(name))
                .arg(i)
                .arg(a, 0, 'g', 9)
                .arg(b, 0, 'g', 9);
    }
    return {};
}

Params base(Scheme s, int maskKind) {
    Params p;
    p.scheme = s;
    p.n = 37;
    p.d = 16;
    p.heads = 2;
    p.cls = true;
    p.sep = true;
    p.clip = 3;
    p.seed = 11;
    p.buckets = 8;
    p.maxDistance = 16;
    p.debertaBuckets = 8;
    p.debertaMaxPosition = 16;
    if (maskKind == 1)
        p.mask = MaskKind::Causal;
    if (maskKind == 2)
        p.validLen = p.seqLen() - 6;
    if (s == Scheme::ALiBi && maskKind == 1)
        p.alibiMode = AlibiMode::Causal;
    return p;
}

} // namespace

class TestCpuPooled : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void equalsPoolingTheFullTrace_data();
    void equalsPoolingTheFullTrace();
    void smallTileIsTheExactSlice();
    void badRequestsAreErrors();
    void cancelStops();
};

void TestCpuPooled::equalsPoolingTheFullTrace_data() {
    QTest::addColumn<Params>("params");
    QTest::addColumn<PoolRequest>("request");
    const char* masks[] = {"none", "causal", "validlen"};
    for (Scheme s : allSchemes())
        for (PoolMode mode : {PoolMode::Mean, PoolMode::Max})
            for (int m = 0; m < 3; ++m) {
                const std::string tag = std::string(toString(s)) + "/" +
                                        (mode == PoolMode::Mean ? "mean" : "max") + "/" + masks[m];
                PoolRequest whole{8, mode, false, {}};
                QTest::newRow((tag + "/whole").c_str()) << base(s, m) << whole;
                // A tile larger than the resolution: pooled over the tile only.
                PoolRequest tile{6, mode, true, PoolRegion{5, 30, 2, 39}};
                QTest::newRow((tag + "/tile").c_str()) << base(s, m) << tile;
            }
    Params p = base(Scheme::DeBERTa, 0);
    p.debertaC2P = false;
    QTest::newRow("deberta/p2c-only") << p << PoolRequest{7, PoolMode::Mean, false, {}};
    p = base(Scheme::URPE, 1);
    p.urpeBias = UrpeBias::T5;
    QTest::newRow("urpe/t5-bias") << p << PoolRequest{7, PoolMode::Max, false, {}};
    p = base(Scheme::T5, 0);
    QTest::newRow("t5/resolution-above-n") << p << PoolRequest{100, PoolMode::Mean, false, {}};
}

void TestCpuPooled::equalsPoolingTheFullTrace() {
    QFETCH(Params, params);
    QFETCH(PoolRequest, request);
    Weights w;
    completeWeights(params, w);
    const Expected<Trace> ref = computeTrace(params, w);
    QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().message.c_str());
    CpuFastBackend fast(3);
    fast.setRowBlock(5); // blocks that straddle pooled cells
    fast.setMinParallelWork(0);
    const Expected<PooledTrace> got = fast.computePooled(params, w, request);
    QVERIFY2(got.ok(), got.ok() ? "" : got.error().message.c_str());
    const PoolRegion region = poolRegion(request, params.seqLen());
    QCOMPARE(got->region, region);
    QCOMPARE(got->mode, request.mode);
    for (const char* name : {"logits", "weights"}) {
        const Tensor expected =
            poolHeads(*ref->find(name), region, request.resolution, request.mode);
        const QString diff =
            compare(name, expected, name == std::string("logits") ? got->logits : got->weights);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }
    // The O(n·d) tensors come whole (for whole-matrix requests); nothing n×n is kept.
    if (request.hasTile) {
        QVERIFY(got->trace.tensors.empty());
        return;
    }
    QVERIFY(!got->trace.find("logits") && !got->trace.find("rel_index"));
    for (const std::string& name : pooledTraceTensorNames(params)) {
        const Tensor* t = got->trace.find(name);
        QVERIFY2(t, name.c_str());
        const QString diff = compare(name.c_str(), *ref->find(name), *t);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }
    QVERIFY(compare("out", *ref->find("out"), got->out).isEmpty());
}

void TestCpuPooled::smallTileIsTheExactSlice() {
    for (Scheme s : {Scheme::Shaw, Scheme::TransformerXL, Scheme::ALiBi}) {
        const Params p = base(s, 1);
        Weights w;
        completeWeights(p, w);
        const Expected<Trace> ref = computeTrace(p, w);
        QVERIFY(ref.ok());
        const PoolRegion t{7, 19, 3, 25}; // 12 × 22, under the resolution
        CpuFastBackend fast(2);
        fast.setRowBlock(4);
        const Expected<PooledTrace> got =
            fast.computePooled(p, w, PoolRequest{32, PoolMode::Max, true, t});
        QVERIFY(got.ok());
        QCOMPARE(got->weights.shape(), (std::vector<std::int64_t>{2, 12, 22}));
        const Tensor& full = *ref->find("weights");
        const int N = p.seqLen();
        double worst = 0;
        for (int h = 0; h < 2; ++h)
            for (int i = t.r0; i < t.r1; ++i)
                for (int j = t.c0; j < t.c1; ++j) {
                    const double a = full.at((static_cast<std::int64_t>(h) * N + i) * N + j);
                    const double b = got->weights.at(
                        (static_cast<std::int64_t>(h) * 12 + (i - t.r0)) * 22 + (j - t.c0));
                    worst = std::max(worst, std::abs(a - b));
                }
        QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst)));
    }
}

void TestCpuPooled::badRequestsAreErrors() {
    const Params p = base(Scheme::None, 0);
    Weights w;
    completeWeights(p, w);
    CpuFastBackend fast(1);
    const auto zero = fast.computePooled(p, w, PoolRequest{0, PoolMode::Mean, false, {}});
    QVERIFY(!zero.ok());
    QVERIFY(zero.error().message.find("--pool") != std::string::npos);
    const auto outside =
        fast.computePooled(p, w, PoolRequest{8, PoolMode::Mean, true, PoolRegion{0, 50, 0, 4}});
    QVERIFY(!outside.ok());
    QVERIFY(outside.error().message.find("tile") != std::string::npos);
}

void TestCpuPooled::cancelStops() {
    const Params p = base(Scheme::T5, 0);
    Weights w;
    completeWeights(p, w);
    CpuFastBackend fast(2);
    const std::atomic<bool> cancel{true};
    const auto got = fast.computePooled(p, w, PoolRequest{}, &cancel);
    QVERIFY(!got.ok());
    QCOMPARE(QString::fromStdString(got.error().message), QStringLiteral("cancelled"));
}

QTEST_GUILESS_MAIN(TestCpuPooled)
#include "tst_cpu_pooled.moc"
