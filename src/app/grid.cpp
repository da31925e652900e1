// SPDX-License-Identifier: MIT
#include "grid.h"

#include <QtConcurrent/QtConcurrentRun>

#include <Eigen/Core>

#ifdef PE_HAVE_FAST_CPU
#include "cpu_gemm.h"
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

namespace pe {

namespace {

/** Slices with at least this many elements are pooled / scanned by two threads. */
constexpr std::int64_t kSplitElements = std::int64_t{1} << 17;

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

bool Grid::finiteRange(double* lo, double* hi) const {
    bool any = false;
    for (const double v : values) {
        if (!std::isfinite(v))
            continue;
        *lo = any ? std::min(*lo, v) : v;
        *hi = any ? std::max(*hi, v) : v;
        any = true;
    }
    return any;
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

namespace {
/** Rows [r0, r1) of the square row-major g [n, n]'s lower triangle into its upper one (column r
 *  of the rows above r), in tiles: at n = 2,048 a row-by-row copy strides a row apart. */
void mirrorLowerRows(double* g, int n, int r0, int r1) {
    constexpr int kTile = 32;
    const auto at = [n](int r, int c) { return static_cast<std::size_t>(r) * n + c; };
    for (int t0 = r0; t0 < r1; t0 += kTile)
        for (int c0 = 0; c0 < std::min(r1, t0 + kTile); c0 += kTile) {
            const int t1 = std::min(r1, t0 + kTile), c1 = std::min(t1, c0 + kTile);
            for (int c = c0; c < c1; ++c)
                for (int r = std::max(t0, c + 1); r < t1; ++r)
                    g[at(c, r)] = g[at(r, c)];
        }
}

/** Rows [r0, r1) of P·Pᵀ's lower triangle, P [rows, cols] row-major, and their mirror images. */
void gramRows(const double* p, int rows, int cols, double* out, int r0, int r1) {
#ifdef PE_HAVE_FAST_CPU
    // The engine's products (OpenBLAS, else Eigen built for this CPU): this file is compiled for
    // the x86-64 baseline, where Eigen's own rank update took 145 ms of the GUI thread at
    // n = 2,048, d = 256 against OpenBLAS's 38 (2-core Zen 3 host).
    cpu::gramLowerRows(r0, r1, cols, p, cols, out, rows);
#else
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const RowMajor> P(p, rows, cols);
    Eigen::Map<RowMajor> G(out, rows, rows);
    if (r0 > 0)
        G.block(r0, 0, r1 - r0, r0).noalias() =
            P.middleRows(r0, r1 - r0) * P.topRows(r0).transpose();
    auto square = G.block(r0, r0, r1 - r0, r1 - r0);
    square.triangularView<Eigen::Lower>().setZero();
    square.selfadjointView<Eigen::Lower>().rankUpdate(P.middleRows(r0, r1 - r0));
#endif
    mirrorLowerRows(out, rows, r0, r1);
}

/** P·Pᵀ of P [rows, cols] (row-major doubles) into out [rows, rows]. */
void gramOf(const double* p, int rows, int cols, double* out) {
    // Half the product, blocked and vectorised, then its mirror; from 2^21 multiply-adds in two
    // bands of equal work at once (rows [0, n/√2) on Qt's pool, the rest here), as the pooling
    // below splits its passes: at n = 2,048, d = 256 a base change's similarity took the GUI
    // thread 48 ms alone (a scalar triple loop had taken 1.2 s at 1664 × 768).
    const double work = double(rows) * rows * cols / 2;
    if (work < double(1 << 21) || rows < 4) {
        gramRows(p, rows, cols, out, 0, rows);
        return;
    }
    const int split = static_cast<int>(rows / std::sqrt(2.0));
    QFuture<void> other = QtConcurrent::run([&] { gramRows(p, rows, cols, out, 0, split); });
    gramRows(p, rows, cols, out, split, rows);
    other.waitForFinished();
}
} // namespace

Grid gram(const Grid& p) {
    Grid g{p.rows, p.rows, std::vector<double>(static_cast<std::size_t>(p.rows) * p.rows)};
    if (p.rows > 0)
        gramOf(p.values.data(), p.rows, p.cols, g.values.data());
    return g;
}

void gramInto(const Grid& p, Tensor& out) {
    const std::vector<std::int64_t> shape{1, p.rows, p.rows};
    if (out.dtype() != DType::F64 || out.shape() != shape)
        out = Tensor(DType::F64, shape);
    if (p.rows > 0)
        gramOf(p.values.data(), p.rows, p.cols, out.data<double>());
}

std::vector<double> row(const Grid& g, int r) {
    if (r < 0 || r >= g.rows)
        return {};
    const auto begin = g.values.begin() + static_cast<std::ptrdiff_t>(r) * g.cols;
    return {begin, begin + g.cols};
}

namespace {

/** lo[c] / hi[c] take in line[c] where it is finite (branch-free: vectorised), in A (float or
 *  double) lines. */
template <typename T, typename A> void foldRange(const T* line, std::size_t w, A* lo, A* hi) {
    for (std::size_t c = 0; c < w; ++c) {
        const A v = static_cast<A>(line[c]);
        const bool finite = v - v == A(0);
        lo[c] = finite && v < lo[c] ? v : lo[c];
        hi[c] = finite && v > hi[c] ? v : hi[c];
    }
}

// The per-row folds of poolBins, the views' hot loop (every element of every map shown). They
// are compiled for AVX-512 and AVX2 as well as the x86-64 baseline (SSE2: two doubles per
// instruction), and the loader picks the best one the CPU runs (GCC function multiversioning).
// Not under ThreadSanitizer: the clones' ifunc resolver runs in the dynamic loader before
// TSan's runtime is up, and the binary crashed there before main().
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) &&       \
    !defined(__SANITIZE_THREAD__)
#define PE_POOL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PE_POOL_CLONES
#endif

/** a[c] += line[c], n[c] += 1 where line[c] is finite; with l, u: its range too. The lines are
 *  of A: double, or float for float maps (see kFloatRun). */
template <typename T, typename A>
[[gnu::always_inline]] inline void foldMean(const T* __restrict line, std::size_t w,
                                            A* __restrict a, A* __restrict n, A* __restrict l,
                                            A* __restrict u) {
    if (l)
        for (std::size_t c = 0; c < w; ++c) {
            const A v = static_cast<A>(line[c]);
            const bool finite = v - v == A(0); // false for ±inf and NaN
            a[c] += finite ? v : A(0);
            n[c] += finite ? A(1) : A(0);
            l[c] = finite && v < l[c] ? v : l[c];
            u[c] = finite && v > u[c] ? v : u[c];
        }
    else
        for (std::size_t c = 0; c < w; ++c) {
            const A v = static_cast<A>(line[c]);
            const bool finite = v - v == A(0);
            a[c] += finite ? v : A(0);
            n[c] += finite ? A(1) : A(0);
        }
}

/** a[c] = max(a[c], line[c]) (NaN kept out); with l, u: the finite entries' range too. */
template <typename T, typename A>
[[gnu::always_inline]] inline void foldMax(const T* __restrict line, std::size_t w, A* __restrict a,
                                           A* __restrict l, A* __restrict u) {
    for (std::size_t c = 0; c < w; ++c) {
        const A v = static_cast<A>(line[c]);
        a[c] = a[c] < v ? v : a[c];
    }
    if (l)
        foldRange(line, w, l, u);
}

PE_POOL_CLONES void foldMeanF64(const double* line, std::size_t w, double* a, double* n, double* l,
                                double* u) {
    foldMean(line, w, a, n, l, u);
}
PE_POOL_CLONES void foldMaxF64(const double* line, std::size_t w, double* a, double* l, double* u) {
    foldMax(line, w, a, l, u);
}
void foldMeanAny(const double* line, std::size_t w, double* a, double* n, double* l, double* u) {
    foldMeanF64(line, w, a, n, l, u);
}
PE_POOL_CLONES void foldMeanI32(const std::int32_t* line, std::size_t w, double* a, double* n,
                                double* l, double* u) {
    foldMean(line, w, a, n, l, u); // relative index maps
}
void foldMeanAny(const std::int32_t* line, std::size_t w, double* a, double* n, double* l,
                 double* u) {
    foldMeanI32(line, w, a, n, l, u);
}
void foldMaxAny(const double* line, std::size_t w, double* a, double* l, double* u) {
    foldMaxF64(line, w, a, l, u);
}
PE_POOL_CLONES void foldMaxI32(const std::int32_t* line, std::size_t w, double* a, double* l,
                               double* u) {
    foldMax(line, w, a, l, u);
}
void foldMaxAny(const std::int32_t* line, std::size_t w, double* a, double* l, double* u) {
    foldMaxI32(line, w, a, l, u);
}

// Float maps fold into float lines: half the bytes of double lines (which, at 2,048 columns
// and four lines, no longer fit L1) and twice the lanes. Sums are flushed into the double lines
// every kFloatRun rows, so a float sum never holds more than that many terms; counts, minima and
// maxima are exact in float.
constexpr int kFloatRun = 64;

PE_POOL_CLONES void foldMeanF32Lines(const float* line, std::size_t w, float* a, float* n, float* l,
                                     float* u) {
    foldMean(line, w, a, n, l, u);
}
/** foldMeanF32Lines onto lines that hold nothing yet: a[c], n[c] set from line[c] (no clearing
 *  pass first); l, u still fold (they span every row of the map). */
PE_POOL_CLONES void startMeanF32Lines(const float* __restrict line, std::size_t w,
                                      float* __restrict a, float* __restrict n, float* __restrict l,
                                      float* __restrict u) {
    for (std::size_t c = 0; c < w; ++c) {
        const float v = line[c];
        const bool finite = v - v == 0.0f;
        a[c] = finite ? v : 0.0f;
        n[c] = finite ? 1.0f : 0.0f;
    }
    if (l)
        foldRange(line, w, l, u);
}

/** Where bin k of proportional edges starts in the folded lines, and the column it adds after
 *  its first `narrow` ones: its last if it is one wider, else the lines' padding column, which
 *  holds zeros (binMeansNarrow). */
struct NarrowBins {
    std::vector<int> start, extra;
    int narrow = 0;
};

/**
 * dst[k] = the mean of bin k of the folded lines a (sums) and n (counts): Σ a / Σ n over its
 * columns, summed in double in column order (what summing the lines' double copies gave), −inf
 * for a bin with no finite entry. Every bin has `narrow` or `narrow` + 1 columns (proportional
 * edges): a fixed run of `narrow` columns, then b.extra's column, a zero for the narrow ones
 * (s + 0 is s: s starts at +0, so it is never −0). A trip count or a branch per bin was
 * mispredicted about once a bin. The sums go to dst first; the divisions come after, in a loop
 * the compiler vectorises. `count` is scratch.
 */
PE_POOL_CLONES void binMeansNarrow(const float* __restrict a, const float* __restrict n,
                                   const NarrowBins& b, double* __restrict count,
                                   double* __restrict dst) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const std::size_t bins = b.start.size();
    const int narrow = b.narrow;
    for (std::size_t k = 0; k < bins; ++k) {
        const float* ak = a + b.start[k];
        const float* nk = n + b.start[k];
        double s = 0.0, c = 0.0;
        for (int j = 0; j < narrow; ++j) {
            s += static_cast<double>(ak[j]);
            c += static_cast<double>(nk[j]);
        }
        dst[k] = s + static_cast<double>(a[b.extra[k]]);
        count[k] = c + static_cast<double>(n[b.extra[k]]);
    }
    for (std::size_t k = 0; k < bins; ++k)
        dst[k] = count[k] > 0 ? dst[k] / count[k] : -kInf;
}

PE_POOL_CLONES void foldMaxF32Lines(const float* line, std::size_t w, float* a, float* l,
                                    float* u) {
    foldMax(line, w, a, l, u);
}

/**
 * Pools src (row-major, `cols` per row) into rowEdge.size() − 1 × colEdge.size() − 1 cells: cell
 * (o, k) covers rows [rowEdge[o], rowEdge[o+1]) and columns [colEdge[k], colEdge[k+1]). The mean
 * skips infinite and NaN entries (masked logits; a cell with none left is −inf), the max ignores
 * NaN. Each band of rows is first folded column by column into one line (branch-free, so the
 * compiler vectorises it), then the line is reduced bin by bin.
 */
template <typename T>
Grid poolBins(const T* src, std::int64_t cols, const std::vector<int>& rowEdge,
              const std::vector<int>& colEdge, PoolMode mode, bool split = false,
              double* rangeLo = nullptr, double* rangeHi = nullptr) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    Grid out;
    out.rows = static_cast<int>(rowEdge.size()) - 1;
    out.cols = static_cast<int>(colEdge.size()) - 1;
    out.values.resize(static_cast<std::size_t>(out.rows) * out.cols);
    const int c0 = colEdge.front();
    const auto w = static_cast<std::size_t>(colEdge.back() - c0);
    const bool unitBins = w == static_cast<std::size_t>(out.cols);
    // Bin widths: proportional edges give ⌊w / cols⌋ or one more.
    int narrow = std::numeric_limits<int>::max(), broad = 0;
    for (std::size_t k = 0; k + 1 < colEdge.size(); ++k) {
        narrow = std::min(narrow, colEdge[k + 1] - colEdge[k]);
        broad = std::max(broad, colEdge[k + 1] - colEdge[k]);
    }
    NarrowBins narrowBins;
    if (broad <= narrow + 1 && !unitBins) {
        narrowBins.narrow = narrow;
        for (std::size_t k = 0; k + 1 < colEdge.size(); ++k) {
            narrowBins.start.push_back(colEdge[k] - c0);
            narrowBins.extra.push_back(colEdge[k + 1] - colEdge[k] > narrow
                                           ? colEdge[k] - c0 + narrow
                                           : static_cast<int>(w)); // the padding column
        }
    }
    // Output rows [o0, o1), with their own line buffers; returns the finite entries' range.
    auto band = [&](int o0, int o1) {
        std::vector<double> acc(w), cnt(mode == PoolMode::Mean ? w : 0);
        std::vector<double> lo(rangeLo ? w : 0, kInf), hi(rangeLo ? w : 0, -kInf);
        constexpr bool kFloat = std::is_same_v<T, float>;
        constexpr float kInfF = std::numeric_limits<float>::infinity();
        std::vector<double> binCount(narrowBins.start.size());
        // One padding column, never written: the zero binMeansNarrow adds to narrow bins.
        std::vector<float> accF(kFloat ? w + 1 : 0),
            cntF(kFloat && mode == PoolMode::Mean ? w + 1 : 0);
        std::vector<float> loF(kFloat && rangeLo ? w : 0, kInfF),
            hiF(kFloat && rangeLo ? w : 0, -kInfF);
        for (int o = o0; o < o1; ++o) {
            const int ra = rowEdge[static_cast<std::size_t>(o)];
            const int rb = rowEdge[static_cast<std::size_t>(o) + 1];
            double* a = acc.data();
            // The colour range in the same pass, when asked for.
            double* l = rangeLo ? lo.data() : nullptr;
            double* u = rangeLo ? hi.data() : nullptr;
            if constexpr (kFloat) {
                float* lf = rangeLo ? loF.data() : nullptr;
                float* uf = rangeLo ? hiF.data() : nullptr;
                double* dst = out.values.data() + static_cast<std::size_t>(o) * out.cols;
                if (mode == PoolMode::Mean && rb - ra <= kFloatRun && rb > ra &&
                    (unitBins || !narrowBins.start.empty())) {
                    // The band in one float run: fold, then mean the bins from the float lines.
                    startMeanF32Lines(src + static_cast<std::int64_t>(ra) * cols + c0, w,
                                      accF.data(), cntF.data(), lf, uf);
                    for (int r = ra + 1; r < rb; ++r)
                        foldMeanF32Lines(src + static_cast<std::int64_t>(r) * cols + c0, w,
                                         accF.data(), cntF.data(), lf, uf);
                    if (unitBins)
                        for (std::size_t k = 0; k < w; ++k)
                            dst[k] = cntF[k] > 0 ? static_cast<double>(accF[k]) /
                                                       static_cast<double>(cntF[k])
                                                 : -kInf;
                    else
                        binMeansNarrow(accF.data(), cntF.data(), narrowBins, binCount.data(), dst);
                    continue;
                }
                if (mode == PoolMode::Max) {
                    std::fill(accF.begin(), accF.begin() + static_cast<std::ptrdiff_t>(w), -kInfF);
                    for (int r = ra; r < rb; ++r)
                        foldMaxF32Lines(src + static_cast<std::int64_t>(r) * cols + c0, w,
                                        accF.data(), lf, uf);
                    for (std::size_t c = 0; c < w; ++c)
                        a[c] = static_cast<double>(accF[c]);
                } else {
                    std::fill(acc.begin(), acc.end(), 0.0);
                    std::fill(cnt.begin(), cnt.end(), 0.0);
                    for (int r0 = ra; r0 < rb; r0 += kFloatRun) {
                        std::fill(accF.begin(), accF.begin() + static_cast<std::ptrdiff_t>(w),
                                  0.0f);
                        std::fill(cntF.begin(), cntF.end(), 0.0f);
                        for (int r = r0; r < std::min(rb, r0 + kFloatRun); ++r)
                            foldMeanF32Lines(src + static_cast<std::int64_t>(r) * cols + c0, w,
                                             accF.data(), cntF.data(), lf, uf);
                        for (std::size_t c = 0; c < w; ++c) {
                            a[c] += static_cast<double>(accF[c]);
                            cnt[c] += static_cast<double>(cntF[c]);
                        }
                    }
                }
            } else if (mode == PoolMode::Max) {
                std::fill(acc.begin(), acc.end(), -kInf);
                for (int r = ra; r < rb; ++r)
                    foldMaxAny(src + static_cast<std::int64_t>(r) * cols + c0, w, a, l, u);
            } else {
                std::fill(acc.begin(), acc.end(), 0.0);
                std::fill(cnt.begin(), cnt.end(), 0.0);
                for (int r = ra; r < rb; ++r)
                    foldMeanAny(src + static_cast<std::int64_t>(r) * cols + c0, w, a, cnt.data(), l,
                                u);
            }
            double* dst = out.values.data() + static_cast<std::size_t>(o) * out.cols;
            if (unitBins && mode == PoolMode::Mean) { // one column per bin: no reduction
                const double* n = cnt.data();
                for (std::size_t k = 0; k < w; ++k)
                    dst[k] = n[k] > 0 ? a[k] / n[k] : -kInf;
                continue;
            }
            for (int k = 0; k < out.cols; ++k) {
                const auto ca = static_cast<std::size_t>(colEdge[static_cast<std::size_t>(k)] - c0);
                const auto cb =
                    static_cast<std::size_t>(colEdge[static_cast<std::size_t>(k) + 1] - c0);
                if (mode == PoolMode::Max) {
                    double m = -kInf;
                    for (std::size_t c = ca; c < cb; ++c)
                        m = std::max(m, acc[c]);
                    dst[k] = m;
                } else {
                    double sum = 0.0, count = 0.0;
                    for (std::size_t c = ca; c < cb; ++c) {
                        sum += acc[c];
                        count += cnt[c];
                    }
                    dst[k] = count > 0 ? sum / count : -kInf;
                }
            }
        }
        std::pair<double, double> range{kInf, -kInf};
        for (std::size_t c = 0; c < lo.size(); ++c) {
            range.first = std::min(range.first, lo[c]);
            range.second = std::max(range.second, hi[c]);
        }
        for (std::size_t c = 0; c < loF.size(); ++c) {
            range.first = std::min(range.first, static_cast<double>(loF[c]));
            range.second = std::max(range.second, static_cast<double>(hiF[c]));
        }
        return range;
    };
    const std::int64_t elements =
        static_cast<std::int64_t>(rowEdge.back() - rowEdge.front()) * static_cast<std::int64_t>(w);
    if (split && out.rows >= 2 && elements >= kSplitElements) {
        // A large slice (the window reads it once the computation is done): two halves at once.
        // On Qt's pool: no thread is started per map.
        QFuture<std::pair<double, double>> other =
            QtConcurrent::run([&band, &out] { return band(out.rows / 2, out.rows); });
        const auto a = band(0, out.rows / 2);
        const auto b = other.result();
        if (rangeLo) {
            *rangeLo = std::min(a.first, b.first);
            *rangeHi = std::max(a.second, b.second);
        }
    } else {
        const auto a = band(0, out.rows);
        if (rangeLo) {
            *rangeLo = a.first;
            *rangeHi = a.second;
        }
    }
    return out;
}

/** Edges of `bins` bins over [lo, lo + length): position p goes to bin ⌊(p − lo)·bins / length⌋,
 *  so bin k starts at lo + ⌈k·length / bins⌉. */
std::vector<int> proportionalEdges(int lo, int length, int bins) {
    std::vector<int> edge(static_cast<std::size_t>(bins) + 1);
    for (int k = 0; k <= bins; ++k)
        edge[static_cast<std::size_t>(k)] =
            lo + static_cast<int>((static_cast<std::int64_t>(k) * length + bins - 1) / bins);
    return edge;
}

/** pool() on any element type: `src` is a rows × cols row-major matrix. */
template <typename T>
Grid poolElements(const T* src, int rows, int cols, int r0, int r1, int c0, int c1, int outRows,
                  int outCols, PoolMode mode, bool split = false, double* lo = nullptr,
                  double* hi = nullptr) {
    r0 = std::clamp(r0, 0, rows);
    r1 = std::clamp(r1, r0, rows);
    c0 = std::clamp(c0, 0, cols);
    c1 = std::clamp(c1, c0, cols);
    const int h = r1 - r0;
    const int w = c1 - c0;
    if (h == 0 || w == 0)
        return {};
    return poolBins(src, cols, proportionalEdges(r0, h, std::clamp(outRows, 1, h)),
                    proportionalEdges(c0, w, std::clamp(outCols, 1, w)), mode, split, lo, hi);
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
               PoolMode mode, double* lo, double* hi, bool* any, bool split) {
    Grid out;
    double a = std::numeric_limits<double>::infinity(), b = -a;
    withSlice(t, head, [&](const auto* src, int rows, int cols) {
        out = poolElements(src, rows, cols, r0, r1, c0, c1, outRows, outCols, mode, split,
                           lo ? &a : nullptr, lo ? &b : nullptr);
    });
    if (lo) {
        *any = a <= b;
        if (*any) {
            *lo = a;
            *hi = b;
        }
    }
    return out;
}

bool sliceRange(const Tensor& t, int head, double* lo, double* hi) {
    bool any = false;
    withSlice(t, head, [&](const auto* src, int rows, int cols) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
        struct Range {
            T lo = std::numeric_limits<T>::max();
            T hi = std::numeric_limits<T>::lowest();
            bool any = false;
        };
        auto scan = [src](std::int64_t k0, std::int64_t k1) {
            Range r;
            for (std::int64_t k = k0; k < k1; ++k) {
                const T v = src[k];
                // Infinite (masked) and NaN entries take no part: v − v is 0 only for finite v.
                const bool finite = v - v == T(0);
                r.lo = finite && v < r.lo ? v : r.lo;
                r.hi = finite && v > r.hi ? v : r.hi;
                r.any |= finite;
            }
            return r;
        };
        const std::int64_t count = static_cast<std::int64_t>(rows) * cols;
        Range r;
        if (count >= kSplitElements) { // two halves at once, as poolBins does
            QFuture<Range> other =
                QtConcurrent::run([&scan, count] { return scan(count / 2, count); });
            r = scan(0, count / 2);
            const Range b = other.result();
            r = {std::min(r.lo, b.lo), std::max(r.hi, b.hi), r.any || b.any};
        } else {
            r = scan(0, count);
        }
        any = r.any;
        if (any) {
            *lo = static_cast<double>(r.lo);
            *hi = static_cast<double>(r.hi);
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

Tensor sliceDifference(const Tensor& a, int headA, const Tensor& b, int headB) {
    Tensor d;
    sliceDifference(a, headA, b, headB, d);
    return d;
}

void sliceDifference(const Tensor& a, int headA, const Tensor& b, int headB, Tensor& out) {
    bool made = false;
    withSlice(a, headA, [&](const auto* x, int rows, int cols) {
        withSlice(b, headB, [&](const auto* y, int rowsB, int colsB) {
            if (rows != rowsB || cols != colsB)
                return;
            const std::vector<std::int64_t> shape{1, rows, cols};
            if (out.dtype() != DType::F64 || out.shape() != shape)
                out = Tensor(DType::F64, shape);
            double* d = out.data<double>();
            auto part = [x, y, d](std::int64_t k0, std::int64_t k1) {
                for (std::int64_t k = k0; k < k1; ++k)
                    d[k] = static_cast<double>(x[k]) - static_cast<double>(y[k]);
            };
            const std::int64_t count = static_cast<std::int64_t>(rows) * cols;
            if (count >= kSplitElements) { // two halves at once, as poolBins does
                QFuture<void> other = QtConcurrent::run([&part, count] { part(count / 2, count); });
                part(0, count / 2);
                other.waitForFinished();
            } else {
                part(0, count);
            }
            made = true;
        });
    });
    if (!made)
        out = Tensor();
}

} // namespace pe

namespace pe {
Grid sliceHeadBinned(const Tensor& t, int head, int maxRows, int maxCols, int* binRows,
                     int* binCols) {
    *binRows = 1;
    *binCols = 1;
    if (t.rank() < 2)
        return sliceHead(t, head);
    // Bins of br × bc positions (the last ones may be short), mean-pooled from the tensor.
    auto fixedEdges = [](int length, int bin) {
        std::vector<int> edge(static_cast<std::size_t>((length + bin - 1) / bin) + 1);
        for (std::size_t k = 0; k < edge.size(); ++k)
            edge[k] = std::min(length, static_cast<int>(k) * bin);
        return edge;
    };
    Grid g;
    withSlice(t, head, [&](const auto* src, int rows, int cols) {
        const int br = std::max(1, (rows + maxRows - 1) / std::max(maxRows, 1));
        const int bc = std::max(1, (cols + maxCols - 1) / std::max(maxCols, 1));
        *binRows = br;
        *binCols = bc;
        if (br > 1 || bc > 1)
            g = poolBins(src, cols, fixedEdges(rows, br), fixedEdges(cols, bc), PoolMode::Mean);
    });
    return g.empty() ? sliceHead(t, head) : g;
}
} // namespace pe
