// SPDX-License-Identifier: MIT
#include "relative_tables.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "encodings.h"

namespace pe {

RelativeTables relativeTables(const Params& p, const Weights& w) {
    const int N = p.seqLen(), H = p.heads;
    RelativeTables r;
    r.seqLen = N;
    r.heads = H;
    const auto offs = static_cast<int>(r.offsets());
    const bool t5Bias =
        p.scheme == Scheme::T5 || (p.scheme == Scheme::URPE && p.urpeBias == UrpeBias::T5);
    if (hasRelIndex(p)) {
        r.index.resize(static_cast<std::size_t>(offs));
        for (int o = 0; o < offs; ++o) {
            const int rel = o - (N - 1); // j − i
            int v = 0;
            if (p.scheme == Scheme::Shaw)
                v = shawIndex(0, rel, p.clip);
            else if (t5Bias)
                v = t5Bucket(rel, !p.unidirectional, p.buckets, p.maxDistance);
            else // DeBERTa: δ of i − j
                v = debertaIndex(-rel, p);
            r.index[static_cast<std::size_t>(o)] = v;
        }
    }
    if (t5Bias) {
        r.bias.resize(static_cast<std::size_t>(H) * offs);
        for (int h = 0; h < H; ++h)
            for (int o = 0; o < offs; ++o)
                r.bias[static_cast<std::size_t>(h) * offs + o] =
                    w.t5Table(r.index[static_cast<std::size_t>(o)], h);
    }
    if (p.scheme == Scheme::ALiBi) {
        const std::vector<double> slopes = alibiSlopes(H);
        r.bias.resize(static_cast<std::size_t>(H) * offs);
        for (int h = 0; h < H; ++h)
            for (int o = 0; o < offs; ++o) {
                const double rel = o - (N - 1); // j − i
                r.bias[static_cast<std::size_t>(h) * offs + o] = p.alibiMode == AlibiMode::Symmetric
                                                                     ? -slopes[h] * std::abs(rel)
                                                                     : slopes[h] * rel;
            }
    }
    if (p.scheme == Scheme::URPE && w.urpeC.rows() == H && w.urpeC.cols() == offs) {
        r.urpeC.resize(static_cast<std::size_t>(H) * offs);
        for (int h = 0; h < H; ++h)
            for (int o = 0; o < offs; ++o)
                r.urpeC[static_cast<std::size_t>(h) * offs + o] = w.urpeC(h, o);
    }
    return r;
}

std::vector<float> roundedToFloat(const std::vector<double>& table) {
    std::vector<float> out(table.size());
    std::transform(table.begin(), table.end(), out.begin(),
                   [](double v) { return static_cast<float>(v); });
    return out;
}

namespace {

/** Sums of the Toeplitz matrix over rectangles of (i, j) in O(1): sums of prefix sums. */
class ToeplitzSums {
public:
    template <typename T>
    ToeplitzSums(const T* table, int n)
        : m_n(n) {
        const std::size_t offs = 2 * static_cast<std::size_t>(n) - 1;
        // s1[x] = Σ_{o<x} f[o]; s2[y] = Σ_{x<y} s1[x]. Long double: s2 grows as n²·|f| (about
        // 10¹⁰ at n = 65,536), and a cell's sum is a difference of four of them.
        std::vector<long double> s1(offs + 1);
        m_s2.assign(offs + 2, 0.0L);
        for (std::size_t o = 0; o < offs; ++o)
            s1[o + 1] = s1[o] + static_cast<long double>(table[o]);
        for (std::size_t x = 0; x <= offs; ++x)
            m_s2[x + 1] = m_s2[x] + s1[x];
    }
    /**
     * Σ over i ∈ [a0, a1), j < b of f[(j − i) + n − 1], less the same for j < 0: a cell's sum
     * is edge(b1) − edge(b0). Row i's part is s1[b − i + n − 1]; summed over the rows, a
     * difference of s2.
     */
    long double edge(int a0, int a1, int b) const {
        const std::size_t c = static_cast<std::size_t>(b) + static_cast<std::size_t>(m_n);
        return m_s2[c - static_cast<std::size_t>(a0)] - m_s2[c - static_cast<std::size_t>(a1)];
    }

private:
    int m_n;
    std::vector<long double> m_s2;
};

/** Range maxima of a table over intervals up to a given length, in O(1) per query. */
class RangeMax {
public:
    template <typename T> RangeMax(const T* table, std::size_t size, std::size_t longest) {
        const int levels = std::bit_width(std::max<std::size_t>(longest, 1));
        m_levels.resize(static_cast<std::size_t>(levels));
        m_levels[0].assign(table, table + size);
        for (int k = 1; k < levels; ++k) {
            const std::vector<double>& prev = m_levels[static_cast<std::size_t>(k - 1)];
            const std::size_t half = std::size_t{1} << (k - 1);
            std::vector<double>& cur = m_levels[static_cast<std::size_t>(k)];
            cur.resize(prev.size() > half ? prev.size() - half : 0);
            for (std::size_t o = 0; o < cur.size(); ++o)
                cur[o] = std::max(prev[o], prev[o + half]);
        }
    }
    /** The largest of entries [lo, hi]. */
    double max(std::size_t lo, std::size_t hi) const {
        const int k = std::bit_width(hi - lo + 1) - 1;
        const std::vector<double>& level = m_levels[static_cast<std::size_t>(k)];
        return std::max(level[lo], level[hi + 1 - (std::size_t{1} << k)]);
    }

private:
    std::vector<std::vector<double>> m_levels; ///< level k: maxima of 2^k entries from o
};

/** Both sides capped at the region's; false for an empty or out-of-range region. */
bool capped(int n, PoolRegion region, int* rows, int* cols) {
    *rows = std::clamp(*rows, 1, std::max(region.rows(), 1));
    *cols = std::clamp(*cols, 1, std::max(region.cols(), 1));
    return n > 0 && region.rows() > 0 && region.cols() > 0 && region.r0 >= 0 && region.c0 >= 0 &&
           region.r1 <= n && region.c1 <= n;
}

/** poolToeplitz's work, into `out` (rows × cols, the sides already capped and checked). */
template <typename T>
void poolInto(const T* table, int n, PoolRegion region, int rows, int cols, PoolMode mode,
              double* out) {
    // Equal square bins (n a multiple of the cells, as 16,384 → 1,024): cell (u, v) covers the
    // offsets of cell (0, v − u), or of (u − v, 0), with the same counts. The first row and the
    // first column of cells give every diagonal; the rest is copied.
    const int k = region.rows() / rows;
    if (rows > 1 && cols > 1 && region.rows() == k * rows && region.cols() == k * cols) {
        const std::vector<double> top = poolToeplitz(
            table, n, PoolRegion{region.r0, region.r0 + k, region.c0, region.c1}, 1, cols, mode);
        const std::vector<double> left = poolToeplitz(
            table, n, PoolRegion{region.r0, region.r1, region.c0, region.c0 + k}, rows, 1, mode);
        for (int u = 0; u < rows; ++u) {
            double* line = out + static_cast<std::size_t>(u) * cols;
            for (int v = 0; v < cols; ++v)
                line[v] = v >= u ? top[static_cast<std::size_t>(v - u)]
                                 : left[static_cast<std::size_t>(u - v)];
        }
        return;
    }
    std::vector<int> rowStart(static_cast<std::size_t>(rows) + 1),
        colStart(static_cast<std::size_t>(cols) + 1);
    for (int u = 0; u <= rows; ++u)
        rowStart[static_cast<std::size_t>(u)] = region.r0 + binStart(u, region.rows(), rows);
    for (int v = 0; v <= cols; ++v)
        colStart[static_cast<std::size_t>(v)] = region.c0 + binStart(v, region.cols(), cols);
    if (mode == PoolMode::Max) {
        // A cell's offsets j − i form one interval, of (its rows + its columns − 1) entries.
        int tallest = 0, widest = 0;
        for (int u = 0; u < rows; ++u)
            tallest = std::max(tallest, rowStart[u + 1] - rowStart[u]);
        for (int v = 0; v < cols; ++v)
            widest = std::max(widest, colStart[v + 1] - colStart[v]);
        const RangeMax range(table, 2 * static_cast<std::size_t>(n) - 1,
                             static_cast<std::size_t>(tallest + widest - 1));
        for (int u = 0; u < rows; ++u) {
            double* line = out + static_cast<std::size_t>(u) * cols;
            const int a0 = rowStart[u], a1 = rowStart[u + 1];
            for (int v = 0; v < cols; ++v) {
                const int lo = colStart[v] - (a1 - 1) + n - 1;
                const int hi = colStart[v + 1] - 1 - a0 + n - 1;
                line[v] = range.max(static_cast<std::size_t>(lo), static_cast<std::size_t>(hi));
            }
        }
        return;
    }
    const ToeplitzSums sums(table, n);
    std::vector<long double> edges(static_cast<std::size_t>(cols) + 1);
    for (int u = 0; u < rows; ++u) {
        double* line = out + static_cast<std::size_t>(u) * cols;
        const int a0 = rowStart[u], a1 = rowStart[u + 1];
        // The cells of a row of cells share their column edges: each edge once.
        for (int v = 0; v <= cols; ++v)
            edges[static_cast<std::size_t>(v)] = sums.edge(a0, a1, colStart[v]);
        for (int v = 0; v < cols; ++v) {
            const int b0 = colStart[v], b1 = colStart[v + 1];
            if (a1 - a0 == 1 && b1 - b0 == 1) { // one position (a tile at full resolution)
                line[v] = static_cast<double>(table[b0 - a0 + n - 1]);
                continue;
            }
            // The difference in long double (where the digits cancel), the mean in double.
            const auto sum = static_cast<double>(edges[static_cast<std::size_t>(v) + 1] - edges[v]);
            line[v] = sum / (static_cast<double>(a1 - a0) * (b1 - b0));
        }
    }
}

} // namespace

template <typename T>
std::vector<double> poolToeplitz(const T* table, int n, PoolRegion region, int rows, int cols,
                                 PoolMode mode) {
    if (!capped(n, region, &rows, &cols))
        return {};
    std::vector<double> out(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
    poolInto(table, n, region, rows, cols, mode, out.data());
    return out;
}

template <typename T>
bool poolToeplitzInto(const T* table, int n, PoolRegion region, int rows, int cols, PoolMode mode,
                      double* out) {
    const int wantRows = rows, wantCols = cols;
    if (!capped(n, region, &rows, &cols) || rows != wantRows || cols != wantCols)
        return false;
    poolInto(table, n, region, rows, cols, mode, out);
    return true;
}

template std::vector<double> poolToeplitz<int>(const int*, int, PoolRegion, int, int, PoolMode);
template std::vector<double> poolToeplitz<double>(const double*, int, PoolRegion, int, int,
                                                  PoolMode);
template bool poolToeplitzInto<int>(const int*, int, PoolRegion, int, int, PoolMode, double*);
template bool poolToeplitzInto<double>(const double*, int, PoolRegion, int, int, PoolMode, double*);

} // namespace pe
