// SPDX-License-Identifier: MIT
// The fast CPU engine returns the reference trace: same names, shapes and dtypes, integer
// tensors exactly, −inf at the same places, floats within 2e-5 · (1 + max|ref|).

#include <QScopeGuard>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <set>

#include "cpu_fast_backend.h"
#include "cpu_gemm.h"
#include "param_changes.h"
#include "pooling.h"
#include "trace.h"
#include "weights.h"

using namespace pe;

Q_DECLARE_METATYPE(pe::Params)
Q_DECLARE_METATYPE(pe::PoolRequest)

namespace {

QString compareTraces(const Trace& ref, const Trace& fast) {
    if (ref.tensors.size() != fast.tensors.size())
        return QStringLiteral("tensor count %1 vs %2")
            .arg(ref.tensors.size())
            .arg(fast.tensors.size());
    if (ref.tokens != fast.tokens)
        return QStringLiteral("tokens differ");
    for (std::size_t t = 0; t < ref.tensors.size(); ++t) {
        const auto& [rn, r] = ref.tensors[t];
        const auto& [fn, f] = fast.tensors[t];
        const QString name = QString::fromStdString(rn);
        if (rn != fn)
            return QStringLiteral("tensor %1 is %2 in the fast trace")
                .arg(name, QString::fromStdString(fn));
        if (r.shape() != f.shape() || r.dtype() != f.dtype())
            return QStringLiteral("%1: shape/dtype %2 vs %3")
                .arg(name, QString::fromStdString(r.shapeString()),
                     QString::fromStdString(f.shapeString()));
        const std::int64_t n = r.size();
        if (r.dtype() == DType::I32) {
            for (std::int64_t i = 0; i < n; ++i)
                if (r.data<std::int32_t>()[i] != f.data<std::int32_t>()[i])
                    return QStringLiteral("%1[%2]: %3 vs %4")
                        .arg(name)
                        .arg(i)
                        .arg(r.at(i))
                        .arg(f.at(i));
            continue;
        }
        double maxRef = 0.0;
        for (std::int64_t i = 0; i < n; ++i)
            if (std::isfinite(r.at(i)))
                maxRef = std::max(maxRef, std::abs(r.at(i)));
        const double tol = 2e-5 * (1.0 + maxRef);
        for (std::int64_t i = 0; i < n; ++i) {
            const double a = r.at(i), b = f.at(i);
            if (std::isinf(a) || std::isinf(b)) {
                if (a != b)
                    return QStringLiteral("%1[%2]: %3 vs %4 (infinities)")
                        .arg(name)
                        .arg(i)
                        .arg(a)
                        .arg(b);
                continue;
            }
            if (std::isnan(b) || std::abs(a - b) > tol)
                return QStringLiteral("%1[%2]: ref %3, fast %4, tolerance %5")
                    .arg(name)
                    .arg(i)
                    .arg(a, 0, 'g', 9)
                    .arg(b, 0, 'g', 9)
                    .arg(tol);
        }
    }
    return {};
}

Params base(Scheme s, Normaliser norm, int maskKind, bool cls, bool sep) {
    Params p;
    p.scheme = s;
    p.n = 13;
    p.d = 16;
    p.heads = 2;
    p.norm = norm;
    p.cls = cls;
    p.sep = sep;
    p.clip = 3;
    p.seed = 7;
    p.buckets = 8;
    p.maxDistance = 16;
    p.debertaBuckets = 8;
    p.debertaMaxPosition = 16;
    if (maskKind == 1)
        p.mask = MaskKind::Causal;
    if (maskKind == 2)
        p.validLen = p.seqLen() - 4;
    if (s == Scheme::ALiBi && maskKind == 1)
        p.alibiMode = AlibiMode::Causal;
    return p;
}

} // namespace

class TestCpuEngine : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void matchesReference_data();
    void matchesReference();
    void recycledBuffersGiveTheSameTrace();
    void stoppedAtTheWeights_data();
    void stoppedAtTheWeights();
    void oneHeadIsThatHeadOfTheWholePass_data() { stoppedAtTheWeights_data(); }
    void oneHeadIsThatHeadOfTheWholePass();
    void canonicalParamsGiveTheSameTrace();
    void inputsAheadAreTheTracesOwn_data();
    void inputsAheadAreTheTracesOwn();
    void externalTensorsStayOutOfThePool();
    void providedStorageIsComputedInto();
    void keptTablesFollowTheParameters();
    void keptMemoryIsTheLastComputationsOwn();
    void preparedAndKeptScratchGiveTheSameTrace();
    void scratchStartsOnCacheLines();
    void float64DelegatesToReference();
    void invalidParamsAreAnError();
    void cancelStops();
    // The pooled path: row blocks streamed into pooled cells, no n×n stored.
    void pooledEqualsPoolingTheReference_data();
    void pooledEqualsPoolingTheReference();
    void pooledSmallTileIsTheExactSlice();
    void tileFromLentProjections_data();
    void tileFromLentProjections();
    void pooledBadRequestsAndCancel();
};

void TestCpuEngine::matchesReference_data() {
    QTest::addColumn<Params>("params");
    QTest::addColumn<int>("rowBlock");
    // 0: the default library (cpu_gemm.h's rule: Eigen or OpenBLAS, by machine), 1: Eigen,
    // 2: OpenBLAS, so that both run the engine on every machine.
    QTest::addColumn<int>("gemm");
    const char* masks[] = {"none", "causal", "validlen"};
    for (Scheme s : allSchemes())
        for (Normaliser nm : allNormalisers())
            for (int m = 0; m < 3; ++m) {
                const std::string tag =
                    std::string(toString(s)) + "/" + std::string(toString(nm)) + "/" + masks[m];
                QTest::newRow(tag.c_str()) << base(s, nm, m, false, false) << 0 << 0;
                const std::string tagCs = tag + "/cls+sep";
                QTest::newRow(tagCs.c_str()) << base(s, nm, m, true, true) << 5 << 0;
            }
    // Scheme options, a larger n with several row blocks and threads.
    auto add = [](const char* tag, Params p, int rowBlock = 0, int gemm = 0) {
        QTest::newRow(tag) << p << rowBlock << gemm;
    };
    Params p = base(Scheme::T5, Normaliser::Softmax, 0, true, false);
    p.unidirectional = true;
    add("t5/unidirectional", p);
    p = base(Scheme::URPE, Normaliser::Softmax, 1, false, true);
    p.urpeBias = UrpeBias::T5;
    add("urpe/t5-bias", p, 4);
    p = base(Scheme::DeBERTa, Normaliser::Softmax, 0, false, false);
    p.p2cConvention = P2CConvention::Paper;
    add("deberta/paper", p);
    p.debertaC2P = false;
    add("deberta/p2c-only", p);
    p = base(Scheme::DeBERTa, Normaliser::L2, 2, true, true);
    p.debertaP2C = false;
    add("deberta/c2p-only", p);
    p = base(Scheme::DeBERTa, Normaliser::Softmax, 0, false, false);
    p.debertaLogBuckets = true;
    p.n = 40;
    add("deberta/log-buckets", p, 7);
    p = base(Scheme::TransformerXL, Normaliser::Softmax, 1, false, false);
    p.txlClampLen = 4;
    add("txl/clamp", p, 3);
    p = base(Scheme::RoPE, Normaliser::Softmax, 0, false, false);
    p.ropeConvention = RopeConvention::Half;
    add("rope/half", p);
    p.ropeDims = 4;
    add("rope/partial", p);
    for (RopeScaling sc : {RopeScaling::PI, RopeScaling::NTK}) {
        p = base(Scheme::RoPE, Normaliser::Softmax, 1, true, false);
        p.ropeScaling = sc;
        p.ropeScale = 3.0;
        add((std::string("rope/") + std::string(toString(sc))).c_str(), p);
        p.ropeScale = 0.5;
        p.ropeConvention = RopeConvention::Half;
        p.ropeDims = 4;
        add((std::string("rope/") + std::string(toString(sc)) + "/s0.5/half/partial").c_str(), p);
        p = base(Scheme::RoPE, Normaliser::Softmax, 0, false, false);
        p.ropeScaling = sc;
        p.ropeScale = 8.0;
        p.n = 300;
        add((std::string("rope/") + std::string(toString(sc)) + "/n300").c_str(), p, 64);
    }
    p = base(Scheme::Mlp, Normaliser::Softmax, 0, true, true);
    p.mlpFeatures = 1;
    p.mlpHidden = 3;
    add("mlp/F1-H3", p);
    p.mlpFeatures = 32;
    p.mlpHidden = 200;
    p.base = 50.0;
    add("mlp/F32-H200-base50", p);
    p = base(Scheme::Mlp, Normaliser::Softmax, 1, false, false);
    p.n = 300; // several blocks of the encoding and of the n² pass
    p.learnedRows = 8;
    add("mlp/n300", p, 64);
    add("mlp/n300/eigen-gemm", p, 64, 1);
    p = base(Scheme::Sinusoidal, Normaliser::Softmax, 0, false, false);
    p.layout = SinLayout::T2T;
    add("sinusoidal/t2t", p);
    p = base(Scheme::Shaw, Normaliser::Softmax, 1, true, true);
    p.clip = 0;
    add("shaw/k0", p);
    p.clip = 30; // k beyond n
    add("shaw/k-beyond-n", p, 6);
    for (Scheme s : {Scheme::None, Scheme::Shaw, Scheme::TransformerXL, Scheme::T5, Scheme::DeBERTa,
                     Scheme::ALiBi, Scheme::URPE}) {
        p = base(s, Normaliser::Softmax, 1, true, true);
        p.n = 46;
        p.d = 32;
        p.heads = 4;
        const std::string tag = std::string(toString(s)) + "/n48-blocks";
        add(tag.c_str(), p, 16);
        const std::string tagEigen = tag + "/eigen-gemm";
        add(tagEigen.c_str(), p, 16, 1);
        if (cpu::haveOpenBlas()) {
            const std::string tagBlas = tag + "/openblas-gemm";
            add(tagBlas.c_str(), p, 16, 2);
        }
    }
    // The block's products on packed keys and values: head widths that are not a multiple of
    // the vector (12: the value product's padded rows; 20 and 36 past one and two vectors), n
    // with keys past the last whole panel (46 positions, [SEP] included) and without (40), for
    // the plain, scaled (DeBERTa) and query-shifted (Transformer-XL) dots.
    for (Scheme s : {Scheme::None, Scheme::TransformerXL, Scheme::DeBERTa})
        for (int dh : {12, 20, 36})
            for (int n : {40, 45}) {
                p = base(s, Normaliser::Softmax, 0, false, n == 45);
                p.n = n;
                p.heads = 2;
                p.d = 2 * dh;
                const std::string tag = std::string(toString(s)) + "/dh" + std::to_string(dh) +
                                        "/positions" + std::to_string(p.seqLen());
                add(tag.c_str(), p, 16);
            }
    // Rows long enough for whole vectors between the scalar head and tail of the row pass,
    // which streams logits and weights to trace rows at every alignment (n = 133: rows start
    // 4·133 bytes apart), for every normaliser and mask, with URPE's post-factor too.
    for (Scheme s : {Scheme::ALiBi, Scheme::URPE})
        for (Normaliser nm : allNormalisers())
            for (int m = 0; m < 3; ++m) {
                p = base(s, nm, m, false, false);
                p.n = 133;
                p.d = 32;
                p.validLen = m == 2 ? 101 : -1;
                const std::string tag = std::string(toString(s)) + "/" + std::string(toString(nm)) +
                                        "/n133/" + masks[m];
                add(tag.c_str(), p, 24);
            }
}

void TestCpuEngine::matchesReference() {
    QFETCH(Params, params);
    QFETCH(int, rowBlock);
    QFETCH(int, gemm);
    const cpu::GemmLibrary library = cpu::gemmLibrary();
    if (gemm == 1)
        cpu::setGemmLibrary(cpu::GemmLibrary::Eigen);
    else if (gemm == 2)
        cpu::setGemmLibrary(cpu::GemmLibrary::OpenBlas);
    const auto restore = qScopeGuard([library] { cpu::setGemmLibrary(library); });
    Weights w;
    completeWeights(params, w);
    const Expected<Trace> ref = computeTrace(params, w);
    QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().message.c_str());
    CpuFastBackend fast(3);
    fast.setRowBlock(rowBlock);
    fast.setMinParallelWork(0); // exercise the pool even at these sizes
    const Expected<Trace> got = fast.compute(params, w);
    QVERIFY2(got.ok(), got.ok() ? "" : got.error().message.c_str());
    const QString diff = compareTraces(*ref, *got);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// The engine the window and the Compare tab compute with reads no more than canonical() keeps
// (tests/core/tst_trace checks the reference): a change canonical() calls no change gives the
// same trace bit for bit, on one engine whose caches (sinusoids, tables) saw the other first.
void TestCpuEngine::canonicalParamsGiveTheSameTrace() {
    CpuFastBackend fast(2);
    fast.setMinParallelWork(0);
    const testing::CanonicalCheck c =
        testing::checkCanonical(testing::changesBase, [&fast](const Params& p) {
            if (p.precision != Precision::Float32)
                return Trace{}; // the reference's own (tst_trace)
            Weights w;
            completeWeights(p, w);
            Expected<Trace> t = fast.compute(p, w);
            if (!t)
                qFatal("compute failed: %s", t.error().message.c_str());
            return std::move(t).value();
        });
    QVERIFY2(c.failure.empty(), c.failure.c_str());
    QVERIFY2(c.same > 200 && c.different > 300,
             qPrintable(QStringLiteral("%1 same, %2 different").arg(c.same).arg(c.different)));
}

// A pass stopped at the weights (the Compare tab's other schemes) gives the whole pass's tensors
// up to the weights, bit for bit and in the contract's order, and none of those past them; so
// does a pooled one, for its cells; the next pass with the stop off is whole again.
void TestCpuEngine::stoppedAtTheWeights_data() {
    QTest::addColumn<Params>("params");
    for (Scheme s : allSchemes()) {
        const std::string name(toString(s));
        QTest::newRow(name.c_str()) << base(s, Normaliser::Softmax, 1, true, true);
    }
    Params p = base(Scheme::Shaw, Normaliser::Softmax, 0, false, false);
    p.n = 700; // several row blocks and both threads
    p.d = 64;
    QTest::newRow("shaw/n=700") << p;
}

void TestCpuEngine::stoppedAtTheWeights() {
    QFETCH(Params, params);
    Weights w;
    completeWeights(params, w);
    CpuFastBackend fast(2);
    fast.setMinParallelWork(0);
    const Expected<Trace> whole = fast.compute(params, w);
    QVERIFY(whole.ok());
    fast.setStopAtWeights(true);
    const Expected<Trace> stopped = fast.compute(params, w);
    QVERIFY2(stopped.ok(), stopped.ok() ? "" : stopped.error().message.c_str());
    std::size_t k = 0;
    for (const auto& [name, t] : whole->tensors) {
        if (CpuFastBackend::pastWeights(name)) {
            QVERIFY2(!stopped->find(name), name.c_str());
            continue;
        }
        QVERIFY2(k < stopped->tensors.size(), name.c_str());
        const auto& [stoppedName, s] = stopped->tensors[k++];
        QCOMPARE(stoppedName, name);
        QCOMPARE(s.shape(), t.shape());
        QVERIFY2(std::memcmp(s.raw(), t.raw(), t.byteSize()) == 0, name.c_str());
    }
    QCOMPARE(k, stopped->tensors.size());
    QVERIFY(!stopped->find("out") && !stopped->find("V") && !stopped->find("head_out"));

    // The weights alone: of the n × n tensors only the weights, the same bit for bit (the
    // position terms still added to the logits from their tables), and every O(n·d) tensor.
    fast.setWeightsAlone(true);
    const Expected<Trace> alone = fast.compute(params, w);
    QVERIFY2(alone.ok(), alone.ok() ? "" : alone.error().message.c_str());
    for (const auto& [name, t] : stopped->tensors) {
        const Tensor* a = alone->find(name);
        QVERIFY2(CpuFastBackend::termsBeforeWeights(name) == !a, name.c_str());
        if (a)
            QVERIFY2(std::memcmp(a->raw(), t.raw(), t.byteSize()) == 0, name.c_str());
    }
    QVERIFY(alone->find("weights") && !alone->find("logits"));
    // Not without setStopAtWeights: the whole trace.
    fast.setStopAtWeights(false);
    const Expected<Trace> wholeAgain = fast.compute(params, w);
    QVERIFY(wholeAgain.ok() && wholeAgain->tensors.size() == whole->tensors.size());
    fast.setStopAtWeights(true);
    fast.setWeightsAlone(false);

    // The pooled path (a long sequence's): the same cells bit for bit, without the value product
    // of the tile pass or the tensors past the weights.
    PoolRequest request;
    request.resolution = 4;
    fast.setStopAtWeights(false);
    const Expected<PooledTrace> pooledWhole = fast.computePooled(params, w, request);
    fast.setStopAtWeights(true);
    const Expected<PooledTrace> pooledStopped = fast.computePooled(params, w, request);
    QVERIFY(pooledWhole.ok() && pooledStopped.ok());
    const std::pair<const Tensor*, const Tensor*> cells[] = {
        {&pooledWhole->logits, &pooledStopped->logits},
        {&pooledWhole->weights, &pooledStopped->weights}};
    for (const auto& [whole, stoppedCells] : cells) {
        QCOMPARE(stoppedCells->shape(), whole->shape());
        QVERIFY(std::memcmp(stoppedCells->raw(), whole->raw(), whole->byteSize()) == 0);
    }
    QVERIFY(pooledWhole->trace.find("out") && !pooledWhole->out.empty());
    QVERIFY(pooledStopped->out.empty());
    for (const auto& [name, t] : pooledWhole->trace.tensors) {
        const Tensor* s = pooledStopped->trace.find(name);
        QVERIFY2(CpuFastBackend::pastWeights(name) == !s, name.c_str());
        if (s)
            QVERIFY2(std::memcmp(s->raw(), t.raw(), t.byteSize()) == 0, name.c_str());
    }
    fast.setStopAtWeights(false);
    const Expected<Trace> again = fast.compute(params, w);
    QVERIFY(again.ok());
    const Expected<Trace> ref = computeTrace(params, w);
    QVERIFY(ref.ok());
    const QString diff = compareTraces(*ref, *again);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// One head's pass (the Compare tab's other schemes at a long n): each [heads, n, n] tensor is
// that head of the pass of every head, bit for bit, as [1, n, n]; every other tensor the same.
// So for a pooled pass, its cells. Not for a whole pass nor a head out of range: every head.
void TestCpuEngine::oneHeadIsThatHeadOfTheWholePass() {
    QFETCH(Params, params);
    params.heads = 4;
    const std::int64_t N = params.seqLen();
    Weights w;
    completeWeights(params, w);
    CpuFastBackend fast(2);
    fast.setMinParallelWork(0);
    fast.setStopAtWeights(true);
    for (const bool alone : {false, true}) {
        fast.setWeightsAlone(alone);
        fast.setOnlyHead(-1);
        const Expected<Trace> all = fast.compute(params, w);
        QVERIFY2(all.ok(), all.ok() ? "" : all.error().message.c_str());
        QCOMPARE(all->onlyHead, -1);
        for (const int head : {0, 2, 3}) {
            fast.setOnlyHead(head);
            const Expected<Trace> one = fast.compute(params, w);
            QVERIFY2(one.ok(), one.ok() ? "" : one.error().message.c_str());
            QCOMPARE(one->onlyHead, head);
            QVERIFY(one->holdsHead(head) && !one->holdsHead(head == 0 ? 1 : 0));
            QCOMPARE(one->tensors.size(), all->tensors.size());
            int perHead = 0;
            for (std::size_t k = 0; k < all->tensors.size(); ++k) {
                const auto& [name, t] = all->tensors[k];
                const auto& [oneName, o] = one->tensors[k];
                QCOMPARE(oneName, name);
                const bool nn = t.rank() == 3 && t.dim(1) == N && t.dim(2) == N;
                if (!nn) {
                    QCOMPARE(o.shape(), t.shape());
                    QVERIFY2(std::memcmp(o.raw(), t.raw(), t.byteSize()) == 0, name.c_str());
                    continue;
                }
                ++perHead;
                QCOMPARE(o.shape(), (std::vector<std::int64_t>{1, N, N}));
                const std::size_t slice = o.byteSize();
                QVERIFY2(std::memcmp(o.raw(), static_cast<const char*>(t.raw()) + head * slice,
                                     slice) == 0,
                         name.c_str());
            }
            QVERIFY(perHead >= 1); // the weights at least
        }
    }
    // A head out of range, and the whole pass: every head.
    fast.setWeightsAlone(false);
    fast.setOnlyHead(params.heads);
    const Expected<Trace> outside = fast.compute(params, w);
    QVERIFY(outside.ok() && outside->onlyHead == -1 &&
            outside->find("weights")->dim(0) == params.heads);
    fast.setOnlyHead(1);
    fast.setStopAtWeights(false);
    const Expected<Trace> whole = fast.compute(params, w);
    QVERIFY(whole.ok() && whole->onlyHead == -1 && whole->find("out") &&
            whole->find("weights")->dim(0) == params.heads);
    // Pooled and stopped at the weights: that head's cells of every head's, bit for bit.
    fast.setStopAtWeights(true);
    PoolRequest request;
    request.resolution = 4;
    fast.setOnlyHead(-1);
    const Expected<PooledTrace> pooled = fast.computePooled(params, w, request);
    QVERIFY(pooled.ok() && pooled->weights.dim(0) == params.heads && pooled->trace.onlyHead == -1);
    fast.setOnlyHead(1);
    const Expected<PooledTrace> pooledOne = fast.computePooled(params, w, request);
    QVERIFY(pooledOne.ok());
    QCOMPARE(pooledOne->trace.onlyHead, 1);
    for (const auto& [all, one] : {std::pair{&pooled->logits, &pooledOne->logits},
                                   std::pair{&pooled->weights, &pooledOne->weights}}) {
        QCOMPARE(one->shape(), (std::vector<std::int64_t>{1, all->dim(1), all->dim(2)}));
        QVERIFY(std::memcmp(one->raw(), static_cast<const char*>(all->raw()) + one->byteSize(),
                            one->byteSize()) == 0);
    }
    // Not for a whole pooled pass.
    fast.setStopAtWeights(false);
    const Expected<PooledTrace> pooledWhole = fast.computePooled(params, w, request);
    QVERIFY(pooledWhole.ok() && pooledWhole->weights.dim(0) == params.heads &&
            pooledWhole->trace.onlyHead == -1 && !pooledWhole->out.empty());
}

void TestCpuEngine::recycledBuffersGiveTheSameTrace() {
    Params p = base(Scheme::T5, Normaliser::Softmax, 1, true, false);
    Weights w;
    completeWeights(p, w);
    CpuFastBackend fast(2);
    fast.setMinParallelWork(0);
    Expected<Trace> first = fast.compute(p, w);
    QVERIFY(first.ok());
    const float* logitsBuffer = first->find("logits")->data<float>();
    fast.recycle(std::move(*first));
    Expected<Trace> second = fast.compute(p, w);
    QVERIFY(second.ok());
    QCOMPARE(second->find("logits")->data<float>(), logitsBuffer); // the buffer was reused
    const Expected<Trace> ref = computeTrace(p, w);
    QVERIFY(ref.ok());
    const QString diff = compareTraces(*ref, *second);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// What the window draws before the forward pass (computeInputs: the Encoding tab) is the trace's
// own E, P and X, bit for bit, so that the views need not draw them again when the whole trace
// comes; every element is written (the recycled buffers it takes start as NaN here), and no n × n
// matrix comes with them (the Relative tab draws from the tables by offset).
void TestCpuEngine::inputsAheadAreTheTracesOwn_data() {
    QTest::addColumn<Params>("params");
    for (Scheme s : allSchemes()) {
        const std::string name(toString(s));
        QTest::newRow(name.c_str()) << base(s, Normaliser::Softmax, 0, false, false);
        const std::string tagged = name + "/cls+sep+causal";
        QTest::newRow(tagged.c_str()) << base(s, Normaliser::Softmax, 1, true, true);
    }
    Params p = base(Scheme::URPE, Normaliser::Softmax, 1, false, true);
    p.urpeBias = UrpeBias::T5;
    QTest::newRow("urpe/t5-bias") << p;
    p = base(Scheme::Sinusoidal, Normaliser::Softmax, 0, false, false);
    p.n = 700; // several row blocks and both threads
    p.d = 64;
    QTest::newRow("sinusoidal/n=700") << p;
    p.scheme = Scheme::T5;
    QTest::newRow("t5/n=700") << p;
}

void TestCpuEngine::inputsAheadAreTheTracesOwn() {
    QFETCH(Params, params);
    Weights w;
    completeWeights(params, w);
    CpuFastBackend fast(2);
    fast.setMinParallelWork(0);
    const Expected<Trace> whole = fast.compute(params, w);
    QVERIFY2(whole.ok(), whole.ok() ? "" : whole.error().message.c_str());
    // A trace of NaNs handed back: its buffers are what computeInputs takes.
    Expected<Trace> poisoned = fast.compute(params, w);
    QVERIFY(poisoned.ok());
    for (auto& [name, t] : poisoned->tensors) {
        if (t.dtype() == DType::F32)
            std::fill_n(t.data<float>(), t.size(), std::numeric_limits<float>::quiet_NaN());
        else if (t.dtype() == DType::I32)
            std::fill_n(t.data<std::int32_t>(), t.size(), -12345);
    }
    fast.recycle(std::move(*poisoned));
    const std::set<std::string> inputs{"E", "P", "X"};
    const std::optional<Trace> ahead = fast.computeInputs(params, w);
    QVERIFY(ahead.has_value());
    QCOMPARE(ahead->params, params);
    std::set<std::string> expected;
    for (const auto& [name, t] : whole->tensors)
        if (inputs.count(name))
            expected.insert(name);
    std::set<std::string> got;
    for (const auto& [name, t] : ahead->tensors) {
        got.insert(name);
        const Tensor* w0 = whole->find(name);
        QVERIFY2(w0, name.c_str());
        QCOMPARE(t.dtype(), w0->dtype());
        QCOMPARE(t.shape(), w0->shape());
        QVERIFY2(
            std::memcmp(t.raw(), w0->raw(), t.byteSize()) == 0,
            qPrintable(
                QStringLiteral("%1 differs from the trace's").arg(QString::fromStdString(name))));
    }
    QCOMPARE(got, expected);
    QVERIFY(expected.count("E") && expected.count("X"));
    QCOMPARE(expected.count("P") == 1, isAbsolute(params.scheme));
    Params f64 = params;
    f64.precision = Precision::Float64;
    QVERIFY(!fast.computeInputs(f64, w).has_value()); // the reference path: no early part
    Params bad = params;
    bad.heads = 0;
    QVERIFY(!fast.computeInputs(bad, w).has_value());
}

// A trace handed back whose tensors view memory the engine does not own (the CLI's mapped
// output files) lends none of it to the next computation: that memory stays as it was.
void TestCpuEngine::externalTensorsStayOutOfThePool() {
    const Params p = base(Scheme::T5, Normaliser::Softmax, 1, true, false);
    Weights w;
    completeWeights(p, w);
    CpuFastBackend fast(2);
    fast.setMinParallelWork(0);
    Expected<Trace> first = fast.compute(p, w);
    QVERIFY(first.ok());
    // Every tensor of the trace copied into memory of the test's own, and handed back as views.
    auto owned = std::make_shared<std::vector<std::vector<char>>>();
    Trace views;
    views.params = p;
    for (const auto& [name, t] : first->tensors) {
        const char* raw = static_cast<const char*>(t.raw());
        owned->emplace_back(raw, raw + t.byteSize());
        views.tensors.emplace_back(
            name, Tensor::onExternal(t.shape(), {t.dtype(), owned->back().data(),
                                                 static_cast<std::size_t>(t.size()), owned}));
    }
    const std::vector<std::vector<char>> before = *owned;
    fast.recycle(std::move(views));
    Params other = p;
    other.seed = 99;
    Weights w2;
    completeWeights(other, w2);
    const Expected<Trace> next = fast.compute(other, w2);
    QVERIFY(next.ok());
    for (const auto& [name, t] : next->tensors) {
        QVERIFY2(!t.isExternal(), name.c_str());
        for (const std::vector<char>& bytes : *owned)
            QVERIFY2(t.raw() != bytes.data(), name.c_str());
    }
    QVERIFY(*owned == before); // nothing was written into them
    const Expected<Trace> ref = computeTrace(other, w2);
    QVERIFY(ref.ok());
    const QString diff = compareTraces(*ref, *next);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// Storage handed to the engine by name (the CLI's mapped output files) is what the trace's
// tensors are, every element written (it starts as NaN here); storage of another shape or
// dtype is left alone, and none is kept for the next computation.
void TestCpuEngine::providedStorageIsComputedInto() {
    Params p = base(Scheme::T5, Normaliser::Softmax, 1, true, false);
    p.precision = Precision::Float32;
    Weights w;
    completeWeights(p, w);
    const std::int64_t N = p.seqLen(), H = p.heads;
    auto external = [](std::vector<std::int64_t> shape, DType type,
                       std::shared_ptr<std::vector<double>> memory) {
        const auto count = static_cast<std::size_t>(shapeElements(shape));
        memory->assign(count, std::numeric_limits<double>::quiet_NaN()); // 8 bytes an element
        return Tensor::onExternal(std::move(shape), {type, memory->data(), count, memory});
    };
    auto logitsMemory = std::make_shared<std::vector<double>>();
    auto eMemory = std::make_shared<std::vector<double>>();
    auto indexMemory = std::make_shared<std::vector<double>>();
    auto weightsMemory = std::make_shared<std::vector<double>>();
    std::vector<std::pair<std::string, Tensor>> storage;
    storage.emplace_back("logits", external({H, N, N}, DType::F32, logitsMemory));
    storage.emplace_back("E", external({N, p.d}, DType::F32, eMemory));
    storage.emplace_back("rel_index", external({N, N}, DType::I32, indexMemory));
    storage.emplace_back("weights", external({H, N, N + 1}, DType::F32, weightsMemory));
    CpuFastBackend fast(2);
    fast.setMinParallelWork(0);
    fast.provideOutputStorage(std::move(storage));
    Expected<Trace> got = fast.compute(p, w);
    QVERIFY(got.ok());
    QCOMPARE(got->find("logits")->raw(), static_cast<const void*>(logitsMemory->data()));
    QCOMPARE(got->find("E")->raw(), static_cast<const void*>(eMemory->data()));
    QCOMPARE(got->find("rel_index")->raw(), static_cast<const void*>(indexMemory->data()));
    QVERIFY(got->find("weights")->raw() != static_cast<const void*>(weightsMemory->data()));
    QCOMPARE(got->find("weights")->shape(), (std::vector<std::int64_t>{H, N, N}));
    const Expected<Trace> ref = computeTrace(p, w);
    QVERIFY(ref.ok());
    QString diff = compareTraces(*ref, *got);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));

    Expected<Trace> next = fast.compute(p, w);
    QVERIFY(next.ok());
    QVERIFY(next->find("logits")->raw() != static_cast<const void*>(logitsMemory->data()));
    diff = compareTraces(*ref, *next);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// The engine keeps its sinusoidal, Transformer-XL and RoPE tables between computations: one
// engine through changes of every parameter they depend on (RoPE: n, rotated dims, base,
// scaling and stretch) must still equal the reference.
// The engine keeps tables and pooled tensors between computations, but never the memory of a
// larger n, of a scheme no longer computed, or of a pool once it is released.
void TestCpuEngine::keptMemoryIsTheLastComputationsOwn() {
    CpuFastBackend fast(2);
    auto run = [&fast](Params p) {
        Weights w;
        completeWeights(p, w);
        Expected<Trace> t = fast.compute(p, w);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
        fast.recycle(std::move(*t));
    };
    // RoPE keeps cos and sin, [2, n, head dims / 2]; the sinusoid [n, d].
    auto params = [](Scheme s, int n) {
        Params p = base(s, Normaliser::Softmax, 0, false, false);
        p.n = n;
        p.d = 256;
        return p;
    };
    const std::uint64_t ropeRow = 2 * (256 / 2 / 2) * sizeof(float);
    // The tables alone: what is held besides the last computation's scratch (below).
    auto tables = [&fast] { return fast.heldBytes() - fast.scratchBytes(); };
    run(params(Scheme::RoPE, 1024));
    QVERIFY(tables() >= 1024 * ropeRow);
    // Scratch: the four float weights (d = 256) and the packed keys and values of n = 1024.
    const std::uint64_t scratchLarge = fast.scratchBytes();
    QVERIFY(scratchLarge >= (4 * 256 * 256 + 2 * 1024 * 256) * sizeof(float));
    run(params(Scheme::RoPE, 16)); // the same table with a smaller n: storage of its own size
    fast.releasePool();
    QCOMPARE(tables(), 16 * ropeRow);
    // ... and the scratch of n = 16 only: the packed keys and values of n = 1024 are let go.
    QVERIFY(fast.scratchBytes() < (4 * 256 * 256 + 2 * 256 * 256) * sizeof(float));
    QVERIFY(fast.scratchBytes() < scratchLarge);
    run(params(Scheme::Sinusoidal, 1024));
    QVERIFY(tables() >= 1024 * 256 * sizeof(float));
    const Params rope = params(Scheme::RoPE, 16);
    run(rope); // no sinusoid in this computation: that table goes
    fast.releasePool();
    QCOMPARE(tables(), 16 * ropeRow);
    Params t5 = rope;
    t5.scheme = Scheme::T5;
    run(t5);
    fast.releasePool();
    QCOMPARE(tables(), std::uint64_t{0});
    // An idle window's engine lets go of its tables too (Backend::releaseIdleMemory), and the
    // next computation rebuilds them.
    for (Scheme s : {Scheme::Sinusoidal, Scheme::TransformerXL, Scheme::RoPE}) {
        run(params(s, 256));
        QVERIFY(fast.heldBytes() > 0);
        static_cast<Backend&>(fast).releaseIdleMemory();
        QCOMPARE(fast.heldBytes(), std::uint64_t{0});
    }
    const Params sin = params(Scheme::Sinusoidal, 256);
    Weights w;
    completeWeights(sin, w);
    Expected<Trace> ref = CpuReferenceBackend().compute(sin, w, nullptr);
    Expected<Trace> again = fast.compute(sin, w);
    QVERIFY(ref.ok() && again.ok());
    const QString diff = compareTraces(*ref, *again);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestCpuEngine::keptTablesFollowTheParameters() {
    std::vector<Params> steps;
    Params p = base(Scheme::Sinusoidal, Normaliser::Softmax, 0, false, false);
    steps.push_back(p);
    p.base = 500.0;
    steps.push_back(p);
    p.layout = SinLayout::Concat;
    steps.push_back(p);
    p.n = 17;
    steps.push_back(p);
    p = base(Scheme::TransformerXL, Normaliser::Softmax, 0, false, false);
    steps.push_back(p);
    p.txlClampLen = 4;
    steps.push_back(p);
    p.n = 17;
    steps.push_back(p);
    p.d = 24;
    steps.push_back(p);
    p = base(Scheme::RoPE, Normaliser::Softmax, 0, false, false);
    steps.push_back(p);
    p.ropeDims = 4;
    steps.push_back(p);
    p.base = 100.0;
    steps.push_back(p);
    p.n = 17;
    steps.push_back(p);
    p.ropeDims = 0;
    p.ropeConvention = RopeConvention::Half;
    steps.push_back(p);
    p.ropeScaling = RopeScaling::PI;
    p.ropeScale = 2.0;
    steps.push_back(p);
    p.ropeScale = 3.0;
    steps.push_back(p);
    p.ropeScaling = RopeScaling::NTK;
    steps.push_back(p);
    p.ropeScale = 5.0;
    steps.push_back(p);
    p.ropeScaling = RopeScaling::None; // the stretch no longer counts
    steps.push_back(p);
    p.ropeScaling = RopeScaling::PI;
    steps.push_back(p);
    CpuFastBackend fast(2);
    fast.setMinParallelWork(0);
    for (std::size_t k = 0; k < steps.size(); ++k) {
        Weights w;
        completeWeights(steps[k], w);
        const Expected<Trace> ref = computeTrace(steps[k], w);
        QVERIFY(ref.ok());
        const Expected<Trace> got = fast.compute(steps[k], w);
        QVERIFY(got.ok());
        const QString diff = compareTraces(*ref, *got);
        QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("step %1: %2").arg(k).arg(diff)));
    }
}

void TestCpuEngine::preparedAndKeptScratchGiveTheSameTrace() {
    // The n² pass's per-worker scratch is kept from one computation to the next and may be
    // sized ahead by prepare(): whatever the last computation left in it, a computation equals
    // a fresh engine's bit for bit. The order mixes the schemes that use each buffer (DeBERTa's
    // and TXL's row terms, Shaw's key row and sums), larger and smaller n, and a head width of
    // 20 (the padded head output on every SIMD width).
    auto sameTensors = [](const Trace& a, const Trace& b, const QString& what) {
        QCOMPARE(a.tensors.size(), b.tensors.size());
        for (const auto& [name, t] : a.tensors) {
            const Tensor* u = b.find(name);
            QVERIFY2(u && u->shape() == t.shape() &&
                         std::memcmp(u->raw(), t.raw(), t.byteSize()) == 0,
                     qPrintable(what + QStringLiteral(": ") + QString::fromStdString(name)));
        }
    };
    CpuFastBackend kept(3);
    kept.setMinParallelWork(0);
    const std::vector<std::pair<Scheme, int>> order = {
        {Scheme::DeBERTa, 300}, {Scheme::TransformerXL, 257}, {Scheme::Shaw, 300},
        {Scheme::T5, 130},      {Scheme::DeBERTa, 64},        {Scheme::None, 300},
        {Scheme::Shaw, 77},     {Scheme::RoPE, 129}};
    for (std::size_t k = 0; k < order.size(); ++k) {
        Params p = base(order[k].first, Normaliser::Softmax, 0, false, false);
        p.n = order[k].second;
        p.d = 40;
        p.heads = 2;
        p.clip = 2 + static_cast<int>(k);
        Weights w;
        completeWeights(p, w);
        if (k % 2 == 0)
            kept.prepare(p, false);
        Expected<Trace> a = kept.compute(p, w);
        CpuFastBackend fresh(3);
        fresh.setMinParallelWork(0);
        const Expected<Trace> b = fresh.compute(p, w);
        QVERIFY(a.ok() && b.ok());
        sameTensors(*a, *b,
                    QStringLiteral("%1 n=%2").arg(QString::fromUtf8(toString(p.scheme))).arg(p.n));
        kept.recycle(std::move(*a));
    }

    // prepare() sizes what the computation uses: its scratch does not change in the computation
    // after it, and holds each worker's block of the n² pass.
    Params p = base(Scheme::T5, Normaliser::Softmax, 0, false, false);
    p.n = 512;
    p.d = 64;
    p.heads = 2;
    Weights w;
    completeWeights(p, w);
    CpuFastBackend prepared(3);
    prepared.setMinParallelWork(0);
    prepared.prepare(p, false);
    const std::uint64_t ahead = prepared.scratchBytes();
    const std::uint64_t blocks = std::uint64_t{3} * 64 * 512 * sizeof(float); // 64 rows at n = 512
    QVERIFY(ahead >= blocks);
    QVERIFY(prepared.compute(p, w).ok());
    QCOMPARE(prepared.scratchBytes(), ahead);
    // The pooled pass keeps no blocks, and its result is the fresh engine's.
    CpuFastBackend pooledAhead(3), pooledFresh(3);
    pooledAhead.setMinParallelWork(0);
    pooledFresh.setMinParallelWork(0);
    pooledAhead.prepare(p, true);
    QVERIFY(pooledAhead.scratchBytes() < ahead);
    const PoolRequest request{64, PoolMode::Mean, false, {}};
    const Expected<PooledTrace> pa = pooledAhead.computePooled(p, w, request);
    const Expected<PooledTrace> pb = pooledFresh.computePooled(p, w, request);
    QVERIFY(pa.ok() && pb.ok());
    QVERIFY(std::memcmp(pa->logits.raw(), pb->logits.raw(), pa->logits.byteSize()) == 0);
    QVERIFY(std::memcmp(pa->weights.raw(), pb->weights.raw(), pa->weights.byteSize()) == 0);
    QVERIFY(std::memcmp(pa->out.raw(), pb->out.raw(), pa->out.byteSize()) == 0);
    // A pooled computation after a full one lets the full pass's blocks go.
    QVERIFY(prepared.computePooled(p, w, request).ok());
    QCOMPARE(prepared.scratchBytes(), ahead - blocks);
    // Nothing for parameters compute() refuses, float64 (the reference path) or one thread.
    Params bad = p;
    bad.heads = 0;
    Params f64 = p;
    f64.precision = Precision::Float64;
    CpuFastBackend idle(3), single(1);
    idle.prepare(bad, false);
    idle.prepare(f64, false);
    single.prepare(p, false);
    QCOMPARE(idle.scratchBytes(), std::uint64_t{0});
    QCOMPARE(single.scratchBytes(), std::uint64_t{0});
}

void TestCpuEngine::scratchStartsOnCacheLines() {
    // The engine's scratch (packed keys and values, the n² pass's blocks, the tile pass's rows)
    // is read and written in 64-byte vectors: glibc's malloc would start it 16 bytes into a
    // line (a fresh mapping's block begins 16 bytes past its page), and every AVX-512 access
    // would straddle two lines. Small, medium and mapped sizes, grown and shrunk.
    auto onLine = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; };
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{1} << 16,
                          std::size_t{5} << 20}) {
        TensorBuffer<float> v(n, 1.0f);
        QVERIFY2(onLine(v.data()), qPrintable(QStringLiteral("%1 floats").arg(n)));
        v.resize(3 * n + 17, 2.0f);
        QVERIFY(onLine(v.data()));
        QCOMPARE(v[0], 1.0f);
        QCOMPARE(v.back(), 2.0f);
        TensorBuffer<float>().swap(v);
        QVERIFY(v.empty());
    }
    TensorBuffer<double> doubles(12345);
    QVERIFY(onLine(doubles.data()));
}

void TestCpuEngine::float64DelegatesToReference() {
    Params p = base(Scheme::Shaw, Normaliser::L2, 0, false, false);
    p.precision = Precision::Float64;
    Weights w;
    completeWeights(p, w);
    CpuFastBackend fast;
    const Expected<Trace> got = fast.compute(p, w);
    QVERIFY(got.ok());
    QCOMPARE(got->find("weights")->dtype(), DType::F64);
}

void TestCpuEngine::invalidParamsAreAnError() {
    Params p = base(Scheme::None, Normaliser::Softmax, 0, false, false);
    Weights w;
    completeWeights(p, w);
    p.heads = 3; // 16 is not divisible by 3
    CpuFastBackend fast;
    const Expected<Trace> got = fast.compute(p, w);
    QVERIFY(!got.ok());
    QVERIFY(!got.error().message.empty());
}

void TestCpuEngine::cancelStops() {
    Params p = base(Scheme::None, Normaliser::Softmax, 0, false, false);
    Weights w;
    completeWeights(p, w);
    std::atomic<bool> cancel{true};
    CpuFastBackend fast;
    const Expected<Trace> got = fast.compute(p, w, &cancel);
    QVERIFY(!got.ok());
    QCOMPARE(QString::fromStdString(got.error().message), QStringLiteral("cancelled"));
}

void TestCpuEngine::pooledEqualsPoolingTheReference_data() {
    QTest::addColumn<Params>("params");
    QTest::addColumn<PoolRequest>("request");
    QTest::addColumn<int>("tileColumns"); // keys per tile of the fused pass (0: default)
    const char* masks[] = {"none", "causal", "validlen"};
    for (int tile : {0, 16})
        for (Scheme s : allSchemes())
            for (PoolMode mode : {PoolMode::Mean, PoolMode::Max})
                for (int m = 0; m < 3; ++m) {
                    Params p = base(s, Normaliser::Softmax, m, true, true);
                    p.n = 37; // 39 positions into 8 or 6 uneven cells, blocks of 5 rows
                    const std::string tag = std::string(toString(s)) + "/" +
                                            (mode == PoolMode::Mean ? "mean" : "max") + "/" +
                                            masks[m] + "/tile" + std::to_string(tile);
                    QTest::newRow((tag + "/whole").c_str())
                        << p << PoolRequest{8, mode, false, {}} << tile;
                    // A tile larger than the resolution: pooled over the tile only.
                    QTest::newRow((tag + "/tile").c_str())
                        << p << PoolRequest{6, mode, true, PoolRegion{5, 30, 2, 39}} << tile;
                }
    // Every normaliser through the online (softmax, L2) and direct (exp, relu²) paths, with
    // tiles that cells straddle, head widths below, at and past a vector (8, 40, 48 floats).
    const Normaliser norms[] = {Normaliser::L2, Normaliser::Exp, Normaliser::Relu2,
                                Normaliser::Relu2Visible};
    const Scheme schemes[] = {Scheme::T5,      Scheme::Shaw, Scheme::TransformerXL,
                              Scheme::DeBERTa, Scheme::URPE, Scheme::RoPE};
    for (Normaliser norm : norms)
        for (Scheme s : schemes)
            for (int m = 1; m < 3; ++m)
                for (int d : {16, 80, 96}) {
                    Params p = base(s, norm, m, true, false);
                    p.n = 70;
                    p.d = d;
                    p.validLen = m == 2 ? p.seqLen() - 9 : -1;
                    const std::string tag = std::string(toString(s)) + "/" +
                                            std::string(toString(norm)) + "/" + masks[m] + "/d" +
                                            std::to_string(d);
                    for (PoolMode mode : {PoolMode::Mean, PoolMode::Max})
                        QTest::newRow((tag + (mode == PoolMode::Mean ? "/mean" : "/max")).c_str())
                            << p << PoolRequest{9, mode, false, {}} << 16;
                }
    // Cells of one width (32, 16, 8, 4, 1 keys: a multiple of the vector or below it): the tree
    // totals; tiles of 256 keys (two in a row) hold 16 or 8 of them; a tile region starting on a
    // vector.
    for (Scheme s : {Scheme::None, Scheme::T5, Scheme::Shaw, Scheme::ALiBi})
        for (int m = 0; m < 3; ++m)
            for (PoolMode mode : {PoolMode::Mean, PoolMode::Max})
                for (int cells : {32, 16, 64, 128, 512}) {
                    Params p =
                        base(s, m == 0 ? Normaliser::Softmax : Normaliser::L2, m, false, false);
                    p.n = 512;
                    p.validLen = m == 2 ? 300 : -1;
                    const std::string tag = std::string(toString(s)) + "/uniform" +
                                            std::to_string(cells) + "/" + masks[m] +
                                            (mode == PoolMode::Mean ? "/mean" : "/max");
                    QTest::newRow(tag.c_str()) << p << PoolRequest{cells, mode, false, {}} << 256;
                    QTest::newRow((tag + "/tile").c_str())
                        << p << PoolRequest{cells / 2, mode, true, PoolRegion{40, 300, 64, 320}}
                        << 256;
                }
    // DeBERTa's gathers: the paper's p2c index, log buckets, one term only; rows whose index
    // loads would leave the table take the scalar path.
    for (bool paper : {false, true})
        for (bool logBuckets : {false, true})
            for (int terms : {3, 1, 2}) {
                Params p = base(Scheme::DeBERTa, Normaliser::Softmax, 1, true, true);
                p.n = 90;
                p.d = 32;
                p.p2cConvention = paper ? P2CConvention::Paper : P2CConvention::Code;
                p.debertaLogBuckets = logBuckets;
                p.debertaBuckets = 12;
                p.debertaMaxPosition = 40;
                p.debertaC2P = terms & 1;
                p.debertaP2C = terms & 2;
                const std::string tag = std::string("deberta/") + (paper ? "paper" : "code") +
                                        (logBuckets ? "/log" : "/linear") + "/terms" +
                                        std::to_string(terms);
                QTest::newRow(tag.c_str()) << p << PoolRequest{10, PoolMode::Mean, false, {}} << 32;
            }
    Params p = base(Scheme::DeBERTa, Normaliser::L2, 0, false, false);
    p.debertaC2P = false;
    QTest::newRow("deberta/p2c-only/l2") << p << PoolRequest{7, PoolMode::Mean, false, {}} << 0;
    p = base(Scheme::URPE, Normaliser::Relu2Visible, 1, false, true);
    p.urpeBias = UrpeBias::T5;
    QTest::newRow("urpe/t5-bias/relu2") << p << PoolRequest{7, PoolMode::Max, false, {}} << 0;
    p = base(Scheme::T5, Normaliser::Softmax, 0, false, false);
    QTest::newRow("t5/resolution-above-n") << p << PoolRequest{100, PoolMode::Mean, false, {}} << 0;
    // Shaw's value term in tiles of 16 keys: a tile wholly before or after the band |j − i| < k
    // adds its weights' sum to one relative index (under softmax the sum the weights were made
    // with); clip 0 (one index for every key) and one past n (every key in the band) too.
    for (int clip : {0, 3, 80})
        for (int m = 0; m < 2; ++m) {
            p = base(Scheme::Shaw, Normaliser::Softmax, m, true, false);
            p.n = 70;
            p.clip = clip;
            const std::string tag = "shaw/value-sums/clip" + std::to_string(clip) + "/" + masks[m];
            QTest::newRow(tag.c_str()) << p << PoolRequest{9, PoolMode::Mean, false, {}} << 16;
        }
}

void TestCpuEngine::pooledEqualsPoolingTheReference() {
    QFETCH(Params, params);
    QFETCH(PoolRequest, request);
    QFETCH(int, tileColumns);
    Weights w;
    completeWeights(params, w);
    const Expected<Trace> ref = computeTrace(params, w);
    QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().message.c_str());
    CpuFastBackend fast(3);
    fast.setRowBlock(5);
    fast.setTileColumns(tileColumns);
    fast.setMinParallelWork(0);
    const Expected<PooledTrace> got = fast.computePooled(params, w, request);
    QVERIFY2(got.ok(), got.ok() ? "" : got.error().message.c_str());
    const PoolRegion region = poolRegion(request, params.seqLen());
    QCOMPARE(got->region, region);
    QCOMPARE(got->mode, request.mode);
    // Expected: the reference's logits and weights pooled, and (whole matrix) its O(n·d) tensors.
    Trace want{params, {}, ref->tokens, nullptr};
    Trace have{params, {}, got->trace.tokens, nullptr};
    for (const char* name : {"logits", "weights"})
        want.tensors.emplace_back(
            name, poolHeads(*ref->find(name), region, request.resolution, request.mode));
    have.tensors.emplace_back("logits", got->logits);
    have.tensors.emplace_back("weights", got->weights);
    if (!request.hasTile) {
        QVERIFY(!got->trace.find("logits") && !got->trace.find("rel_index"));
        for (const std::string& name : pooledTraceTensorNames(params)) {
            QVERIFY2(got->trace.find(name), name.c_str());
            want.tensors.emplace_back(name, *ref->find(name));
            have.tensors.emplace_back(name, *got->trace.find(name));
        }
        want.tensors.emplace_back("out", *ref->find("out"));
        have.tensors.emplace_back("out", got->out);
    } else {
        QVERIFY(got->trace.tensors.empty());
        have.tokens = want.tokens;
    }
    const QString diff = compareTraces(want, have);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestCpuEngine::pooledSmallTileIsTheExactSlice() {
    for (Scheme s : {Scheme::Shaw, Scheme::TransformerXL, Scheme::ALiBi}) {
        Params p = base(s, Normaliser::Softmax, 1, true, true);
        p.n = 37;
        Weights w;
        completeWeights(p, w);
        const Expected<Trace> ref = computeTrace(p, w);
        QVERIFY(ref.ok());
        const PoolRegion t{7, 19, 3, 25}; // 12 × 22, within the resolution
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

void TestCpuEngine::tileFromLentProjections_data() {
    QTest::addColumn<Params>("params");
    for (Scheme s : allSchemes()) {
        const std::string name(toString(s));
        Params p = base(s, Normaliser::Softmax, 0, true, true);
        p.n = 37;
        QTest::newRow(name.c_str()) << p;
    }
}

void TestCpuEngine::tileFromLentProjections() {
    // A zoom tile of the shown pooled trace borrows its Q and K (the worker does it for the
    // window): the tile's cells are those it computes from the inputs, and nothing else.
    QFETCH(Params, params);
    Weights w;
    completeWeights(params, w);
    CpuFastBackend fast(2);
    fast.setMinParallelWork(0);
    fast.setRowBlock(4);
    const Expected<PooledTrace> whole =
        fast.computePooled(params, w, PoolRequest{16, PoolMode::Mean, false, {}});
    QVERIFY(whole.ok());
    const auto shown = std::make_shared<const Trace>(whole->trace);
    QVERIFY(shown->find("Q") && shown->find("K"));
    const PoolRegion region{7, 19, 3, 25}; // full resolution
    const PoolRequest tile{32, PoolMode::Mean, true, region};
    const Expected<PooledTrace> own = fast.computePooled(params, w, tile);
    fast.lendProjections(shown);
    const Expected<PooledTrace> lent = fast.computePooled(params, w, tile);
    QVERIFY(own.ok() && lent.ok());
    for (const auto& [a, b] :
         {std::pair{&own->logits, &lent->logits}, std::pair{&own->weights, &lent->weights}}) {
        QCOMPARE(b->shape(), a->shape());
        double worst = 0;
        for (std::int64_t k = 0; k < a->size(); ++k)
            worst = std::max(worst, std::abs(a->at(k) - b->at(k)));
        QVERIFY2(worst <= 1e-6, qPrintable(QString::number(worst)));
    }

    // The lent tensors are what the tile uses: queries and keys of zeros leave every logit 0
    // where all its terms are products of them (every key the same weight); the others differ
    // by their position terms alone ...
    Trace zeros = *shown;
    for (const char* name : {"Q", "K"}) {
        Tensor* t = zeros.find(name);
        std::fill_n(t->data<float>(), t->size(), 0.0f);
    }
    const auto zeroed = std::make_shared<const Trace>(std::move(zeros));
    fast.lendProjections(zeroed);
    const Expected<PooledTrace> fromZeros = fast.computePooled(params, w, tile);
    QVERIFY(fromZeros.ok());
    const Scheme s = params.scheme;
    if (s != Scheme::TransformerXL && s != Scheme::T5 && s != Scheme::ALiBi && s != Scheme::URPE) {
        for (std::int64_t k = 0; k < fromZeros->weights.size(); ++k)
            QVERIFY2(std::abs(fromZeros->weights.at(k) - 1.0 / params.seqLen()) < 1e-7,
                     qPrintable(QString::number(fromZeros->weights.at(k))));
    } else {
        QVERIFY(std::memcmp(fromZeros->weights.raw(), own->weights.raw(),
                            own->weights.byteSize()) != 0);
    }
    // ... for that computation only: the next computes its own again.
    const Expected<PooledTrace> after = fast.computePooled(params, w, tile);
    QVERIFY(after.ok());
    QVERIFY(std::memcmp(after->weights.raw(), own->weights.raw(), own->weights.byteSize()) == 0);

    // Not lent where they cannot be the tile's: other parameters, the whole matrix (which
    // needs V), or a compute().
    Params other = params;
    other.seed += 1;
    fast.lendProjections(zeroed);
    const Expected<PooledTrace> otherSeed = fast.computePooled(other, w, tile);
    QVERIFY(otherSeed.ok());
    QVERIFY(std::memcmp(otherSeed->weights.raw(), own->weights.raw(), own->weights.byteSize()) ==
            0); // the weights given are the same: only the parameters' seed differs
    fast.lendProjections(zeroed);
    const Expected<PooledTrace> wholeAgain =
        fast.computePooled(params, w, PoolRequest{16, PoolMode::Mean, false, {}});
    QVERIFY(wholeAgain.ok());
    QVERIFY(std::memcmp(wholeAgain->weights.raw(), whole->weights.raw(),
                        whole->weights.byteSize()) == 0);
    fast.lendProjections(zeroed);
    QVERIFY(fast.compute(params, w).ok());
    const Expected<PooledTrace> afterCompute = fast.computePooled(params, w, tile);
    QVERIFY(afterCompute.ok());
    QVERIFY(std::memcmp(afterCompute->weights.raw(), own->weights.raw(), own->weights.byteSize()) ==
            0);
}

void TestCpuEngine::pooledBadRequestsAndCancel() {
    const Params p = base(Scheme::T5, Normaliser::Softmax, 0, false, false);
    Weights w;
    completeWeights(p, w);
    CpuFastBackend fast(2);
    const auto zero = fast.computePooled(p, w, PoolRequest{0, PoolMode::Mean, false, {}});
    QVERIFY(!zero.ok());
    QVERIFY(zero.error().message.find("--pool") != std::string::npos);
    const auto outside =
        fast.computePooled(p, w, PoolRequest{8, PoolMode::Mean, true, PoolRegion{0, 50, 0, 4}});
    QVERIFY(!outside.ok());
    QVERIFY(outside.error().message.find("tile") != std::string::npos);
    const std::atomic<bool> cancel{true};
    const auto cancelled = fast.computePooled(p, w, PoolRequest{}, &cancel);
    QVERIFY(!cancelled.ok());
    QCOMPARE(QString::fromStdString(cancelled.error().message), QStringLiteral("cancelled"));
}

QTEST_GUILESS_MAIN(TestCpuEngine)
#include "tst_cpu_engine.moc"
