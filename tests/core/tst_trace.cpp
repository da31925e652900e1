// SPDX-License-Identifier: MIT
// Properties of the reference forward pass (SPEC §0, §3–§10) and of its validation.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>

#include "encodings.h"
#include "param_changes.h"
#include "trace.h"

using namespace pe;
using MatR = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace {

Trace run(const Params& p, Weights* wOut = nullptr) {
    Weights w;
    completeWeights(p, w);
    auto tr = computeTrace(p, w);
    if (!tr)
        qFatal("computeTrace failed: %s", tr.error().message.c_str());
    if (wOut)
        *wOut = w;
    return std::move(tr).value();
}

/** Head h of a [heads, rows, cols] float64 tensor. */
MatR head(const Trace& t, const char* name, int h) {
    const Tensor* x = t.find(name);
    if (!x)
        qFatal("missing tensor %s", name);
    const auto r = x->dim(1), c = x->dim(2);
    return Eigen::Map<const MatR>(x->data<double>() + h * r * c, r, c);
}

MatR mat(const Trace& t, const char* name) {
    const Tensor* x = t.find(name);
    return Eigen::Map<const MatR>(x->data<double>(), x->dim(0), x->dim(1));
}

/** n = 11, d = 24, 3 heads, clip 3, seed 7 (the canonical() tests' base), in double. */
Params base(Scheme s) {
    Params p = testing::changesBase(s);
    p.precision = Precision::Float64;
    return p;
}

} // namespace

class TestTrace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void namesAndShapes_data();
    void namesAndShapes();
    void normalisers_data();
    void normalisers();
    void fullyMaskedRowsAreZero();
    void shawEfficientEqualsDirect();
    void txlShiftTrickEqualsDirect();
    void ropeDependsOnlyOnOffset_data();
    void ropeDependsOnlyOnOffset();
    void ropeScalingChangesTheRotation();
    void mlpAddsItsEncoding();
    void mlpDefaultScale();
    void t5LogitsAreUnscaledPlusBias();
    void alibiBias();
    void debertaTerms();
    void urpeMultipliesWeights();
    void specialTokens();
    void float32MatchesFloat64();
    void validationNamesTheOption_data();
    void validationNamesTheOption();
    void learnedTableCannotExtrapolate();
    void nonFiniteWeightsAreRefused();
    void cancelStopsTheRun();
    void estimateGrowsWithN();
    void canonicalParamsGiveTheSameTrace();
    void largeBlocksAreUnmappedInPieces();
};

void TestTrace::namesAndShapes_data() {
    QTest::addColumn<int>("scheme");
    for (Scheme s : allSchemes())
        QTest::newRow(std::string(toString(s)).c_str()) << int(s);
}

void TestTrace::namesAndShapes() {
    QFETCH(int, scheme);
    Params p = base(Scheme(scheme));
    p.cls = true;
    const Trace t = run(p);
    std::vector<std::string> names;
    for (const auto& [n, x] : t.tensors)
        names.push_back(n);
    QCOMPARE(names, traceTensorNames(p));
    const std::int64_t N = 12, d = 24, H = 3, dh = 8;
    QCOMPARE(t.find("E")->shape(), (std::vector<std::int64_t>{N, d}));
    QCOMPARE(t.find("Q")->shape(), (std::vector<std::int64_t>{H, N, dh}));
    QCOMPARE(t.find("logits")->shape(), (std::vector<std::int64_t>{H, N, N}));
    QCOMPARE(t.find("out")->shape(), (std::vector<std::int64_t>{N, d}));
    if (const Tensor* ri = t.find("rel_index"))
        QCOMPARE(ri->dtype(), DType::I32);
    QCOMPARE(t.find("weights")->dtype(), DType::F64);
    QCOMPARE(int(t.tokens.size()), int(N));
    // traceTensorSpec (the CLI sizes its mapped output files by it) agrees with every tensor,
    // in float64 and float32.
    for (const Precision precision : {Precision::Float64, Precision::Float32}) {
        Params q = p;
        q.precision = precision;
        const Trace tq = run(q);
        for (const auto& [name, x] : tq.tensors) {
            const TensorSpec spec = traceTensorSpec(q, name);
            QVERIFY2(spec.shape == x.shape(), name.c_str());
            QVERIFY2(spec.dtype == x.dtype(), name.c_str());
        }
    }
}

void TestTrace::normalisers_data() {
    QTest::addColumn<int>("norm");
    QTest::addColumn<int>("mask");
    QTest::addColumn<int>("validLen");
    for (Normaliser n : allNormalisers())
        for (auto [m, v, tag] :
             {std::tuple{MaskKind::None, -1, "none"}, std::tuple{MaskKind::Causal, -1, "causal"},
              std::tuple{MaskKind::None, 6, "valid6"},
              std::tuple{MaskKind::Causal, 4, "causal+valid4"}})
            QTest::addRow("%s/%s", std::string(toString(n)).c_str(), tag) << int(n) << int(m) << v;
}

void TestTrace::normalisers() {
    QFETCH(int, norm);
    QFETCH(int, mask);
    QFETCH(int, validLen);
    Params p = base(Scheme::T5);
    p.norm = Normaliser(norm);
    p.mask = MaskKind(mask);
    p.validLen = validLen;
    const Trace t = run(p);
    const int N = p.seqLen();
    for (int h = 0; h < p.heads; ++h) {
        const MatR L = head(t, "logits", h), A = head(t, "weights", h);
        for (int i = 0; i < N; ++i) {
            double sum = 0, sq = 0;
            int visible = 0;
            for (int j = 0; j < N; ++j) {
                const bool vis =
                    (p.mask != MaskKind::Causal || j <= i) && (validLen < 0 || j < validLen);
                if (!vis) {
                    QVERIFY(std::isinf(L(i, j)) && L(i, j) < 0);
                    QCOMPARE(A(i, j), 0.0); // exactly zero
                    continue;
                }
                ++visible;
                QVERIFY(std::isfinite(L(i, j)));
                QVERIFY(A(i, j) >= 0);
                sum += A(i, j);
                sq += A(i, j) * A(i, j);
                const double s = L(i, j), r = std::max(s, 0.0);
                if (p.norm == Normaliser::Exp)
                    QVERIFY(std::abs(A(i, j) - std::exp(s)) <= 1e-12 * std::exp(s));
                if (p.norm == Normaliser::Relu2)
                    QVERIFY(std::abs(A(i, j) - r * r / N) <= 1e-12 * (1 + r * r));
            }
            if (p.norm == Normaliser::Softmax)
                QVERIFY(std::abs(sum - 1) < 1e-12);
            if (p.norm == Normaliser::L2)
                QVERIFY(std::abs(sq - 1) < 1e-12);
            if (p.norm == Normaliser::Relu2Visible)
                for (int j = 0; j < visible; ++j) {
                    const double r = std::max(L(i, j), 0.0);
                    QVERIFY(std::abs(A(i, j) - r * r / visible) <= 1e-12 * (1 + r * r));
                }
        }
    }
}

void TestTrace::fullyMaskedRowsAreZero() {
    for (Normaliser n : allNormalisers()) {
        Params p = base(Scheme::ALiBi);
        p.norm = n;
        p.validLen = 0;
        const Trace t = run(p);
        const Tensor* a = t.find("weights");
        for (std::int64_t k = 0; k < a->size(); ++k)
            QCOMPARE(a->at(k), 0.0);
        const Tensor* o = t.find("out");
        for (std::int64_t k = 0; k < o->size(); ++k)
            QVERIFY(o->at(k) == 0.0);
    }
}

void TestTrace::shawEfficientEqualsDirect() {
    for (int clip : {0, 2, 20}) {
        Params p = base(Scheme::Shaw);
        p.clip = clip;
        p.mask = MaskKind::Causal;
        Weights w;
        const Trace t = run(p, &w);
        const int N = p.seqLen(), dh = p.headDim();
        for (int h = 0; h < p.heads; ++h) {
            const MatR q = head(t, "Q", h), k = head(t, "K", h), v = head(t, "V", h);
            const MatR L = head(t, "logits", h), A = head(t, "weights", h),
                       O = head(t, "head_out", h);
            for (int i = 0; i < N; ++i) {
                Eigen::RowVectorXd z = Eigen::RowVectorXd::Zero(dh);
                for (int j = 0; j < N; ++j) {
                    const int idx = std::clamp(j - i, -clip, clip) + clip;
                    // The naive form: materialise w_k[idx] per pair.
                    const double e = (q.row(i).dot(k.row(j)) + q.row(i).dot(w.shawWk.row(idx))) /
                                     std::sqrt(double(dh));
                    if (j <= i)
                        QVERIFY(std::abs(L(i, j) - e) < 1e-12);
                    z += A(i, j) * (v.row(j) + w.shawWv.row(idx));
                }
                QVERIFY((O.row(i) - z).cwiseAbs().maxCoeff() < 1e-12);
            }
        }
    }
}

void TestTrace::txlShiftTrickEqualsDirect() {
    for (int mask : {int(MaskKind::Causal), int(MaskKind::None)}) {
        Params p = base(Scheme::TransformerXL);
        p.mask = MaskKind(mask);
        Weights w;
        const Trace t = run(p, &w);
        const int L = p.seqLen(), K = L, dh = p.headDim(), d = p.d;
        // R for pos_seq = K−1 … 0 (descending), projected once.
        Eigen::MatrixXd R(K, d);
        for (int r = 0; r < K; ++r)
            R.row(r) = txlRelativeSinusoid(K - 1 - r, d);
        const Eigen::MatrixXd r = R * w.txlWr;
        for (int h = 0; h < p.heads; ++h) {
            const MatR q = head(t, "Q", h);
            const MatR qv = q.rowwise() + w.txlV.row(h);
            const Eigen::MatrixXd B = qv * r.middleCols(h * dh, dh).transpose(); // L × K
            // _rel_shift: prepend a zero column, view as (K+1) × L, drop the first row, view as L ×
            // K.
            std::vector<double> flat;
            for (int i = 0; i < L; ++i) {
                flat.push_back(0.0);
                for (int j = 0; j < K; ++j)
                    flat.push_back(B(i, j));
            }
            const MatR bd = head(t, "txl_bd", h);
            for (int i = 0; i < L; ++i)
                for (int j = 0; j <= i; ++j) {
                    const double shifted = flat[size_t(L + i * K + j)];
                    QVERIFY2(std::abs(bd(i, j) * std::sqrt(double(dh)) - shifted) < 1e-11,
                             qPrintable(QStringLiteral("h%1 i%2 j%3").arg(h).arg(i).arg(j)));
                }
            // Direct formula everywhere (the non-causal extension evaluates R_t for t < 0).
            const MatR k = head(t, "K", h), ac = head(t, "txl_ac", h);
            for (int i = 0; i < L; ++i)
                for (int j = 0; j < L; ++j) {
                    const Eigen::RowVectorXd rt =
                        (txlRelativeSinusoid(i - j, d) * w.txlWr).middleCols(h * dh, dh);
                    QVERIFY(std::abs(bd(i, j) - qv.row(i).dot(rt) / std::sqrt(double(dh))) < 1e-11);
                    QVERIFY(std::abs(ac(i, j) - (q.row(i) + w.txlU.row(h)).dot(k.row(j)) /
                                                    std::sqrt(double(dh))) < 1e-11);
                }
        }
    }
}

void TestTrace::ropeDependsOnlyOnOffset_data() {
    QTest::addColumn<int>("scaling");
    QTest::addColumn<double>("scale");
    QTest::newRow("none") << int(RopeScaling::None) << 1.0;
    QTest::newRow("pi s=4") << int(RopeScaling::PI) << 4.0;
    QTest::newRow("pi s=0.5") << int(RopeScaling::PI) << 0.5;
    QTest::newRow("ntk s=4") << int(RopeScaling::NTK) << 4.0;
}

void TestTrace::ropeDependsOnlyOnOffset() {
    QFETCH(int, scaling);
    QFETCH(double, scale);
    for (RopeConvention conv : {RopeConvention::Interleaved, RopeConvention::Half}) {
        Params p = base(Scheme::RoPE);
        p.ropeConvention = conv;
        p.ropeScaling = RopeScaling(scaling);
        p.ropeScale = scale;
        Weights w;
        completeWeights(p, w);
        w.E = w.E.row(0).replicate(p.n, 1); // identical tokens: only position differs
        auto t = computeTrace(p, w);
        QVERIFY(t.ok());
        for (int h = 0; h < p.heads; ++h) {
            const MatR L = head(*t, "logits", h);
            for (int i = 0; i + 1 < p.n; ++i)
                for (int j = 0; j + 1 < p.n; ++j)
                    QVERIFY(std::abs(L(i, j) - L(i + 1, j + 1)) < 1e-12);
            QVERIFY(std::abs(L(0, 1) - L(0, 2)) > 1e-6); // and it does depend on the offset
        }
    }
}

void TestTrace::ropeScalingChangesTheRotation() {
    // pi with s: the keys at positions 0, s, 2s, … equal the unscaled keys at 0, 1, 2, … of
    // the same inputs; ntk rotates pair 0 as before and the other pairs more slowly.
    Params p = base(Scheme::RoPE);
    p.n = 12;
    Weights w;
    completeWeights(p, w);
    w.E = w.E.row(0).replicate(p.n, 1);
    const Trace plain = std::move(computeTrace(p, w)).value();
    p.ropeScaling = RopeScaling::PI;
    p.ropeScale = 3.0;
    const Trace pi = std::move(computeTrace(p, w)).value();
    for (int h = 0; h < p.heads; ++h) {
        const MatR k0 = head(plain, "K", h), k1 = head(pi, "K", h);
        for (int i = 0; 3 * i < p.n; ++i)
            QVERIFY((k1.row(3 * i) - k0.row(i)).cwiseAbs().maxCoeff() < 1e-12);
        QVERIFY((k1.row(1) - k0.row(1)).cwiseAbs().maxCoeff() > 1e-3);
    }
    p.ropeScaling = RopeScaling::NTK;
    const Trace ntk = std::move(computeTrace(p, w)).value();
    const MatR k0 = head(plain, "K", 0), k2 = head(ntk, "K", 0);
    QVERIFY((k2.block(5, 0, 1, 2) - k0.block(5, 0, 1, 2)).cwiseAbs().maxCoeff() < 1e-12);
    QVERIFY((k2.row(5) - k0.row(5)).cwiseAbs().maxCoeff() > 1e-3);
    // The scale is ignored without a scaling.
    p.ropeScaling = RopeScaling::None;
    const Trace none = std::move(computeTrace(p, w)).value();
    QVERIFY(head(none, "K", 1) == head(plain, "K", 1));
}

void TestTrace::mlpAddsItsEncoding() {
    // P is the mlp of the given weights, X = E + P, and it needs no table: n is past the
    // learned table's P_max (which the mlp never reads).
    Params p = base(Scheme::Mlp);
    p.mlpFeatures = 3;
    p.mlpHidden = 5;
    p.learnedRows = 4;
    p.cls = true;
    Weights w;
    const Trace t = run(p, &w);
    QCOMPARE(w.mlpW1.rows(), Eigen::Index(6));
    QCOMPARE(w.mlpW1.cols(), Eigen::Index(5));
    QCOMPARE(w.mlpB1.cols(), Eigen::Index(5));
    QCOMPARE(w.mlpW2.rows(), Eigen::Index(5));
    QCOMPARE(w.mlpW2.cols(), Eigen::Index(p.d));
    QCOMPARE(w.mlpB2.cols(), Eigen::Index(p.d));
    QCOMPARE(w.learnedTable.size(), Eigen::Index(0));
    const Eigen::MatrixXd want =
        mlpEncoding(p.seqLen(), 3, p.base, w.mlpW1, w.mlpB1, w.mlpW2, w.mlpB2);
    QVERIFY((mat(t, "P") - want).cwiseAbs().maxCoeff() < 1e-15);
    QVERIFY((mat(t, "X") - mat(t, "E") - mat(t, "P")).cwiseAbs().maxCoeff() < 1e-12);
    // The names of its weights, as the trace contract lists them.
    std::vector<std::string> used;
    for (const WeightSpec& s : weightSpecs(p))
        if (s.used && s.name.rfind("mlp.", 0) == 0)
            used.push_back(s.name + (s.shape.size() == 1 ? "/1" : "/2"));
    QCOMPARE(used, (std::vector<std::string>{"mlp.w1/2", "mlp.b1/1", "mlp.w2/2", "mlp.b2/1"}));
    // A wrong shape is named.
    w.mlpW1 = Eigen::MatrixXd::Zero(4, 5);
    auto bad = computeTrace(p, w);
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().message.find("mlp.w1") != std::string::npos);
}

void TestTrace::mlpDefaultScale() {
    // The generated weights give P entries of unit scale (weights.h: RMS ≈ 0.9) at every size.
    for (auto [F, H] : {std::pair{8, 64}, std::pair{1, 1024}, std::pair{64, 16}}) {
        Params p = base(Scheme::Mlp);
        p.n = 256;
        p.d = 64;
        p.heads = 4;
        p.mlpFeatures = F;
        p.mlpHidden = H;
        Weights w;
        completeWeights(p, w);
        const Eigen::MatrixXd P = absoluteEncoding(p, w);
        const double rms = std::sqrt(P.squaredNorm() / double(P.size()));
        QVERIFY2(rms > 0.4 && rms < 2.0, qPrintable(QString::number(rms)));
        // and it varies with position (not a constant row)
        Eigen::RowVectorXd mean = P.colwise().mean();
        QVERIFY((P.rowwise() - mean).norm() / std::sqrt(double(P.size())) > 0.05);
    }
}

void TestTrace::t5LogitsAreUnscaledPlusBias() {
    Params p = base(Scheme::T5);
    p.n = 40;
    p.buckets = 16;
    p.maxDistance = 20;
    p.unidirectional = true;
    Weights w;
    const Trace t = run(p, &w);
    const Tensor* ri = t.find("rel_index");
    for (int h = 0; h < p.heads; ++h) {
        const MatR q = head(t, "Q", h), k = head(t, "K", h), L = head(t, "logits", h),
                   B = head(t, "bias", h);
        for (int i = 0; i < p.n; ++i)
            for (int j = 0; j < p.n; ++j) {
                const int b = ri->data<std::int32_t>()[i * p.n + j];
                QCOMPARE(b, t5Bucket(j - i, false, 16, 20));
                QCOMPARE(B(i, j), w.t5Table(b, h));
                QVERIFY(std::abs(L(i, j) - (q.row(i).dot(k.row(j)) + B(i, j))) < 1e-12);
            }
    }
}

void TestTrace::alibiBias() {
    for (auto mode : {AlibiMode::Symmetric, AlibiMode::Causal}) {
        Params p = base(Scheme::ALiBi);
        p.heads = 6;
        p.d = 36;
        p.alibiMode = mode;
        p.mask = mode == AlibiMode::Causal ? MaskKind::Causal : MaskKind::None;
        const Trace t = run(p);
        const auto slopes = alibiSlopes(6);
        for (int h = 0; h < 6; ++h) {
            const MatR B = head(t, "bias", h), q = head(t, "Q", h), k = head(t, "K", h),
                       L = head(t, "logits", h);
            for (int i = 0; i < p.n; ++i)
                for (int j = 0; j < p.n; ++j) {
                    const double want = mode == AlibiMode::Symmetric ? -slopes[h] * std::abs(i - j)
                                                                     : -slopes[h] * (i - j);
                    QCOMPARE(B(i, j), want);
                    if (j <= i)
                        QVERIFY(std::abs(L(i, j) -
                                         (q.row(i).dot(k.row(j)) / std::sqrt(6.0) + want)) < 1e-12);
                }
        }
    }
}

void TestTrace::debertaTerms() {
    for (auto conv : {P2CConvention::Code, P2CConvention::Paper}) {
        Params p = base(Scheme::DeBERTa);
        p.p2cConvention = conv;
        Weights w;
        const Trace t = run(p, &w);
        const int N = p.seqLen(), dh = p.headDim();
        const double scale = 1.0 / std::sqrt(dh * 3.0);
        const Eigen::MatrixXd Kr = w.debertaRel * w.debertaWkr, Qr = w.debertaRel * w.debertaWqr;
        for (int h = 0; h < p.heads; ++h) {
            const MatR q = head(t, "Q", h), k = head(t, "K", h);
            const MatR c2c = head(t, "c2c", h), c2p = head(t, "c2p", h), p2c = head(t, "p2c", h),
                       L = head(t, "logits", h);
            for (int i = 0; i < N; ++i)
                for (int j = 0; j < N; ++j) {
                    auto delta = [&](int a, int b) {
                        return std::clamp(a - b + p.clip, 0, 2 * p.clip - 1);
                    };
                    const int dij = delta(i, j);
                    const int dp = conv == P2CConvention::Code ? dij : delta(j, i);
                    QVERIFY(std::abs(c2c(i, j) - q.row(i).dot(k.row(j)) * scale) < 1e-12);
                    QVERIFY(std::abs(c2p(i, j) - q.row(i).dot(Kr.row(dij).segment(h * dh, dh)) *
                                                     scale) < 1e-12);
                    QVERIFY(std::abs(p2c(i, j) -
                                     k.row(j).dot(Qr.row(dp).segment(h * dh, dh)) * scale) < 1e-12);
                    QVERIFY(std::abs(L(i, j) - (c2c(i, j) + c2p(i, j) + p2c(i, j))) < 1e-12);
                }
        }
    }
    // Only c2p: scale 1/√(2 d_h), no p2c tensor.
    Params p = base(Scheme::DeBERTa);
    p.debertaP2C = false;
    const Trace t = run(p);
    QVERIFY(!t.find("p2c"));
    const MatR q = head(t, "Q", 0), k = head(t, "K", 0), c2c = head(t, "c2c", 0);
    QVERIFY(std::abs(c2c(2, 3) - q.row(2).dot(k.row(3)) / std::sqrt(16.0)) < 1e-12);
}

void TestTrace::urpeMultipliesWeights() {
    Params p = base(Scheme::URPE);
    Weights w;
    const Trace t = run(p, &w);
    Params plain = p;
    plain.scheme = Scheme::None;
    Weights wp = w;
    auto t0 = computeTrace(plain, wp);
    QVERIFY(t0.ok());
    const int N = p.seqLen();
    for (int h = 0; h < p.heads; ++h) {
        const MatR A = head(t, "weights", h), A0 = head(*t0, "weights", h),
                   C = head(t, "urpe_C", h);
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j) {
                QCOMPARE(C(i, j), w.urpeC(h, (j - i) + N - 1));
                QVERIFY(std::abs(A(i, j) - A0(i, j) * C(i, j)) < 1e-14);
            }
    }
}

void TestTrace::specialTokens() {
    Params p = base(Scheme::Sinusoidal);
    p.cls = p.sep = true;
    Weights w;
    const Trace t = run(p, &w);
    const MatR E = mat(t, "E"), P = mat(t, "P"), X = mat(t, "X");
    QCOMPARE(E.rows(), Eigen::Index(p.n + 2));
    QVERIFY((E.row(0) - w.cls.row(0)).cwiseAbs().maxCoeff() == 0);
    QVERIFY((E.row(p.n + 1) - w.sep.row(0)).cwiseAbs().maxCoeff() == 0);
    QVERIFY((E.row(1) - w.E.row(0)).cwiseAbs().maxCoeff() == 0);
    // [CLS] is position 0, the first input token position 1.
    const Eigen::MatrixXd pe = sinusoidal(p.n + 2, p.d, 10000.0, SinLayout::Interleaved);
    QVERIFY((P - pe).cwiseAbs().maxCoeff() < 1e-15);
    QVERIFY((X - E - P).cwiseAbs().maxCoeff() < 1e-15);
    QCOMPARE(t.tokens.front(), std::string("[CLS]"));
    QCOMPARE(t.tokens.back(), std::string("[SEP]"));
}

void TestTrace::float32MatchesFloat64() {
    for (Scheme s : allSchemes()) {
        Params p = base(s);
        p.mask = MaskKind::Causal;
        p.alibiMode = AlibiMode::Causal;
        Weights w;
        completeWeights(p, w);
        auto t64 = computeTrace(p, w);
        p.precision = Precision::Float32;
        auto t32 = computeTrace(p, w);
        QVERIFY(t64.ok() && t32.ok());
        for (const auto& [name, x] : t64->tensors) {
            const Tensor* y = t32->find(name);
            QVERIFY(y);
            double mx = 0, err = 0;
            for (std::int64_t k = 0; k < x.size(); ++k) {
                const double a = x.at(k), b = y->at(k);
                if (std::isinf(a)) {
                    QCOMPARE(a, b);
                    continue;
                }
                mx = std::max(mx, std::abs(a));
                err = std::max(err, std::abs(a - b));
            }
            QVERIFY2(err <= 2e-5 * (1 + mx), qPrintable(QStringLiteral("%1 %2: %3")
                                                            .arg(QLatin1String(toString(s).data()))
                                                            .arg(QString::fromStdString(name))
                                                            .arg(err)));
        }
    }
}

void TestTrace::validationNamesTheOption_data() {
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("needle");
    QTest::newRow("d % heads") << "heads"
                               << "--heads";
    QTest::newRow("concat odd d") << "concat"
                                  << "--layout concat";
    QTest::newRow("negative clip") << "clip"
                                   << "--clip";
    QTest::newRow("odd buckets") << "buckets"
                                 << "--buckets";
    QTest::newRow("valid-len past n") << "valid"
                                      << "--valid-len";
    QTest::newRow("alibi causal without mask") << "alibi"
                                               << "--mask causal";
    QTest::newRow("rope odd head width") << "rope"
                                         << "rope";
    QTest::newRow("n zero") << "n"
                            << "--n";
    QTest::newRow("mlp features 0") << "mlpF"
                                    << "--mlp-features";
    QTest::newRow("mlp features 257") << "mlpF257"
                                      << "--mlp-features";
    QTest::newRow("mlp hidden 0") << "mlpH"
                                  << "--mlp-hidden";
    QTest::newRow("rope scale 0") << "scale0"
                                  << "--rope-scale";
    QTest::newRow("rope scale -1") << "scaleNeg"
                                   << "--rope-scale";
    QTest::newRow("ntk d_rot 2") << "ntk2"
                                 << "--rope-scaling ntk";
}

void TestTrace::validationNamesTheOption() {
    QFETCH(QString, what);
    QFETCH(QString, needle);
    Params p;
    if (what == QLatin1String("heads"))
        p.heads = 5;
    if (what == QLatin1String("concat")) {
        p.scheme = Scheme::Sinusoidal, p.layout = SinLayout::Concat, p.d = 63, p.heads = 1;
    }
    if (what == QLatin1String("clip"))
        p.scheme = Scheme::Shaw, p.clip = -1;
    if (what == QLatin1String("buckets"))
        p.scheme = Scheme::T5, p.buckets = 31;
    if (what == QLatin1String("valid"))
        p.validLen = p.n + 1;
    if (what == QLatin1String("alibi"))
        p.scheme = Scheme::ALiBi, p.alibiMode = AlibiMode::Causal;
    if (what == QLatin1String("rope"))
        p.scheme = Scheme::RoPE, p.d = 12, p.heads = 4;
    if (what == QLatin1String("n"))
        p.n = 0;
    if (what == QLatin1String("mlpF"))
        p.scheme = Scheme::Mlp, p.mlpFeatures = 0;
    if (what == QLatin1String("mlpF257"))
        p.scheme = Scheme::Mlp, p.mlpFeatures = 257;
    if (what == QLatin1String("mlpH"))
        p.scheme = Scheme::Mlp, p.mlpHidden = 0;
    if (what == QLatin1String("scale0"))
        p.scheme = Scheme::RoPE, p.ropeScaling = RopeScaling::PI, p.ropeScale = 0;
    if (what == QLatin1String("scaleNeg"))
        p.scheme = Scheme::RoPE, p.ropeScaling = RopeScaling::NTK, p.ropeScale = -1;
    if (what == QLatin1String("ntk2"))
        p.scheme = Scheme::RoPE, p.ropeScaling = RopeScaling::NTK, p.ropeDims = 2;
    const Status s = validate(p);
    QVERIFY(!s.ok());
    QVERIFY2(QString::fromStdString(s.error().message).contains(needle), s.error().message.c_str());
    // computeTrace refuses the same parameters with the same message, and never crashes.
    Weights w;
    auto t = computeTrace(p, w);
    QVERIFY(!t.ok());
}

void TestTrace::learnedTableCannotExtrapolate() {
    Params p = base(Scheme::Learned);
    Weights w;
    w.learnedTable = Eigen::MatrixXd::Ones(8, p.d);
    completeWeights(p, w);
    auto t = computeTrace(p, w);
    QVERIFY(!t.ok());
    QVERIFY(t.error().message.find("learned.table") != std::string::npos);
    w.learnedTable = Eigen::MatrixXd::Ones(11, p.d);
    QVERIFY(computeTrace(p, w).ok());
}

// A NaN or an infinity anywhere in a weight tensor or the inputs (a trained file gone wrong)
// is refused with the tensor's name, whichever entry it is in; finite values of any sign and
// size, −0 included, pass.
void TestTrace::nonFiniteWeightsAreRefused() {
    Params p = base(Scheme::T5);
    Weights w;
    completeWeights(p, w);
    QVERIFY(checkWeights(p, w));
    w.W_k(3, 5) = -0.0;
    w.W_v(0, 0) = 1e300;
    w.W_v(1, 0) = -1e300;
    QVERIFY(checkWeights(p, w));
    const double bad[] = {std::numeric_limits<double>::quiet_NaN(),
                          std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity()};
    for (double x : bad) {
        Weights broken = w;
        broken.W_k(static_cast<int>(broken.W_k.rows()) - 1,
                   static_cast<int>(broken.W_k.cols()) - 1) = x;
        const Status s = checkWeights(p, broken);
        QVERIFY(!s);
        QVERIFY2(s.error().message.find("W_k") != std::string::npos, s.error().message.c_str());
        QVERIFY(s.error().message.find("NaN or infinite") != std::string::npos);
        QVERIFY(!computeTrace(p, broken).ok());
        broken = w;
        broken.t5Table(0, 1) = x;
        QVERIFY(!checkWeights(p, broken));
    }
}

void TestTrace::cancelStopsTheRun() {
    Params p = base(Scheme::None);
    Weights w;
    completeWeights(p, w);
    std::atomic<bool> cancel{true};
    auto t = computeTrace(p, w, &cancel);
    QVERIFY(!t.ok());
    QCOMPARE(t.error().message, std::string("cancelled"));
}

void TestTrace::estimateGrowsWithN() {
    Params p;
    p.scheme = Scheme::T5;
    p.n = 4096;
    p.d = 512;
    p.heads = 8;
    const auto b = estimateTraceBytes(p);
    // logits, weights and bias: 3 × 8 × 4096² floats = 1.5 GiB at least.
    QVERIFY(b >= 3ull * 8 * 4096 * 4096 * 4);
    QVERIFY(b < 3ull * 1024 * 1024 * 1024);
    p.n = 16384 * 4;
    QVERIFY(estimateTraceBytes(p) > 100ull * 1024 * 1024 * 1024);
}

// canonical() leaves out exactly the parameters a scheme does not read: one change to each
// parameter, under each scheme and several settings, gives the same trace (bit for bit) where
// canonical() says so and another trace where it does not. The Compare tab keeps the other
// schemes' traces by it when A's parameters change.
void TestTrace::canonicalParamsGiveTheSameTrace() {
    const testing::CanonicalCheck c =
        testing::checkCanonical(base, [](const Params& p) { return run(p); });
    QVERIFY2(c.failure.empty(), c.failure.c_str());
    QVERIFY2(c.same > 200 && c.different > 300,
             qPrintable(QStringLiteral("%1 same, %2 different").arg(c.same).arg(c.different)));
}

QTEST_GUILESS_MAIN(TestTrace)

// A large tensor's block goes back in consecutive pieces of at most kUnmapPieceBytes (each
// munmap holds the address-space lock only for its piece: pe-bench-unmap measures what that
// spares the other threads), covering the block exactly; and such a tensor starts zeroed.
void TestTrace::largeBlocksAreUnmappedInPieces() {
    using detail::kUnmapPieceBytes;
    for (const std::size_t bytes :
         {std::size_t{0}, std::size_t{4096}, kUnmapPieceBytes - 4096, kUnmapPieceBytes,
          kUnmapPieceBytes + 4096, 3 * kUnmapPieceBytes, std::size_t{8} << 30}) {
        std::size_t next = 0;
        int pieces = 0;
        detail::forEachUnmapPiece(bytes, [&](std::size_t at, std::size_t length) {
            QCOMPARE(at, next);
            QVERIFY(length > 0 && length <= kUnmapPieceBytes);
            next = at + length;
            ++pieces;
        });
        QCOMPARE(next, bytes);
        QCOMPARE(pieces, static_cast<int>((bytes + kUnmapPieceBytes - 1) / kUnmapPieceBytes));
    }
    QCOMPARE(kUnmapPieceBytes % (std::size_t{2} << 20), std::size_t{0}); // whole huge pages
    for (int round = 0; round < 2; ++round) { // freed and mapped again: zero, not the old values
        Tensor t(DType::F32, {static_cast<std::int64_t>(kUnmapPieceBytes / 4 * 2 + 1000)});
        const float* x = t.data<float>();
        QCOMPARE(x[0], 0.0f);
        QCOMPARE(x[t.size() - 1], 0.0f);
        std::fill(t.data<float>(), t.data<float>() + t.size(), 1.0f);
    }
}

#include "tst_trace.moc"
