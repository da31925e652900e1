// SPDX-License-Identifier: MIT
#include "grid.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pe {

namespace {

/** Calls f with the tensor's typed element pointer (the views read every element: no per-element
 *  dtype dispatch or bounds check). */
template <typename F> void withElements(const Tensor& t, F&& f) {
    switch (t.dtype()) {
    case DType::F32:
        f(t.data<float>());
        break;
    case DType::F64:
        f(t.data<double>());
        break;
    case DType::I32:
        f(t.data<std::int32_t>());
        break;
    }
}

} // namespace

double Grid::minValue() const {
    return values.empty() ? 0.0 : *std::min_element(values.begin(), values.end());
}

double Grid::maxValue() const {
    return values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
}

int headCount(const Tensor& t) {
    return t.rank() == 3 ? static_cast<int>(t.dim(0)) : 1;
}

Grid sliceHead(const Tensor& t, int head) {
    Grid g;
    if (t.rank() == 3) {
        head = std::clamp(head, 0, static_cast<int>(t.dim(0)) - 1);
        g.rows = static_cast<int>(t.dim(1));
        g.cols = static_cast<int>(t.dim(2));
    } else if (t.rank() == 2) {
        head = 0;
        g.rows = static_cast<int>(t.dim(0));
        g.cols = static_cast<int>(t.dim(1));
    } else if (t.rank() == 1) {
        head = 0;
        g.rows = 1;
        g.cols = static_cast<int>(t.dim(0));
    } else {
        return g;
    }
    const std::int64_t count = static_cast<std::int64_t>(g.rows) * g.cols;
    const std::int64_t offset = static_cast<std::int64_t>(head) * count;
    g.values.resize(static_cast<std::size_t>(count));
    withElements(t, [&](const auto* src) {
        src += offset;
        for (std::int64_t k = 0; k < count; ++k)
            g.values[static_cast<std::size_t>(k)] = static_cast<double>(src[k]);
    });
    return g;
}

Grid gram(const Grid& p) {
    Grid g{p.rows, p.rows, std::vector<double>(static_cast<std::size_t>(p.rows) * p.rows)};
    for (int i = 0; i < p.rows; ++i) {
        for (int j = i; j < p.rows; ++j) {
            double s = 0;
            for (int k = 0; k < p.cols; ++k)
                s += p.at(i, k) * p.at(j, k);
            g.at(i, j) = s;
            g.at(j, i) = s;
        }
    }
    return g;
}

std::vector<double> row(const Grid& g, int r) {
    if (r < 0 || r >= g.rows)
        return {};
    const auto begin = g.values.begin() + static_cast<std::ptrdiff_t>(r) * g.cols;
    return {begin, begin + g.cols};
}

Grid pool(const Grid& g, int r0, int r1, int c0, int c1, int outRows, int outCols, PoolMode mode) {
    r0 = std::clamp(r0, 0, g.rows);
    r1 = std::clamp(r1, r0, g.rows);
    c0 = std::clamp(c0, 0, g.cols);
    c1 = std::clamp(c1, c0, g.cols);
    const int h = r1 - r0;
    const int w = c1 - c0;
    Grid out;
    if (h == 0 || w == 0)
        return out;
    out.rows = std::clamp(outRows, 1, h);
    out.cols = std::clamp(outCols, 1, w);
    out.values.assign(static_cast<std::size_t>(out.rows) * out.cols,
                      mode == PoolMode::Max ? -std::numeric_limits<double>::infinity() : 0.0);
    // Column bins are the same for every row: work them out once.
    std::vector<int> colBin(static_cast<std::size_t>(w));
    for (int c = 0; c < w; ++c)
        colBin[static_cast<std::size_t>(c)] =
            static_cast<int>(static_cast<std::int64_t>(c) * out.cols / w);
    // Mean skips infinite entries (masked logits), as the engines' pooling does (pooling.h).
    std::vector<int> finite(mode == PoolMode::Mean ? out.values.size() : 0, 0);
    for (int r = r0; r < r1; ++r) {
        const int orow = static_cast<int>(static_cast<std::int64_t>(r - r0) * out.rows / h);
        double* dst = out.values.data() + static_cast<std::size_t>(orow) * out.cols;
        const double* src = g.values.data() + static_cast<std::size_t>(r) * g.cols + c0;
        if (mode == PoolMode::Max) {
            for (int c = 0; c < w; ++c) {
                double& d = dst[colBin[static_cast<std::size_t>(c)]];
                d = std::max(d, src[c]);
            }
        } else {
            int* cnt = finite.data() + static_cast<std::size_t>(orow) * out.cols;
            for (int c = 0; c < w; ++c) {
                if (!std::isfinite(src[c]))
                    continue;
                dst[colBin[static_cast<std::size_t>(c)]] += src[c];
                ++cnt[colBin[static_cast<std::size_t>(c)]];
            }
        }
    }
    if (mode == PoolMode::Mean) {
        for (std::size_t k = 0; k < out.values.size(); ++k)
            out.values[k] = finite[k] > 0 ? out.values[k] / finite[k]
                                          : -std::numeric_limits<double>::infinity();
    }
    return out;
}

} // namespace pe

namespace pe {
Grid sliceHeadBinned(const Tensor& t, int head, int maxRows, int maxCols, int* binRows,
                     int* binCols) {
    int rows = 0, cols = 0;
    std::int64_t offset = 0;
    if (t.rank() == 3) {
        head = std::clamp(head, 0, static_cast<int>(t.dim(0)) - 1);
        rows = static_cast<int>(t.dim(1));
        cols = static_cast<int>(t.dim(2));
        offset = static_cast<std::int64_t>(head) * rows * cols;
    } else if (t.rank() == 2) {
        rows = static_cast<int>(t.dim(0));
        cols = static_cast<int>(t.dim(1));
    }
    const int br = std::max(1, (rows + maxRows - 1) / std::max(maxRows, 1));
    const int bc = std::max(1, (cols + maxCols - 1) / std::max(maxCols, 1));
    *binRows = br;
    *binCols = bc;
    if (br == 1 && bc == 1)
        return sliceHead(t, head);
    Grid g{(rows + br - 1) / br, (cols + bc - 1) / bc, {}};
    g.values.assign(static_cast<std::size_t>(g.rows) * g.cols, 0.0);
    std::vector<int> count(g.values.size(), 0);
    withElements(t, [&](const auto* src) {
        for (int r = 0; r < rows; ++r) {
            const auto* line = src + offset + static_cast<std::int64_t>(r) * cols;
            const std::size_t orow = static_cast<std::size_t>(r / br) * g.cols;
            for (int oc = 0; oc < g.cols; ++oc) {
                const int c1 = std::min(cols, (oc + 1) * bc);
                double sum = 0.0;
                int finite = 0;
                for (int c = oc * bc; c < c1; ++c) {
                    const double v = static_cast<double>(line[c]);
                    if (!std::isfinite(v))
                        continue; // masked: left out of the mean, as in pool()
                    sum += v;
                    ++finite;
                }
                g.values[orow + oc] += sum;
                count[orow + oc] += finite;
            }
        }
    });
    for (std::size_t k = 0; k < g.values.size(); ++k)
        g.values[k] =
            count[k] > 0 ? g.values[k] / count[k] : -std::numeric_limits<double>::infinity();
    return g;
}
} // namespace pe
