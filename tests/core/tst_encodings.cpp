// SPDX-License-Identifier: MIT
// Known answers of SPEC-encodings.md §1, §5, §6, §8, §9 and the sinusoid/RoPE properties.
#include <QTest>

#include <cmath>

#include "encodings.h"

using namespace pe;

class TestEncodings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void t5Bidirectional_data();
    void t5Bidirectional();
    void t5Unidirectional_data();
    void t5Unidirectional();
    void t5Float32Boundary();
    void debertaLogBucket_data();
    void debertaLogBucket();
    void debertaIndexV1();
    void alibiSlopes_data();
    void alibiSlopes();
    void urpeOfficialBuckets();
    void sinusoidValues();
    void sinusoidOddWidth();
    void sinusoidT2TLadder();
    void sinusoidLinearShift();
    void sinusoidRelativeDot();
    void sinusoidLayoutsArePermutation();
    void ropeConventionsPermute();
    void ropeIsOrthogonalAndComposes();
    void shawIndex();
    void txlSinusoidRowsAreTheSinusoidInFloat();
    void sinusoidRowRangesAreTheTable_data();
    void sinusoidRowRangesAreTheTable();
    void mlpFourierFeatures();
    void mlpKnownValues_data();
    void mlpKnownValues();
    void mlpDefinedAtEveryPosition();
    void ropeScaledAngles_data();
    void ropeScaledAngles();
    void ropeNtkBase();
    void ropePiIsUnscaledAtDividedPosition();
    void ropeScaledStaysRelative();
};

void TestEncodings::t5Bidirectional_data() {
    QTest::addColumn<int>("rel");
    QTest::addColumn<int>("bucket");
    const int cases[][2] = {{0, 0},    {-1, 1},   {-7, 7},   {-8, 8},    {-12, 9},    {-16, 10},
                            {-32, 12}, {-50, 13}, {-64, 14}, {-100, 15}, {-5000, 15}, {1, 17},
                            {7, 23},   {8, 24},   {16, 26},  {64, 30},   {127, 31},   {9999, 31}};
    for (const auto& c : cases)
        QTest::addRow("rel %d", c[0]) << c[0] << c[1];
}

void TestEncodings::t5Bidirectional() {
    QFETCH(int, rel);
    QFETCH(int, bucket);
    QCOMPARE(t5Bucket(rel, true, 32, 128), bucket);
}

void TestEncodings::t5Unidirectional_data() {
    QTest::addColumn<int>("rel");
    QTest::addColumn<int>("bucket");
    const int cases[][2] = {{1, 0},    {50, 0},   {0, 0},     {-15, 15},  {-16, 16},
                            {-20, 17}, {-32, 21}, {-100, 30}, {-127, 31}, {-20000, 31}};
    for (const auto& c : cases)
        QTest::addRow("rel %d", c[0]) << c[0] << c[1];
}

void TestEncodings::t5Unidirectional() {
    QFETCH(int, rel);
    QFETCH(int, bucket);
    QCOMPARE(t5Bucket(rel, false, 32, 128), bucket);
}

void TestEncodings::t5Float32Boundary() {
    // SPEC §5: 32 buckets, max_distance 50, rel −20 is 12 in float32 and 11 in float64.
    // The float64 value depends on the libm: numpy's log lands one ulp below 4 (→ 11), glibc's
    // on 4 exactly, so only the float32 value is pinned.
    QCOMPARE(t5Bucket(-20, true, 32, 50), 12);
    // float32 and float64 agree for the default settings on |rel| <= 20000.
    for (int rel = -20000; rel <= 20000; rel += 7) {
        QCOMPARE(t5Bucket(rel, true, 32, 128), t5BucketF64(rel, true, 32, 128));
        QCOMPARE(t5Bucket(rel, true, 64, 128), t5BucketF64(rel, true, 64, 128));
    }
}

void TestEncodings::debertaLogBucket_data() {
    QTest::addColumn<int>("rel");
    QTest::addColumn<int>("bucket");
    const int cases[][2] = {{0, 0},     {5, 5},     {128, 128}, {129, 129}, {200, 169},
                            {256, 192}, {300, 207}, {400, 233}, {511, 255}};
    for (const auto& c : cases) {
        QTest::addRow("rel %d", c[0]) << c[0] << c[1];
        QTest::addRow("rel %d", -c[0]) << -c[0] << -c[1]; // odd function
    }
}

void TestEncodings::debertaLogBucket() {
    QFETCH(int, rel);
    QFETCH(int, bucket);
    QCOMPARE(pe::debertaLogBucket(rel, 256, 512), bucket);
}

void TestEncodings::debertaIndexV1() {
    // δ(i,j): 0 if i−j <= −k, 2k−1 if i−j >= k, else i−j+k.
    Params p;
    p.clip = 4;
    QCOMPARE(debertaIndex(-10, p), 0);
    QCOMPARE(debertaIndex(-4, p), 0);
    QCOMPARE(debertaIndex(-3, p), 1);
    QCOMPARE(debertaIndex(0, p), 4);
    QCOMPARE(debertaIndex(3, p), 7);
    QCOMPARE(debertaIndex(4, p), 7);
    QCOMPARE(debertaIndex(100, p), 7);
}

void TestEncodings::alibiSlopes_data() {
    QTest::addColumn<int>("heads");
    QTest::addColumn<QList<double>>("log2Slopes");
    QTest::newRow("h=8") << 8 << QList<double>{-1, -2, -3, -4, -5, -6, -7, -8};
    QTest::newRow("h=12") << 12
                          << QList<double>{-1, -2, -3, -4, -5, -6, -7, -8, -0.5, -1.5, -2.5, -3.5};
    QTest::newRow("h=6") << 6 << QList<double>{-2, -4, -6, -8, -1, -3};
    QTest::newRow("h=1") << 1 << QList<double>{-8};
    QTest::newRow("h=2") << 2 << QList<double>{-4, -8};
}

void TestEncodings::alibiSlopes() {
    QFETCH(int, heads);
    QFETCH(QList<double>, log2Slopes);
    const std::vector<double> s = pe::alibiSlopes(heads);
    QCOMPARE(int(s.size()), heads);
    for (int k = 0; k < heads; ++k) {
        const double want = std::pow(2.0, log2Slopes[k]);
        if (heads <= 8)
            QCOMPARE(s[size_t(k)], want); // exact powers of two
        else
            QVERIFY2(std::abs(s[size_t(k)] - want) <= 1e-12 * want, qPrintable(QString::number(k)));
    }
    // Closed form 2^(−8k/h) for powers of two up to 128, within 1e-12 relative.
    for (int h : {16, 32, 64, 128}) {
        const auto sl = pe::alibiSlopes(h);
        for (int k = 1; k <= h; ++k) {
            const double want = std::pow(2.0, -8.0 * k / h);
            QVERIFY(std::abs(sl[size_t(k - 1)] - want) <= 1e-12 * want);
        }
    }
}

void TestEncodings::urpeOfficialBuckets() {
    const int L = 512;
    const std::vector<int> b = pe::urpeOfficialBuckets(L);
    auto at = [&](int i, int j) { return b[size_t(i) * L + size_t(j)]; };
    QCOMPARE(at(100, 100), 33);                          // rel 0
    QCOMPARE(at(100, 99), 30);                           // rel −1
    QCOMPARE(at(100, 101), 34);                          // rel +1
    QCOMPARE(at(511, 0), 0);                             // rel −511
    QCOMPARE(at(0, 511), 64);                            // rel +511
    QCOMPARE(*std::max_element(b.begin(), b.end()), 64); // 65 rows
}

void TestEncodings::sinusoidValues() {
    const Eigen::MatrixXd pe = sinusoidal(8, 4, 10000.0, SinLayout::Interleaved);
    QCOMPARE(pe(0, 0), 0.0);
    QCOMPARE(pe(0, 1), 1.0);
    QVERIFY(std::abs(pe(1, 0) - std::sin(1.0)) < 1e-15);
    QVERIFY(std::abs(pe(1, 1) - std::cos(1.0)) < 1e-15);
    QVERIFY(std::abs(pe(3, 2) - std::sin(0.03)) < 1e-15); // ω_1 = 10000^(−2/4) = 0.01
    QVERIFY(std::abs(pe(3, 3) - std::cos(0.03)) < 1e-15);
    const Eigen::MatrixXd c = sinusoidal(8, 4, 10000.0, SinLayout::Concat);
    QVERIFY(std::abs(c(3, 1) - std::sin(0.03)) < 1e-15);
    QVERIFY(std::abs(c(3, 3) - std::cos(0.03)) < 1e-15);
    // A large position keeps double accuracy (SPEC §1 pitfall).
    const Eigen::MatrixXd big = sinusoidal(1, 2, 10000.0, SinLayout::Interleaved, 12345.0);
    QVERIFY(std::abs(big(0, 0) - std::sin(12345.0)) < 1e-12);
}

void TestEncodings::sinusoidOddWidth() {
    // Interleaved with odd d: the last column is a sine with ω = base^(−(d−1)/d).
    const int d = 5;
    const Eigen::MatrixXd pe = sinusoidal(4, d, 10000.0, SinLayout::Interleaved);
    const double w = std::pow(10000.0, -4.0 / 5.0);
    QVERIFY(std::abs(pe(3, 4) - std::sin(3 * w)) < 1e-15);
    // t2t with odd d: [sin | cos | 0].
    const Eigen::MatrixXd t = sinusoidal(4, d, 10000.0, SinLayout::T2T);
    for (int p = 0; p < 4; ++p)
        QCOMPARE(t(p, 4), 0.0);
}

void TestEncodings::sinusoidT2TLadder() {
    // K = 3: ω = 1, 10^−2, 10^−4 — the ladder ends exactly at 1/base.
    const Eigen::MatrixXd t = sinusoidal(3, 6, 10000.0, SinLayout::T2T);
    QVERIFY(std::abs(t(2, 0) - std::sin(2.0)) < 1e-15);
    QVERIFY(std::abs(t(2, 1) - std::sin(2e-2)) < 1e-15);
    QVERIFY(std::abs(t(2, 2) - std::sin(2e-4)) < 1e-15);
    QVERIFY(std::abs(t(2, 5) - std::cos(2e-4)) < 1e-15);
}

void TestEncodings::sinusoidLinearShift() {
    const int n = 40, d = 16, k = 5;
    const Eigen::MatrixXd pe = sinusoidal(n + k, d, 10000.0, SinLayout::Interleaved);
    for (int m = 0; m < d / 2; ++m) {
        const double w = std::pow(10000.0, -2.0 * m / d);
        Eigen::Matrix2d M;
        M << std::cos(w * k), std::sin(w * k), -std::sin(w * k), std::cos(w * k);
        for (int p = 0; p < n; ++p) {
            // (sin, cos) at p+k from (sin, cos) at p
            const Eigen::Vector2d shifted = M * Eigen::Vector2d(pe(p, 2 * m), pe(p, 2 * m + 1));
            QVERIFY(std::abs(shifted(0) - pe(p + k, 2 * m)) < 1e-12);
            QVERIFY(std::abs(shifted(1) - pe(p + k, 2 * m + 1)) < 1e-12);
        }
    }
}

void TestEncodings::sinusoidRelativeDot() {
    const Eigen::MatrixXd pe = sinusoidal(64, 32, 10000.0, SinLayout::Interleaved);
    const Eigen::MatrixXd g = pe * pe.transpose();
    for (int p = 0; p + 1 < 64; ++p)
        for (int q = 0; q + 1 < 64; ++q)
            QVERIFY(std::abs(g(p, q) - g(p + 1, q + 1)) < 1e-12);
}

void TestEncodings::sinusoidLayoutsArePermutation() {
    const int d = 10;
    const Eigen::MatrixXd a = sinusoidal(20, d, 500.0, SinLayout::Interleaved);
    const Eigen::MatrixXd b = sinusoidal(20, d, 500.0, SinLayout::Concat);
    for (int m = 0; m < d / 2; ++m) {
        QVERIFY((a.col(2 * m) - b.col(m)).cwiseAbs().maxCoeff() < 1e-15);
        QVERIFY((a.col(2 * m + 1) - b.col(d / 2 + m)).cwiseAbs().maxCoeff() < 1e-15);
    }
}

void TestEncodings::ropeConventionsPermute() {
    // half(x[P]) = interleaved(x)[P], P = [0,2,4,…,1,3,5,…].
    const int n = 9, dh = 8;
    const Eigen::MatrixXd x = Eigen::MatrixXd::Random(n, dh);
    std::vector<double> pos(n);
    for (int i = 0; i < n; ++i)
        pos[size_t(i)] = i * 3.0;
    Eigen::MatrixXd inter = x;
    applyRope(inter, pos, 10000.0, RopeConvention::Interleaved, dh);
    Eigen::MatrixXd xp(n, dh);
    std::vector<int> P;
    for (int c = 0; c < dh; c += 2)
        P.push_back(c);
    for (int c = 1; c < dh; c += 2)
        P.push_back(c);
    for (int c = 0; c < dh; ++c)
        xp.col(c) = x.col(P[size_t(c)]);
    Eigen::MatrixXd half = xp;
    applyRope(half, pos, 10000.0, RopeConvention::Half, dh);
    for (int c = 0; c < dh; ++c)
        QVERIFY((half.col(c) - inter.col(P[size_t(c)])).cwiseAbs().maxCoeff() < 1e-14);
}

void TestEncodings::ropeIsOrthogonalAndComposes() {
    const int dh = 6;
    Eigen::MatrixXd q = Eigen::MatrixXd::Random(1, dh), k = Eigen::MatrixXd::Random(1, dh);
    for (RopeConvention conv : {RopeConvention::Interleaved, RopeConvention::Half}) {
        // (R_m q)·(R_n k) = (R_{m−n} q)·k
        for (auto [m, n] : {std::pair{7.0, 3.0}, std::pair{100.0, 57.0}, std::pair{2.0, 9.0}}) {
            Eigen::MatrixXd qm = q, kn = k, qd = q;
            applyRope(qm, {m}, 10000.0, conv, dh);
            applyRope(kn, {n}, 10000.0, conv, dh);
            applyRope(qd, {m - n}, 10000.0, conv, dh);
            QVERIFY(std::abs(qm.row(0).dot(kn.row(0)) - qd.row(0).dot(k.row(0))) < 1e-12);
            QVERIFY(std::abs(qm.norm() - q.norm()) < 1e-12);
        }
    }
    // Partial rotary leaves the tail untouched.
    Eigen::MatrixXd x = Eigen::MatrixXd::Random(1, 8);
    Eigen::MatrixXd y = x;
    applyRope(y, {5.0}, 10000.0, RopeConvention::Half, 4);
    QCOMPARE(y(0, 4), x(0, 4));
    QCOMPARE(y(0, 7), x(0, 7));
    QVERIFY(y(0, 0) != x(0, 0));
}

void TestEncodings::shawIndex() {
    QCOMPARE(pe::shawIndex(5, 5, 2), 2);
    QCOMPARE(pe::shawIndex(5, 6, 2), 3); // key right of query: rows k+1…2k
    QCOMPARE(pe::shawIndex(5, 9, 2), 4);
    QCOMPARE(pe::shawIndex(5, 4, 2), 1); // key left: rows 0…k−1
    QCOMPARE(pe::shawIndex(5, 0, 2), 0);
    QCOMPARE(pe::shawIndex(5, 0, 0), 0);
}

void TestEncodings::mlpFourierFeatures() {
    // F = 2, base 100: ω_0 = 1, ω_1 = 100^(−1/2) = 0.1; φ = [sin pω_0, cos pω_0, sin pω_1, …].
    const Eigen::MatrixXd phi = pe::mlpFourierFeatures(4, 2, 100.0);
    QCOMPARE(phi.rows(), Eigen::Index(4));
    QCOMPARE(phi.cols(), Eigen::Index(4));
    QCOMPARE(phi(3, 0), std::sin(3.0));
    QCOMPARE(phi(3, 1), std::cos(3.0));
    QVERIFY(std::abs(phi(3, 2) - std::sin(0.3)) < 1e-15);
    QVERIFY(std::abs(phi(3, 3) - std::cos(0.3)) < 1e-15);
    QCOMPARE(phi(0, 0), 0.0);
    QCOMPARE(phi(0, 3), 1.0);
}

namespace {
// W1 [2F = 2, H = 2], b1 [1, 2], W2 [2, d = 2], b2 [1, 2]; F = 1 so ω_0 = 1 for every base.
struct TinyMlp {
    Eigen::MatrixXd W1{{1.0, 0.0}, {2.0, -1.0}}, b1{{0.5, 0.0}}, W2{{1.0, -1.0}, {0.5, 0.0}},
        b2{{0.0, 0.25}};
};
} // namespace

void TestEncodings::mlpKnownValues_data() {
    // By hand: z = [sin p + 2 cos p + 0.5, −cos p], h = GELU(z), P = [h0 + h1/2, −h0 + 1/4].
    QTest::addColumn<int>("position");
    QTest::addColumn<double>("p0");
    QTest::addColumn<double>("p1");
    QTest::newRow("p=0") << 0 << 2.405148209719831 << -2.234475836685560;
    QTest::newRow("p=1") << 1 << 2.323828721458151 << -2.153386691872658;
    QTest::newRow("p=2") << 2 << 0.551915982873134 << -0.164306893946215;
    QTest::newRow("p=5") << 5 << 0.003800760999486 << 0.191121312916573;
}

void TestEncodings::mlpKnownValues() {
    QFETCH(int, position);
    QFETCH(double, p0);
    QFETCH(double, p1);
    const TinyMlp m;
    const Eigen::MatrixXd P = mlpEncoding(6, 1, 10000.0, m.W1, m.b1, m.W2, m.b2);
    QCOMPARE(P.rows(), Eigen::Index(6));
    QCOMPARE(P.cols(), Eigen::Index(2));
    QVERIFY(std::abs(P(position, 0) - p0) < 1e-13);
    QVERIFY(std::abs(P(position, 1) - p1) < 1e-13);
    QVERIFY(std::abs(gelu(2.5) - 2.4844758366855597) < 1e-14); // exact (erf) GELU, not tanh
    QCOMPARE(gelu(0.0), 0.0);
}

void TestEncodings::mlpDefinedAtEveryPosition() {
    // Unlike a table, every position has a row: far positions are finite and bounded, and a
    // block that starts at s equals rows s… of the block that starts at 0.
    const TinyMlp m;
    const Eigen::MatrixXd far = mlpEncoding(3, 1, 10000.0, m.W1, m.b1, m.W2, m.b2, 1e7);
    QVERIFY(far.allFinite());
    QVERIFY(far.cwiseAbs().maxCoeff() < 4.0); // |z| ≤ √5 + 0.5, so |h| < 3
    const Eigen::MatrixXd all = mlpEncoding(40, 1, 10000.0, m.W1, m.b1, m.W2, m.b2);
    const Eigen::MatrixXd tail = mlpEncoding(8, 1, 10000.0, m.W1, m.b1, m.W2, m.b2, 32.0);
    QVERIFY((all.bottomRows(8) - tail).cwiseAbs().maxCoeff() < 1e-12);
}

void TestEncodings::ropeScaledAngles_data() {
    QTest::addColumn<int>("scaling");
    QTest::addColumn<double>("base");
    QTest::addColumn<int>("dRot");
    QTest::addColumn<double>("scale");
    QTest::addColumn<double>("position");
    QTest::addColumn<int>("pair");
    QTest::addColumn<double>("angle");
    const int none = int(RopeScaling::None), pi = int(RopeScaling::PI), ntk = int(RopeScaling::NTK);
    // θ_1 = 10000^(−2/8) = 0.1.
    QTest::newRow("none p=10 m=1") << none << 1e4 << 8 << 1.0 << 10.0 << 1 << 1.0;
    QTest::newRow("none ignores s") << none << 1e4 << 8 << 4.0 << 10.0 << 1 << 1.0;
    QTest::newRow("none m=0 is p") << none << 1e4 << 8 << 1.0 << 7.0 << 0 << 7.0;
    // pi: (p/s)·θ_m.
    QTest::newRow("pi s=4 p=40 m=1") << pi << 1e4 << 8 << 4.0 << 40.0 << 1 << 1.0;
    QTest::newRow("pi s=2 p=3 m=0") << pi << 1e4 << 8 << 2.0 << 3.0 << 0 << 1.5;
    QTest::newRow("pi s=0.5 p=3 m=0") << pi << 1e4 << 8 << 0.5 << 3.0 << 0 << 6.0;
    // ntk: base' = base·s^(d_rot/(d_rot−2)); d_rot 4, s 3: base' = 9·base = 900, θ'_1 = 1/30.
    QTest::newRow("ntk d4 s=3 p=30 m=1") << ntk << 100.0 << 4 << 3.0 << 30.0 << 1 << 1.0;
    // d_rot 8, s 8: 8^(4/3) = 16, base' = 160000, θ'_1 = 160000^(−1/4) = 1/20.
    QTest::newRow("ntk d8 s=8 p=20 m=1") << ntk << 1e4 << 8 << 8.0 << 20.0 << 1 << 1.0;
    // θ'_2 = 160000^(−1/2) = 1/400.
    QTest::newRow("ntk d8 s=8 p=400 m=2") << ntk << 1e4 << 8 << 8.0 << 400.0 << 2 << 1.0;
    QTest::newRow("ntk m=0 is p") << ntk << 1e4 << 8 << 8.0 << 9.0 << 0 << 9.0;
}

void TestEncodings::ropeScaledAngles() {
    QFETCH(int, scaling);
    QFETCH(double, base);
    QFETCH(int, dRot);
    QFETCH(double, scale);
    QFETCH(double, position);
    QFETCH(int, pair);
    QFETCH(double, angle);
    const RopeFrequencies f = ropeFrequencies(base, dRot, RopeScaling(scaling), scale);
    QCOMPARE(int(f.theta.size()), dRot / 2);
    QVERIFY2(std::abs(f.angle(position, pair) - angle) < 1e-12 * (1 + angle),
             qPrintable(QString::number(f.angle(position, pair), 'g', 17)));
    // The rotation applyRope makes is by that angle: a unit vector on the pair's first axis
    // goes to (cos, sin).
    Eigen::MatrixXd x = Eigen::MatrixXd::Zero(1, dRot);
    x(0, 2 * pair) = 1.0;
    applyRope(x, {position}, f, RopeConvention::Interleaved);
    QVERIFY(std::abs(x(0, 2 * pair) - std::cos(angle)) < 1e-12);
    QVERIFY(std::abs(x(0, 2 * pair + 1) - std::sin(angle)) < 1e-12);
}

void TestEncodings::ropeNtkBase() {
    QVERIFY(std::abs(pe::ropeNtkBase(100.0, 4, 3.0) - 900.0) < 1e-10);
    QVERIFY(std::abs(pe::ropeNtkBase(1e4, 8, 8.0) - 160000.0) < 1e-8);
    QVERIFY(std::abs(pe::ropeNtkBase(1e4, 64, 2.0) - 1e4 * std::pow(2.0, 64.0 / 62.0)) < 1e-8);
    QCOMPARE(pe::ropeNtkBase(1e4, 16, 1.0), 1e4); // s = 1 leaves RoPE as it is
    // The exponent d/(d−2) is chosen so that the lowest frequency is interpolated like pi:
    // θ'_{d/2−1} = base'^(−(d−2)/d) = base^(−(d−2)/d) / s.
    const RopeFrequencies a = ropeFrequencies(1e4, 16, RopeScaling::None);
    const RopeFrequencies b = ropeFrequencies(1e4, 16, RopeScaling::NTK, 4.0);
    QVERIFY(std::abs(b.theta.back() - a.theta.back() / 4.0) < 1e-15);
    QCOMPARE(b.theta.front(), 1.0); // the highest frequency is left alone
}

void TestEncodings::ropePiIsUnscaledAtDividedPosition() {
    // Position interpolation: the rotation at p equals the unscaled one at p/s, exactly where
    // p/s is exact.
    const int n = 11, dh = 8;
    const Eigen::MatrixXd x = Eigen::MatrixXd::Random(n, dh);
    for (double s : {2.0, 4.0, 2.5}) {
        std::vector<double> scaled(n), unscaled(n);
        for (int i = 0; i < n; ++i) {
            scaled[size_t(i)] = i * s * 2; // 2s·i: divisible by s
            unscaled[size_t(i)] = i * 2.0;
        }
        for (RopeConvention conv : {RopeConvention::Interleaved, RopeConvention::Half}) {
            Eigen::MatrixXd a = x, b = x;
            applyRope(a, scaled, ropeFrequencies(1e4, dh, RopeScaling::PI, s), conv);
            applyRope(b, unscaled, 1e4, conv, dh);
            QCOMPARE(a, b);
        }
    }
}

void TestEncodings::ropeScaledStaysRelative() {
    // (R_m q)·(R_n k) = (R_{m−n} q)·k under either stretch: the scaled rotation is still a
    // rotation by an angle linear in the position.
    const int dh = 8;
    const Eigen::MatrixXd q = Eigen::MatrixXd::Random(1, dh), k = Eigen::MatrixXd::Random(1, dh);
    for (RopeScaling sc : {RopeScaling::PI, RopeScaling::NTK}) {
        const RopeFrequencies f = ropeFrequencies(1e4, dh, sc, 3.0);
        for (auto [m, n] : {std::pair{7.0, 3.0}, std::pair{100.0, 57.0}, std::pair{2.0, 9.0}}) {
            Eigen::MatrixXd qm = q, kn = k, qd = q;
            applyRope(qm, {m}, f, RopeConvention::Half);
            applyRope(kn, {n}, f, RopeConvention::Half);
            applyRope(qd, {m - n}, f, RopeConvention::Half);
            QVERIFY(std::abs(qm.row(0).dot(kn.row(0)) - qd.row(0).dot(k.row(0))) < 1e-12);
            QVERIFY(std::abs(qm.norm() - q.norm()) < 1e-12);
        }
    }
}

void TestEncodings::txlSinusoidRowsAreTheSinusoidInFloat() {
    // The engines' table (row r: t = n − 1 − r, clamped) holds txlRelativeSinusoid's values
    // cast to float, bit for bit, however its rows are split across threads.
    for (const int clamp : {0, 5}) {
        const int n = 23, d = 16, rows = 2 * n - 1;
        std::vector<float> whole(static_cast<std::size_t>(rows) * d, -1.0f);
        txlRelativeSinusoidRows(n, d, clamp, 0, rows, whole.data());
        std::vector<float> split(whole.size(), -1.0f);
        for (const auto& [r0, r1] : {std::pair{0, 7}, std::pair{7, 8}, std::pair{8, rows}})
            txlRelativeSinusoidRows(n, d, clamp, r0, r1,
                                    split.data() + static_cast<std::size_t>(r0) * d);
        QCOMPARE(split, whole);
        for (int r = 0; r < rows; ++r) {
            const int t = clamp > 0 ? std::min(n - 1 - r, clamp) : n - 1 - r;
            const Eigen::RowVectorXd want = txlRelativeSinusoid(t, d);
            for (int c = 0; c < d; ++c)
                QCOMPARE(whole[static_cast<std::size_t>(r) * d + c], static_cast<float>(want(c)));
        }
    }
}

void TestEncodings::sinusoidRowRangesAreTheTable_data() {
    QTest::addColumn<int>("layout");
    QTest::addColumn<int>("d");
    QTest::addColumn<double>("start");
    const std::pair<const char*, SinLayout> layouts[] = {{"interleaved", SinLayout::Interleaved},
                                                         {"concat", SinLayout::Concat},
                                                         {"t2t", SinLayout::T2T}};
    for (const auto& [name, layout] : layouts)
        for (const int d : {1, 2, 7, 16})
            for (const double start : {0.0, 3.0}) {
                if (layout == SinLayout::Concat && d % 2 != 0)
                    continue; // concat needs an even width
                QTest::addRow("%s d=%d start=%g", name, d, start)
                    << static_cast<int>(layout) << d << start;
            }
}

void TestEncodings::sinusoidRowRangesAreTheTable() {
    // The fast engine's P: sinusoidal()'s values cast to float, bit for bit, unwritten columns
    // (t2t's odd last one) zero, however the rows are split across threads; and in double.
    QFETCH(int, layout);
    QFETCH(int, d);
    QFETCH(double, start);
    const auto lay = static_cast<SinLayout>(layout);
    const int n = 37;
    const Eigen::MatrixXd want = sinusoidal(n, d, 500.0, lay, start);
    std::vector<float> whole(static_cast<std::size_t>(n) * d, -1.0f);
    sinusoidalRows(d, 500.0, lay, 0, n, whole.data(), start);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < d; ++c) // exactly (QCOMPARE on floats is fuzzy)
            QVERIFY2(whole[static_cast<std::size_t>(r) * d + c] == static_cast<float>(want(r, c)),
                     qPrintable(QStringLiteral("row %1, column %2").arg(r).arg(c)));
    std::vector<float> split(whole.size(), -1.0f);
    for (const auto& [r0, r1] : {std::pair{0, 5}, std::pair{5, 6}, std::pair{6, n}})
        sinusoidalRows(d, 500.0, lay, r0, r1, split.data() + static_cast<std::size_t>(r0) * d,
                       start);
    QCOMPARE(split, whole);
    // The GL backend's P in double: row ranges of one matrix, each from its first position.
    Eigen::MatrixXd ranges = Eigen::MatrixXd::Constant(n, d, -1.0);
    for (const auto& [r0, r1] : {std::pair{0, 5}, std::pair{5, 6}, std::pair{6, n}})
        sinusoidalInto(ranges.middleRows(r0, r1 - r0), 500.0, lay, start + r0);
    QVERIFY(ranges == want); // exactly
}

QTEST_GUILESS_MAIN(TestEncodings)
#include "tst_encodings.moc"
