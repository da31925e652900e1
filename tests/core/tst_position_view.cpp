// SPDX-License-Identifier: MIT
// positionView: what each scheme has in place of P, checked against the weights and the
// encodings it is made of (T5 table and buckets, ALiBi slopes, Shaw tables, RoPE angles, …).
#include <QTest>

#include <cmath>

#include "encodings.h"
#include "position_view.h"
#include "weights.h"

using namespace pe;

namespace {

Params make(Scheme s, int n = 16, int d = 32, int heads = 4) {
    Params p;
    p.scheme = s;
    p.n = n;
    p.d = d;
    p.heads = heads;
    p.seed = 7;
    return p;
}

Weights weightsFor(const Params& p) {
    Weights w;
    completeWeights(p, w);
    return w;
}

/** Column of a map (or point of a curve) at coordinate x: (x − start) / step, which must be whole.
 */
int at(double x, double start, double step) {
    const double k = (x - start) / step;
    Q_ASSERT(k == std::floor(k));
    return static_cast<int>(k);
}

} // namespace

class TestPositionView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everySchemeSaysWherePositionEnters_data();
    void everySchemeSaysWherePositionEnters();
    void t5TableAndBuckets();
    void alibiSlopesAgainstDistance();
    void alibiCausalKeepsPastKeys();
    void shawTables();
    void ropeAngles();
    void debertaIndexCurve();
    void transformerXlClamps();
    void urpeTable();
    void longSequencesAreSampled();
    void tablesOfTheWrongShapeAreLeftOut();
};

void TestPositionView::everySchemeSaysWherePositionEnters_data() {
    QTest::addColumn<int>("scheme");
    QTest::addColumn<bool>("relative");
    for (Scheme s : allSchemes()) {
        const bool absolute = s == Scheme::Sinusoidal || s == Scheme::Learned || s == Scheme::Mlp ||
                              s == Scheme::None;
        QTest::newRow(std::string(toString(s)).c_str()) << int(s) << !absolute;
    }
}

void TestPositionView::everySchemeSaysWherePositionEnters() {
    QFETCH(int, scheme);
    QFETCH(bool, relative);
    const Params p = make(Scheme(scheme));
    const PositionView v = positionView(p, weightsFor(p));
    QVERIFY(!v.where.empty());
    QVERIFY(v.where.find("position") != std::string::npos ||
            v.where.find("Position") != std::string::npos);
    if (!relative) { // P (or nothing) is in the trace: no tables here
        QVERIFY(v.maps.empty());
        QVERIFY(v.curves.curves.empty());
        return;
    }
    QVERIFY(!v.maps.empty());
    QVERIFY(v.maps.size() <= 2);
    for (const PositionMap& m : v.maps) {
        QVERIFY(m.values.size() > 0);
        QVERIFY(m.values.allFinite());
        QVERIFY(!m.title.empty() && !m.xTitle.empty() && !m.yTitle.empty());
        QVERIFY(m.values.maxCoeff() > m.values.minCoeff()); // something to see
    }
    QVERIFY(!v.curves.curves.empty());
    for (const PositionCurve& c : v.curves.curves)
        QVERIFY(c.y.size() > 1);
}

void TestPositionView::t5TableAndBuckets() {
    Params p = make(Scheme::T5, 40);
    p.buckets = 16;
    p.maxDistance = 32;
    const Weights w = weightsFor(p);
    const PositionView v = positionView(p, w);
    QCOMPARE(v.maps.size(), std::size_t(2));
    QVERIFY(v.maps[0].values.isApprox(w.t5Table.transpose()));
    const PositionMap& byDistance = v.maps[1];
    QCOMPARE(byDistance.values.rows(), Eigen::Index(p.heads));
    QCOMPARE(byDistance.values.cols(), Eigen::Index(2 * 40 - 1));
    QCOMPARE(byDistance.colStart, -39.0);
    for (int r : {-39, -5, 0, 3, 39})
        for (int h = 0; h < p.heads; ++h)
            QCOMPARE(byDistance.values(h, at(r, byDistance.colStart, byDistance.colStep)),
                     w.t5Table(t5Bucket(r, true, 16, 32), h));
    const PositionCurve& bucket = v.curves.curves.at(0);
    QCOMPARE(bucket.y[static_cast<std::size_t>(at(0, v.curves.xStart, v.curves.xStep))], 0.0);
    QCOMPARE(bucket.y[static_cast<std::size_t>(at(1, v.curves.xStart, v.curves.xStep))],
             double(t5Bucket(1, true, 16, 32)));
}

void TestPositionView::alibiSlopesAgainstDistance() {
    const Params p = make(Scheme::ALiBi, 16, 64, 8); // slopes 2^-1 … 2^-8
    const PositionView v = positionView(p, weightsFor(p));
    const PositionMap& m = v.maps.at(0);
    QCOMPARE(m.values.rows(), Eigen::Index(8));
    QCOMPARE(m.colStart, -15.0);
    QCOMPARE(m.values(0, at(-3, m.colStart, m.colStep)), -1.5);
    QCOMPARE(m.values(0, at(3, m.colStart, m.colStep)), -1.5);
    QCOMPARE(m.values(7, at(-8, m.colStart, m.colStep)), -8.0 / 256.0);
    QCOMPARE(m.values.col(at(0, m.colStart, m.colStep)).cwiseAbs().maxCoeff(), 0.0);
    QCOMPARE(v.curves.curves.size(), std::size_t(8));
    QCOMPARE(QString::fromStdString(v.curves.curves[0].name), QStringLiteral("head 0, m = 0.5"));
}

void TestPositionView::alibiCausalKeepsPastKeys() {
    Params p = make(Scheme::ALiBi, 10, 32, 4);
    p.alibiMode = AlibiMode::Causal;
    p.mask = MaskKind::Causal;
    const PositionView v = positionView(p, weightsFor(p));
    const PositionMap& m = v.maps.at(0);
    QCOMPARE(m.values.cols(), Eigen::Index(10)); // j − i = −9 … 0
    QCOMPARE(m.colStart, -9.0);
    const double m0 = alibiSlopes(4)[0];
    QCOMPARE(m.values(0, 0), -9.0 * m0); // −m (i − j), i − j = 9
    QCOMPARE(m.values(0, 9), 0.0);
    QVERIFY(m.values.maxCoeff() <= 0.0);
    QCOMPARE(v.curves.curves[0].y.size(), std::size_t(10));
}

void TestPositionView::shawTables() {
    Params p = make(Scheme::Shaw, 20);
    p.clip = 4;
    const Weights w = weightsFor(p);
    const PositionView v = positionView(p, w);
    QCOMPARE(v.maps.size(), std::size_t(2));
    QVERIFY(v.maps[0].values == w.shawWk);
    QVERIFY(v.maps[1].values == w.shawWv);
    QCOMPARE(v.maps[0].rowStart, -4.0);
    // Beyond ±k the key table's last row holds: the curve is flat there.
    const PositionCurve& col0 = v.curves.curves.at(0);
    QCOMPARE(col0.y[static_cast<std::size_t>(at(19, v.curves.xStart, v.curves.xStep))],
             w.shawWk(8, 0));
    QCOMPARE(col0.y[static_cast<std::size_t>(at(-7, v.curves.xStart, v.curves.xStep))],
             w.shawWk(0, 0));
    QCOMPARE(col0.y[static_cast<std::size_t>(at(2, v.curves.xStart, v.curves.xStep))],
             w.shawWk(6, 0));
}

void TestPositionView::ropeAngles() {
    Params p = make(Scheme::RoPE, 32, 32, 2); // d_h = 16, 8 pairs, θ_0 = 1
    PositionView v = positionView(p, weightsFor(p));
    const PositionMap& a = v.maps.at(0);
    QCOMPARE(a.values.rows(), Eigen::Index(32));
    QCOMPARE(a.values.cols(), Eigen::Index(8));
    QCOMPARE(a.values(1, 0), 1.0);                                // 1·θ_0
    QVERIFY(std::abs(a.values(4, 0) - (4.0 - 2 * M_PI)) < 1e-12); // wrapped
    QVERIFY(a.values.maxCoeff() <= M_PI && a.values.minCoeff() >= -M_PI);
    QCOMPARE(v.curves.curves.at(0).y.at(0), 1.0); // the kernel at distance 0
    QVERIFY(v.curves.curves.at(0).y.at(20) < 0.9);
    // Position interpolation by s = 2 halves every angle.
    p.ropeScaling = RopeScaling::PI;
    p.ropeScale = 2.0;
    v = positionView(p, weightsFor(p));
    QCOMPARE(v.maps.at(0).values(2, 0), 1.0);
}

void TestPositionView::debertaIndexCurve() {
    Params p = make(Scheme::DeBERTa, 24);
    p.clip = 5;
    const Weights w = weightsFor(p);
    const PositionView v = positionView(p, w);
    QVERIFY(v.maps.at(0).values == w.debertaRel);
    QVERIFY(v.maps.at(1).values.isApprox(w.debertaRel * w.debertaWkr));
    const PositionCurve& idx = v.curves.curves.at(0);
    for (int r : {-23, -5, 0, 4, 23})
        QCOMPARE(idx.y[static_cast<std::size_t>(at(r, v.curves.xStart, v.curves.xStep))],
                 double(debertaIndex(r, p)));
}

void TestPositionView::transformerXlClamps() {
    Params p = make(Scheme::TransformerXL, 16);
    p.txlClampLen = 3;
    const PositionView v = positionView(p, weightsFor(p));
    const PositionMap& r = v.maps.at(0);
    QCOMPARE(r.rowStart, -15.0);
    const auto row = [&](int t) { return r.values.row(at(t, r.rowStart, r.rowStep)); };
    QVERIFY((row(0) - txlRelativeSinusoid(0, 32)).norm() < 1e-15);
    QVERIFY((row(10) - txlRelativeSinusoid(3, 32)).norm() < 1e-15); // clamped
    QVERIFY((row(-10) - txlRelativeSinusoid(-10, 32)).norm() < 1e-15);
    QVERIFY((row(10) - row(3)).norm() < 1e-15);
}

void TestPositionView::urpeTable() {
    const Params p = make(Scheme::URPE, 12);
    const Weights w = weightsFor(p);
    const PositionView v = positionView(p, w);
    const PositionMap& c = v.maps.at(0);
    QCOMPARE(c.values.cols(), Eigen::Index(23));
    for (int r : {-11, 0, 7})
        QCOMPARE(c.values(2, at(r, c.colStart, c.colStep)), w.urpeC(2, r + 11));
    QCOMPARE(v.curves.curves.size(), std::size_t(4));
}

void TestPositionView::longSequencesAreSampled() {
    Params p = make(Scheme::RoPE, 16384, 64, 2);
    PositionView v = positionView(p, weightsFor(p));
    QVERIFY(v.maps.at(0).values.rows() <= kPositionViewMaxRows);
    QCOMPARE(v.maps.at(0).rowStep, 16.0);
    QVERIFY(v.curves.curves.at(0).y.size() <= std::size_t(kPositionViewMaxPoints));
    // Row r is position r·step: its angle is that position's.
    QCOMPARE(v.maps.at(0).values.cols(), Eigen::Index(16)); // d_h = 32: 16 pairs
    QCOMPARE(v.maps.at(0).values(1, 15),
             std::remainder(16.0 * std::pow(10000.0, -30.0 / 32.0), 2 * M_PI));
    p = make(Scheme::T5, 16384, 64, 2);
    const Weights w = weightsFor(p);
    v = positionView(p, w);
    const PositionMap& m = v.maps.at(1);
    QVERIFY(m.values.cols() <= kPositionViewMaxPoints);
    QVERIFY(m.colStep > 1);
    QCOMPARE(m.values(1, at(0, m.colStart, m.colStep)), w.t5Table(0, 1)); // 0 is sampled
}

void TestPositionView::tablesOfTheWrongShapeAreLeftOut() {
    const Params p = make(Scheme::Shaw);
    Weights w = weightsFor(p);
    w.shawWk.resize(3, 3);
    const PositionView v = positionView(p, w);
    QCOMPARE(v.maps.size(), std::size_t(1)); // a^V only
    QCOMPARE(QString::fromStdString(v.maps[0].valueTitle), QStringLiteral("a^V"));
    QVERIFY(v.curves.curves.empty());
    QVERIFY(!v.where.empty());
}

QTEST_GUILESS_MAIN(TestPositionView)
#include "tst_position_view.moc"
