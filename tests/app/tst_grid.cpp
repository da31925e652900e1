// SPDX-License-Identifier: MIT
#include <QTest>

#include <array>
#include <cmath>
#include <limits>

#include "grid.h"

using namespace pe;

class TestGrid : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void poolKnownAnswers_data();
    void poolKnownAnswers();
    void poolSmallRegionIsCopy();
    void binnedEqualsPooled();
    void gramOfSinusoidRows();
    void gramOfALargeGridIsEveryDotProduct();
    void gramIntoWritesOverItsBuffer();
    void sliceHeadPicksTheHead();
    void meanSkipsMaskedEntries();
    void poolSliceEqualsPoolOfSlice_data();
    void poolSliceEqualsPoolOfSlice();
    void sliceRangeAndAtReadInPlace();
    void sliceDifferenceOfTwoHeads();
};

static Grid ramp(int rows, int cols) {
    Grid g{rows, cols, {}};
    for (int k = 0; k < rows * cols; ++k)
        g.values.push_back(k);
    return g;
}

void TestGrid::poolKnownAnswers_data() {
    QTest::addColumn<int>("mode");
    QTest::addColumn<QList<double>>("expected");
    // 4×4 ramp 0..15 pooled to 2×2: blocks {0,1,4,5} {2,3,6,7} {8,9,12,13} {10,11,14,15}
    QTest::newRow("mean") << 0 << QList<double>{2.5, 4.5, 10.5, 12.5};
    QTest::newRow("max") << 1 << QList<double>{5, 7, 13, 15};
}

void TestGrid::poolKnownAnswers() {
    QFETCH(int, mode);
    QFETCH(QList<double>, expected);
    const Grid p = pool(ramp(4, 4), 0, 4, 0, 4, 2, 2, mode ? PoolMode::Max : PoolMode::Mean);
    QCOMPARE(p.rows, 2);
    QCOMPARE(p.cols, 2);
    for (int k = 0; k < 4; ++k)
        QCOMPARE(p.values[static_cast<std::size_t>(k)], expected[k]);
}

void TestGrid::poolSmallRegionIsCopy() {
    const Grid g = ramp(6, 5);
    const Grid p = pool(g, 1, 4, 2, 5, 100, 100, PoolMode::Mean);
    QCOMPARE(p.rows, 3);
    QCOMPARE(p.cols, 3);
    QCOMPARE(p.at(0, 0), g.at(1, 2));
    QCOMPARE(p.at(2, 2), g.at(3, 4));
}

void TestGrid::binnedEqualsPooled() {
    // 3 heads of 10×7; binning head 1 to ≤ 5×4 cells must equal pooling its slice (exact bins).
    std::vector<double> v(3 * 10 * 8);
    for (std::size_t k = 0; k < v.size(); ++k)
        v[k] = static_cast<double>((k * 37) % 101) - 50.0;
    const Tensor t = Tensor::fromVector<double>({3, 10, 8}, v);
    int br = 0, bc = 0;
    const Grid b = sliceHeadBinned(t, 1, 5, 4, &br, &bc);
    QCOMPARE(br, 2);
    QCOMPARE(bc, 2);
    const Grid full = sliceHead(t, 1);
    QCOMPARE(full.at(0, 0), v[80]);
    const Grid p = pool(full, 0, 10, 0, 8, 5, 4, PoolMode::Mean);
    QCOMPARE(b.rows, p.rows);
    QCOMPARE(b.cols, p.cols);
    for (std::size_t k = 0; k < b.values.size(); ++k)
        QVERIFY(qAbs(b.values[k] - p.values[k]) < 1e-12);
}

void TestGrid::gramOfSinusoidRows() {
    // rows (sin, cos) of angle p: p_i·p_j = cos(i − j), a Toeplitz matrix with 1 on the diagonal
    Grid p{5, 2, {}};
    for (int i = 0; i < 5; ++i) {
        p.values.push_back(std::sin(0.3 * i));
        p.values.push_back(std::cos(0.3 * i));
    }
    const Grid g = gram(p);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
            QVERIFY(qAbs(g.at(i, j) - std::cos(0.3 * (i - j))) < 1e-12);
}

// Past the sizes of the Toeplitz check, where the product runs blocked kernels in two row bands
// on two threads: every entry is the dot product of two rows (each row checked: a band's edge
// is one), and the matrix is symmetric to round-off.
void TestGrid::gramOfALargeGridIsEveryDotProduct() {
    Grid p{301, 67, {}};
    for (int k = 0; k < p.rows * p.cols; ++k)
        p.values.push_back(std::sin(0.37 * k) + 0.01 * (k % 13));
    const Grid g = gram(p);
    QCOMPARE(g.rows, 301);
    QCOMPARE(g.cols, 301);
    for (int i = 0; i < p.rows; ++i)
        for (int j = 0; j < p.rows; ++j) {
            double s = 0;
            for (int c = 0; c < p.cols; ++c)
                s += p.at(i, c) * p.at(j, c);
            QVERIFY(qAbs(g.at(i, j) - s) < 1e-11);
            QVERIFY(qAbs(g.at(i, j) - g.at(j, i)) < 1e-11);
        }
}

// gramInto: the same matrix as gram, as a [1, n, n] tensor of doubles, written over in place
// where the shape holds (no fresh 32 MB at n = 2,048), also over a larger matrix before it.
void TestGrid::gramIntoWritesOverItsBuffer() {
    Grid p{301, 67, {}};
    for (int k = 0; k < p.rows * p.cols; ++k)
        p.values.push_back(std::cos(0.21 * k) - 0.02 * (k % 7));
    Tensor out;
    gramInto(p, out);
    QCOMPARE(out.shape(), (std::vector<std::int64_t>{1, 301, 301}));
    const double* buffer = out.data<double>();
    std::fill(out.data<double>(), out.data<double>() + out.size(), 7.0); // a former matrix
    for (double& v : p.values)
        v *= 0.5;
    gramInto(p, out);
    QCOMPARE(out.data<double>(), buffer);
    const Grid g = gram(p);
    for (int i = 0; i < 301; i += 3)
        for (int j = 0; j < 301; j += 11)
            QCOMPARE(out.at(std::int64_t(i) * 301 + j), g.at(i, j));
}

void TestGrid::sliceHeadPicksTheHead() {
    const Tensor t = Tensor::fromVector<float>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    const Grid h1 = sliceHead(t, 1);
    QCOMPARE(h1.values, (std::vector<double>{4, 5, 6, 7}));
    QCOMPARE(headCount(t), 2);
    const Tensor idx = Tensor::fromVector<std::int32_t>({2, 3}, {0, 1, 2, 3, 4, 5});
    QCOMPARE(sliceHead(idx, 5).at(1, 2), 5.0);
}

void TestGrid::meanSkipsMaskedEntries() {
    // A causal 4×4 logit map (−inf above the diagonal) pooled to 2×2: the masked entries are
    // left out of each cell's mean, and the all-masked top-right cell stays −inf.
    const double inf = std::numeric_limits<double>::infinity();
    Grid g = ramp(4, 4);
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j)
            g.at(i, j) = -inf;
    const Grid p = pool(g, 0, 4, 0, 4, 2, 2, PoolMode::Mean);
    QCOMPARE(p.at(0, 0), (0.0 + 4 + 5) / 3);
    QCOMPARE(p.at(0, 1), -inf);
    QCOMPARE(p.at(1, 0), (8.0 + 9 + 12 + 13) / 4);
    QCOMPARE(p.at(1, 1), (10.0 + 14 + 15) / 3);
    // Binning straight from a tensor does the same.
    const Tensor t = Tensor::fromVector<double>({4, 4}, g.values);
    int br = 0, bc = 0;
    const Grid b = sliceHeadBinned(t, 0, 2, 2, &br, &bc);
    for (std::size_t k = 0; k < 4; ++k)
        QCOMPARE(b.values[k], p.values[k]);
}

/** A float [2, rows, cols] tensor of irregular values with masked (−inf) entries in head 1. */
static Tensor maskedHeads(int rows, int cols) {
    std::vector<float> v(static_cast<std::size_t>(2 * rows * cols));
    for (std::size_t k = 0; k < v.size(); ++k)
        v[k] = static_cast<float>(std::sin(0.37 * static_cast<double>(k)) * 3.0);
    for (int r = 0; r < rows; ++r)
        for (int c = r + 1; c < cols; ++c) // causal mask on head 1
            v[static_cast<std::size_t>((rows + r) * cols + c)] =
                -std::numeric_limits<float>::infinity();
    return Tensor::fromVector<float>({2, rows, cols}, std::move(v));
}

void TestGrid::poolSliceEqualsPoolOfSlice_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("head");
    QTest::addColumn<int>("out");
    QTest::addColumn<int>("mode");
    // Uneven bins (37 → 5, 3 → 2), a copy (out ≥ size) and the masked head in both modes.
    QTest::newRow("uneven mean") << 37 << 41 << 0 << 5 << 0;
    QTest::newRow("uneven max") << 37 << 41 << 0 << 5 << 1;
    QTest::newRow("3 to 2") << 3 << 3 << 0 << 2 << 0;
    QTest::newRow("copy") << 9 << 7 << 0 << 16 << 0;
    QTest::newRow("masked mean") << 40 << 40 << 1 << 7 << 0;
    QTest::newRow("masked max") << 40 << 40 << 1 << 7 << 1;
    // Over 2^20 elements: pooled and scanned by two threads.
    QTest::newRow("large masked mean") << 1030 << 1030 << 1 << 100 << 0;
    QTest::newRow("large max") << 1030 << 1030 << 0 << 99 << 1;
    // Columns in bins of 3 or 4, 1 or 2, and 2 or 3 (the map of a head on a plot a few times
    // narrower: the sums run a fixed number of columns, then one more for the wider bins), and
    // rows pooled while columns are not (7 columns, 16 cells a side).
    QTest::newRow("narrow bins, masked") << 512 << 512 << 1 << 159 << 0;
    QTest::newRow("bins of 1 or 2") << 13 << 13 << 0 << 9 << 0;
    QTest::newRow("bins of 2 or 3, masked") << 60 << 60 << 1 << 23 << 0;
    QTest::newRow("columns unpooled") << 100 << 7 << 1 << 16 << 0;
    // Bins of 100 and 150 rows: float sums over more rows than one run of 64.
    QTest::newRow("tall mean") << 300 << 40 << 0 << 3 << 0;
    QTest::newRow("tall masked mean") << 300 << 40 << 1 << 2 << 0;
}

void TestGrid::poolSliceEqualsPoolOfSlice() {
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, head);
    QFETCH(int, out);
    QFETCH(int, mode);
    const PoolMode m = mode ? PoolMode::Max : PoolMode::Mean;
    const Tensor t = maskedHeads(rows, cols);
    const Grid full = sliceHead(t, head);
    // The whole slice and a zoomed block.
    for (const auto& [r0, r1, c0, c1] :
         {std::array{0, rows, 0, cols}, std::array{1, rows - 1, 2, cols - 1}}) {
        const Grid a = poolSlice(t, head, r0, r1, c0, c1, out, out, m);
        const Grid b = pool(full, r0, r1, c0, c1, out, out, m);
        QCOMPARE(a.rows, b.rows);
        QCOMPARE(a.cols, b.cols);
        // A float tensor's rows are summed in float in runs of at most 64 (then in double): each
        // cell's mean within 64 float roundings of the largest entry (|v| ≤ 3 here) of the double
        // sum. Max is exact.
        const double tol = m == PoolMode::Max ? 0.0 : 64 * 3.0 * std::ldexp(1.0, -24);
        for (std::size_t k = 0; k < a.values.size(); ++k) {
            if (std::isinf(b.values[k]))
                QCOMPARE(a.values[k], b.values[k]);
            else
                QVERIFY2(std::abs(a.values[k] - b.values[k]) <= tol,
                         qPrintable(QStringLiteral("cell %1: %2 against %3")
                                        .arg(k)
                                        .arg(a.values[k], 0, 'g', 17)
                                        .arg(b.values[k], 0, 'g', 17)));
        }
    }
    double lo = 0, hi = 0, glo = std::numeric_limits<double>::infinity(), ghi = -glo;
    QVERIFY(sliceRange(t, head, &lo, &hi));
    for (double v : full.values)
        if (std::isfinite(v)) {
            glo = std::min(glo, v);
            ghi = std::max(ghi, v);
        }
    QCOMPARE(lo, glo);
    QCOMPARE(hi, ghi);
    // Pooling the whole slice can give the same range in the same pass, and the same cells.
    double plo = 0, phi = 0;
    bool any = false;
    const Grid withRange = poolSlice(t, head, 0, rows, 0, cols, out, out, m, &plo, &phi, &any);
    QVERIFY(any);
    QCOMPARE(plo, glo);
    QCOMPARE(phi, ghi);
    QCOMPARE(withRange, poolSlice(t, head, 0, rows, 0, cols, out, out, m));
    // Known answer for the bins: column c of w goes to bin ⌊c·out/w⌋ (3 → 2: {0, 1}, {2}).
    if (rows == 3 && cols == 3) {
        const Grid p = poolSlice(t, 0, 0, 3, 0, 3, 2, 2, PoolMode::Mean);
        const double expected = (full.at(0, 2) + full.at(1, 2)) / 2; // rows {0, 1}, column 2
        QVERIFY(std::abs(p.at(0, 1) - expected) < 1e-12);
    }
}

void TestGrid::sliceRangeAndAtReadInPlace() {
    const Tensor t = maskedHeads(12, 12);
    for (int head : {0, 1}) {
        const Grid g = sliceHead(t, head);
        double lo = 0, hi = 0;
        QVERIFY(sliceRange(t, head, &lo, &hi));
        double glo = std::numeric_limits<double>::infinity(), ghi = -glo;
        for (double v : g.values)
            if (std::isfinite(v)) {
                glo = std::min(glo, v);
                ghi = std::max(ghi, v);
            }
        QCOMPARE(lo, glo); // the −inf of the masked head is left out
        QCOMPARE(hi, ghi);
        QCOMPARE(sliceAt(t, head, 7, 3), g.at(7, 3));
        QCOMPARE(sliceAt(t, head, 3, 7), g.at(3, 7));
    }
    const Tensor masked = Tensor::fromVector<float>(
        {2, 2}, std::vector<float>(4, -std::numeric_limits<float>::infinity()));
    double lo = 0, hi = 0;
    QVERIFY(!sliceRange(masked, 0, &lo, &hi));
}

// A − B of the Compare tab: head ha of a float tensor less head hb of a double one, in doubles
// (the difference of two floats exactly), shaped [1, rows, cols]; slices of other shapes: none.
void TestGrid::sliceDifferenceOfTwoHeads() {
    std::vector<float> fa(2 * 3 * 4);
    std::vector<double> fb(3 * 3 * 4);
    for (std::size_t k = 0; k < fa.size(); ++k)
        fa[k] = 1.0f + 1e-7f * static_cast<float>(k) + static_cast<float>(k) / 3.0f;
    for (std::size_t k = 0; k < fb.size(); ++k)
        fb[k] = 0.1 * static_cast<double>(k * k);
    fa[12 + 5] = -std::numeric_limits<float>::infinity(); // a masked logit stays masked
    const Tensor a = Tensor::fromVector<float>({2, 3, 4}, fa);
    const Tensor b = Tensor::fromVector<double>({3, 3, 4}, fb);
    const Tensor d = sliceDifference(a, 1, b, 2);
    QCOMPARE(d.dtype(), DType::F64);
    QCOMPARE(d.shape(), (std::vector<std::int64_t>{1, 3, 4}));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            if (!(i == 1 && j == 1))
                QCOMPARE(sliceAt(d, 0, i, j), sliceAt(a, 1, i, j) - sliceAt(b, 2, i, j));
    QCOMPARE(sliceAt(d, 0, 1, 1), -std::numeric_limits<double>::infinity());
    QVERIFY(
        sliceDifference(a, 0, Tensor::fromVector<float>({3, 3}, std::vector<float>(9)), 0).empty());
    // Into a tensor of that shape: its storage is reused; of another shape, it is remade.
    Tensor into(DType::F64, {1, 3, 4});
    const double* storage = into.data<double>();
    sliceDifference(a, 0, b, 1, into);
    QCOMPARE(into.data<double>(), storage);
    QCOMPARE(sliceAt(into, 0, 2, 3), sliceAt(a, 0, 2, 3) - sliceAt(b, 1, 2, 3));
    Tensor other(DType::F32, {2, 2});
    sliceDifference(a, 0, b, 1, other);
    QCOMPARE(other.dtype(), DType::F64);
    QCOMPARE(other.shape(), (std::vector<std::int64_t>{1, 3, 4}));
    // A large slice (two halves at once) equals the difference element by element.
    std::vector<float> big(2 * 512 * 300), big2(512 * 300);
    for (std::size_t k = 0; k < big.size(); ++k)
        big[k] = static_cast<float>(std::sin(0.001 * static_cast<double>(k)));
    for (std::size_t k = 0; k < big2.size(); ++k)
        big2[k] = static_cast<float>(std::cos(0.002 * static_cast<double>(k)));
    const Tensor ba = Tensor::fromVector<float>({2, 512, 300}, big);
    const Tensor bb = Tensor::fromVector<float>({512, 300}, big2);
    const Tensor bd = sliceDifference(ba, 1, bb, 0);
    for (auto [i, j] :
         {std::pair{0, 0}, std::pair{255, 299}, std::pair{256, 0}, std::pair{511, 299}})
        QCOMPARE(sliceAt(bd, 0, i, j),
                 double(big[static_cast<std::size_t>(512 * 300 + i * 300 + j)]) -
                     double(big2[static_cast<std::size_t>(i * 300 + j)]));
}

QTEST_GUILESS_MAIN(TestGrid)
#include "tst_grid.moc"
