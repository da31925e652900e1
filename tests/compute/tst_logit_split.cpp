// SPDX-License-Identifier: MIT
// splitLogits, the Logit terms tab's four terms of an absolute scheme on the engine's float
// products, against the stepper's double-precision terms (logitTerms) and the logits.
#include <QTest>

#include <cmath>
#include <limits>

#include "logit_split.h"
#include "stages.h"
#include "tokenizer.h"
#include "weights.h"

using namespace pe;

class TestLogitSplit : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void equalsTheStepperTerms_data();
    void equalsTheStepperTerms();
    void onlyAbsoluteTracesWithWeightsSplit();
    void positionPartIsTheSchemesPositionTerms_data();
    void positionPartIsTheSchemesPositionTerms();
    void positionPartNeedsTheWholeLogits();
};

namespace {

Trace traceOf(const Params& p) {
    Weights w;
    w.E = embedTokens(std::vector<std::string>(static_cast<std::size_t>(p.n), "the"), p.d, p.seed);
    for (int i = 0; i < p.n; i += 3) // not all tokens alike
        w.E.row(i) = embedTokens({"cat"}, p.d, p.seed).row(0);
    completeWeights(p, w);
    Trace t = computeTrace(p, w).value();
    t.queryKey = std::make_shared<const QueryKeyWeights>(QueryKeyWeights{w.W_q, w.W_k});
    return t;
}

} // namespace

void TestLogitSplit::equalsTheStepperTerms_data() {
    QTest::addColumn<int>("scheme");
    QTest::addColumn<bool>("float64");
    QTest::addColumn<bool>("special");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("heads");
    for (Scheme s : {Scheme::Sinusoidal, Scheme::Learned, Scheme::Mlp})
        for (bool f64 : {false, true}) {
            const std::string name = std::string(toString(s)) + (f64 ? " f64" : " f32");
            QTest::newRow(name.c_str()) << static_cast<int>(s) << f64 << false << 37 << 3;
        }
    QTest::newRow("sinusoidal f32 cls sep causal")
        << static_cast<int>(Scheme::Sinusoidal) << false << true << 37 << 3;
    // Long enough for the four products to run side by side.
    QTest::newRow("learned f32 n=530")
        << static_cast<int>(Scheme::Learned) << false << false << 530 << 3;
    // A head width that is no multiple of a vector, keys past the last whole panel.
    QTest::newRow("sinusoidal f32 d_h=12 n=45")
        << static_cast<int>(Scheme::Sinusoidal) << false << false << 45 << 4;
}

void TestLogitSplit::equalsTheStepperTerms() {
    QFETCH(int, scheme);
    QFETCH(bool, float64);
    QFETCH(bool, special);
    QFETCH(int, n);
    QFETCH(int, heads);
    Params p;
    p.scheme = static_cast<Scheme>(scheme);
    p.n = n;
    p.d = 48;
    p.heads = heads;
    p.seed = 5;
    p.precision = float64 ? Precision::Float64 : Precision::Float32;
    if (special) {
        p.cls = p.sep = true;
        p.mask = MaskKind::Causal;
    }
    const Trace t = traceOf(p);
    QVERIFY(canSplitLogits(t));
    const int N = p.seqLen();
    const double tol = float64 ? 1e-12 : 2e-5;
    Trace split;
    QVERIFY(!splitFits(t, split));
    for (int h = 0; h < p.heads; ++h) {
        // Each head's terms written over the last head's in place (the tab's reuse: the same
        // tensors, the values of a fresh split).
        const Tensor* before = split.tensors.empty() ? nullptr : &split.tensors[0].second;
        const void* bytes = before ? before->raw() : nullptr;
        splitLogitsInto(t, h, split);
        QVERIFY(splitFits(t, split));
        if (before) {
            QCOMPARE(split.find("ee"), before);
            QCOMPARE(split.find("ee")->raw(), bytes);
        }
        const std::vector<StageMatrix> want = logitTerms(t, h);
        QCOMPARE(split.tensors.size(), std::size_t(4));
        StageMat sum = StageMat::Zero(N, N);
        for (const StageMatrix& m : want) {
            const Tensor* x = split.find(m.name);
            QVERIFY2(x, m.name.c_str());
            QCOMPARE(x->shape(), (std::vector<std::int64_t>{1, N, N}));
            QCOMPARE(x->holds<double>(), float64);
            const StageMat got = headSlice(*x, 0);
            const double scale = std::max(1.0, m.values.cwiseAbs().maxCoeff());
            QVERIFY2((got - m.values).cwiseAbs().maxCoeff() <= tol * scale, m.name.c_str());
            sum += got;
        }
        // The four add up to the head's logits wherever the mask lets a key through.
        const StageMat logits = headSlice(*t.find("logits"), h);
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j)
                if (std::isfinite(logits(i, j)))
                    QVERIFY(std::abs(sum(i, j) - logits(i, j)) <=
                            (float64 ? 1e-12 : 1e-4) * std::max(1.0, std::abs(logits(i, j))));
    }
}

void TestLogitSplit::onlyAbsoluteTracesWithWeightsSplit() {
    Params p;
    p.n = 8;
    p.d = 16;
    p.heads = 2;
    p.scheme = Scheme::RoPE; // no P: nothing to split
    QVERIFY(!canSplitLogits(traceOf(p)));
    QVERIFY(splitLogits(traceOf(p), 0).tensors.empty());
    p.scheme = Scheme::Sinusoidal;
    Trace t = traceOf(p);
    QVERIFY(splitLogits(t, 2).tensors.empty()); // no head 2
    QVERIFY(splitLogits(t, -1).tensors.empty());
    t.queryKey.reset(); // a trace without its weights (a file's)
    QVERIFY(!canSplitLogits(t));
    t = traceOf(p);
    auto wrong = std::make_shared<QueryKeyWeights>(*t.queryKey);
    wrong->wk = Eigen::MatrixXd::Zero(8, 8); // another layer's width
    t.queryKey = wrong;
    QVERIFY(!canSplitLogits(t));
}

void TestLogitSplit::positionPartIsTheSchemesPositionTerms_data() {
    QTest::addColumn<int>("scheme");
    for (Scheme s : allSchemes())
        QTest::newRow(std::string(toString(s)).c_str()) << static_cast<int>(s);
}

// The Compare tab's "position term of the logits": for every scheme the sum of the trace's
// own position tensors or of the terms the Logit terms tab shows (absolute: the logits less
// e·e), −∞ where the causal mask hides a key, 0 for scheme none; with [CLS] and a causal mask.
void TestLogitSplit::positionPartIsTheSchemesPositionTerms() {
    QFETCH(int, scheme);
    Params p;
    p.scheme = static_cast<Scheme>(scheme);
    p.n = 11;
    p.d = 16;
    p.heads = 2;
    p.seed = 3;
    p.cls = true;
    p.mask = MaskKind::Causal;
    const Trace t = traceOf(p);
    const int N = p.seqLen();
    for (int h = 0; h < p.heads; ++h) {
        const std::optional<StageMat> got = positionPart(t, h);
        QVERIFY(got);
        QCOMPARE(got->rows(), N);
        QCOMPARE(got->cols(), N);
        const StageMat logits = headSlice(*t.find("logits"), h);
        // What it should be, read from the trace's tensors where it has them.
        StageMat want = StageMat::Zero(N, N);
        auto add = [&](const char* name) { want += headSlice(*t.find(name), h); };
        switch (p.scheme) {
        case Scheme::T5:
        case Scheme::ALiBi:
            add("bias");
            break;
        case Scheme::Shaw:
            add("shaw_k_term");
            break;
        case Scheme::TransformerXL:
            add("txl_bd");
            break;
        case Scheme::DeBERTa:
            add("c2p");
            add("p2c");
            break;
        default:
            if (isAbsolute(p.scheme)) { // the logits less e·e (scheme none's logits, same E, W)
                const StageMat e = headSlice(*t.find("E"), 0);
                const Eigen::MatrixXd wq = t.queryKey->wq.middleCols(h * p.headDim(), p.headDim());
                const Eigen::MatrixXd wk = t.queryKey->wk.middleCols(h * p.headDim(), p.headDim());
                want = logits - (e * wq) * (e * wk).transpose() / std::sqrt(p.headDim());
            } else if (p.scheme == Scheme::RoPE) { // the terms the tab shows
                for (const StageMatrix& m : logitTerms(t, h))
                    if (m.positionTerm)
                        want += m.values;
            }
        }
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j) {
                if (!std::isfinite(logits(i, j))) {
                    QCOMPARE((*got)(i, j), -std::numeric_limits<double>::infinity());
                    continue;
                }
                QVERIFY2(std::abs((*got)(i, j) - want(i, j)) <=
                             2e-5 * std::max(1.0, std::abs(want(i, j))),
                         qPrintable(QStringLiteral("head %1 (%2, %3): %4 against %5")
                                        .arg(h)
                                        .arg(i)
                                        .arg(j)
                                        .arg((*got)(i, j))
                                        .arg(want(i, j))));
                if (p.scheme == Scheme::None || p.scheme == Scheme::URPE) // URPE: ⊙C, later
                    QCOMPARE((*got)(i, j), 0.0);
            }
    }
}

void TestLogitSplit::positionPartNeedsTheWholeLogits() {
    Params p;
    p.n = 8;
    p.d = 16;
    p.heads = 2;
    p.scheme = Scheme::Sinusoidal;
    Trace t = traceOf(p);
    QVERIFY(positionPart(t, 1));
    QVERIFY(!positionPart(t, 2)); // no head 2
    t.queryKey.reset();           // an absolute trace without its W_q, W_k
    QVERIFY(!positionPart(t, 0));
    p.scheme = Scheme::T5;
    t = traceOf(p);
    Tensor pooled = *t.find("logits");
    t.tensors.clear(); // a pooled trace: [heads, R, R] logits, R < n
    t.tensors.emplace_back("logits", Tensor(DType::F32, {2, 4, 4}));
    QVERIFY(!positionPart(t, 0));
    t.tensors.clear(); // the whole logits but no bias or Q, K
    t.tensors.emplace_back("logits", pooled);
    QVERIFY(!positionPart(t, 0));
}

QTEST_GUILESS_MAIN(TestLogitSplit)
#include "tst_logit_split.moc"
