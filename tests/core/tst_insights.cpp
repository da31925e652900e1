// SPDX-License-Identifier: MIT
// The insights pages (insights.h): known answers (bits, ω_j, FLOP counts, RoPE decay at r = 0),
// the exact shift map of every sinusoid layout against a learned table, the Toeplitz property,
// rank collapse of stacked pure attention against residual connections, profile shapes, errors.
#include <QTest>

#include <cmath>
#include <numbers>

#include "encodings.h"
#include "insights.h"
#include "stages.h"

using namespace pe;

Q_DECLARE_METATYPE(pe::SinLayout)
Q_DECLARE_METATYPE(pe::Precision)
Q_DECLARE_METATYPE(pe::Scheme)

class TestInsights : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pageNames();
    void binaryBits();
    void binaryOmega_data();
    void binaryOmega();
    void offsetSinusoidExact_data();
    void offsetSinusoidExact();
    void offsetLearnedFarFromExact();
    void offsetRope();
    void offsetErrors_data();
    void offsetErrors();
    void offsetOddWidth();
    void costFlops_data();
    void costFlops();
    void costRowsAndErrors();
    void powerLawFit();
    void ropeDecayKnown();
    void distanceShapes_data();
    void distanceShapes();
    void distanceAlibiProfile();
    void distanceTermsAgree_data();
    void distanceTermsAgree();
    void depthCollapse();
    void depthResidualKeepsRank();
    void depthNormsAndMlp();
    void depthErrors();
    void depthSeedsDiffer();
};

static Params smallParams(Scheme s, int n = 32, int d = 32, int heads = 4) {
    Params p;
    p.scheme = s;
    p.n = n;
    p.d = d;
    p.heads = heads;
    return p;
}

void TestInsights::pageNames() {
    QCOMPARE(allInsightPages().size(), std::size_t(5));
    for (InsightPage page : allInsightPages())
        QVERIFY(*insightPageFromString(toString(page)) == page);
    QVERIFY(!insightPageFromString("nope"));
    QCOMPARE(toString(OffsetMethod::LeastSquares), std::string_view("least_squares"));
    QVERIFY(*depthNormFromString("rmsnorm") == DepthNorm::RmsNorm);
}

void TestInsights::binaryBits() {
    Params p = smallParams(Scheme::Sinusoidal, 8, 16, 2);
    auto b = binaryInsight(p);
    QVERIFY(b.ok());
    QCOMPARE(b->bitCount, 3);
    QCOMPARE(int(b->bits.rows()), 8);
    // d2l prints 0…7 lowest bit first: 000 100 010 110 001 101 011 111.
    const char* rows[] = {"000", "100", "010", "110", "001", "101", "011", "111"};
    for (int i = 0; i < 8; ++i)
        for (int k = 0; k < 3; ++k)
            QCOMPARE(b->bits(i, k), rows[i][k] - '0');
    QCOMPARE(b->bitPeriod(2), 8.0);
    p.n = 9;
    QCOMPARE(binaryInsight(p)->bitCount, 4);
    p.n = 1;
    QCOMPARE(binaryInsight(p)->bitCount, 1); // at least one column
    QCOMPARE(binaryInsight(p)->bits(0, 0), 0);
}

void TestInsights::binaryOmega_data() {
    QTest::addColumn<SinLayout>("layout");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("j");
    QTest::addColumn<double>("omega");
    QTest::addColumn<int>("count");
    // ω_j = 10000^(−2j/d): d = 64, j = 16 → 10000^(−1/2) = 0.01.
    QTest::newRow("interleaved j0") << SinLayout::Interleaved << 64 << 0 << 1.0 << 32;
    QTest::newRow("interleaved j16") << SinLayout::Interleaved << 64 << 16 << 0.01 << 32;
    QTest::newRow("concat j8") << SinLayout::Concat << 32 << 8 << 0.01 << 16;
    // t2t: exp(−j ln(base)/(K−1)), K = 16: the last one is exactly 1/base.
    QTest::newRow("t2t last") << SinLayout::T2T << 32 << 15 << 1e-4 << 16;
    QTest::newRow("t2t odd d") << SinLayout::T2T << 33 << 15 << 1e-4 << 16;
    QTest::newRow("interleaved odd d")
        << SinLayout::Interleaved << 5 << 2 << std::pow(1e4, -0.8) << 3;
}

void TestInsights::binaryOmega() {
    QFETCH(SinLayout, layout);
    QFETCH(int, d);
    QFETCH(int, j);
    QFETCH(double, omega);
    QFETCH(int, count);
    Params p = smallParams(Scheme::Sinusoidal, 16, d, 1);
    p.layout = layout;
    auto b = binaryInsight(p);
    QVERIFY2(b.ok(), b.ok() ? "" : b.error().message.c_str());
    QCOMPARE(int(b->omega.size()), count);
    QVERIFY(std::abs(b->omega(j) - omega) <= 1e-12 * omega);
    QVERIFY(std::abs(b->period(j) - 2 * std::numbers::pi / omega) <= 1e-9 / omega);
    QCOMPARE(int(b->P.rows()), 16);
    QCOMPARE(int(b->P.cols()), d);
}

void TestInsights::offsetSinusoidExact_data() {
    QTest::addColumn<SinLayout>("layout");
    QTest::addColumn<Precision>("precision");
    QTest::addColumn<int>("delta");
    QTest::addColumn<double>("bound");
    for (auto [name, layout] :
         {std::pair{"interleaved", SinLayout::Interleaved}, std::pair{"concat", SinLayout::Concat},
          std::pair{"t2t", SinLayout::T2T}}) {
        QTest::addRow("%s f32 δ=1", name) << layout << Precision::Float32 << 1 << 1e-5;
        QTest::addRow("%s f32 δ=37", name) << layout << Precision::Float32 << 37 << 1e-5;
        QTest::addRow("%s f64 δ=1", name) << layout << Precision::Float64 << 1 << 1e-12;
        QTest::addRow("%s f64 δ=100", name) << layout << Precision::Float64 << 100 << 1e-12;
    }
}

void TestInsights::offsetSinusoidExact() {
    QFETCH(SinLayout, layout);
    QFETCH(Precision, precision);
    QFETCH(int, delta);
    QFETCH(double, bound);
    Params p = smallParams(Scheme::Sinusoidal, 256, 64, 4);
    p.layout = layout;
    p.precision = precision;
    auto r = offsetInsight(p, {delta, {}});
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
    QVERIFY(r->method == OffsetMethod::Exact);
    QCOMPARE(int(r->M.rows()), 64);
    QCOMPARE(int(r->residual.rows()), 256 - delta);
    QVERIFY2(r->relativeResidual <= bound, std::to_string(r->relativeResidual).c_str());
    QVERIFY(r->maxAbsResidual <= 10 * bound);
    // M is orthogonal (block rotations) and P·Pᵀ is Toeplitz up to round-off.
    QVERIFY((r->M * r->M.transpose() - Eigen::MatrixXd::Identity(64, 64)).norm() < 1e-12);
    QVERIFY(r->toeplitzMaxDeviation <= 1e3 * bound * r->gramMaxAbs);
    QCOMPARE(int(r->toeplitzDeviation.size()), 2 * 256 - 1);
    // The mean of diagonal r is Σ_j cos(ω_j r): d/2 at r = 0.
    QVERIFY(std::abs(r->gramDiagonalMean(255) - 32.0) < 1e-5);
}

void TestInsights::offsetLearnedFarFromExact() {
    Params p = smallParams(Scheme::Learned, 200, 32, 4);
    p.precision = Precision::Float64;
    auto r = offsetInsight(p, {3, {}});
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
    QVERIFY(r->method == OffsetMethod::LeastSquares);
    QVERIFY(!r->underdetermined);
    QVERIFY2(r->relativeResidual > 0.1, std::to_string(r->relativeResidual).c_str());
    // The Gram matrix of a random table is far from Toeplitz.
    QVERIFY(r->toeplitzMaxDeviation > 0.1 * r->gramMaxAbs);
    // A sinusoidal table handed in as a user table is fitted exactly by least squares.
    OffsetOptions o{5, sinusoidal(200, 32)};
    auto fit = offsetInsight(smallParams(Scheme::T5), o);
    QVERIFY2(fit.ok(), fit.ok() ? "" : fit.error().message.c_str());
    QVERIFY(fit->method == OffsetMethod::LeastSquares);
    QVERIFY2(fit->relativeResidual < 1e-6, std::to_string(fit->relativeResidual).c_str());
    // (M itself is not identifiable there: the slow columns are nearly collinear.)
    // Fewer equations than unknowns: any table fits, and the result says so.
    std::atomic<bool> cancel{true};
    auto stopped = offsetInsight(p, {3, {}}, nullptr, &cancel);
    QVERIFY(!stopped.ok());
    QCOMPARE(stopped.error().message, std::string("cancelled"));
    Params few = smallParams(Scheme::Learned, 20, 32, 4);
    auto under = offsetInsight(few, {1, {}});
    QVERIFY(under->underdetermined);
}

void TestInsights::offsetRope() {
    for (RopeConvention c : {RopeConvention::Interleaved, RopeConvention::Half}) {
        Params p = smallParams(Scheme::RoPE, 64, 32, 2);
        p.ropeConvention = c;
        p.precision = Precision::Float64;
        auto r = offsetInsight(p, {7, {}});
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QVERIFY(r->method == OffsetMethod::Exact);
        QVERIFY(r->relativeResidual < 1e-12);
        QCOMPARE(int(r->ropeDeviation.size()), 127);
        QVERIFY(r->ropeMaxDeviation < 1e-12);
    }
}

void TestInsights::offsetErrors_data() {
    QTest::addColumn<Scheme>("scheme");
    QTest::addColumn<int>("delta");
    QTest::addColumn<QString>("message");
    QTest::newRow("delta = n") << Scheme::Sinusoidal << 32 << "--delta 32 must be below n = 32";
    QTest::newRow("delta 0") << Scheme::Sinusoidal << 0 << "--delta 0 must be at least 1";
    QTest::newRow("delta < 0") << Scheme::Sinusoidal << -3 << "--delta -3 must be at least 1";
    for (Scheme s : {Scheme::None, Scheme::T5, Scheme::ALiBi, Scheme::Shaw, Scheme::TransformerXL,
                     Scheme::DeBERTa, Scheme::URPE})
        QTest::addRow("%s", std::string(toString(s)).c_str())
            << s << 1
            << QString::fromStdString("--scheme " + std::string(toString(s)) +
                                      " has no position table P");
}

void TestInsights::offsetErrors() {
    QFETCH(Scheme, scheme);
    QFETCH(int, delta);
    QFETCH(QString, message);
    auto r = offsetInsight(smallParams(scheme), {delta, {}});
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.error().message).startsWith(message),
             r.error().message.c_str());
}

void TestInsights::offsetOddWidth() {
    Params p = smallParams(Scheme::Sinusoidal, 64, 33, 1);
    auto r = offsetInsight(p, {2, {}});
    QVERIFY(!r.ok());
    QVERIFY(r.error().message.rfind("--d 33 is odd", 0) == 0);
    p.layout = SinLayout::T2T; // its zero column maps to zero
    p.precision = Precision::Float64;
    r = offsetInsight(p, {2, {}});
    QVERIFY(r.ok());
    QVERIFY(r->relativeResidual < 1e-12);
}

void TestInsights::costFlops_data() {
    QTest::addColumn<qint64>("n");
    QTest::addColumn<qint64>("d");
    QTest::addColumn<qint64>("k");
    QTest::addColumn<qint64>("cnn");
    QTest::addColumn<qint64>("rnn");
    QTest::addColumn<qint64>("attention");
    QTest::addColumn<qint64>("cnnPath");
    // 2·k·n·d², 2·n·d², 4·n²·d; path ⌈(n−1)/(k−1)⌉.
    QTest::newRow("n=1") << 1LL << 64LL << 3LL << 24576LL << 8192LL << 256LL << 0LL;
    QTest::newRow("n=10 k=3") << 10LL << 8LL << 3LL << 3840LL << 1280LL << 3200LL << 5LL;
    QTest::newRow("n=16 k=4") << 16LL << 512LL << 4LL << 33554432LL << 8388608LL << 524288LL << 5LL;
    QTest::newRow("n=16384 d=512")
        << 16384LL << 512LL << 3LL << 25769803776LL << 8589934592LL << 549755813888LL << 8192LL;
}

void TestInsights::costFlops() {
    QFETCH(qint64, n);
    QFETCH(qint64, d);
    QFETCH(qint64, k);
    const CostRow c = costRow(n, d, k);
    QTEST(qint64(c.cnnFlops), "cnn");
    QTEST(qint64(c.rnnFlops), "rnn");
    QTEST(qint64(c.attentionFlops), "attention");
    QTEST(qint64(c.cnnPath), "cnnPath");
    QCOMPARE(c.rnnPath, n - 1);
    QCOMPARE(c.attentionPath, n > 1 ? 1 : 0);
    QCOMPARE(c.rnnSequential, n);
    QCOMPARE(c.cnnSequential, 1);
    QCOMPARE(c.attentionSequential, 1);
}

void TestInsights::costRowsAndErrors() {
    Params p;
    p.d = 512;
    auto c = costInsight(p, {3, 16384});
    QVERIFY(c.ok());
    QCOMPARE(c->rows.size(), std::size_t(15)); // 1, 2, …, 16384
    QCOMPARE(c->rows.back().n, 16384);
    QCOMPARE(c->attentionRnnCrossover, 256.0);
    QCOMPARE(c->attentionCnnCrossover, 768.0);
    // Below the crossover attention is cheaper than the RNN, above it dearer.
    QVERIFY(costRow(128, 512, 3).attentionFlops < costRow(128, 512, 3).rnnFlops);
    QVERIFY(costRow(512, 512, 3).attentionFlops > costRow(512, 512, 3).rnnFlops);
    QCOMPARE(costRow(256, 512, 3).attentionFlops, costRow(256, 512, 3).rnnFlops);
    auto bad = costInsight(p, {1, 100});
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error().message, std::string("--kernel 1 must be between 2 and 4096"));
    QVERIFY(!costInsight(p, {3, 0}).ok());
}

void TestInsights::powerLawFit() {
    std::vector<double> x{128, 256, 512, 1024, 2048, 4096}, y;
    for (double v : x)
        y.push_back(v < 1000 ? 5.0 : 3e-6 * v * v);
    QVERIFY(std::abs(fitPowerLawExponent(x, y, 1024) - 2.0) < 1e-12);
    QVERIFY(std::isnan(fitPowerLawExponent(x, y, 4096)));
}

void TestInsights::ropeDecayKnown() {
    // r = 0: S_j = j, so (1/K)·Σ_{j=1}^{K} j = (K+1)/2.
    const Eigen::VectorXd c = ropeDecayCurve(512, 64, 10000);
    QCOMPARE(c(0), 16.5);
    // r = 1 by hand for K = 1: |e^{i}| = 1.
    QCOMPARE(ropeDecayCurve(2, 2, 10000)(1), 1.0);
    // Envelope decays: the far end is well below the start and below the r ≤ 10 values.
    QVERIFY(c.tail(100).maxCoeff() < 0.5 * c(0));
    QVERIFY(c.segment(400, 100).mean() < c.segment(5, 10).mean());
    for (int r = 0; r < 512; ++r)
        QVERIFY(c(r) <= c(0) + 1e-12);
}

void TestInsights::distanceShapes_data() {
    QTest::addColumn<Scheme>("scheme");
    for (Scheme s : allSchemes())
        QTest::addRow("%s", std::string(toString(s)).c_str()) << s;
}

void TestInsights::distanceShapes() {
    QFETCH(Scheme, scheme);
    Params p = smallParams(scheme, 12, 16, 2);
    if (scheme == Scheme::ALiBi)
        p.alibiMode = AlibiMode::Symmetric;
    int calls = 0;
    auto r = distanceInsight(p, nullptr, referenceLayerForward(), [&](int done, int total) {
        ++calls;
        QVERIFY(done <= total);
    });
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
    QVERIFY(calls >= 3);
    QCOMPARE(int(r->weightProfile.rows()), 2);
    QCOMPARE(int(r->weightProfile.cols()), 23);
    QCOMPARE(int(r->positionProfile.cols()), 23);
    QCOMPARE(int(r->weightProfileMean.size()), 23);
    QCOMPARE(int(r->ropeDecay.size()), 12);
    // Softmax rows sum to 1: summed over every cell, the profile gives N (URPE's ⊙C rescales).
    double s = 0;
    for (int k = 0; k < 23; ++k)
        s += r->weightProfileMean(k) * (12 - std::abs(k - 11));
    if (scheme != Scheme::URPE)
        QVERIFY(std::abs(s - 1.0 * 12) < 1e-4);
    if (scheme == Scheme::None)
        QCOMPARE(r->positionProfile.cwiseAbs().maxCoeff(), 0.0);
    else if (scheme != Scheme::URPE)
        QVERIFY(r->positionProfile.cwiseAbs().maxCoeff() > 0);
    QCOMPARE(int(r->alibiSlopes.size()), scheme == Scheme::ALiBi ? 2 : 0);
    QCOMPARE(r->t5BucketStart.empty(), scheme != Scheme::T5);
}

void TestInsights::distanceAlibiProfile() {
    Params p = smallParams(Scheme::ALiBi, 16, 16, 2);
    auto r = distanceInsight(p);
    QVERIFY(r.ok());
    // The bias is −m_h·|r| exactly: slopes 2^(−4), 2^(−8) for two heads.
    QCOMPARE(r->alibiSlopes(0), 1.0 / 16);
    QVERIFY(std::abs(r->positionProfile(0, 15 + 5) + 5.0 / 16) < 1e-6);
    QVERIFY(std::abs(r->positionProfile(1, 15 - 3) + 3.0 / 256) < 1e-6);
    Params t5 = smallParams(Scheme::T5, 16, 16, 2);
    auto b = distanceInsight(t5);
    // Bidirectional T5, 32 buckets, max distance 128: exact buckets for |r| < 8, then log ones.
    QCOMPARE(b->t5BucketStart.front(), 0);
    QCOMPARE(b->t5BucketStart[7], 7);
    QCOMPARE(b->t5BucketStart[8], 8);
    QCOMPARE(b->t5BucketStart.size(), std::size_t(16));
}

void TestInsights::distanceTermsAgree_data() {
    QTest::addColumn<Scheme>("scheme");
    for (Scheme s : {Scheme::RoPE, Scheme::Sinusoidal, Scheme::Learned, Scheme::Shaw,
                     Scheme::DeBERTa, Scheme::TransformerXL, Scheme::T5})
        QTest::addRow("%s", std::string(toString(s)).c_str()) << s;
}

void TestInsights::distanceTermsAgree() {
    // The page's position term against an independent derivation: the stepper's split of the
    // logits (relative schemes, RoPE) or a second pass without P (absolute schemes).
    QFETCH(Scheme, scheme);
    Params p = smallParams(scheme, 10, 16, 2);
    p.precision = Precision::Float64;
    p.mask = MaskKind::Causal;
    Weights w;
    completeWeights(p, w);
    auto r = distanceInsight(p, &w);
    QVERIFY(r.ok());
    const Trace t = *computeTrace(p, w);
    Params none = p;
    none.scheme = Scheme::None;
    const Trace plain = *computeTrace(none, w);
    for (int h = 0; h < 2; ++h) {
        StageMat term = StageMat::Zero(10, 10);
        if (isAbsolute(scheme)) {
            term = headSlice(*t.find("logits"), h) - headSlice(*plain.find("logits"), h);
        } else {
            for (const StageMatrix& m : logitTerms(t, h))
                if (m.positionTerm)
                    term += m.values;
        }
        for (int rel = -9; rel <= 0; ++rel) { // causal: keys at or before the query
            double sum = 0;
            int count = 0;
            for (int i = 0; i < 10; ++i)
                if (i + rel >= 0) {
                    sum += term(i, i + rel);
                    ++count;
                }
            QVERIFY2(std::abs(r->positionProfile(h, rel + 9) - sum / count) < 1e-10,
                     qPrintable(QString::number(rel)));
        }
        QVERIFY(std::isnan(r->positionProfile(h, 9 + 1))); // future keys are masked
    }
}

void TestInsights::depthCollapse() {
    Params p = smallParams(Scheme::Sinusoidal, 32, 32, 4);
    p.precision = Precision::Float64;
    DepthOptions o;
    o.layers = 12;
    o.residual = false;
    int calls = 0;
    auto r = depthInsight(p, o, nullptr, referenceLayerForward(), [&](int, int) { ++calls; });
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
    QCOMPARE(calls, 12);
    QCOMPARE(r->layers.size(), std::size_t(13));
    QVERIFY(std::isnan(r->layers[0].attentionEntropy));
    const double first = r->layers[1].uniformityResidual;
    const double last = r->layers[12].uniformityResidual;
    QVERIFY2(last < 1e-3 * first, (std::to_string(first) + " → " + std::to_string(last)).c_str());
    QVERIFY(r->layers[12].effectiveRank < r->layers[1].effectiveRank);
    QVERIFY(r->layers[12].attentionEntropy > r->layers[1].attentionEntropy);
    // Nothing about position survives a collapsed stack.
    Params wide = smallParams(Scheme::Sinusoidal, 128, 32, 4);
    wide.precision = Precision::Float64;
    auto w = depthInsight(wide, o);
    QVERIFY(w.ok());
    QVERIFY2(w->layers[12].positionR2 < 0.1 * w->layers[0].positionR2,
             std::to_string(w->layers[12].positionR2).c_str());
}

void TestInsights::depthResidualKeepsRank() {
    for (DepthNorm norm : {DepthNorm::None, DepthNorm::LayerNorm}) {
        Params p = smallParams(Scheme::Sinusoidal, 128, 32, 4);
        p.precision = Precision::Float64;
        DepthOptions o;
        o.layers = 12;
        o.residual = true;
        o.norm = norm;
        auto r = depthInsight(p, o);
        QVERIFY(r.ok());
        for (const DepthLayer& l : r->layers)
            QVERIFY2(l.uniformityResidual > 0.1, std::to_string(l.uniformityResidual).c_str());
        // Positions stay linearly decodable through the residual stream (N > d + 1: the probe
        // cannot fit any target).
        QVERIFY2(r->layers[12].positionR2 > 0.5 * r->layers[0].positionR2,
                 (std::to_string(r->layers[0].positionR2) + " → " +
                  std::to_string(r->layers[12].positionR2))
                     .c_str());
    }
}

void TestInsights::depthNormsAndMlp() {
    Params p = smallParams(Scheme::RoPE, 24, 32, 4);
    DepthOptions o;
    o.layers = 3;
    o.norm = DepthNorm::RmsNorm;
    o.mlp = true;
    auto r = depthInsight(p, o);
    QVERIFY(r.ok());
    for (const DepthLayer& l : r->layers) {
        QVERIFY(std::isfinite(l.effectiveRank) && l.effectiveRank >= 1);
        QVERIFY(l.effectiveRank <= 24 + 1e-9);
        QVERIFY(l.positionR2 <= 1 + 1e-9);
    }
    // Layer stats: a constant-row matrix has uniformity residual 0 and effective rank 1.
    const Eigen::MatrixXd X = Eigen::VectorXd::Ones(10) * Eigen::RowVectorXd::LinSpaced(6, 1, 6);
    const DepthLayer s = depthLayerStats(X);
    QCOMPARE(s.uniformityResidual, 0.0);
    QVERIFY(std::abs(s.effectiveRank - 1.0) < 1e-6);
    // Rows that are the position itself are decoded perfectly, in and out of sample.
    Eigen::MatrixXd Y = Eigen::MatrixXd::Zero(10, 3);
    for (int i = 0; i < 10; ++i)
        Y(i, 0) = 2.0 * i + 1;
    QVERIFY(std::abs(depthLayerStats(Y).positionR2 - 1) < 1e-9);
    QVERIFY(depthLayerStats(Y).positionR2Heldout > 0.99); // a small ridge penalty
}

void TestInsights::depthErrors() {
    Params p = smallParams(Scheme::T5);
    for (int layers : {0, 33, -1}) {
        DepthOptions o;
        o.layers = layers;
        auto r = depthInsight(p, o);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().message,
                 "--layers " + std::to_string(layers) + " must be between 1 and 32");
    }
    std::atomic<bool> cancel{true};
    auto r = depthInsight(p, DepthOptions{}, nullptr, referenceLayerForward(), {}, &cancel);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().message, std::string("cancelled"));
}

void TestInsights::depthSeedsDiffer() {
    QCOMPARE(depthLayerSeed(42, 1), std::uint64_t(42));
    QVERIFY(depthLayerSeed(42, 2) != depthLayerSeed(42, 3));
    QVERIFY(depthLayerSeed(42, 2) != depthLayerSeed(43, 2));
}

QTEST_GUILESS_MAIN(TestInsights)
#include "tst_insights.moc"
