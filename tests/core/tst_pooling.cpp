// SPDX-License-Identifier: MIT
// PoolAccumulator: known answers for mean and max, −inf skipped and all-masked cells, uneven
// bins, tiles, and rows arriving in blocks in any order.

#include <QTest>

#include <cmath>
#include <limits>

#include "pooling.h"

using namespace pe;

class TestPooling : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void meanAndMaxKnownAnswers();
    void unevenBinsAndTiles();
    void blocksInAnyOrderGiveTheSameCells();
    void rowsNeverAddedAreMaskedCells();
    void addCellsMergesItsFirstAndLaterContributions();
    void cellsWithoutCountsCountTheirArea();
};

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();

/** 4×4 ramp 0..15 with the upper-right triangle masked (−inf), one head. */
Tensor maskedRamp() {
    std::vector<float> v(16);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            v[static_cast<std::size_t>(i * 4 + j)] = j > i ? -kInf : static_cast<float>(i * 4 + j);
    return Tensor::fromVector<float>({1, 4, 4}, v);
}
} // namespace

void TestPooling::meanAndMaxKnownAnswers() {
    const Tensor t = maskedRamp();
    // Blocks {0,1,4,5} → visible 0,4,5; {2,3,6,7} → all masked; {8,9,12,13}; {10,11,14,15} →
    // 10,14,15.
    const Tensor mean = poolHeads(t, PoolRegion{0, 4, 0, 4}, 2, PoolMode::Mean);
    QCOMPARE(mean.shape(), (std::vector<std::int64_t>{1, 2, 2}));
    QCOMPARE(mean.at(0), 3.0);
    QCOMPARE(mean.at(1), -std::numeric_limits<double>::infinity());
    QCOMPARE(mean.at(2), 10.5);
    QCOMPARE(mean.at(3), 13.0);
    const Tensor max = poolHeads(t, PoolRegion{0, 4, 0, 4}, 2, PoolMode::Max);
    QCOMPARE(max.at(0), 5.0);
    QCOMPARE(max.at(1), -std::numeric_limits<double>::infinity());
    QCOMPARE(max.at(2), 13.0);
    QCOMPARE(max.at(3), 15.0);
}

void TestPooling::unevenBinsAndTiles() {
    // 5 positions into 2 bins: [0, 2) and [2, 5).
    std::vector<float> v(25);
    for (int k = 0; k < 25; ++k)
        v[static_cast<std::size_t>(k)] = static_cast<float>(k);
    const Tensor t = Tensor::fromVector<float>({5, 5}, v);
    const Tensor m = poolHeads(t, PoolRegion{0, 5, 0, 5}, 2, PoolMode::Mean);
    QCOMPARE(m.at(0), (0 + 1 + 5 + 6) / 4.0);
    QCOMPARE(m.at(3), (12 + 13 + 14 + 17 + 18 + 19 + 22 + 23 + 24) / 9.0);
    // A tile within the resolution is copied as is.
    const Tensor tile = poolHeads(t, PoolRegion{1, 3, 2, 5}, 8, PoolMode::Max);
    QCOMPARE(tile.shape(), (std::vector<std::int64_t>{1, 2, 3}));
    QCOMPARE(tile.at(0), 7.0);
    QCOMPARE(tile.at(5), 14.0);
}

void TestPooling::blocksInAnyOrderGiveTheSameCells() {
    const int n = 23;
    std::vector<float> v(static_cast<std::size_t>(2 * n * n));
    for (std::size_t k = 0; k < v.size(); ++k)
        v[k] = std::sin(static_cast<float>(k) * 0.37f);
    const Tensor t = Tensor::fromVector<float>({2, n, n}, v);
    for (PoolMode mode : {PoolMode::Mean, PoolMode::Max}) {
        const Tensor whole = poolHeads(t, PoolRegion{3, 20, 1, 23}, 5, mode);
        PoolAccumulator acc(2, PoolRegion{3, 20, 1, 23}, 5, mode);
        for (int i0 : {21, 14, 7, 0})
            for (int h : {1, 0})
                acc.addRows(h, i0, std::min(7, n - i0),
                            v.data() + (static_cast<std::size_t>(h) * n + i0) * n, n);
        const Tensor blocks = acc.result();
        QCOMPARE(blocks.shape(), whole.shape());
        for (std::int64_t k = 0; k < whole.size(); ++k)
            QVERIFY(std::abs(blocks.at(k) - whole.at(k)) < 1e-6);
    }
}

void TestPooling::rowsNeverAddedAreMaskedCells() {
    // The storage is not zero-filled: a cell row no block reached must still read as −inf
    // (all masked), in both modes, and the rows that were added keep their values.
    for (PoolMode mode : {PoolMode::Mean, PoolMode::Max}) {
        PoolAccumulator acc(2, PoolRegion{0, 8, 0, 8}, 4, mode);
        std::vector<float> rows(2 * 8, 3.0f); // rows 2 and 3: cell row 1 of head 1
        acc.addRows(1, 2, 2, rows.data(), 8);
        const Tensor r = acc.result();
        for (std::int64_t k = 0; k < r.size(); ++k) {
            const bool added = k / 16 == 1 && (k % 16) / 4 == 1;
            QCOMPARE(r.at(k), added ? 3.0 : -std::numeric_limits<double>::infinity());
        }
    }
}

void TestPooling::addCellsMergesItsFirstAndLaterContributions() {
    // An engine's own cells: sums with counts (mean) or maxima (max). Region rows 0–1 are cell
    // row 0, rows 2–3 cell row 1. A cell row that one contribution covers whole is final at
    // once; one split between two (row 0, then rows 1–3) is merged: counts add, a NaN maximum
    // stays out, first or not, and alone.
    PoolAccumulator mean(1, PoolRegion{0, 4, 0, 4}, 2, PoolMode::Mean);
    const float s1[] = {2, 4, 6, 8}, s2[] = {1, 1};
    const std::int32_t c1[] = {2, 2, 2, 0}, c2[] = {1, 2};
    mean.addCells(0, 1, 4, s1, c1); // cell row 0 in part, cell row 1 whole
    mean.addCells(0, 0, 1, s2, c2); // the rest of cell row 0
    const Tensor m = mean.result();
    QCOMPARE(m.at(0), 3.0 / 3.0);
    QCOMPARE(m.at(1), 5.0 / 4.0);
    QCOMPARE(m.at(2), 3.0);
    QCOMPARE(m.at(3), -std::numeric_limits<double>::infinity()); // no finite entry
    PoolAccumulator max(1, PoolRegion{0, 4, 0, 4}, 2, PoolMode::Max);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float a[] = {nan, 1}, b[] = {2, nan, nan, -1};
    max.addCells(0, 0, 1, a, nullptr);
    max.addCells(0, 1, 4, b, nullptr);
    const Tensor x = max.result();
    QCOMPARE(x.at(0), 2.0);
    QCOMPARE(x.at(1), 1.0);
    QCOMPARE(x.at(2), -std::numeric_limits<double>::infinity());
    QCOMPARE(x.at(3), -1.0);
}

void TestPooling::cellsWithoutCountsCountTheirArea() {
    // Mean cells given with no counts (all entries finite, as the weights): each cell divides
    // by its rows × columns, also when its rows arrive in two parts or not all arrive.
    PoolAccumulator acc(1, PoolRegion{0, 5, 0, 5}, 2, PoolMode::Mean); // rows 0–1 | 2–4
    const float whole[] = {4, 6}; // cell row 0: 2 × 2 and 2 × 3 entries
    const float part1[] = {3, 6}; // row 2 of cell row 1
    const float part2[] = {2, 3}; // row 3 of cell row 1
    acc.addCells(0, 0, 2, whole, nullptr);
    acc.addCells(0, 3, 4, part2, nullptr);
    acc.addCells(0, 2, 3, part1, nullptr); // row 4 never comes
    const Tensor r = acc.result();
    QCOMPARE(r.at(0), 4.0 / 4.0);
    QCOMPARE(r.at(1), 6.0 / 6.0);
    QCOMPARE(r.at(2), 5.0 / 4.0); // two rows of two columns so far
    QCOMPARE(r.at(3), 9.0 / 6.0);
}

QTEST_GUILESS_MAIN(TestPooling)
#include "tst_pooling.moc"
