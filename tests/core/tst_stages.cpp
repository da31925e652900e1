// SPDX-License-Identifier: MIT
// The stepper's stages: every stage exists for every scheme, what it takes from the trace equals
// the trace, and what it derives (unrotated Q/K, logit terms, A before ⊙C, A·V, concat) agrees
// with the trace's own later stages and with the weights.
#include <QTest>

#include <cmath>

#include "encodings.h"
#include "stages.h"
#include "tokenizer.h"
#include "weights.h"

using namespace pe;

Q_DECLARE_METATYPE(pe::Params)

namespace {

struct Run {
    Params p;
    Weights w;
    Trace t;
};

Run run(const Params& p) {
    Run r;
    r.p = p;
    std::vector<std::string> tokens = tokenize("The cat sat on the mat , the end .");
    tokens.resize(static_cast<std::size_t>(p.n), "x");
    r.w.E = embedTokens(tokens, p.d, p.seed);
    completeWeights(p, r.w);
    auto t = computeTrace(p, r.w);
    if (!t)
        qFatal("%s", t.error().message.c_str());
    r.t = std::move(t).value();
    // W_q and W_k as the window's worker attaches them: absolute schemes split their logits.
    if (isAbsolute(p.scheme))
        r.t.queryKey = std::make_shared<const QueryKeyWeights>(QueryKeyWeights{r.w.W_q, r.w.W_k});
    // Labels as the window gives them: the tokens themselves, with the special ones.
    r.t.tokens = tokens;
    if (p.cls)
        r.t.tokens.insert(r.t.tokens.begin(), "[CLS]");
    if (p.sep)
        r.t.tokens.emplace_back("[SEP]");
    return r;
}

double maxDiff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return std::numeric_limits<double>::infinity();
    double m = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j) {
            if (a(i, j) == b(i, j)) // also equal infinities
                continue;
            m = std::max(m, std::abs(a(i, j) - b(i, j)));
        }
    return m;
}

const StageMatrix* find(const std::vector<StageMatrix>& ms, const char* name) {
    for (const StageMatrix& m : ms)
        if (m.name == name)
            return &m;
    return nullptr;
}

Params base(Scheme s) {
    Params p;
    p.scheme = s;
    p.n = 9;
    p.d = 16;
    p.heads = 2;
    p.clip = 3;
    p.seed = 7;
    p.precision = Precision::Float64;
    return p;
}

} // namespace

class TestStages : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyStageForEveryScheme();
    void whereThePositionEnters_data();
    void whereThePositionEnters();
    void matricesEqualTrace_data();
    void matricesEqualTrace();
    void ropeUnrotatedIsProjection();
    void urpeBiasRecovered();
    void headRowIsTheSlicesRow();
    void absoluteSplitKnownAnswers();
    void termRowsAreTheTermsRows();
};

void TestStages::everyStageForEveryScheme() {
    for (Scheme s : allSchemes()) {
        const std::vector<StageInfo> list = stageList(base(s));
        QCOMPARE(static_cast<int>(list.size()), kStageCount);
        for (int k = 0; k < kStageCount; ++k) {
            const StageInfo& st = list[static_cast<std::size_t>(k)];
            QCOMPARE(static_cast<int>(st.id), k);
            QVERIFY(!st.key.empty());
            QVERIFY(!st.formula.empty());
            QVERIFY(!st.note.empty());
            QVERIFY(!stageName(st.id).empty());
        }
    }
}

void TestStages::whereThePositionEnters_data() {
    QTest::addColumn<Params>("p");
    QTest::addColumn<QList<int>>("stages");
    auto row = [](const char* name, Params p, QList<StageId> ids) {
        QList<int> v;
        for (StageId id : ids)
            v << int(id);
        QTest::newRow(name) << p << v;
    };
    row("none", base(Scheme::None), {});
    Params causal = base(Scheme::None);
    causal.mask = MaskKind::Causal;
    row("none causal", causal, {StageId::Mask});
    row("sinusoidal", base(Scheme::Sinusoidal), {StageId::AddPosition});
    row("learned", base(Scheme::Learned), {StageId::AddPosition});
    row("shaw", base(Scheme::Shaw), {StageId::Logits, StageId::Values});
    row("txl", base(Scheme::TransformerXL), {StageId::Logits});
    row("t5", base(Scheme::T5), {StageId::Logits});
    row("deberta", base(Scheme::DeBERTa), {StageId::Logits});
    row("rope", base(Scheme::RoPE), {StageId::Rotate});
    row("alibi", base(Scheme::ALiBi), {StageId::Logits});
    row("urpe", base(Scheme::URPE), {StageId::PostMultiply});
    Params urpeT5 = base(Scheme::URPE);
    urpeT5.urpeBias = UrpeBias::T5;
    row("urpe+t5", urpeT5, {StageId::Logits, StageId::PostMultiply});
}

void TestStages::whereThePositionEnters() {
    QFETCH(Params, p);
    QFETCH(QList<int>, stages);
    QList<int> got;
    for (const StageInfo& s : stageList(p))
        if (s.positionEnters)
            got << int(s.id);
    QCOMPARE(got, stages);
}

void TestStages::matricesEqualTrace_data() {
    QTest::addColumn<Params>("p");
    for (Scheme s : allSchemes()) {
        const QByteArray name(toString(s).data(), static_cast<qsizetype>(toString(s).size()));
        QTest::newRow(name.constData()) << base(s);
        Params q = base(s);
        q.mask = MaskKind::Causal;
        q.alibiMode = AlibiMode::Causal;
        q.cls = true;
        q.sep = true;
        q.validLen = 8;
        q.norm = s == Scheme::URPE ? Normaliser::L2 : Normaliser::Softmax;
        QTest::newRow((name + " causal cls sep pad").constData()) << q;
        Params f = base(s);
        f.precision = Precision::Float32;
        f.norm = Normaliser::Relu2Visible;
        QTest::newRow((name + " f32 relu2_visible").constData()) << f;
    }
    Params u = base(Scheme::URPE);
    u.urpeBias = UrpeBias::T5;
    u.mask = MaskKind::Causal;
    QTest::newRow("urpe t5 causal") << u;
    Params r = base(Scheme::RoPE);
    r.ropeConvention = RopeConvention::Half;
    r.ropeDims = 4;
    QTest::newRow("rope half partial") << r;
    Params dp = base(Scheme::DeBERTa);
    dp.p2cConvention = P2CConvention::Paper;
    dp.debertaC2P = false;
    QTest::newRow("deberta p2c paper") << dp;
}

void TestStages::matricesEqualTrace() {
    QFETCH(Params, p);
    const Run r = run(p);
    const Trace& t = r.t;
    const double tol = p.precision == Precision::Float64 ? 1e-9 : 2e-4;
    const int N = p.seqLen();
    const int dh = p.headDim();
    for (int h = 0; h < p.heads; ++h) {
        for (int k = 0; k < kStageCount; ++k) {
            const StageId id = static_cast<StageId>(k);
            const std::vector<StageMatrix> ms = stageMatrices(t, id, h, &r.w.W_o);
            const bool mayBeEmpty = (id == StageId::AddPosition && !isAbsolute(p.scheme)) ||
                                    (id == StageId::Rotate && p.scheme != Scheme::RoPE) ||
                                    (id == StageId::PostMultiply && p.scheme != Scheme::URPE);
            QVERIFY2(mayBeEmpty ? ms.empty() : !ms.empty(), stageName(id).c_str());
            for (const StageMatrix& m : ms) {
                QVERIFY(m.values.size() > 0);
                if (m.traceName.empty())
                    continue;
                const Tensor* x = t.find(m.traceName);
                QVERIFY2(x, m.traceName.c_str());
                const Eigen::MatrixXd want = headSlice(*x, m.perHead ? h : 0);
                // Taken from the trace: equal, not merely close (derived A: to the tolerance).
                const double allowed = m.name == "A" ? tol : 0.0;
                QVERIFY2(maxDiff(m.values, want) <= allowed,
                         qPrintable(QStringLiteral("%1/%2 head %3")
                                        .arg(QString::fromStdString(stageName(id)),
                                             QString::fromStdString(m.name))
                                        .arg(h)));
            }
        }
        const Eigen::MatrixXd logits = headSlice(*t.find("logits"), h);
        const Eigen::MatrixXd weights = headSlice(*t.find("weights"), h);
        const Eigen::MatrixXd mask = visibilityMask(p);

        // Mask: 1 exactly where the trace's logits are finite.
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j)
                QCOMPARE(mask(i, j) == 1.0, std::isfinite(logits(i, j)));

        // Logit terms add up to the logits on every visible cell.
        const std::vector<StageMatrix> lg = stageMatrices(t, StageId::Logits, h);
        Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(N, N);
        int positionTerms = 0;
        for (const StageMatrix& m : lg)
            if (m.name != "sum") {
                sum += m.values;
                positionTerms += m.positionTerm ? 1 : 0;
            }
        if (const StageMatrix* s = find(lg, "sum"))
            QVERIFY(maxDiff(s->values, sum) <= 1e-12);
        double worst = 0;
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j)
                if (mask(i, j) == 1.0)
                    worst = std::max(worst, std::abs(sum(i, j) - logits(i, j)) /
                                                std::max(1.0, std::abs(logits(i, j))));
        QVERIFY2(worst <= tol, qPrintable(QString::number(worst)));
        const bool positional = isAbsolute(p.scheme) || // e·p, p·e, p·p
                                p.scheme == Scheme::Shaw || p.scheme == Scheme::TransformerXL ||
                                p.scheme == Scheme::T5 || p.scheme == Scheme::DeBERTa ||
                                p.scheme == Scheme::ALiBi || p.scheme == Scheme::RoPE ||
                                (p.scheme == Scheme::URPE && p.urpeBias == UrpeBias::T5);
        QCOMPARE(positionTerms > 0, positional);

        // The normaliser on the trace's logits, then ⊙C for URPE, gives the trace's weights.
        const Eigen::MatrixXd A = find(stageMatrices(t, StageId::Normalise, h), "A")->values;
        Eigen::MatrixXd post = A;
        if (p.scheme == Scheme::URPE)
            post = A.cwiseProduct(headSlice(*t.find("urpe_C"), h));
        QVERIFY(maxDiff(post, weights) <= tol);

        // A·V (+ Shaw's value term) is the head output.
        const std::vector<StageMatrix> vs = stageMatrices(t, StageId::Values, h);
        Eigen::MatrixXd o = find(vs, "AV")->values;
        if (const StageMatrix* vt = find(vs, "shaw_v_term"))
            o += vt->values;
        QVERIFY(maxDiff(o, headSlice(*t.find("head_out"), h)) <= tol);
        QCOMPARE(
            find(stageMatrices(t, StageId::Concat, h), "concat")->values.middleCols(h * dh, dh),
            headSlice(*t.find("head_out"), h));
    }
    // concat · W_O is the output.
    const Eigen::MatrixXd concat = stageMatrices(t, StageId::Concat, 0).front().values;
    const Eigen::MatrixXd out = headSlice(*t.find("out"), 0);
    QVERIFY(maxDiff(concat * r.w.W_o, out) <= tol * 10);
    QVERIFY(find(stageMatrices(t, StageId::OutputProjection, 0, &r.w.W_o), "W_O"));
    QVERIFY(!find(stageMatrices(t, StageId::OutputProjection, 0), "W_O"));
    // Tokens: one 1 per row; two positions share a column exactly when their tokens (and so
    // their rows of E) are equal.
    const StageMatrix tok = stageMatrices(t, StageId::Tokens, 0).front();
    QCOMPARE(tok.values.rows(), N);
    QCOMPARE(static_cast<std::size_t>(tok.values.cols()), tok.colLabels.size());
    const Eigen::MatrixXd E = headSlice(*t.find("E"), 0);
    for (int i = 0; i < N; ++i) {
        QCOMPARE(tok.values.row(i).sum(), 1.0);
        for (int j = 0; j < N; ++j)
            QCOMPARE(tok.values.row(i) == tok.values.row(j), E.row(i) == E.row(j));
    }
}

void TestStages::ropeUnrotatedIsProjection() {
    Params p = base(Scheme::RoPE);
    const Run r = run(p);
    const int dh = p.headDim();
    const Eigen::MatrixXd X = headSlice(*r.t.find("X"), 0);
    for (int h = 0; h < p.heads; ++h) {
        const std::vector<StageMatrix> ms = stageMatrices(r.t, StageId::Project, h);
        QVERIFY(maxDiff(find(ms, "Q")->values, X * r.w.W_q.middleCols(h * dh, dh)) <= 1e-9);
        QVERIFY(maxDiff(find(ms, "K")->values, X * r.w.W_k.middleCols(h * dh, dh)) <= 1e-9);
        // The rotation's position term depends on j − i only (SPEC §7) for the unrotated part
        // held fixed: check the angle table instead, p·θ_m.
        const Eigen::MatrixXd ang = find(stageMatrices(r.t, StageId::Rotate, h), "angle")->values;
        QCOMPARE(ang.cols(), dh / 2);
        QVERIFY(std::abs(ang(3, 1) - 3 * std::pow(p.base, -2.0 / dh)) < 1e-12);
    }
}

void TestStages::urpeBiasRecovered() {
    Params p = base(Scheme::URPE);
    p.urpeBias = UrpeBias::T5;
    const Run r = run(p);
    for (int h = 0; h < p.heads; ++h) {
        const std::vector<StageMatrix> terms = logitTerms(r.t, h);
        const StageMatrix* b = find(terms, "bias");
        QVERIFY(b);
        for (int i = 0; i < p.seqLen(); ++i)
            for (int j = 0; j < p.seqLen(); ++j)
                QVERIFY(std::abs(b->values(i, j) -
                                 r.w.t5Table(t5Bucket(j - i, true, p.buckets, p.maxDistance), h)) <
                        1e-9);
    }
}

// The stepper's focus plot reads one row of each head: the same values as the head's slice.
void TestStages::headRowIsTheSlicesRow() {
    Params p = base(Scheme::T5);
    p.precision = Precision::Float32; // a float tensor, like the window's
    const Run r = run(p);
    for (const char* name : {"weights", "E"}) { // [h, n, n] and [n, d]
        const Tensor& t = *r.t.find(name);
        const int heads = t.rank() == 3 ? static_cast<int>(t.dim(0)) : 1;
        for (int h = 0; h < heads; ++h) {
            const StageMat slice = headSlice(t, h);
            for (int i = 0; i < slice.rows(); ++i) {
                const std::vector<double> row = headRow(t, h, i);
                QCOMPARE(static_cast<Eigen::Index>(row.size()), slice.cols());
                for (Eigen::Index j = 0; j < slice.cols(); ++j)
                    QCOMPARE(row[static_cast<std::size_t>(j)], slice(i, j));
            }
            QVERIFY(headRow(t, h, static_cast<int>(slice.rows())).empty());
            QVERIFY(headRow(t, h, -1).empty());
        }
    }
}

// An absolute scheme's four terms: e·e is the logits the same layer computes without position
// (scheme none, same E and W), p·p does not change with the tokens, and under identity weights
// p·p is head h's slice of P·Pᵀ / √d_h, a function of j − i alone for the sinusoid.
void TestStages::absoluteSplitKnownAnswers() {
    Params p = base(Scheme::Sinusoidal);
    const Run r = run(p);
    Params none = p;
    none.scheme = Scheme::None;
    const Run plain = run(none);
    for (int h = 0; h < p.heads; ++h) {
        const std::vector<StageMatrix> terms = logitTerms(r.t, h);
        QCOMPARE(terms.size(), std::size_t(4));
        QCOMPARE(QString::fromStdString(terms[0].name), QStringLiteral("ee"));
        QVERIFY(!terms[0].positionTerm);
        for (std::size_t k = 1; k < 4; ++k)
            QVERIFY(terms[k].positionTerm);
        QVERIFY(maxDiff(find(terms, "ee")->values, headSlice(*plain.t.find("logits"), h)) < 1e-12);
    }
    // Other tokens: e·e and the cross terms change, p·p does not.
    Run other = r;
    other.w.E =
        embedTokens(std::vector<std::string>(static_cast<std::size_t>(p.n), "dog"), p.d, p.seed);
    other.t = computeTrace(p, other.w).value();
    other.t.queryKey = r.t.queryKey;
    const std::vector<StageMatrix> a = logitTerms(r.t, 1), b = logitTerms(other.t, 1);
    QVERIFY(maxDiff(find(a, "pp")->values, find(b, "pp")->values) < 1e-12);
    QVERIFY(maxDiff(find(a, "ee")->values, find(b, "ee")->values) > 1e-3);
    QVERIFY(maxDiff(find(a, "ep")->values, find(b, "ep")->values) > 1e-3);

    // Identity weights: p·p = P_h P_hᵀ / √d_h, Toeplitz for the sinusoid.
    Run id = r;
    id.t.queryKey = std::make_shared<const QueryKeyWeights>(
        QueryKeyWeights{Eigen::MatrixXd::Identity(p.d, p.d), Eigen::MatrixXd::Identity(p.d, p.d)});
    const int dh = p.headDim();
    const Eigen::MatrixXd P = headSlice(*r.t.find("P"), 0);
    for (int h = 0; h < p.heads; ++h) {
        const Eigen::MatrixXd pp = find(logitTerms(id.t, h), "pp")->values;
        const Eigen::MatrixXd Ph = P.middleCols(h * dh, dh);
        QVERIFY(maxDiff(pp, Ph * Ph.transpose() / std::sqrt(double(dh))) < 1e-12);
        for (int i = 0; i + 1 < p.n; ++i)
            for (int j = 0; j + 1 < p.n; ++j)
                QVERIFY(std::abs(pp(i + 1, j + 1) - pp(i, j)) < 1e-12);
    }
}

// The focus plot's rows (logitTermsRow): each term's row i, computed for that row alone where
// the scheme is absolute.
void TestStages::termRowsAreTheTermsRows() {
    for (Scheme s : allSchemes()) {
        Params p = base(s);
        p.cls = true;
        const Run r = run(p);
        for (int h = 0; h < p.heads; ++h)
            for (int i : {0, 4, p.seqLen() - 1}) {
                const std::vector<StageMatrix> all = logitTerms(r.t, h);
                const std::vector<StageMatrix> rows = logitTermsRow(r.t, h, i);
                QCOMPARE(rows.size(), all.size());
                for (std::size_t k = 0; k < all.size(); ++k) {
                    QCOMPARE(rows[k].name, all[k].name);
                    QCOMPARE(rows[k].positionTerm, all[k].positionTerm);
                    QCOMPARE(rows[k].values.rows(), Eigen::Index(1));
                    QVERIFY2(maxDiff(rows[k].values, all[k].values.row(i)) < 1e-12,
                             qPrintable(QString::fromStdString(std::string(toString(s)) + " " +
                                                               all[k].name)));
                }
            }
    }
}

QTEST_GUILESS_MAIN(TestStages)
#include "tst_stages.moc"
