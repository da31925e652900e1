// SPDX-License-Identifier: MIT
// The GL backend against the CPU reference, on whatever GL 4.3 implementation EGL offers
// (Mesa llvmpipe in CI). Tolerance for float tensors: max |gl − ref| ≤ 1e-4 · (1 + max |ref|),
// per tensor; int tensors (rel_index) exactly equal. Skips only when no GL 4.3 context exists.

#include <QtTest>

#include <array>
#include <atomic>
#include <cmath>
#include <memory>
#include <thread>

#include "backend.h"
#include "gl_backend.h"
#include "trace.h"
#include "weights.h"

using namespace pe;

Q_DECLARE_METATYPE(pe::Params)

namespace {

constexpr double kRelTol = 1e-4;

/** Empty string when every tensor matches; else the first mismatch, named. */
QString compareTraces(const Trace& gl, const Trace& ref, double relTol = kRelTol) {
    if (gl.tensors.size() != ref.tensors.size())
        return QStringLiteral("tensor count %1 vs %2")
            .arg(gl.tensors.size())
            .arg(ref.tensors.size());
    for (std::size_t t = 0; t < ref.tensors.size(); ++t) {
        const auto& [name, r] = ref.tensors[t];
        const auto& [gname, g] = gl.tensors[t];
        const QString qn = QString::fromStdString(name);
        if (gname != name)
            return QStringLiteral("tensor %1 is %2 in the GL trace")
                .arg(qn, QString::fromStdString(gname));
        if (g.shape() != r.shape() || g.dtype() != r.dtype())
            return QStringLiteral("%1: shape/dtype %2 vs %3")
                .arg(qn, QString::fromStdString(g.shapeString()),
                     QString::fromStdString(r.shapeString()));
        double maxRef = 0, maxDiff = 0;
        std::int64_t worst = -1;
        for (std::int64_t e = 0; e < r.size(); ++e) {
            const double a = g.at(e), b = r.at(e);
            if (std::isinf(b) || std::isinf(a)) {
                if (a != b)
                    return QStringLiteral("%1[%2]: %3 vs %4").arg(qn).arg(e).arg(a).arg(b);
                continue;
            }
            if (std::isnan(a) != std::isnan(b))
                return QStringLiteral("%1[%2]: %3 vs %4").arg(qn).arg(e).arg(a).arg(b);
            maxRef = std::max(maxRef, std::abs(b));
            if (std::abs(a - b) > maxDiff) {
                maxDiff = std::abs(a - b);
                worst = e;
            }
        }
        const double tol = r.dtype() == DType::I32 ? 0.0 : relTol * (1 + maxRef);
        if (maxDiff > tol)
            return QStringLiteral("%1: max diff %2 at %3 (gl %4, ref %5) exceeds %6")
                .arg(qn)
                .arg(maxDiff)
                .arg(worst)
                .arg(g.at(worst))
                .arg(r.at(worst))
                .arg(tol);
    }
    return {};
}

/**
 * Empty when two pooled tensors agree: the same −inf cells, the rest within
 * relTol · (1 + max |a|); else the first difference, with a and b named.
 */
QString pooledDiff(const Tensor& a, const Tensor& b, double relTol, const char* name,
                   const char* aName, const char* bName) {
    if (a.shape() != b.shape())
        return QStringLiteral("%1: shapes differ").arg(QLatin1String(name));
    double maxA = 0;
    for (std::int64_t k = 0; k < a.size(); ++k)
        if (std::isfinite(a.at(k)))
            maxA = std::max(maxA, std::abs(a.at(k)));
    for (std::int64_t k = 0; k < a.size(); ++k) {
        const double x = a.at(k), y = b.at(k);
        const bool ok =
            (std::isinf(x) || std::isinf(y)) ? x == y : std::abs(x - y) <= relTol * (1 + maxA);
        if (!ok)
            return QStringLiteral("%1[%2]: %3 %4, %5 %6")
                .arg(QLatin1String(name))
                .arg(k)
                .arg(QLatin1String(aName))
                .arg(x)
                .arg(QLatin1String(bName))
                .arg(y);
    }
    return {};
}

Params base(Scheme s, int n = 21, int d = 32, int heads = 4) {
    Params p;
    p.scheme = s;
    p.n = n;
    p.d = d;
    p.heads = heads;
    p.seed = 7;
    return p;
}

} // namespace

class TstGlBackend : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void matchesReference_data();
    void matchesReference();
    void float64FallsBackToCpu();
    void shaderErrorFallsBackToCpu();
    void outOfMemoryFallsBackToCpu();
    void contextLostFallsBackToCpu();
    void pooledReadBack();
    void pooledMatchesCpuPooled_data();
    void pooledMatchesCpuPooled();
    void fusedPoolingEqualsChunkedPooling_data();
    void fusedPoolingEqualsChunkedPooling();
    void fusedPoolingSkipsWideHeads();
    void stagedTransfersMatchReference();
    void factoryReturnsGl();
    void cancelledRunReturnsCancelled();
    void runsOnAnotherThread();

private:
    std::unique_ptr<GlBackend> m_gl;
    QString m_why;
};

void TstGlBackend::initTestCase() {
    m_gl = GlBackend::create(&m_why);
    if (!m_gl)
        QSKIP(qPrintable(QStringLiteral("no OpenGL 4.3 context: ") + m_why));
    qInfo().noquote() << "GL device:" << m_gl->device();
}

void TstGlBackend::matchesReference_data() {
    QTest::addColumn<Params>("params");
    auto row = [](const char* name, Params p) { QTest::newRow(name) << p; };

    row("none softmax", base(Scheme::None));
    {
        Params p = base(Scheme::None, 70, 24, 3); // crosses the 64-wide tiles
        p.norm = Normaliser::L2;
        p.mask = MaskKind::Causal;
        row("none l2 causal n70", p);
    }
    {
        Params p = base(Scheme::Sinusoidal);
        p.norm = Normaliser::Exp;
        row("sinusoidal exp", p);
    }
    {
        Params p = base(Scheme::Sinusoidal);
        p.layout = SinLayout::T2T;
        p.cls = true;
        p.sep = true;
        p.validLen = 15;
        row("sinusoidal t2t cls sep valid", p);
    }
    {
        Params p = base(Scheme::Learned);
        p.mask = MaskKind::Causal;
        p.learnedRows = 40;
        row("learned causal", p);
    }
    {
        Params p = base(Scheme::Shaw);
        p.clip = 3;
        row("shaw k3", p);
    }
    {
        Params p = base(Scheme::Shaw);
        p.clip = 2;
        p.norm = Normaliser::Relu2;
        p.mask = MaskKind::Causal;
        row("shaw relu2 causal", p);
    }
    {
        Params p = base(Scheme::Shaw);
        p.clip = 40; // wider than the sequence
        p.norm = Normaliser::Relu2Visible;
        p.validLen = 10;
        row("shaw wide relu2_visible valid", p);
    }
    {
        Params p = base(Scheme::TransformerXL);
        p.mask = MaskKind::Causal;
        row("txl causal", p);
    }
    {
        Params p = base(Scheme::TransformerXL);
        p.txlClampLen = 4;
        p.norm = Normaliser::L2;
        row("txl clamp l2", p);
    }
    row("t5", base(Scheme::T5));
    {
        Params p = base(Scheme::T5);
        p.unidirectional = true;
        p.mask = MaskKind::Causal;
        p.buckets = 8;
        p.maxDistance = 16;
        p.norm = Normaliser::Relu2Visible;
        row("t5 uni causal relu2_visible", p);
    }
    row("deberta", base(Scheme::DeBERTa));
    {
        Params p = base(Scheme::DeBERTa);
        p.p2cConvention = P2CConvention::Paper;
        p.clip = 5;
        p.mask = MaskKind::Causal;
        row("deberta paper k5 causal", p);
    }
    {
        Params p = base(Scheme::DeBERTa);
        p.debertaP2C = false;
        p.debertaLogBuckets = true;
        p.debertaBuckets = 8;
        p.debertaMaxPosition = 16;
        p.norm = Normaliser::Exp;
        row("deberta c2p log buckets exp", p);
    }
    {
        Params p = base(Scheme::DeBERTa);
        p.debertaC2P = false;
        row("deberta p2c only", p);
    }
    row("rope", base(Scheme::RoPE));
    {
        Params p = base(Scheme::RoPE);
        p.ropeConvention = RopeConvention::Half;
        p.ropeDims = 4;
        p.cls = true;
        row("rope half partial cls", p);
    }
    {
        Params p = base(Scheme::RoPE);
        p.ropeScaling = RopeScaling::PI;
        p.ropeScale = 4.0;
        p.mask = MaskKind::Causal;
        row("rope pi s4 causal", p);
    }
    {
        Params p = base(Scheme::RoPE);
        p.ropeScaling = RopeScaling::NTK;
        p.ropeScale = 3.0;
        p.ropeConvention = RopeConvention::Half;
        p.sep = true;
        row("rope ntk s3 half sep", p);
    }
    row("mlp", base(Scheme::Mlp));
    {
        Params p = base(Scheme::Mlp, 70, 24, 3);
        p.mlpFeatures = 3;
        p.mlpHidden = 17;
        p.learnedRows = 8; // the mlp needs no table
        p.cls = true;
        p.norm = Normaliser::L2;
        row("mlp F3 H17 cls l2 n70", p);
    }
    row("alibi symmetric", base(Scheme::ALiBi));
    {
        Params p = base(Scheme::ALiBi, 21, 48, 6);
        p.alibiMode = AlibiMode::Causal;
        p.mask = MaskKind::Causal;
        p.norm = Normaliser::Exp;
        row("alibi causal h6 exp", p);
    }
    row("urpe", base(Scheme::URPE));
    {
        Params p = base(Scheme::URPE);
        p.urpeBias = UrpeBias::T5;
        p.mask = MaskKind::Causal;
        p.sep = true;
        row("urpe t5 causal sep", p);
    }
}

void TstGlBackend::matchesReference() {
    QFETCH(Params, params);
    QVERIFY2(validate(params).ok(), validate(params).error().message.c_str());
    Weights w;
    completeWeights(params, w);
    const Expected<Trace> ref = computeTrace(params, w);
    QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().message.c_str());
    const Expected<Trace> gl = m_gl->compute(params, w);
    QVERIFY2(gl.ok(), gl.ok() ? "" : gl.error().message.c_str());
    // It must really have run on the GPU, not through the fallback.
    QVERIFY2(m_gl->lastFallbackReason().isEmpty(), qPrintable(m_gl->lastFallbackReason()));
    const QString diff = compareTraces(*gl, *ref);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    QCOMPARE(gl->tokens, ref->tokens);

    // Again with the n×n stages split into uneven chunks of heads (3 + 1 for 4 heads) and rows,
    // on the
    // tiled product kernel (Auto picks the direct one on llvmpipe)...
    m_gl->setMaxHeadsPerChunkForTesting(3);
    m_gl->setMaxRowsPerChunkForTesting(7); // and query rows 7 at a time
    m_gl->setGemmKernel(GlBackend::GemmKernel::Tiled);
    const Expected<Trace> chunked = m_gl->compute(params, w);
    m_gl->setMaxHeadsPerChunkForTesting(0);
    m_gl->setMaxRowsPerChunkForTesting(0);
    m_gl->setGemmKernel(GlBackend::GemmKernel::Direct);
    const Expected<Trace> direct = m_gl->compute(params, w);
    m_gl->setGemmKernel(GlBackend::GemmKernel::Auto);
    QVERIFY2(chunked.ok(), chunked.ok() ? "" : chunked.error().message.c_str());
    QVERIFY2(m_gl->lastFallbackReason().isEmpty(), qPrintable(m_gl->lastFallbackReason()));
    const QString chunkDiff = compareTraces(*chunked, *ref);
    QVERIFY2(chunkDiff.isEmpty(), qPrintable(QStringLiteral("chunked, tiled: ") + chunkDiff));
    // ... and on the direct kernel (the one Auto picks on GPUs is the tiled one).
    QVERIFY2(direct.ok(), direct.ok() ? "" : direct.error().message.c_str());
    const QString directDiff = compareTraces(*direct, *ref);
    QVERIFY2(directDiff.isEmpty(), qPrintable(QStringLiteral("direct: ") + directDiff));
}

void TstGlBackend::float64FallsBackToCpu() {
    Params p = base(Scheme::T5);
    p.precision = Precision::Float64;
    Weights w;
    completeWeights(p, w);
    const Expected<Trace> gl = m_gl->compute(p, w);
    QVERIFY(gl.ok());
    QVERIFY(m_gl->lastFallbackReason().contains(QLatin1String("float64")));
    const Expected<Trace> ref = computeTrace(p, w);
    QVERIFY(ref.ok());
    QVERIFY(gl->find("logits")->dtype() == DType::F64);
    const QString diff = compareTraces(*gl, *ref, 0.0);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// The context lost in the middle of a forward pass (fault injection: the 5th checked GL call
// reports GL_CONTEXT_LOST): this result and every later one come from the CPU, with the same
// reason each time, and the pooled path falls back too.
void TstGlBackend::contextLostFallsBackToCpu() {
    QString why;
    auto gl = GlBackend::create(&why);
    QVERIFY2(gl, qPrintable(why));
    Params p = base(Scheme::Shaw);
    Weights w;
    completeWeights(p, w);
    QVERIFY(gl->compute(p, w).ok());
    QVERIFY(gl->lastFallbackReason().isEmpty()); // the GPU computed the first one
    gl->loseContextAfterForTesting(5);
    const Expected<Trace> out = gl->compute(p, w);
    QVERIFY(out.ok());
    QVERIFY(gl->contextLost());
    const QString first = gl->lastFallbackReason();
    QVERIFY2(first.contains(QLatin1String("context was lost")), qPrintable(first));
    const Expected<Trace> ref = computeTrace(p, w);
    QVERIFY(ref.ok());
    const QString diff = compareTraces(*out, *ref, 0.0); // the CPU reference's own numbers
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    const Expected<Trace> again = gl->compute(p, w);
    QVERIFY(again.ok());
    QCOMPARE(gl->lastFallbackReason(), first);
    PoolRequest req;
    req.resolution = 8;
    const Expected<PooledTrace> pooled = gl->computePooled(p, w, req);
    QVERIFY2(pooled.ok(), pooled.ok() ? "" : pooled.error().message.c_str());
}

void TstGlBackend::shaderErrorFallsBackToCpu() {
    QString why;
    auto gl = GlBackend::create(&why);
    QVERIFY2(gl, qPrintable(why));
    gl->overrideShaderForTesting("normalise", "#version 430\nthis is not glsl;\n");
    Params p = base(Scheme::ALiBi);
    Weights w;
    completeWeights(p, w);
    const Expected<Trace> out = gl->compute(p, w);
    QVERIFY(out.ok());
    QVERIFY2(gl->lastFallbackReason().contains(QLatin1String("normalise.comp failed to compile")),
             qPrintable(gl->lastFallbackReason()));
    const Expected<Trace> ref = computeTrace(p, w);
    QVERIFY(ref.ok());
    QVERIFY(compareTraces(*out, *ref, 0.0).isEmpty());
    // The pooled path reports instead of falling back: the chunked path uses normalise.comp,
    // the fused one pool_fused.comp.
    gl->setFusedPooling(false);
    const Expected<PooledTrace> pooled = gl->computePooled(p, w, 8);
    QVERIFY(!pooled.ok());
    QVERIFY(QString::fromStdString(pooled.error().message).contains(QLatin1String("normalise")));
    gl->setFusedPooling(true);
    QVERIFY(gl->computePooled(p, w, 8).ok());
    gl->overrideShaderForTesting("pool_fused", "#version 430\nthis is not glsl;\n");
    const Expected<PooledTrace> fused = gl->computePooled(p, w, 8);
    QVERIFY(!fused.ok());
    QVERIFY2(QString::fromStdString(fused.error().message).contains(QLatin1String("pool_fused")),
             fused.error().message.c_str());
}

void TstGlBackend::outOfMemoryFallsBackToCpu() {
    Params p = base(Scheme::DeBERTa);
    Weights w;
    completeWeights(p, w);
    // An n×n chunk buffer is 4·21²·4 bytes; small tables stay below the threshold.
    m_gl->simulateOutOfMemoryAboveForTesting(4000);
    const Expected<Trace> out = m_gl->compute(p, w);
    const QString reason = m_gl->lastFallbackReason();
    const Expected<PooledTrace> pooled = m_gl->computePooled(p, w, 4);
    m_gl->simulateOutOfMemoryAboveForTesting(0);
    QVERIFY(out.ok());
    QVERIFY2(reason.contains(QLatin1String("out of GPU memory allocating")), qPrintable(reason));
    const Expected<Trace> ref = computeTrace(p, w);
    QVERIFY(ref.ok());
    QVERIFY(compareTraces(*out, *ref, 0.0).isEmpty());
    QVERIFY(!pooled.ok());
    QVERIFY(QString::fromStdString(pooled.error().message)
                .contains(QLatin1String("out of GPU memory")));
    // And the backend still works afterwards.
    const Expected<Trace> again = m_gl->compute(p, w);
    QVERIFY(again.ok());
    QVERIFY(m_gl->lastFallbackReason().isEmpty());
}

void TstGlBackend::pooledReadBack() {
    Params p = base(Scheme::T5, 45, 16, 2);
    p.mask = MaskKind::Causal;
    Weights w;
    completeWeights(p, w);
    const Expected<Trace> ref = computeTrace(p, w);
    QVERIFY(ref.ok());
    const int R = 8;
    // One head and 4 query rows per chunk: cells (5 or 6 rows high) straddle row chunks.
    m_gl->setMaxHeadsPerChunkForTesting(1);
    m_gl->setMaxRowsPerChunkForTesting(4);
    const Expected<PooledTrace> pooled = m_gl->computePooled(p, w, R);
    m_gl->setMaxHeadsPerChunkForTesting(0);
    m_gl->setMaxRowsPerChunkForTesting(0);
    QVERIFY2(pooled.ok(), pooled.ok() ? "" : pooled.error().message.c_str());
    QCOMPARE(pooled->resolution, R);
    QCOMPARE(pooled->weights.shape(), (std::vector<std::int64_t>{2, R, R}));
    const int n = p.seqLen();
    for (const char* name : {"logits", "weights"}) {
        const Tensor& full = *ref->find(name);
        const Tensor& got = std::string(name) == "logits" ? pooled->logits : pooled->weights;
        for (int h = 0; h < 2; ++h)
            for (int u = 0; u < R; ++u)
                for (int v = 0; v < R; ++v) {
                    double s = 0;
                    int cnt = 0;
                    for (int i = u * n / R; i < (u + 1) * n / R; ++i)
                        for (int j = v * n / R; j < (v + 1) * n / R; ++j) {
                            const double x = full.at((std::int64_t{h} * n + i) * n + j);
                            if (!std::isinf(x)) {
                                s += x;
                                ++cnt;
                            }
                        }
                    const double g = got.at((std::int64_t{h} * R + u) * R + v);
                    if (cnt == 0) {
                        QVERIFY(std::isinf(g) && g < 0);
                    } else {
                        const double want = s / cnt;
                        QVERIFY2(std::abs(g - want) <= 1e-4 * (1 + std::abs(want)),
                                 qPrintable(QStringLiteral("%1 h%2 (%3,%4): %5 vs %6")
                                                .arg(QLatin1String(name))
                                                .arg(h)
                                                .arg(u)
                                                .arg(v)
                                                .arg(g)
                                                .arg(want)));
                    }
                }
    }
    QVERIFY(compareTraces(*ref, *ref).isEmpty());
}

void TstGlBackend::pooledMatchesCpuPooled_data() {
    QTest::addColumn<Params>("params");
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("tile");
    Params p = base(Scheme::ALiBi, 40, 32, 4);
    p.mask = MaskKind::Causal;
    p.alibiMode = AlibiMode::Causal;
    QTest::newRow("alibi/causal/mean") << p << 0 << false;
    QTest::newRow("alibi/causal/max (CPU path)") << p << 1 << false;
    QTest::newRow("alibi/causal/tile (CPU path)") << p << 0 << true;
    p = base(Scheme::RoPE, 37, 32, 2);
    p.cls = true;
    QTest::newRow("rope/cls/mean") << p << 0 << false;
    p.ropeScaling = RopeScaling::PI;
    p.ropeScale = 2.0;
    QTest::newRow("rope/pi/cls/mean") << p << 0 << false;
    p = base(Scheme::Mlp, 37, 32, 2);
    p.sep = true;
    QTest::newRow("mlp/sep/mean") << p << 0 << false;
    // X = E + P made on the CPU by row ranges, the sinusoid's rows among them: [CLS] and [SEP]
    // rows, and n·d past 2^20, where the ranges run on every hardware thread. On a CPU
    // rasteriser (llvmpipe in CI) the second one's fused pass also runs in chunks of 255 query
    // rows and its projections in chunks of 256 (kCpuRasteriserChunkWork), 5 of each.
    p = base(Scheme::Sinusoidal, 37, 32, 2);
    p.cls = true;
    p.sep = true;
    QTest::newRow("sinusoidal/cls/sep/mean") << p << 0 << false;
    p = base(Scheme::Sinusoidal, 1025, 1024, 16);
    p.cls = true;
    p.sep = true;
    QTest::newRow("sinusoidal/cls/sep/n·d past 2^20") << p << 0 << false;
    p = base(Scheme::Learned, 40, 32, 2);
    p.cls = true;
    QTest::newRow("learned/cls/mean") << p << 0 << false;
    p = base(Scheme::DeBERTa, 33, 32, 4);
    p.clip = 5;
    p.validLen = 28;
    QTest::newRow("deberta/valid-len/mean (fused)") << p << 0 << false;
    p = base(Scheme::Shaw, 35, 32, 4);
    p.clip = 4;
    QTest::newRow("shaw/mean (fused)") << p << 0 << false;
    p = base(Scheme::TransformerXL, 41, 32, 4);
    p.mask = MaskKind::Causal;
    QTest::newRow("txl/causal/mean") << p << 0 << false; // chunked unless PE_GL_TXL_SHAPE
    p = base(Scheme::T5, 47, 32, 4);
    p.mask = MaskKind::Causal;
    p.validLen = 40;
    QTest::newRow("t5/causal/valid-len/mean (fused)") << p << 0 << false;
    p = base(Scheme::URPE, 38, 32, 2);
    p.norm = Normaliser::L2;
    QTest::newRow("urpe/l2/mean (fused)") << p << 0 << false;
}

// The GL pooled path (through the Backend interface) against the fast CPU engine's streamed
// pooling: same cells, same −inf, values within 1e-4 · (1 + max |cpu|).
void TstGlBackend::pooledMatchesCpuPooled() {
    QFETCH(Params, params);
    QFETCH(int, mode);
    QFETCH(bool, tile);
    Weights w;
    completeWeights(params, w);
    const int n = params.seqLen();
    const PoolRequest req{7, static_cast<PoolMode>(mode), tile, PoolRegion{3, n - 2, 1, n - 9}};
    const auto cpu = createBackend(BackendKind::CpuFast);
    const Expected<PooledTrace> want = cpu->computePooled(params, w, req);
    Backend& gl = *m_gl;
    // With a cancel flag, as the window computes: on a CPU rasteriser large products then run
    // in row chunks, the flag checked between them (the n·d past 2^20 row's projections).
    const std::atomic<bool> notCancelled{false};
    const Expected<PooledTrace> got = gl.computePooled(params, w, req, &notCancelled);
    QVERIFY2(want.ok() && got.ok(), got.ok() ? "cpu failed" : got.error().message.c_str());
    QCOMPARE(got->region, want->region);
    for (const char* name : {"logits", "weights"}) {
        const Tensor& a = std::string(name) == "logits" ? want->logits : want->weights;
        const Tensor& b = std::string(name) == "logits" ? got->logits : got->weights;
        const QString diff = pooledDiff(a, b, 1e-4, name, "cpu", "gl");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }
    if (!tile) {
        QCOMPARE(got->out.shape(), want->out.shape());
        for (std::int64_t k = 0; k < want->out.size(); ++k)
            QVERIFY(std::abs(got->out.at(k) - want->out.at(k)) <= 1e-3);
    }
}

void TstGlBackend::fusedPoolingEqualsChunkedPooling_data() {
    QTest::addColumn<Params>("params");
    QTest::addColumn<int>("resolution");
    QTest::addColumn<int>("maxRows");      // rows per fused chunk (0: as many as fit)
    QTest::addColumn<QByteArray>("shape"); // PE_GL_TXL_SHAPE (TXL; empty: "auto")
    auto row = [](const QString& name, const Params& p, int R, int maxRows = 0,
                  const QByteArray& shape = {}) {
        QTest::newRow(qPrintable(name)) << p << R << maxRows << shape;
    };
    auto normName = [](Normaliser nm) { return QString::fromStdString(std::string(toString(nm))); };
    const std::array<Normaliser, 4> otherNorms{Normaliser::Exp, Normaliser::L2, Normaliser::Relu2,
                                               Normaliser::Relu2Visible};
    // The four normalisers besides softmax, with a padded tail: n = 70, d = 24, 3 heads (d_h = 8;
    // several work groups of rows), 11 cells.
    auto otherNormalisers = [&](Scheme s, const char* name, int clip = 0) {
        for (Normaliser nm : otherNorms) {
            Params q = base(s, 70, 24, 3);
            if (clip > 0)
                q.clip = clip;
            q.norm = nm;
            q.validLen = 60;
            row(QStringLiteral("%1/%2/valid-len").arg(QLatin1String(name), normName(nm)), q, 11);
        }
    };
    Params p = base(Scheme::T5, 45, 32, 4);
    p.mask = MaskKind::Causal;
    row(QStringLiteral("t5/causal, cells of 6 and 7 rows"), p, 7);
    row(QStringLiteral("t5/causal, chunks of 5 rows across cells"), p, 7, 5);
    row(QStringLiteral("t5/causal, one cell"), p, 1);
    row(QStringLiteral("t5/causal, 2 cells (fewer than the lanes)"), p, 2);
    row(QStringLiteral("t5/causal, cells of one entry"), p, 45);
    p.validLen = 31;
    row(QStringLiteral("t5/causal/valid-len, chunks of 64 rows"), p, 9);
    otherNormalisers(Scheme::ALiBi, "alibi");
    p = base(Scheme::URPE, 40, 32, 2);
    p.urpeBias = UrpeBias::T5;
    p.cls = true;
    p.sep = true;
    row(QStringLiteral("urpe+t5/cls/sep"), p, 13);
    p = base(Scheme::Sinusoidal, 33, 36, 4); // d_h = 9: a partial vec4
    p.mask = MaskKind::Causal;
    row(QStringLiteral("sinusoidal/causal, d_h 9"), p, 8);
    p = base(Scheme::Learned, 150, 256, 2); // d_h = 128, the widest fused
    row(QStringLiteral("learned, d_h 128"), p, 16, 70);
    p = base(Scheme::None, 300, 16, 4); // d_h = 4; five work groups of rows
    p.norm = Normaliser::L2;
    row(QStringLiteral("none/l2, 300 positions"), p, 64);

    // Shaw: the key term per clipped index, and the value term from the weight per index.
    p = base(Scheme::Shaw, 45, 32, 4);
    p.clip = 4;
    row(QStringLiteral("shaw k 4"), p, 7);
    p.mask = MaskKind::Causal;
    row(QStringLiteral("shaw k 4/causal, chunks of 5 rows across cells"), p, 7, 5);
    p.clip = 0;
    row(QStringLiteral("shaw k 0/causal (every key at one index)"), p, 6);
    p = base(Scheme::Shaw, 21, 32, 4);
    p.clip = 21;
    row(QStringLiteral("shaw k = n (no clipped key)"), p, 5);
    p.clip = 30;
    p.validLen = 17;
    row(QStringLiteral("shaw k > n/valid-len, cells of one entry, chunks of 5 rows"), p, 21, 5);
    otherNormalisers(Scheme::Shaw, "shaw", 6);
    p = base(Scheme::Shaw, 33, 36, 4); // d_h = 9
    p.clip = 3;
    p.cls = true;
    row(QStringLiteral("shaw/cls, d_h 9"), p, 8);
    p = base(Scheme::Shaw, 150, 256, 2);
    p.clip = 16;
    row(QStringLiteral("shaw, d_h 128"), p, 16, 70);

    // Transformer-XL: the band (q + v)_i · r_{n−1−i+j} from each lane's window of r rows.
    p = base(Scheme::TransformerXL, 45, 32, 4);
    row(QStringLiteral("txl"), p, 7);
    p.mask = MaskKind::Causal;
    row(QStringLiteral("txl/causal, chunks of 5 rows across cells"), p, 7, 5);
    p.txlClampLen = 6;
    row(QStringLiteral("txl/causal/clamp-len 6"), p, 9);
    otherNormalisers(Scheme::TransformerXL, "txl");
    p = base(Scheme::TransformerXL, 37, 36, 4); // d_h = 9
    p.sep = true;
    row(QStringLiteral("txl/sep, d_h 9"), p, 8);
    p = base(Scheme::TransformerXL, 100, 256, 2);
    row(QStringLiteral("txl, d_h 128"), p, 16, 70);
    p = base(Scheme::TransformerXL, 70, 32, 2);
    p.mask = MaskKind::Causal;
    for (const char* shape : {"16x2x8", "8x4x4", "5x3x2", "1x1x1"})
        row(QStringLiteral("txl/causal, work groups of %1").arg(QLatin1String(shape)), p, 9, 0,
            shape);

    // DeBERTa: c2p and p2c gathered per logit, both conventions, each term alone.
    p = base(Scheme::DeBERTa, 45, 32, 4);
    p.clip = 5;
    row(QStringLiteral("deberta"), p, 7);
    p.p2cConvention = P2CConvention::Paper;
    row(QStringLiteral("deberta/paper p2c"), p, 7);
    p.mask = MaskKind::Causal;
    row(QStringLiteral("deberta/paper p2c/causal, chunks of 5 rows across cells"), p, 7, 5);
    p = base(Scheme::DeBERTa, 45, 32, 4);
    p.clip = 5;
    p.debertaP2C = false;
    row(QStringLiteral("deberta c2p alone"), p, 9);
    p.debertaP2C = true;
    p.debertaC2P = false;
    row(QStringLiteral("deberta p2c alone"), p, 9);
    p.p2cConvention = P2CConvention::Paper;
    row(QStringLiteral("deberta paper p2c alone"), p, 9);
    p = base(Scheme::DeBERTa, 60, 32, 4);
    p.debertaLogBuckets = true;
    p.debertaBuckets = 8;
    p.debertaMaxPosition = 24;
    p.validLen = 50;
    row(QStringLiteral("deberta/log buckets/valid-len"), p, 11);
    otherNormalisers(Scheme::DeBERTa, "deberta", 7);
    p = base(Scheme::DeBERTa, 33, 36, 4); // d_h = 9
    p.clip = 4;
    row(QStringLiteral("deberta, d_h 9"), p, 8);
    p = base(Scheme::DeBERTa, 150, 256, 2);
    row(QStringLiteral("deberta, d_h 128"), p, 16, 70);
}

// The fused pooled pass (pool_fused.comp + pool_rows.comp) against the chunked one (n × n
// buffers, combine, normalise, pool), both on this GL: same −inf cells, the rest within
// 1e-5 · (1 + max), `out` (Shaw: its value term included) within 1e-4 · (1 + max).
void TstGlBackend::fusedPoolingEqualsChunkedPooling() {
    QFETCH(Params, params);
    QFETCH(int, resolution);
    QFETCH(int, maxRows);
    QFETCH(QByteArray, shape);
    Weights w;
    completeWeights(params, w);
    m_gl->setFusedPooling(false);
    const Expected<PooledTrace> chunked = m_gl->computePooled(params, w, resolution);
    QVERIFY(!m_gl->lastPoolFused());
    m_gl->setFusedPooling(true);
    m_gl->setMaxRowsPerChunkForTesting(maxRows);
    if (params.scheme == Scheme::TransformerXL) // fused only when asked (gl_backend.cpp)
        qputenv("PE_GL_TXL_SHAPE", shape.isEmpty() ? QByteArray("auto") : shape);
    const Expected<PooledTrace> fused = m_gl->computePooled(params, w, resolution);
    qunsetenv("PE_GL_TXL_SHAPE");
    m_gl->setMaxRowsPerChunkForTesting(0);
    QVERIFY2(chunked.ok(), chunked.ok() ? "" : chunked.error().message.c_str());
    QVERIFY2(fused.ok(), fused.ok() ? "" : fused.error().message.c_str());
    QVERIFY(m_gl->lastPoolFused());
    QString diff = pooledDiff(chunked->logits, fused->logits, 1e-5, "logits", "chunked", "fused");
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    diff = pooledDiff(chunked->weights, fused->weights, 1e-5, "weights", "chunked", "fused");
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    diff = pooledDiff(chunked->out, fused->out, 1e-4, "out", "chunked", "fused");
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// Heads wider than 128 (q and the output accumulators live in registers) pool through the
// chunked path, with the same cells; 128 runs fused, for every scheme with a position term.
// Transformer-XL runs fused only when PE_GL_TXL_SHAPE asks (slower than chunked on an H200).
void TstGlBackend::fusedPoolingSkipsWideHeads() {
    m_gl->setFusedPooling(true);
    for (Scheme s : {Scheme::RoPE, Scheme::Shaw, Scheme::TransformerXL, Scheme::DeBERTa}) {
        for (int d : {272, 256}) {
            for (const char* txlShape : {"", "auto"}) {
                if (s != Scheme::TransformerXL && *txlShape)
                    continue;
                Params p = base(s, 21, d, 2);
                Weights w;
                completeWeights(p, w);
                qputenv("PE_GL_TXL_SHAPE", txlShape);
                const Expected<PooledTrace> pooled = m_gl->computePooled(p, w, 5);
                qunsetenv("PE_GL_TXL_SHAPE");
                QVERIFY2(pooled.ok(), pooled.ok() ? "" : pooled.error().message.c_str());
                const bool asked = s != Scheme::TransformerXL || *txlShape;
                QCOMPARE(m_gl->lastPoolFused(), d == 256 && asked);
            }
        }
    }
}

// Every upload and read-back through a staging buffer (the path of transfers of 4 MiB and
// more): the same trace and pooled cells as the direct transfers.
void TstGlBackend::stagedTransfersMatchReference() {
    Params p = base(Scheme::T5, 45, 32, 4);
    p.mask = MaskKind::Causal;
    Weights w;
    completeWeights(p, w);
    const Expected<Trace> ref = computeTrace(p, w);
    const Expected<PooledTrace> direct = m_gl->computePooled(p, w, 8);
    m_gl->setStagingThresholdForTesting(1);
    const Expected<Trace> staged = m_gl->compute(p, w);
    const QString fallback = m_gl->lastFallbackReason();
    const Expected<PooledTrace> pooled = m_gl->computePooled(p, w, 8);
    m_gl->setStagingThresholdForTesting(std::size_t{4} << 20);
    QVERIFY(ref.ok() && direct.ok());
    QVERIFY2(staged.ok() && fallback.isEmpty(), qPrintable(fallback));
    const QString diff = compareTraces(*staged, *ref);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    QVERIFY2(pooled.ok(), pooled.ok() ? "" : pooled.error().message.c_str());
    for (const auto& [a, b] :
         {std::pair{&direct->logits, &pooled->logits},
          std::pair{&direct->weights, &pooled->weights}, std::pair{&direct->out, &pooled->out}}) {
        QCOMPARE(b->shape(), a->shape());
        for (std::int64_t k = 0; k < a->size(); ++k)
            QCOMPARE(b->at(k), a->at(k)); // the same computation: bit for bit
    }
}

void TstGlBackend::factoryReturnsGl() {
    QString reason;
    auto be = createBackend(BackendKind::OpenGL, &reason);
    QVERIFY(be);
    QCOMPARE(be->kind(), BackendKind::OpenGL);
    QVERIFY2(reason.isEmpty(), qPrintable(reason));
    QCOMPARE(be->name(), QStringLiteral("gl"));
    QVERIFY(!be->device().isEmpty());
}

void TstGlBackend::cancelledRunReturnsCancelled() {
    Params p = base(Scheme::Shaw);
    Weights w;
    completeWeights(p, w);
    const std::atomic<bool> cancel{true};
    const Expected<Trace> out = m_gl->compute(p, w, &cancel);
    QVERIFY(!out.ok());
    QCOMPARE(QString::fromStdString(out.error().message), QStringLiteral("cancelled"));
    QVERIFY(m_gl->lastFallbackReason().isEmpty()); // a cancel is not a failure
}

void TstGlBackend::runsOnAnotherThread() {
    // The backend makes its context current on whichever thread calls compute().
    Params p = base(Scheme::RoPE);
    Weights w;
    completeWeights(p, w);
    Expected<Trace> gl = Error{"not run"};
    QString fallback;
    std::thread worker([&] {
        gl = m_gl->compute(p, w);
        fallback = m_gl->lastFallbackReason();
    });
    worker.join();
    QVERIFY2(gl.ok(), gl.ok() ? "" : gl.error().message.c_str());
    QVERIFY2(fallback.isEmpty(), qPrintable(fallback));
    const Expected<Trace> ref = computeTrace(p, w);
    QVERIFY(ref.ok());
    const QString diff = compareTraces(*gl, *ref);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

QTEST_GUILESS_MAIN(TstGlBackend)
#include "tst_gl_backend.moc"
