// SPDX-License-Identifier: MIT
#include "grid.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

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

namespace {

/**
 * pool() on any element type: `src` is a rows × cols row-major matrix. The mean skips infinite
 * and NaN entries (masked logits). Each row's share of a bin is summed first, then added.
 */
template <typename T>
Grid poolElements(const T* src, int rows, int cols, int r0, int r1, int c0, int c1, int outRows,
                  int outCols, PoolMode mode) {
    r0 = std::clamp(r0, 0, rows);
    r1 = std::clamp(r1, r0, rows);
    c0 = std::clamp(c0, 0, cols);
    c1 = std::clamp(c1, c0, cols);
    const int h = r1 - r0;
    const int w = c1 - c0;
    Grid out;
    if (h == 0 || w == 0)
        return out;
    out.rows = std::clamp(outRows, 1, h);
    out.cols = std::clamp(outCols, 1, w);
    out.values.assign(static_cast<std::size_t>(out.rows) * out.cols,
                      mode == PoolMode::Max ? -std::numeric_limits<double>::infinity() : 0.0);
    // Column c goes to bin ⌊(c − c0)·outCols / w⌋: bin k covers [c0 + ⌈k·w/outCols⌉,
    // c0 + ⌈(k+1)·w/outCols⌉). The same for every row: worked out once.
    std::vector<int> edge(static_cast<std::size_t>(out.cols) + 1);
    for (int k = 0; k <= out.cols; ++k)
        edge[static_cast<std::size_t>(k)] =
            c0 + static_cast<int>((static_cast<std::int64_t>(k) * w + out.cols - 1) / out.cols);
    std::vector<int> finite(mode == PoolMode::Mean ? out.values.size() : 0, 0);
    for (int r = r0; r < r1; ++r) {
        const int orow = static_cast<int>(static_cast<std::int64_t>(r - r0) * out.rows / h);
        double* dst = out.values.data() + static_cast<std::size_t>(orow) * out.cols;
        const T* line = src + static_cast<std::int64_t>(r) * cols;
        if (mode == PoolMode::Max) {
            for (int k = 0; k < out.cols; ++k) {
                double m = dst[k];
                for (int c = edge[static_cast<std::size_t>(k)];
                     c < edge[static_cast<std::size_t>(k) + 1]; ++c)
                    m = std::max(m, static_cast<double>(line[c]));
                dst[k] = m;
            }
        } else {
            int* cnt = finite.data() + static_cast<std::size_t>(orow) * out.cols;
            for (int k = 0; k < out.cols; ++k) {
                double sum = 0.0;
                int count = 0;
                for (int c = edge[static_cast<std::size_t>(k)];
                     c < edge[static_cast<std::size_t>(k) + 1]; ++c) {
                    const double v = static_cast<double>(line[c]);
                    if (!std::isfinite(v))
                        continue; // masked: left out of the mean
                    sum += v;
                    ++count;
                }
                dst[k] += sum;
                cnt[k] += count;
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

/** Element pointer, rows and columns of head `head` of a [heads, r, c], [r, c] or [c] tensor. */
template <typename F> bool withSlice(const Tensor& t, int head, F&& f) {
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
    } else if (t.rank() == 1) {
        rows = 1;
        cols = static_cast<int>(t.dim(0));
    } else {
        return false;
    }
    if (t.empty())
        return false;
    withElements(t, [&](const auto* src) { f(src + offset, rows, cols); });
    return true;
}

} // namespace

Grid pool(const Grid& g, int r0, int r1, int c0, int c1, int outRows, int outCols, PoolMode mode) {
    return poolElements(g.values.data(), g.rows, g.cols, r0, r1, c0, c1, outRows, outCols, mode);
}

Grid poolSlice(const Tensor& t, int head, int r0, int r1, int c0, int c1, int outRows, int outCols,
               PoolMode mode) {
    Grid out;
    withSlice(t, head, [&](const auto* src, int rows, int cols) {
        out = poolElements(src, rows, cols, r0, r1, c0, c1, outRows, outCols, mode);
    });
    return out;
}

bool sliceRange(const Tensor& t, int head, double* lo, double* hi) {
    bool any = false;
    withSlice(t, head, [&](const auto* src, int rows, int cols) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
        const std::int64_t count = static_cast<std::int64_t>(rows) * cols;
        T mn = std::numeric_limits<T>::max();
        T mx = std::numeric_limits<T>::lowest();
        for (std::int64_t k = 0; k < count; ++k) {
            const T v = src[k];
            // Infinite (masked) and NaN entries take no part: v − v is 0 only for finite v.
            if constexpr (std::is_floating_point_v<T>) {
                if (!(v - v == T(0)))
                    continue;
            }
            mn = std::min(mn, v);
            mx = std::max(mx, v);
            any = true;
        }
        if (any) {
            *lo = static_cast<double>(mn);
            *hi = static_cast<double>(mx);
        }
    });
    return any;
}

double sliceAt(const Tensor& t, int head, int r, int c) {
    double v = 0.0;
    withSlice(t, head, [&](const auto* src, int, int cols) {
        v = static_cast<double>(src[static_cast<std::int64_t>(r) * cols + c]);
    });
    return v;
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
