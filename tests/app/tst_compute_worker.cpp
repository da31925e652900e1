// SPDX-License-Identifier: MIT
#include <QSignalSpy>
#include <QTest>

#include <cerrno>
#include <cstring>

#include <QDir>
#include <QFile>

#include <sys/resource.h>
#include <unistd.h>

#include "compute_worker.h"
#include "insights_worker.h"
#include "memory_budget.h"
#include "relative_tables.h"

using namespace pe;

class TestComputeWorker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void computesEveryScheme_data();
    void computesEveryScheme();
    void newestRequestWins();
    void earlyPartComesFirst();
    void cancelDropsTheRunningResult();
    void invalidParamsGiveOneMessage();
    void overBudgetIsRefusedWithAMessage();
    void switchingBackendsGivesTheSameWeights();
    void glUnavailableComputesOnTheCpu();
    void pooledAboveTheThreshold_data();
    void pooledAboveTheThreshold();
    void tileIsTheFullResolutionSlice();
    void tileBorrowsTheShownTracesProjections();
    void overBudgetButPoolableIsPooled();
    void float64PooledCountsTheFullTrace();
    void learnedTableCountsInTheBudget();
    void workersShareOneBudget();
    void embeddingsFollowSeedAndWidth();
    void identityProjectionsGiveQkvEqualX_data();
    void identityProjectionsGiveQkvEqualX();
    void trainedWeightsAreUsedAsGiven();
    void idleEnginesFreeWhatTheyKeep_data();
    void idleEnginesFreeWhatTheyKeep();
    void queryKeyWeightsAreKeptOnlyForTheNextAbsoluteRequest();
    void traceReturnedWhileIdleIsFreed();
    void refusedRequestLeavesNothingHeld();
    void computeThreadsRunBelowTheGuiThread();
};

namespace {
ComputeResult runOne(ComputeController& c, const Params& p, bool tile = false,
                     PoolRegion region = {}) {
    QSignalSpy spy(&c, &ComputeController::resultReady);
    if (tile)
        c.submitTile(p, InputChoice{}, region);
    else
        c.submit(p, InputChoice{});
    if (!spy.wait(10000))
        return {};
    return spy.at(0).at(0).value<ComputeResult>();
}
} // namespace

static Params small(Scheme s) {
    Params p;
    p.scheme = s;
    p.n = 12;
    p.d = 16;
    p.heads = 2;
    return p;
}

void TestComputeWorker::computesEveryScheme_data() {
    QTest::addColumn<int>("scheme");
    for (Scheme s : allSchemes())
        QTest::newRow(std::string(toString(s)).c_str()) << static_cast<int>(s);
}

void TestComputeWorker::computesEveryScheme() {
    QFETCH(int, scheme);
    ComputeController c;
    QSignalSpy spy(&c, &ComputeController::resultReady);
    Params p = small(static_cast<Scheme>(scheme));
    p.cls = true;
    const quint64 g = c.submit(p, InputChoice{});
    QVERIFY(spy.wait(5000));
    const auto r = spy.at(0).at(0).value<ComputeResult>();
    QCOMPARE(r.generation, g);
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QVERIFY(r.trace);
    QVERIFY(r.trace->params == p);
    QVERIFY(r.computeMs > 0);
    QVERIFY(!r.backend.isEmpty());
    // Token labels: [CLS] then the sample sentence's tokens, cycled to n.
    QCOMPARE(static_cast<int>(r.trace->tokens.size()), p.seqLen());
    QCOMPARE(r.trace->tokens.front(), std::string("[CLS]"));
    const Tensor* w = r.trace->find("weights");
    QVERIFY(w);
    QCOMPARE(w->shape(), (std::vector<std::int64_t>{2, 13, 13}));
    QVERIFY(!c.busy());
}

void TestComputeWorker::newestRequestWins() {
    ComputeController c;
    QSignalSpy spy(&c, &ComputeController::resultReady);
    Params p = small(Scheme::Sinusoidal);
    for (int n = 1; n <= 40; ++n) {
        p.n = 100 + n;
        c.submit(p, InputChoice{});
    }
    QVERIFY(spy.wait(10000));
    QTest::qWait(200); // nothing older may arrive after the newest
    QCOMPARE(spy.count(), 1);
    const auto r = spy.at(0).at(0).value<ComputeResult>();
    QCOMPARE(r.generation, c.generation());
    QCOMPARE(r.trace->params.n, 140);
}

// The Encoding and Relative tabs' part of a request comes ahead of the whole result, once, for
// the same generation, holding the whole trace's own values: the inputs, and the positions whose
// tables by offset are the whole trace's relative matrices (no n × n matrix comes early); only
// where asked for, and none from an engine that cannot give it.
void TestComputeWorker::earlyPartComesFirst() {
    ComputeController c(BackendKind::CpuFast);
    QSignalSpy early(&c, &ComputeController::earlyResultReady);
    QSignalSpy whole(&c, &ComputeController::resultReady);
    Params p = small(Scheme::T5);
    p.cls = true;
    const quint64 g = c.submit(p, InputChoice{}, EarlyPart::Inputs);
    QVERIFY(whole.wait(5000));
    QCOMPARE(early.count(), 1);
    const auto e = early.at(0).at(0).value<ComputeResult>();
    const auto r = whole.at(0).at(0).value<ComputeResult>();
    QCOMPARE(e.generation, g);
    QCOMPARE(r.generation, g);
    QCOMPARE(e.early, EarlyPart::Inputs);
    QCOMPARE(r.early, EarlyPart::None);
    QVERIFY(e.trace && r.trace);
    QVERIFY(e.trace->params == p);
    QCOMPARE(e.trace->tokens, r.trace->tokens);
    QVERIFY(e.positions && e.positions == r.positions); // made once, for both
    QCOMPARE(e.weights, r.weights);
    QVERIFY(!e.trace->find("logits") && !e.trace->find("Q"));
    QVERIFY(!e.trace->find("rel_index") && !e.trace->find("bias"));
    for (const char* name : {"E", "X"}) {
        const Tensor* a = e.trace->find(name);
        const Tensor* b = r.trace->find(name);
        QVERIFY2(a && b, name);
        QCOMPARE(a->shape(), b->shape());
        QVERIFY2(std::memcmp(a->raw(), b->raw(), a->byteSize()) == 0, name);
    }
    // The tables by offset hold the whole trace's index and bias: entry (i, j) at j − i + n − 1.
    const RelativeTables* t = e.positions->relative.get();
    QVERIFY(t && !t->index.empty() && !t->bias.empty());
    const int n = p.seqLen();
    QCOMPARE(t->seqLen, n);
    const Tensor* index = r.trace->find("rel_index");
    const Tensor* bias = r.trace->find("bias");
    QVERIFY(index && bias);
    for (int h = 0; h < p.heads; ++h)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const std::size_t o = static_cast<std::size_t>(j - i + n - 1);
                const std::size_t ij = static_cast<std::size_t>(i) * n + j;
                if (h == 0)
                    QCOMPARE(t->index[o], index->data<std::int32_t>()[ij]);
                QCOMPARE(static_cast<float>(t->biasOf(h)[o]),
                         bias->data<float>()[static_cast<std::size_t>(h) * n * n + ij]);
            }

    // No early part unless asked for.
    early.clear();
    whole.clear();
    p.seed = 4;
    c.submit(p, InputChoice{});
    QVERIFY(whole.wait(5000));
    QCOMPARE(early.count(), 0);

    // Pooled: the inputs, said to be pooled, and no n×n matrix (nor has the whole trace).
    c.setPooling(8, 4, PoolMode::Mean);
    p.n = 30;
    c.submit(p, InputChoice{}, EarlyPart::Inputs);
    QVERIFY(whole.wait(5000));
    QCOMPARE(early.count(), 1);
    const auto pooled = early.at(0).at(0).value<ComputeResult>();
    QCOMPARE(pooled.early, EarlyPart::Inputs);
    QVERIFY(pooled.pool.pooled);
    QCOMPARE(pooled.pool.seqLen, p.seqLen());
    QVERIFY(pooled.trace->find("E") && !pooled.trace->find("rel_index"));

    // The reference engine (and float64) gives none.
    ComputeController reference(BackendKind::CpuReference);
    QSignalSpy none(&reference, &ComputeController::earlyResultReady);
    QVERIFY(runOne(reference, small(Scheme::T5)).trace);
    reference.submit(small(Scheme::T5), InputChoice{}, EarlyPart::Inputs);
    QSignalSpy done(&reference, &ComputeController::resultReady);
    QVERIFY(done.wait(5000));
    QCOMPARE(none.count(), 0);
}

void TestComputeWorker::cancelDropsTheRunningResult() {
    ComputeController c;
    QSignalSpy results(&c, &ComputeController::resultReady);
    QSignalSpy busy(&c, &ComputeController::busyChanged);
    Params p = small(Scheme::Shaw);
    p.n = 1500;
    p.d = 256;
    p.heads = 8;
    c.submit(p, InputChoice{});
    QTest::qWait(30);
    c.cancel();
    QVERIFY(!c.busy());
    QTest::qWait(1500);
    QCOMPARE(results.count(), 0);
    // The worker is free again: a small request answers at once.
    c.submit(small(Scheme::ALiBi), InputChoice{});
    QVERIFY(results.wait(5000));
    QCOMPARE(results.count(), 1);
}

void TestComputeWorker::invalidParamsGiveOneMessage() {
    ComputeController c;
    QSignalSpy failed(&c, &ComputeController::computeFailed);
    Params p = small(Scheme::RoPE);
    p.heads = 3; // 16 % 3 != 0
    c.submit(p, InputChoice{});
    QVERIFY(failed.wait(5000));
    QVERIFY(!failed.at(0).at(0).toString().isEmpty());
}

void TestComputeWorker::overBudgetIsRefusedWithAMessage() {
    ComputeController c;
    c.setMemoryBudget(1 << 20); // 1 MiB
    QSignalSpy failed(&c, &ComputeController::computeFailed);
    Params p = small(Scheme::T5);
    p.n = 1024;
    c.submit(p, InputChoice{});
    QVERIFY(failed.wait(5000));
    QVERIFY2(failed.at(0).at(0).toString().contains(QLatin1String("more than the 1 MB allowed")),
             qPrintable(failed.at(0).at(0).toString()));
    // Within budget the same controller computes.
    QSignalSpy ok(&c, &ComputeController::resultReady);
    c.setMemoryBudget(std::uint64_t{1} << 30);
    c.submit(p, InputChoice{});
    QVERIFY(QTest::qWaitFor(
        [&] { return ok.count() > 0 && ok.last().at(0).value<ComputeResult>().trace != nullptr; },
        10000));
}

void TestComputeWorker::glUnavailableComputesOnTheCpu() {
    // Context creation fails (the fault-injection variable of gl_context.h): the CPU computes
    // the same numbers, and the result says why.
    Params p = small(Scheme::T5);
    p.n = 40;
    ComputeController cpu(BackendKind::CpuFast);
    const ComputeResult ref = runOne(cpu, p);
    QVERIFY2(ref.trace, qPrintable(ref.error));
    qputenv("PE_GL_UNAVAILABLE", "1");
    ComputeController c(BackendKind::OpenGL);
    const ComputeResult r = runOne(c, p);
    qunsetenv("PE_GL_UNAVAILABLE");
    QVERIFY2(r.trace, qPrintable(r.error));
    QVERIFY2(r.backend != QLatin1String("gl"), qPrintable(r.backend));
    QVERIFY2(r.backendNote.contains(QLatin1String("PE_GL_UNAVAILABLE")) &&
                 r.backendNote.contains(QLatin1String("using the CPU")),
             qPrintable(r.backendNote));
    const Tensor* a = ref.trace->find("weights");
    const Tensor* b = r.trace->find("weights");
    QVERIFY(a && b && a->shape() == b->shape());
    for (std::int64_t e = 0; e < a->size(); ++e)
        QCOMPARE(b->at(e), a->at(e));
}

void TestComputeWorker::switchingBackendsGivesTheSameWeights() {
    ComputeController c(BackendKind::CpuReference);
    QSignalSpy spy(&c, &ComputeController::resultReady);
    Params p = small(Scheme::T5);
    p.n = 40;
    std::vector<ComputeResult> results;
    for (BackendKind k : {BackendKind::CpuReference, BackendKind::CpuFast, BackendKind::OpenGL}) {
        c.setBackendKind(k);
        c.submit(p, InputChoice{});
        QVERIFY(spy.wait(10000));
        results.push_back(spy.takeFirst().at(0).value<ComputeResult>());
        QVERIFY2(results.back().trace, qPrintable(results.back().error));
    }
    QCOMPARE(results[0].backend, QStringLiteral("cpu"));
    // The fast engine runs on as many threads as asked.
    c.setBackendKind(BackendKind::CpuFast);
    c.setThreads(1);
    c.submit(p, InputChoice{});
    QVERIFY(spy.wait(10000));
    const ComputeResult one = spy.takeFirst().at(0).value<ComputeResult>();
    QVERIFY2(one.device.endsWith(QLatin1String(" 1 thread")), qPrintable(one.device));
    // Mesa's llvmpipe gives every CI machine a GL 4.5 context through EGL.
    QVERIFY2(results[2].backend == QStringLiteral("gl"), qPrintable(results[2].backendNote));
    const Tensor* ref = results[0].trace->find("weights");
    for (std::size_t k = 1; k < results.size(); ++k) {
        const Tensor* w = results[k].trace->find("weights");
        QVERIFY(w && w->shape() == ref->shape());
        double maxDiff = 0;
        for (std::int64_t e = 0; e < ref->size(); ++e)
            maxDiff = std::max(maxDiff, std::abs(w->at(e) - ref->at(e)));
        QVERIFY2(maxDiff < 1e-4,
                 qPrintable(QStringLiteral("%1: %2").arg(results[k].backend).arg(maxDiff)));
    }
}

void TestComputeWorker::pooledAboveTheThreshold_data() {
    QTest::addColumn<int>("backend");
    QTest::addColumn<int>("mode");
    QTest::newRow("reference/mean") << static_cast<int>(BackendKind::CpuReference) << 0;
    QTest::newRow("fast/max") << static_cast<int>(BackendKind::CpuFast) << 1;
}

void TestComputeWorker::pooledAboveTheThreshold() {
    QFETCH(int, backend);
    QFETCH(int, mode);
    const auto poolMode = static_cast<PoolMode>(mode);
    ComputeController c(static_cast<BackendKind>(backend));
    Params p = small(Scheme::T5);
    p.n = 30;
    p.mask = MaskKind::Causal;
    const ComputeResult full = runOne(c, p); // under the default threshold: full n×n
    QVERIFY2(full.trace, qPrintable(full.error));
    QVERIFY(!full.pool.pooled && full.trace->find("rel_index"));
    c.setPooling(20, 8, poolMode); // tests lower the threshold
    const ComputeResult r = runOne(c, p);
    QVERIFY2(r.trace, qPrintable(r.error));
    QVERIFY(r.pool.pooled && !r.pool.tile);
    QCOMPARE(r.pool.mode, poolMode);
    QCOMPARE(r.pool.rows, 8);
    QCOMPARE(r.pool.seqLen, 30);
    QCOMPARE(r.pool.describe(), QStringLiteral("pooled 30\u21928, %1")
                                    .arg(mode ? QLatin1String("max") : QLatin1String("mean")));
    QVERIFY(!r.trace->find("rel_index") && !r.trace->find("bias"));
    // In their place, the tables by offset (the Relative tab pools its maps from them; a full
    // trace's positions carry them too, for its Relative tab).
    QVERIFY(full.positions && full.positions->relative);
    QVERIFY(r.positions && r.positions->relative);
    const RelativeTables& tables = *r.positions->relative;
    QCOMPARE(tables.seqLen, 30);
    const Tensor* index = full.trace->find("rel_index");
    const Tensor* bias = full.trace->find("bias");
    for (int i = 0; i < 30; ++i)
        for (int j = 0; j < 30; ++j) {
            const auto o = static_cast<std::size_t>(j - i + 29);
            QCOMPARE(tables.index[o], index->data<std::int32_t>()[i * 30 + j]);
            for (int h = 0; h < p.heads; ++h)
                QCOMPARE(static_cast<float>(tables.biasOf(h)[o]),
                         bias->data<float>()[(h * 30 + i) * 30 + j]);
        }
    QCOMPARE(r.trace->find("out")->shape(), full.trace->find("out")->shape());
    QCOMPARE(static_cast<int>(r.trace->tokens.size()), 30);
    for (const char* name : {"logits", "weights"}) {
        const Tensor want =
            poolHeads(*full.trace->find(name), PoolRegion{0, 30, 0, 30}, 8, poolMode);
        const Tensor* got = r.trace->find(name);
        QVERIFY(got && got->shape() == want.shape());
        for (std::int64_t k = 0; k < want.size(); ++k)
            QVERIFY(want.at(k) == got->at(k) || std::abs(want.at(k) - got->at(k)) < 1e-4);
    }
}

void TestComputeWorker::tileIsTheFullResolutionSlice() {
    ComputeController c(BackendKind::CpuFast);
    Params p = small(Scheme::ALiBi);
    p.n = 40;
    const ComputeResult full = runOne(c, p);
    QVERIFY(full.trace);
    c.setPooling(20, 16, PoolMode::Mean);
    const PoolRegion region{5, 17, 20, 35};                   // 12 × 15 ≤ 16: full resolution
    c.submitTile(p, InputChoice{}, PoolRegion{0, 10, 0, 10}); // superseded by the next tile
    QVERIFY(c.busyWithTile());
    const ComputeResult r = runOne(c, p, true, region);
    QVERIFY2(r.trace, qPrintable(r.error));
    QVERIFY(r.pool.pooled && r.pool.tile && r.pool.fullResolution());
    QCOMPARE(r.pool.region, region);
    QVERIFY(r.pool.describe().contains(QLatin1String("full resolution")));
    QVERIFY(!r.trace->find("out"));
    const Tensor* w = r.trace->find("weights");
    QCOMPARE(w->shape(), (std::vector<std::int64_t>{2, 12, 15}));
    const Tensor* ref = full.trace->find("weights");
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j < 15; ++j)
                QVERIFY(std::abs(w->at((h * 12 + i) * 15 + j) -
                                 ref->at((h * 40 + i + 5) * 40 + j + 20)) < 1e-5);
}

void TestComputeWorker::tileBorrowsTheShownTracesProjections() {
    ComputeController reference(BackendKind::CpuFast);
    Params p = small(Scheme::RoPE);
    p.n = 40;
    const ComputeResult full = runOne(reference, p);
    QVERIFY(full.trace && !full.pool.pooled);
    auto isTheSlice = [&full](const ComputeResult& r, PoolRegion region) {
        const Tensor* w = r.trace ? r.trace->find("weights") : nullptr;
        if (!w || w->shape() != std::vector<std::int64_t>{2, region.rows(), region.cols()})
            return false;
        const Tensor* ref = full.trace->find("weights");
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < region.rows(); ++i)
                for (int j = 0; j < region.cols(); ++j)
                    if (std::abs(w->at((h * region.rows() + i) * region.cols() + j) -
                                 ref->at((h * 40 + i + region.r0) * 40 + j + region.c0)) > 1e-5)
                        return false;
        return true;
    };

    ComputeController c(BackendKind::CpuFast);
    c.setPooling(20, 16, PoolMode::Mean);
    ComputeResult shown = runOne(c, p); // pooled: Q and K are in its trace
    QVERIFY(shown.trace && shown.pool.pooled && !shown.pool.tile && shown.trace->find("K"));
    const PoolRegion region{5, 17, 20, 35};
    QVERIFY(isTheSlice(runOne(c, p, true, region), region));
    QCOMPARE(c.tilesBorrowingProjections(), 1);
    const PoolRegion corner{28, 40, 0, 12};
    QVERIFY(isTheSlice(runOne(c, p, true, corner), corner));
    QCOMPARE(c.tilesBorrowingProjections(), 2);

    // Nothing to borrow for other parameters, nor once the views let go of the trace.
    Params other = p;
    other.seed += 1;
    const ComputeResult otherTile = runOne(c, other, true, region);
    QVERIFY(otherTile.trace && !isTheSlice(otherTile, region));
    QCOMPARE(c.tilesBorrowingProjections(), 2);
    shown = {};
    QVERIFY(isTheSlice(runOne(c, p, true, region), region));
    QCOMPARE(c.tilesBorrowingProjections(), 2);
}

void TestComputeWorker::overBudgetButPoolableIsPooled() {
    ComputeController c(BackendKind::CpuFast);
    Params p = small(Scheme::None);
    p.n = 2000;
    const std::uint64_t pooledBytes = estimatePooledBytes(p, 256, ComputeWorker::hardwareThreads());
    QVERIFY(pooledBytes * 2 < estimateTraceBytes(p));
    c.setMemoryBudget(pooledBytes + (1 << 20));
    c.setPooling(1 << 20, 256, PoolMode::Mean); // no threshold on n: the budget decides
    const ComputeResult r = runOne(c, p);
    QVERIFY2(r.trace, qPrintable(r.error));
    QVERIFY(r.pool.pooled);
    QCOMPARE(r.trace->find("weights")->shape(), (std::vector<std::int64_t>{2, 256, 256}));
}

// Float64 is pooled from a full reference trace (no streaming): the budget must count that
// trace. Found by the GUI soak: float64 at n = 16384 passed the streaming estimate and the
// n×n allocations threw std::bad_alloc out of the worker thread, ending the window.
void TestComputeWorker::float64PooledCountsTheFullTrace() {
    Params p = small(Scheme::T5);
    p.n = 600;
    p.precision = Precision::Float64;
    const std::uint64_t pooledBytes = estimatePooledBytes(p, 64, ComputeWorker::hardwareThreads());
    QVERIFY(pooledBytes >= estimateTraceBytes(p));
    Params f32 = p;
    f32.precision = Precision::Float32;
    QVERIFY(estimatePooledBytes(f32, 64, 1) * 4 < estimateTraceBytes(f32)); // streamed
    ComputeController c(BackendKind::CpuFast);
    c.setPooling(100, 64, PoolMode::Mean);
    c.setMemoryBudget(pooledBytes - 1); // what float32 would stream in, many times over
    const ComputeResult refused = runOne(c, p);
    QVERIFY(!refused.trace);
    QVERIFY2(refused.error.contains(QLatin1String("lower n")), qPrintable(refused.error));
    c.setMemoryBudget(pooledBytes + estimateWeightBytes(p)); // the weights count too
    const ComputeResult r = runOne(c, p);
    QVERIFY2(r.trace, qPrintable(r.error));
    QVERIFY(r.pool.pooled);
    QCOMPARE(r.trace->find("weights")->shape(), (std::vector<std::int64_t>{2, 64, 64}));
}

// The learned table is drawn at its P_max rows (Params::learnedRows, up to 2^20) whatever n
// is: the budget must count it. Found by the GUI soak: 2^20 rows at d = 768 (6.4 GB) passed
// the trace-only check, and two such draws took the machine's 23 GB to the OOM killer.
void TestComputeWorker::learnedTableCountsInTheBudget() {
    Params p = small(Scheme::Learned);
    p.learnedRows = 1 << 18; // 2^18 × 16 doubles: 32 MiB
    QCOMPARE(estimateWeightBytes(p), std::uint64_t{8} * ((1 << 18) * 16 + 4 * 16 * 16 + 12 * 16));
    ComputeController c(BackendKind::CpuFast);
    c.setMemoryBudget(std::uint64_t{16} << 20); // 16 MiB: the trace fits, the table does not
    QVERIFY(estimateTraceBytes(p) < (std::uint64_t{1} << 20));
    const ComputeResult refused = runOne(c, p);
    QVERIFY(!refused.trace);
    QVERIFY2(refused.error.contains(QLatin1String("learned table")), qPrintable(refused.error));
    p.learnedRows = 1024; // GPT-2's n_ctx: 128 KiB
    const ComputeResult r = runOne(c, p);
    QVERIFY2(r.trace, qPrintable(r.error));
}

// Two workers' requests that each fit alone but not together: the second is refused with a
// message naming what holds the memory, before it allocates, and succeeds once the first's
// result is let go (the views' trace keeps its reservation as long as it lives).
void TestComputeWorker::workersShareOneBudget() {
    Params p = small(Scheme::T5);
    p.n = 256;
    Params q = small(Scheme::Sinusoidal);
    q.n = 384;
    const std::uint64_t viewBytes = estimateTraceBytes(p) + estimateWeightBytes(p);
    const std::uint64_t pageBytes = estimateTraceBytes(q);
    auto budget = std::make_shared<MemoryBudget>(std::max(viewBytes, pageBytes) +
                                                 std::min(viewBytes, pageBytes) / 2);
    ComputeController views(BackendKind::CpuFast);
    views.setMemoryBudget(budget, ComputeWorker::kDefaultMemoryHolder);
    InsightsController insights;
    insights.setMemoryBudget(budget);
    const auto nextPage = [&insights] {
        QSignalSpy spy(&insights, &InsightsController::resultReady);
        return spy.wait(30000) ? qvariant_cast<InsightResult>(spy.at(0).at(0)) : InsightResult{};
    };

    // The page alone fits, and gives its bytes back when done.
    insights.submit(InsightPage::Distance, q, {}, InsightSettings{});
    InsightResult page = nextPage();
    QVERIFY2(page.ok() && page.distance, qPrintable(page.error));
    QCOMPARE(budget->reserved(), std::uint64_t{0});

    ComputeResult shown = runOne(views, p);
    QVERIFY2(shown.trace, qPrintable(shown.error));
    QVERIFY(!shown.pool.pooled);
    QCOMPARE(budget->reserved(), viewBytes);

    insights.submit(InsightPage::Distance, q, {}, InsightSettings{});
    page = nextPage();
    QVERIFY(!page.ok());
    QVERIFY(!page.distance);
    QVERIFY2(page.error.contains(QStringLiteral("(the main views' trace holds ")),
             qPrintable(page.error));
    QVERIFY2(page.error.contains(QStringLiteral("lower n or the number of heads")),
             qPrintable(page.error));
    QCOMPARE(budget->reserved(), viewBytes); // the refusal took nothing

    shown = {}; // the views let go of the trace
    QCOMPARE(budget->reserved(), std::uint64_t{0});
    insights.submit(InsightPage::Distance, q, {}, InsightSettings{});
    page = nextPage();
    QVERIFY2(page.ok() && page.distance, qPrintable(page.error));
}

// The worker keeps the last request's embeddings: a change of seed or width must still give
// the embeddings of the new request, equal to embedding the tokens afresh.
void TestComputeWorker::embeddingsFollowSeedAndWidth() {
    ComputeController c;
    Params p = small(Scheme::None);
    auto embeddings = [&](const Params& q) {
        const ComputeResult r = runOne(c, q);
        const Tensor* e = r.trace ? r.trace->find("E") : nullptr;
        return e ? std::vector<float>(e->data<float>(), e->data<float>() + e->size())
                 : std::vector<float>{};
    };
    auto expected = [](const Params& q) {
        const Eigen::MatrixXd E = inputEmbeddings(q, inputTokens(InputChoice{}, q.n));
        std::vector<float> v;
        for (Eigen::Index i = 0; i < E.rows(); ++i)
            for (Eigen::Index j = 0; j < E.cols(); ++j)
                v.push_back(static_cast<float>(E(i, j)));
        return v;
    };
    const std::vector<float> first = embeddings(p);
    QVERIFY(!first.empty());
    QCOMPARE(first, expected(p));
    p.clip = 5; // not an input of the embeddings: the cached ones are reused
    QCOMPARE(embeddings(p), first);
    p.seed += 1;
    const std::vector<float> reseeded = embeddings(p);
    QVERIFY(reseeded != first);
    QCOMPARE(reseeded, expected(p));
    p.d = 32;
    QCOMPARE(embeddings(p), expected(p));
    p.d = 16;
    p.seed -= 1;
    QCOMPARE(embeddings(p), first);
}

// The window draws a change's early part while the forward pass runs: the compute thread, and
// the engine's pool threads it starts, run 5 nice levels below the GUI thread (which keeps its
// own), so the scheduler lets the drawing have the core they share.
void TestComputeWorker::computeThreadsRunBelowTheGuiThread() {
    errno = 0;
    const int gui = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
    QCOMPARE(errno, 0);
    if (gui > 14)
        QSKIP("this process already runs at nice 15 or more");
    ComputeController c(BackendKind::CpuFast);
    Params p = small(Scheme::Shaw);
    p.n = 384;
    p.d = 128;
    const ComputeResult r = runOne(c, p); // the engine and its pool exist now
    QVERIFY2(r.trace && r.error.isEmpty(), qPrintable(r.error));
    int computeThreads = 0;
    const QString tasks = QStringLiteral("/proc/self/task");
    for (const QString& tid : QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks + u'/' + tid + QStringLiteral("/comm"));
        if (!comm.open(QIODevice::ReadOnly) || comm.readAll().trimmed() != "pe-compute")
            continue;
        ++computeThreads;
        errno = 0;
        const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(tid.toInt()));
        QCOMPARE(errno, 0);
        QCOMPARE(nice, gui + 5);
    }
    QVERIFY(computeThreads >= 1);
    QCOMPARE(getpriority(PRIO_PROCESS, static_cast<id_t>(gettid())), gui);
    qInfo("%d compute threads at nice %d", computeThreads, gui + 5);
}

QTEST_GUILESS_MAIN(TestComputeWorker)
void TestComputeWorker::identityProjectionsGiveQkvEqualX_data() {
    QTest::addColumn<int>("scheme");
    QTest::addColumn<int>("input");
    QTest::newRow("sinusoidal, sentence") << int(Scheme::Sinusoidal) << int(InputKind::Sentence);
    QTest::newRow("alibi, identical") << int(Scheme::ALiBi) << int(InputKind::Identical);
    QTest::newRow("t5, sentence") << int(Scheme::T5) << int(InputKind::Sentence);
}

void TestComputeWorker::identityProjectionsGiveQkvEqualX() {
    QFETCH(int, scheme);
    QFETCH(int, input);
    ComputeController c;
    const Params p = small(static_cast<Scheme>(scheme));
    InputChoice in;
    in.kind = static_cast<InputKind>(input);
    in.weights = WeightsKind::Identity;
    QSignalSpy spy(&c, &ComputeController::resultReady);
    c.submit(p, in);
    QVERIFY(spy.wait(10000));
    const auto r = spy.at(0).at(0).value<ComputeResult>();
    QVERIFY2(r.trace, qPrintable(r.error));
    QCOMPARE(r.weights, QStringLiteral("weights: identity projections"));
    const Tensor* x = r.trace->find("X");
    QVERIFY(x);
    const int n = static_cast<int>(x->dim(0)), d = p.d, dh = d / p.heads;
    for (const char* name : {"Q", "K", "V"}) {
        const Tensor* t = r.trace->find(name);
        QVERIFY(t);
        QCOMPARE(t->dim(0), p.heads);
        double worst = 0;
        for (int h = 0; h < p.heads; ++h)
            for (int i = 0; i < n; ++i)
                for (int k = 0; k < dh; ++k)
                    worst = std::max(
                        worst, std::abs(t->at((h * n + i) * dh + k) - x->at(i * d + h * dh + k)));
        QVERIFY2(worst < 1e-6,
                 qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(name)).arg(worst)));
    }
    // Random weights are not the identity: Q differs from X, and the label says so.
    spy.clear();
    in.weights = WeightsKind::Random;
    c.submit(p, in);
    QVERIFY(spy.wait(10000));
    const auto rr = spy.at(0).at(0).value<ComputeResult>();
    QVERIFY(rr.trace);
    QCOMPARE(rr.weights, QStringLiteral("weights: random, seed 0"));
    const Tensor* q = rr.trace->find("Q");
    QVERIFY(std::abs(q->at(0) - rr.trace->find("X")->at(0)) > 1e-6);
    // The weight cache keeps the random tensors across the identity request: random → identity
    // → random gives the same Q as a fresh worker's random request.
    spy.clear();
    in.weights = WeightsKind::Identity;
    c.submit(p, in);
    QVERIFY(spy.wait(10000));
    spy.clear();
    in.weights = WeightsKind::Random;
    c.submit(p, in);
    QVERIFY(spy.wait(10000));
    const auto again = spy.at(0).at(0).value<ComputeResult>();
    ComputeController fresh;
    QSignalSpy freshSpy(&fresh, &ComputeController::resultReady);
    fresh.submit(p, in);
    QVERIFY(freshSpy.wait(10000));
    const auto first = freshSpy.at(0).at(0).value<ComputeResult>();
    QVERIFY(again.trace && first.trace);
    const Tensor* qa = again.trace->find("Q");
    const Tensor* qf = first.trace->find("Q");
    QCOMPARE(qa->size(), qf->size());
    for (std::int64_t k = 0; k < qa->size(); ++k)
        QCOMPARE(qa->at(k), qf->at(k));
}

void TestComputeWorker::trainedWeightsAreUsedAsGiven() {
    ComputeController c;
    const Params p = small(Scheme::Sinusoidal);
    auto trained = std::make_shared<Weights>();
    trained->W_q = 2.0 * Eigen::MatrixXd::Identity(p.d, p.d);
    trained->W_k = trained->W_v = trained->W_o = Eigen::MatrixXd::Identity(p.d, p.d);
    InputChoice in;
    in.weights = WeightsKind::Trained;
    in.trained = trained;
    in.trainedName = QStringLiteral("shift-3, t5, layer 1 of 2");
    QSignalSpy spy(&c, &ComputeController::resultReady);
    c.submit(p, in);
    QVERIFY(spy.wait(10000));
    const auto r = spy.at(0).at(0).value<ComputeResult>();
    QVERIFY2(r.trace, qPrintable(r.error));
    QCOMPARE(r.weights, QStringLiteral("weights: trained: shift-3, t5, layer 1 of 2"));
    const Tensor* x = r.trace->find("X");
    const Tensor* q = r.trace->find("Q");
    const Tensor* k = r.trace->find("K");
    const int dh = p.d / p.heads;
    // Head 0, position 1, column 2: Q = 2X, K = X.
    QCOMPARE(q->at(1 * dh + 2), 2 * x->at(1 * p.d + 2));
    QCOMPARE(k->at(1 * dh + 2), x->at(1 * p.d + 2));
    // "trained" without a model computes with the random weights and says so.
    spy.clear();
    in.trained = nullptr;
    c.submit(p, in);
    QVERIFY(spy.wait(10000));
    QCOMPARE(spy.at(0).at(0).value<ComputeResult>().weights,
             QStringLiteral("weights: random, seed 0"));
}

// What the engines keep for a next computation (the sinusoid table, recycled buffers) goes
// once the window has been idle ComputeWorker::kIdleReleaseMs, in the engine that computed:
// the fast one, or the fast one a reference worker streams pooled requests on.
void TestComputeWorker::idleEnginesFreeWhatTheyKeep_data() {
    QTest::addColumn<int>("backend");
    QTest::addColumn<bool>("pooled");
    QTest::newRow("fast") << static_cast<int>(BackendKind::CpuFast) << false;
    QTest::newRow("fast/pooled") << static_cast<int>(BackendKind::CpuFast) << true;
    QTest::newRow("reference/pooled") << static_cast<int>(BackendKind::CpuReference) << true;
}

void TestComputeWorker::idleEnginesFreeWhatTheyKeep() {
    QFETCH(int, backend);
    QFETCH(bool, pooled);
    ComputeController c(static_cast<BackendKind>(backend));
    if (pooled)
        c.setPooling(20, 8, PoolMode::Mean);
    Params p = small(Scheme::Sinusoidal);
    p.n = 64;
    const ComputeResult r = runOne(c, p);
    QVERIFY2(r.trace, qPrintable(r.error));
    QCOMPARE(r.pool.pooled, pooled);
    QVERIFY(c.engineHeldBytes() >= std::uint64_t{64} * 16 * sizeof(float)); // the [n, d] sinusoid
    QTRY_COMPARE_WITH_TIMEOUT(c.engineHeldBytes(), std::uint64_t{0},
                              ComputeWorker::kIdleReleaseMs + 3000);
    // The next computation rebuilds what it needs.
    const ComputeResult again = runOne(c, p);
    QVERIFY2(again.trace, qPrintable(again.error));
    QVERIFY(c.engineHeldBytes() > 0);
}

// A trace of an absolute scheme carries W_q and W_k (the logit terms); the worker keeps them for
// the next request with the same seed and width, and lets go of them once a request of a
// relative scheme comes: a comparison worker computing T5 after one sinusoidal trace at
// d = 2,048 held 64 MB of them for good.
void TestComputeWorker::queryKeyWeightsAreKeptOnlyForTheNextAbsoluteRequest() {
    ComputeController c(BackendKind::CpuFast);
    const Params absolute = small(Scheme::Sinusoidal);
    ComputeResult r = runOne(c, absolute);
    QVERIFY2(r.trace && r.trace->queryKey, qPrintable(r.error));
    std::weak_ptr<const QueryKeyWeights> first = r.trace->queryKey;
    // The same seed and width: the same matrices, shared, not copied again.
    ComputeResult same = runOne(c, absolute);
    QVERIFY2(same.trace, qPrintable(same.error));
    QCOMPARE(same.trace->queryKey.get(), first.lock().get());
    r = {};
    Params relative = absolute;
    relative.scheme = Scheme::T5;
    const ComputeResult t5 = runOne(c, relative);
    QVERIFY2(t5.trace, qPrintable(t5.error));
    QVERIFY(!t5.trace->queryKey);
    QVERIFY(!first.expired()); // the second trace still holds them
    same = {};
    QVERIFY(first.expired()); // and nothing else
}

// A trace the views let go of after the worker's idle release (the Compare tab's B, replaced
// long after that tab's worker last computed) is freed kIdleReleaseMs later too: it waited in
// the recycler for the worker's next computation (813 MB at the end of a soak run).
void TestComputeWorker::traceReturnedWhileIdleIsFreed() {
    ComputeController c(BackendKind::CpuFast);
    Params p = small(Scheme::T5);
    p.n = 64;
    ComputeResult r = runOne(c, p);
    QVERIFY2(r.trace, qPrintable(r.error));
    QTRY_COMPARE_WITH_TIMEOUT(c.engineHeldBytes(), std::uint64_t{0},
                              ComputeWorker::kIdleReleaseMs + 3000); // the idle release is past
    QCOMPARE(c.recycledBytes(), std::uint64_t{0});
    r = {}; // the last owner lets go: the trace comes back to the worker's recycler
    QVERIFY(c.recycledBytes() >= std::uint64_t{2} * 2 * 64 * 64 * sizeof(float));
    QTRY_COMPARE_WITH_TIMEOUT(c.recycledBytes(), std::uint64_t{0},
                              ComputeWorker::kIdleReleaseMs + 3000);
    // The next computation reuses nothing then, and is the same.
    const ComputeResult again = runOne(c, p);
    QVERIFY2(again.trace, qPrintable(again.error));
}

// A request refused after a result (parameters that do not validate) leaves the worker as idle
// as a result does: the engines' tables and buffers and the returned trace are freed
// kIdleReleaseMs later. The result's own timer sees the newer request and leaves them to it,
// and a refusal set none: they were held until the next computation.
void TestComputeWorker::refusedRequestLeavesNothingHeld() {
    ComputeController c(BackendKind::CpuFast);
    Params p = small(Scheme::Sinusoidal);
    p.n = 64;
    QVERIFY(runOne(c, p).trace); // dropped at once: back to the recycler
    QVERIFY(c.engineHeldBytes() > 0);
    QVERIFY(c.recycledBytes() > 0);
    Params bad = p;
    bad.heads = 3; // d = 16 is not divisible by 3
    const ComputeResult refused = runOne(c, bad);
    QVERIFY(!refused.trace && !refused.error.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(c.engineHeldBytes() + c.recycledBytes(), std::uint64_t{0},
                              ComputeWorker::kIdleReleaseMs + 3000);
}

#include "tst_compute_worker.moc"
