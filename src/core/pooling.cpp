// SPDX-License-Identifier: MIT
#include "pooling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pe {

PoolAccumulator::PoolAccumulator(int heads, PoolRegion region, int resolution, PoolMode mode)
    : m_heads(std::max(heads, 1))
    , m_region(region)
    , m_outRows(std::clamp(region.rows(), 1, std::max(resolution, 1)))
    , m_outCols(std::clamp(region.cols(), 1, std::max(resolution, 1)))
    , m_mode(mode)
    , m_partial(static_cast<std::size_t>(m_heads))
    , m_locks(std::make_unique<std::mutex[]>(static_cast<std::size_t>(m_heads))) {
    const int rows = std::max(region.rows(), 0);
    m_rowCell.resize(static_cast<std::size_t>(rows));
    for (int u = 0; u < m_outRows; ++u)
        for (int i = binStart(u, rows, m_outRows); i < binStart(u + 1, rows, m_outRows); ++i)
            m_rowCell[static_cast<std::size_t>(i)] = u;
    m_colStart.resize(static_cast<std::size_t>(m_outCols) + 1);
    for (int v = 0; v <= m_outCols; ++v)
        m_colStart[static_cast<std::size_t>(v)] =
            binStart(v, std::max(region.cols(), 0), m_outCols);
    // Not initialised: each cell row is written once, by the thread that completes it, or
    // filled in by result().
    m_out = Tensor(DType::F32, {m_heads, m_outRows, m_outCols});
    m_final.assign(static_cast<std::size_t>(m_heads) * m_outRows, 0);
}

template <typename Sum>
void PoolAccumulator::finish(std::size_t row, int rows, const Sum* sum, const std::int32_t* count) {
    constexpr double kNegInf = -std::numeric_limits<double>::infinity();
    const std::size_t cols = static_cast<std::size_t>(m_outCols);
    float* o = m_out.data<float>() + row * cols;
    if (m_mode == PoolMode::Max) { // as max(−inf, x): a NaN stays out
        for (std::size_t k = 0; k < cols; ++k)
            o[k] = static_cast<float>(std::max(kNegInf, static_cast<double>(sum[k])));
        return;
    }
    for (std::size_t k = 0; k < cols; ++k) {
        const std::int32_t c =
            count ? count[k] : rows * (m_colStart[k + 1] - m_colStart[k]); // all finite
        o[k] = c > 0 ? static_cast<float>(static_cast<double>(sum[k]) / static_cast<double>(c))
                     : static_cast<float>(kNegInf);
    }
}

template <typename Sum>
void PoolAccumulator::merge(int h, int r0, int r1, const Sum* sums, const std::int32_t* counts) {
    const int regionRows = std::max(m_region.rows(), 0);
    r0 = std::max(r0, 0);
    r1 = std::min(r1, regionRows);
    if (h < 0 || h >= m_heads || r0 >= r1)
        return;
    constexpr double kNegInf = -std::numeric_limits<double>::infinity();
    const bool mean = m_mode == PoolMode::Mean;
    const std::size_t cols = static_cast<std::size_t>(m_outCols);
    const int u0 = m_rowCell[static_cast<std::size_t>(r0)];
    const int u1 = m_rowCell[static_cast<std::size_t>(r1 - 1)] + 1;
    for (int u = u0; u < u1; ++u) {
        const int a = binStart(u, regionRows, m_outRows),
                  b = binStart(u + 1, regionRows, m_outRows);
        const int covered = std::min(b, r1) - std::max(a, r0);
        const std::size_t row = static_cast<std::size_t>(h) * m_outRows + u;
        const std::size_t from = static_cast<std::size_t>(u - u0) * cols;
        const Sum* add = sums + from;
        const std::int32_t* count = counts ? counts + from : nullptr;
        if (covered == b - a) { // the whole cell row: final
            finish(row, covered, add, count);
            m_final[row] = 1;
            continue;
        }
        const std::lock_guard lock(m_locks[static_cast<std::size_t>(h)]);
        auto [at, first] = m_partial[static_cast<std::size_t>(h)].try_emplace(u);
        Partial& part = at->second;
        if (first) { // stored
            part.sum.resize(cols);
            for (std::size_t k = 0; k < cols; ++k)
                part.sum[k] = mean ? static_cast<double>(add[k])
                                   : std::max(kNegInf, static_cast<double>(add[k]));
            if (mean)
                part.count.resize(cols);
        } else {
            for (std::size_t k = 0; k < cols; ++k)
                part.sum[k] = mean ? part.sum[k] + static_cast<double>(add[k])
                                   : std::max(part.sum[k], static_cast<double>(add[k]));
        }
        if (mean)
            for (std::size_t k = 0; k < cols; ++k)
                part.count[k] = (first ? 0 : part.count[k]) +
                                (count ? count[k] : covered * (m_colStart[k + 1] - m_colStart[k]));
        part.rows += covered;
        if (part.rows >= b - a) {
            finish(row, part.rows, part.sum.data(), mean ? part.count.data() : nullptr);
            m_final[row] = 1;
            m_partial[static_cast<std::size_t>(h)].erase(at);
        }
    }
}

void PoolAccumulator::addRows(int h, int i0, int rows, const float* data, std::int64_t stride) {
    const int lo = std::max(i0, m_region.r0);
    const int hi = std::min(i0 + rows, m_region.r1);
    if (lo >= hi || h < 0 || h >= m_heads)
        return;
    // Fold the block into the few cell rows it touches, then add those under the head's lock.
    const int u0 = m_rowCell[static_cast<std::size_t>(lo - m_region.r0)];
    const int u1 = m_rowCell[static_cast<std::size_t>(hi - 1 - m_region.r0)] + 1;
    const std::size_t span = static_cast<std::size_t>(u1 - u0) * m_outCols;
    const bool mean = m_mode == PoolMode::Mean;
    std::vector<double> part(span, mean ? 0.0 : -std::numeric_limits<double>::infinity());
    std::vector<std::int32_t> count(mean ? span : 0, 0);
    for (int i = lo; i < hi; ++i) {
        const int u = m_rowCell[static_cast<std::size_t>(i - m_region.r0)];
        const float* row = data + static_cast<std::int64_t>(i - i0) * stride + m_region.c0;
        const std::size_t base = static_cast<std::size_t>(u - u0) * m_outCols;
        for (int v = 0; v < m_outCols; ++v) {
            const int a = m_colStart[static_cast<std::size_t>(v)];
            const int b = m_colStart[static_cast<std::size_t>(v) + 1];
            if (mean) {
                float s = 0.0f;
                int c = 0;
                for (int j = a; j < b; ++j) {
                    const bool finite = std::isfinite(row[j]);
                    s += finite ? row[j] : 0.0f;
                    c += finite ? 1 : 0;
                }
                part[base + static_cast<std::size_t>(v)] += s;
                count[base + static_cast<std::size_t>(v)] += c;
            } else {
                float m = -std::numeric_limits<float>::infinity();
                for (int j = a; j < b; ++j)
                    m = std::max(m, row[j]);
                double& cell = part[base + static_cast<std::size_t>(v)];
                cell = std::max(cell, static_cast<double>(m));
            }
        }
    }
    merge(h, lo - m_region.r0, hi - m_region.r0, part.data(), mean ? count.data() : nullptr);
}

void PoolAccumulator::addCells(int h, int r0, int r1, const float* cells,
                               const std::int32_t* counts) {
    merge(h, r0, r1, cells, counts);
}

Tensor PoolAccumulator::result() {
    const std::size_t cols = static_cast<std::size_t>(m_outCols);
    for (std::size_t row = 0; row < m_final.size(); ++row) {
        if (m_final[row])
            continue;
        const int h = static_cast<int>(row / static_cast<std::size_t>(m_outRows));
        const int u = static_cast<int>(row % static_cast<std::size_t>(m_outRows));
        auto& partials = m_partial[static_cast<std::size_t>(h)];
        if (const auto at = partials.find(u); at != partials.end()) { // rows missing: as added
            finish(row, at->second.rows, at->second.sum.data(),
                   m_mode == PoolMode::Mean ? at->second.count.data() : nullptr);
        } else { // no entry of this cell row was added: as all masked
            float* o = m_out.data<float>() + row * cols;
            std::fill(o, o + cols, -std::numeric_limits<float>::infinity());
        }
    }
    m_partial.assign(m_partial.size(), {});
    return std::move(m_out);
}

Tensor poolHeads(const Tensor& t, PoolRegion region, int resolution, PoolMode mode) {
    const int heads = t.rank() == 3 ? static_cast<int>(t.dim(0)) : 1;
    const std::int64_t rows = t.dim(t.rank() - 2), cols = t.dim(t.rank() - 1);
    PoolAccumulator acc(heads, region, resolution, mode);
    const Tensor f = t.holds<float>() ? Tensor() : t.converted(DType::F32);
    const float* data = (t.holds<float>() ? t : f).data<float>();
    for (int h = 0; h < heads; ++h)
        acc.addRows(h, 0, static_cast<int>(rows), data + h * rows * cols, cols);
    return acc.result();
}

} // namespace pe
