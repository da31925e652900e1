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
    const std::size_t cells = static_cast<std::size_t>(m_heads) * m_outRows * m_outCols;
    // Not initialised (see merge): the pages are first written by the threads that add cells.
    m_sum.reset(new double[cells]);
    if (mode == PoolMode::Mean)
        m_count.reset(new std::int32_t[cells]);
    m_touched.assign(static_cast<std::size_t>(m_heads) * m_outRows, 0);
}

template <typename Sum>
void PoolAccumulator::merge(int h, int u0, int u1, const Sum* sums, const std::int32_t* counts) {
    const bool mean = m_mode == PoolMode::Mean;
    const std::size_t cols = static_cast<std::size_t>(m_outCols);
    const std::lock_guard lock(m_locks[static_cast<std::size_t>(h)]);
    for (int u = u0; u < u1; ++u) {
        const std::size_t row = static_cast<std::size_t>(h) * m_outRows + u;
        const std::size_t at = row * cols, from = static_cast<std::size_t>(u - u0) * cols;
        double* sum = m_sum.get() + at;
        const Sum* add = sums + from;
        if (!m_touched[row]) { // the first contribution: stored
            m_touched[row] = 1;
            if (mean) {
                for (std::size_t k = 0; k < cols; ++k)
                    sum[k] = static_cast<double>(add[k]);
                std::copy(counts + from, counts + from + cols, m_count.get() + at);
            } else { // as max(−inf, x): a NaN stays out, as in every later merge
                constexpr double kNegInf = -std::numeric_limits<double>::infinity();
                for (std::size_t k = 0; k < cols; ++k)
                    sum[k] = std::max(kNegInf, static_cast<double>(add[k]));
            }
        } else if (mean) {
            std::int32_t* count = m_count.get() + at;
            for (std::size_t k = 0; k < cols; ++k) {
                sum[k] += static_cast<double>(add[k]);
                count[k] += counts[from + k];
            }
        } else {
            for (std::size_t k = 0; k < cols; ++k)
                sum[k] = std::max(sum[k], static_cast<double>(add[k]));
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
    merge(h, u0, u1, part.data(), mean ? count.data() : nullptr);
}

void PoolAccumulator::addCells(int h, int u0, int u1, const float* cells,
                               const std::int32_t* counts) {
    if (h < 0 || h >= m_heads || u0 >= u1)
        return;
    merge(h, u0, u1, cells, counts);
}

Tensor PoolAccumulator::result() const {
    Tensor t(DType::F32, {m_heads, m_outRows, m_outCols});
    float* out = t.data<float>();
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    const std::size_t cols = static_cast<std::size_t>(m_outCols);
    for (std::size_t row = 0; row < m_touched.size(); ++row) {
        float* o = out + row * cols;
        if (!m_touched[row]) { // no entry of this cell row was added: as all masked
            std::fill(o, o + cols, kNegInf);
            continue;
        }
        const double* sum = m_sum.get() + row * cols;
        if (m_mode == PoolMode::Max) {
            for (std::size_t k = 0; k < cols; ++k)
                o[k] = static_cast<float>(sum[k]);
        } else {
            const std::int32_t* count = m_count.get() + row * cols;
            for (std::size_t k = 0; k < cols; ++k)
                o[k] = count[k] > 0 ? static_cast<float>(sum[k] / static_cast<double>(count[k]))
                                    : kNegInf;
        }
    }
    return t;
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
