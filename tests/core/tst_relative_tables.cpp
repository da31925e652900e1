// SPDX-License-Identifier: MIT
// relativeTables and poolToeplitz: the tables by offset hold the reference trace's rel_index,
// bias and urpe_C entry for entry, and the pooled cells of the Toeplitz matrix they stand for
// equal the cells pooled from the whole matrix (mean and max, tiles, uneven bins, long n).
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "encodings.h"
#include "pooling.h"
#include "relative_tables.h"
#include "trace.h"
#include "weights.h"

Q_DECLARE_METATYPE(pe::Params)
Q_DECLARE_METATYPE(pe::PoolRegion)

using namespace pe;

namespace {

Params make(Scheme s, int n, int heads = 3) {
    Params p;
    p.scheme = s;
    p.n = n;
    p.d = 24;
    p.heads = heads;
    p.seed = 11;
    p.precision = Precision::Float64;
    return p;
}

/** Cells of the matrix m(i, j) over `region`, pooled to rows × cols the plain way. */
template <typename F>
std::vector<double> poolPlainly(F m, PoolRegion region, int rows, int cols, PoolMode mode) {
    std::vector<double> out;
    for (int u = 0; u < rows; ++u)
        for (int v = 0; v < cols; ++v) {
            const int a0 = region.r0 + binStart(u, region.rows(), rows);
            const int a1 = region.r0 + binStart(u + 1, region.rows(), rows);
            const int b0 = region.c0 + binStart(v, region.cols(), cols);
            const int b1 = region.c0 + binStart(v + 1, region.cols(), cols);
            long double sum = 0;
            double best = -std::numeric_limits<double>::infinity();
            for (int i = a0; i < a1; ++i)
                for (int j = b0; j < b1; ++j) {
                    sum += m(i, j);
                    best = std::max(best, static_cast<double>(m(i, j)));
                }
            out.push_back(
                mode == PoolMode::Max ? best : static_cast<double>(sum / ((a1 - a0) * (b1 - b0))));
        }
    return out;
}

} // namespace

class TestRelativeTables : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tablesHoldTheTracesMatrices_data();
    void tablesHoldTheTracesMatrices();
    void schemesWithoutRelativeMatricesHaveNoTables();
    void pooledCellsEqualTheWholeMatrixPooled_data();
    void pooledCellsEqualTheWholeMatrixPooled();
    void longSequencesStayExact();
    void badRegionsGiveNothing();
    void poolingIntoABufferGivesTheSameCells();
};

void TestRelativeTables::tablesHoldTheTracesMatrices_data() {
    QTest::addColumn<Params>("params");
    Params t5 = make(Scheme::T5, 40);
    t5.maxDistance = 20;
    t5.buckets = 8;
    QTest::newRow("t5") << t5;
    Params t5Uni = t5;
    t5Uni.unidirectional = true;
    t5Uni.cls = t5Uni.sep = true;
    QTest::newRow("t5 unidirectional, [CLS] [SEP]") << t5Uni;
    QTest::newRow("alibi symmetric") << make(Scheme::ALiBi, 33, 4);
    Params alibiCausal = make(Scheme::ALiBi, 33, 6);
    alibiCausal.alibiMode = AlibiMode::Causal;
    alibiCausal.mask = MaskKind::Causal;
    QTest::newRow("alibi causal, 6 heads") << alibiCausal;
    Params shaw = make(Scheme::Shaw, 29);
    shaw.clip = 4;
    QTest::newRow("shaw") << shaw;
    Params deberta = make(Scheme::DeBERTa, 31);
    deberta.clip = 6;
    QTest::newRow("deberta") << deberta;
    Params debertaLog = make(Scheme::DeBERTa, 45);
    debertaLog.debertaLogBuckets = true;
    QTest::newRow("deberta log buckets") << debertaLog;
    QTest::newRow("urpe") << make(Scheme::URPE, 21);
    Params urpeT5 = make(Scheme::URPE, 21);
    urpeT5.urpeBias = UrpeBias::T5;
    QTest::newRow("urpe with t5 bias") << urpeT5;
}

void TestRelativeTables::tablesHoldTheTracesMatrices() {
    QFETCH(Params, params);
    QVERIFY(validate(params));
    Weights w;
    completeWeights(params, w);
    const Expected<Trace> trace = computeTrace(params, w);
    QVERIFY(trace);
    const RelativeTables t = relativeTables(params, w);
    const int N = params.seqLen(), H = params.heads;
    QCOMPARE(t.seqLen, N);
    QCOMPARE(t.heads, H);
    const auto o = [N](int i, int j) { return static_cast<std::size_t>(j - i + N - 1); };
    const Tensor* index = trace->find("rel_index");
    QCOMPARE(index != nullptr, !t.index.empty());
    if (index) {
        QCOMPARE(t.index.size(), t.offsets());
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j)
                QCOMPARE(t.index[o(i, j)], index->data<std::int32_t>()[i * N + j]);
    }
    const Tensor* bias = trace->find("bias");
    if (bias) {
        QCOMPARE(t.bias.size(), static_cast<std::size_t>(H) * t.offsets());
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < N; ++i)
                for (int j = 0; j < N; ++j)
                    QCOMPARE(t.biasOf(h)[o(i, j)], bias->data<double>()[(h * N + i) * N + j]);
    }
    // URPE's T5 bias is added to the logits but not written to `bias`: the table has it.
    const bool urpeT5 = params.scheme == Scheme::URPE && params.urpeBias == UrpeBias::T5;
    QCOMPARE(!t.bias.empty(), bias != nullptr || urpeT5);
    QCOMPARE(hasBias(params), bias != nullptr);
    if (urpeT5)
        for (int h = 0; h < H; ++h)
            for (int k = 0; k < static_cast<int>(t.offsets()); ++k)
                QCOMPARE(t.biasOf(h)[k], w.t5Table(t.index[static_cast<std::size_t>(k)], h));
    const Tensor* c = trace->find("urpe_C");
    QCOMPARE(c != nullptr, !t.urpeC.empty());
    if (c)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < N; ++i)
                for (int j = 0; j < N; ++j)
                    QCOMPARE(t.urpeCOf(h)[o(i, j)], c->data<double>()[(h * N + i) * N + j]);
}

void TestRelativeTables::schemesWithoutRelativeMatricesHaveNoTables() {
    for (Scheme s : {Scheme::None, Scheme::Sinusoidal, Scheme::RoPE, Scheme::TransformerXL}) {
        const Params p = make(s, 12);
        Weights w;
        completeWeights(p, w);
        const RelativeTables t = relativeTables(p, w);
        QVERIFY2(t.empty(), std::string(toString(s)).c_str());
    }
}

void TestRelativeTables::pooledCellsEqualTheWholeMatrixPooled_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<PoolRegion>("region");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::newRow("whole, 300 → 64") << 300 << PoolRegion{0, 300, 0, 300} << 64 << 64;
    QTest::newRow("whole, uneven 300 → 37 × 53") << 300 << PoolRegion{0, 300, 0, 300} << 37 << 53;
    QTest::newRow("tile below the diagonal") << 300 << PoolRegion{200, 290, 3, 71} << 16 << 9;
    QTest::newRow("tile across the diagonal") << 257 << PoolRegion{13, 250, 7, 256} << 40 << 41;
    QTest::newRow("full resolution") << 50 << PoolRegion{5, 17, 20, 35} << 12 << 15;
    QTest::newRow("one cell") << 50 << PoolRegion{0, 50, 0, 50} << 1 << 1;
    // Equal square bins: the diagonals of cells copied from the first row and column.
    QTest::newRow("equal bins, whole, 256 → 64") << 256 << PoolRegion{0, 256, 0, 256} << 64 << 64;
    QTest::newRow("equal bins, a tile") << 256 << PoolRegion{32, 96, 100, 140} << 16 << 10;
    QTest::newRow("cells capped at the region") << 20 << PoolRegion{2, 6, 0, 20} << 64 << 64;
}

void TestRelativeTables::pooledCellsEqualTheWholeMatrixPooled() {
    QFETCH(int, n);
    QFETCH(PoolRegion, region);
    QFETCH(int, rows);
    QFETCH(int, cols);
    const int outRows = std::min(rows, region.rows()), outCols = std::min(cols, region.cols());
    std::mt19937 rng(5);
    std::normal_distribution<double> normal(0.0, 2.0);
    std::vector<double> table(2 * static_cast<std::size_t>(n) - 1);
    for (double& v : table)
        v = normal(rng);
    std::vector<int> index(table.size());
    for (std::size_t k = 0; k < index.size(); ++k)
        index[k] = static_cast<int>(k % 17) - 5;
    const auto m = [&](int i, int j) { return table[static_cast<std::size_t>(j - i + n - 1)]; };
    const auto mi = [&](int i, int j) { return index[static_cast<std::size_t>(j - i + n - 1)]; };
    for (PoolMode mode : {PoolMode::Mean, PoolMode::Max}) {
        const std::vector<double> got = poolToeplitz(table.data(), n, region, rows, cols, mode);
        const std::vector<double> want = poolPlainly(m, region, outRows, outCols, mode);
        QCOMPARE(got.size(), want.size());
        for (std::size_t k = 0; k < got.size(); ++k) {
            if (mode == PoolMode::Max)
                QCOMPARE(got[k], want[k]); // the very entry
            else
                QVERIFY2(std::abs(got[k] - want[k]) <= 1e-13 * (1 + std::abs(want[k])),
                         qPrintable(QStringLiteral("cell %1: %2 against %3")
                                        .arg(k)
                                        .arg(got[k], 0, 'g', 17)
                                        .arg(want[k], 0, 'g', 17)));
        }
        // Integer tables (the index): sums of integers, exact.
        const std::vector<double> gotIndex =
            poolToeplitz(index.data(), n, region, rows, cols, mode);
        QCOMPARE(gotIndex, poolPlainly(mi, region, outRows, outCols, mode));
    }
    // The bins are pooling.h's: the whole matrix pooled by poolHeads gives the same cells.
    if (region == PoolRegion{0, n, 0, n} && rows == cols) {
        std::vector<float> whole(static_cast<std::size_t>(n) * n);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                whole[static_cast<std::size_t>(i) * n + j] = static_cast<float>(mi(i, j));
        const Tensor pooled =
            poolHeads(Tensor::fromVector<float>({1, n, n}, whole), region, rows, PoolMode::Mean);
        const std::vector<double> got =
            poolToeplitz(index.data(), n, region, rows, cols, PoolMode::Mean);
        QCOMPARE(static_cast<std::size_t>(pooled.size()), got.size());
        for (std::size_t k = 0; k < got.size(); ++k)
            QVERIFY(std::abs(pooled.at(static_cast<std::int64_t>(k)) - got[k]) < 1e-5);
    }
}

void TestRelativeTables::longSequencesStayExact() {
    // n = 65,536: the sums of sums reach ~10¹⁰; a cell's mean is a difference of four of them.
    const int n = 65536;
    std::mt19937 rng(9);
    std::uniform_real_distribution<double> uniform(-3.0, 3.0);
    std::vector<double> table(2 * static_cast<std::size_t>(n) - 1);
    for (double& v : table)
        v = uniform(rng) + 1000.0; // a large common part, as ALiBi's far offsets have
    const auto m = [&](int i, int j) { return table[static_cast<std::size_t>(j - i + n - 1)]; };
    const PoolRegion all{0, n, 0, n};
    const std::vector<double> got = poolToeplitz(table.data(), n, all, 1024, 1024, PoolMode::Mean);
    QCOMPARE(got.size(), std::size_t{1024 * 1024});
    for (int u : {0, 17, 511, 1023})
        for (int v : {0, 300, 1023}) {
            const PoolRegion cell{binStart(u, n, 1024), binStart(u + 1, n, 1024),
                                  binStart(v, n, 1024), binStart(v + 1, n, 1024)};
            const double want = poolPlainly(m, cell, 1, 1, PoolMode::Mean).front();
            QVERIFY2(std::abs(got[static_cast<std::size_t>(u) * 1024 + v] - want) < 1e-9,
                     qPrintable(QStringLiteral("cell (%1, %2)").arg(u).arg(v)));
        }
    // At full resolution, each cell is its table entry itself.
    const PoolRegion tile{40000, 40100, 100, 180};
    const std::vector<double> single =
        poolToeplitz(table.data(), n, tile, 1024, 1024, PoolMode::Mean);
    QCOMPARE(single.size(), std::size_t{100 * 80});
    for (int i = 0; i < 100; ++i)
        for (int j = 0; j < 80; ++j)
            QCOMPARE(single[static_cast<std::size_t>(i) * 80 + j], m(40000 + i, 100 + j));
}

void TestRelativeTables::badRegionsGiveNothing() {
    const std::vector<double> table(19, 1.0); // n = 10
    QVERIFY(poolToeplitz(table.data(), 10, PoolRegion{0, 11, 0, 10}, 4, 4, PoolMode::Mean).empty());
    QVERIFY(poolToeplitz(table.data(), 10, PoolRegion{-1, 5, 0, 10}, 4, 4, PoolMode::Max).empty());
    QVERIFY(poolToeplitz(table.data(), 10, PoolRegion{5, 5, 0, 10}, 4, 4, PoolMode::Mean).empty());
    QVERIFY(poolToeplitz(table.data(), 0, PoolRegion{0, 0, 0, 0}, 4, 4, PoolMode::Mean).empty());
    QCOMPARE(poolToeplitz(table.data(), 10, PoolRegion{0, 10, 0, 10}, 0, 3, PoolMode::Mean).size(),
             std::size_t{3}); // at least one cell per side
}

// The window pools into buffers it reuses (poolToeplitzInto): the same cells as poolToeplitz,
// every one written over what the buffer held, in each mode and for equal and uneven bins; a
// size the region caps otherwise, or a bad region, writes nothing.
void TestRelativeTables::poolingIntoABufferGivesTheSameCells() {
    const int n = 96;
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> uniform(-2.0, 2.0);
    std::vector<double> table(2 * static_cast<std::size_t>(n) - 1);
    for (double& v : table)
        v = uniform(rng);
    for (PoolMode mode : {PoolMode::Mean, PoolMode::Max})
        for (int cells : {32, 17, 96}) { // equal bins, uneven bins, one position per cell
            const PoolRegion all{0, n, 0, n};
            const std::vector<double> want = poolToeplitz(table.data(), n, all, cells, cells, mode);
            std::vector<double> got(want.size(), std::numeric_limits<double>::quiet_NaN());
            QVERIFY(poolToeplitzInto(table.data(), n, all, cells, cells, mode, got.data()));
            QVERIFY(got == want);
        }
    std::vector<double> buffer(16, -7.0);
    QVERIFY(!poolToeplitzInto(table.data(), n, PoolRegion{0, 2, 0, 2}, 4, 4, PoolMode::Mean,
                              buffer.data())); // capped to 2 × 2: not the buffer's 4 × 4
    QVERIFY(!poolToeplitzInto(table.data(), n, PoolRegion{0, n + 1, 0, n}, 4, 4, PoolMode::Mean,
                              buffer.data()));
    QVERIFY(std::all_of(buffer.begin(), buffer.end(), [](double v) { return v == -7.0; }));
}

QTEST_APPLESS_MAIN(TestRelativeTables)
#include "tst_relative_tables.moc"
