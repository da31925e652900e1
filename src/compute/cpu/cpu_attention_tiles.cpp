// SPDX-License-Identifier: MIT
#include "cpu_attention_tiles.h"

#include "cpu_gemm.h"
#include "tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_attention_tiles.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "exp_non_positive-inl.h"

HWY_BEFORE_NAMESPACE();
namespace pe {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Normaliser values, as in pe::Normaliser (numeric so that this file needs no core header).
constexpr int kSoftmax = 0;
constexpr int kExp = 1;
constexpr int kL2 = 2;
constexpr int kGroup = 8; // query rows per group: a tile row of S and P each
// Register blocks of the two products: kBlockRows rows × kVecs vectors of accumulators. With 32
// vector registers (AVX-512) 8 × 2 = 16; with 16 (AVX2), 4 × 3 = 12, two blocks per group. Each
// step of a block loads kVecs vectors and broadcasts kBlockRows scalars for kBlockRows · kVecs
// multiply-adds: AVX2's former 8 × 1 made that 9 loads per 8 multiply-adds, and its two loads a
// cycle, not the two FMA units, set the pace (89 % of the peak at best); 4 × 2 needs 6 per 8,
// but its 8 accumulators only just cover the two FMA units' latency (4 cycles each), and the
// tile pass ran its products at about 70 % of OpenBLAS's single-thread peak on a Zen 3 core.
// 4 × 3 needs 7 loads per 12 multiply-adds and its 12 accumulators, 3 vectors and the broadcast
// fill the 16 registers. The value chunks (packValueChunks) are kVecs vectors wide.
#if HWY_TARGET <= HWY_AVX3
constexpr int kBlockRows = 8;
constexpr int kVecs = 2;
#else
constexpr int kBlockRows = 4;
constexpr int kVecs = 3;
#endif
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Software prefetches of the two products (DotPanels, AccumulateChunk): a cache line's floats,
// and how far ahead the value product reads. Both together took the tile pass (pe-bench-tiles
// --bias, one thread, an Intel Xeon with AVX-512) from 19.2–21.0 to 17.7–18.8 ms (minima of 15,
// four runs each, alternated with the build without them). Prefetching never faults, so the
// addresses past the last panel or key need no test.
// AVX-512 only, where it was measured: below it a panel is 2 KB (8 lanes), two to a page, and
// the AVX2 kernels' figures (4 × 3 blocks, on AMD's Zen 3) were taken without prefetches.
#if HWY_TARGET <= HWY_AVX3
constexpr bool kPrefetch = true;
#else
constexpr bool kPrefetch = false;
#endif
constexpr int kLineFloats = 16;
constexpr int kPrefetchKeys = 8;

/** std::fmax's result (a NaN loses to a number), inline: GCC calls libm's fmaxf for it. */
HWY_INLINE float Fmax(float a, float b) {
    return a > b || b != b ? a : b;
}

int LanesImpl() {
    const hn::ScalableTag<float> d;
    return static_cast<int>(hn::Lanes(d));
}

void PackPanelsImpl(const float* src, int rows, std::int64_t stride, int dh, float* out) {
    const int L = LanesImpl();
    const int panels = (rows + L - 1) / L;
    for (int p = 0; p < panels; ++p) {
        float* panel = out + static_cast<std::int64_t>(p) * dh * L;
        for (int l = 0; l < L; ++l) {
            const int r = p * L + l;
            if (r < rows) {
                const float* row = src + static_cast<std::int64_t>(r) * stride;
                for (int c = 0; c < dh; ++c)
                    panel[static_cast<std::int64_t>(c) * L + l] = row[c];
            } else {
                for (int c = 0; c < dh; ++c)
                    panel[static_cast<std::int64_t>(c) * L + l] = 0.0f;
            }
        }
    }
}

void PackValueChunksImpl(const float* src, int rows, std::int64_t stride, int dh, float* out) {
    const int L = LanesImpl(), W = kVecs * L;
    const int dhPad = (dh + L - 1) / L * L;
    for (int c0 = 0; c0 < dhPad; c0 += W) {
        const int cw = std::min(W, dhPad - c0);              // this chunk's width
        const int copy = std::max(0, std::min(cw, dh - c0)); // of which columns of src
        float* chunk = out + static_cast<std::int64_t>(c0) * rows;
        for (int r = 0; r < rows; ++r) {
            float* dst = chunk + static_cast<std::int64_t>(r) * cw;
            std::memcpy(dst, src + static_cast<std::int64_t>(r) * stride + c0,
                        sizeof(float) * static_cast<std::size_t>(copy));
            std::fill(dst + copy, dst + cw, 0.0f);
        }
    }
}

/** s[r][p·L …] = q_r · panel p for R rows and `panels` panels (row stride of s: sStride). */
template <int R>
HWY_INLINE void DotPanels(const float* q, int dh, const float* panels, int count, float* s,
                          int sStride) {
    const hn::ScalableTag<float> d;
    const int L = static_cast<int>(hn::Lanes(d));
    const std::int64_t panelSize = static_cast<std::int64_t>(dh) * L;
    int p = 0;
    for (; p + kVecs <= count; p += kVecs) {
        const float* k0 = panels + p * panelSize;
        decltype(hn::Zero(d)) acc[R][kVecs];
        for (int r = 0; r < R; ++r)
            for (int v = 0; v < kVecs; ++v)
                acc[r][v] = hn::Zero(d);
        for (int c = 0; c < dh; ++c) {
            decltype(hn::Zero(d)) b[kVecs];
            for (int v = 0; v < kVecs; ++v)
                b[v] = hn::LoadU(d, k0 + v * panelSize + static_cast<std::int64_t>(c) * L);
            // The next group of panels, line by line, one group ahead: each panel is a page
            // of its own (dh = 64, AVX-512), where the hardware's prefetchers start over.
            if (kPrefetch && (c * L) % kLineFloats == 0)
                for (int v = 0; v < kVecs; ++v)
                    hwy::Prefetch(k0 + (kVecs + v) * panelSize + static_cast<std::int64_t>(c) * L);
            for (int r = 0; r < R; ++r) {
                const auto a = hn::Set(d, q[r * dh + c]);
                for (int v = 0; v < kVecs; ++v)
                    acc[r][v] = hn::MulAdd(a, b[v], acc[r][v]);
            }
        }
        for (int r = 0; r < R; ++r)
            for (int v = 0; v < kVecs; ++v)
                hn::StoreU(acc[r][v], d, s + r * sStride + (p + v) * L);
    }
    for (; p < count; ++p) {
        const float* k0 = panels + p * panelSize;
        decltype(hn::Zero(d)) acc[R];
        for (int r = 0; r < R; ++r)
            acc[r] = hn::Zero(d);
        for (int c = 0; c < dh; ++c) {
            const auto b = hn::LoadU(d, k0 + static_cast<std::int64_t>(c) * L);
            for (int r = 0; r < R; ++r)
                acc[r] = hn::MulAdd(hn::Set(d, q[r * dh + c]), b, acc[r]);
        }
        for (int r = 0; r < R; ++r)
            hn::StoreU(acc[r], d, s + r * sStride + p * L);
    }
}

/** Calls F<R>(r0) for blocks of R ≤ kBlockRows rows covering [0, rows). */
template <template <int> class F, class... Args> HWY_INLINE void ByBlocks(int rows, Args... args) {
    for (int r0 = 0; r0 < rows; r0 += kBlockRows) {
        switch (std::min(kBlockRows, rows - r0)) {
#if HWY_TARGET <= HWY_AVX3
        case 8:
            F<8>::run(r0, args...);
            break;
        case 7:
            F<7>::run(r0, args...);
            break;
        case 6:
            F<6>::run(r0, args...);
            break;
        case 5:
            F<5>::run(r0, args...);
            break;
#endif
        case 4:
            F<4>::run(r0, args...);
            break;
        case 3:
            F<3>::run(r0, args...);
            break;
        case 2:
            F<2>::run(r0, args...);
            break;
        default:
            F<1>::run(r0, args...);
        }
    }
}

template <int R> struct DotPanelsBlock {
    static void run(int r0, const float* q, int dh, const float* panels, int count, float* s,
                    int sStride) {
        DotPanels<R>(q + static_cast<std::int64_t>(r0) * dh, dh, panels, count,
                     s + static_cast<std::int64_t>(r0) * sStride, sStride);
    }
};

void DotPanelsRows(int rows, const float* q, int dh, const float* panels, int count, float* s,
                   int sStride) {
    ByBlocks<DotPanelsBlock>(rows, q, dh, panels, count, s, sStride);
}

/**
 * o[r][0, V·L) = alpha[r]·o[r][…] + Σ_j p[r][j]·v_j[0, V·L) for R rows, j in [0, width): one
 * column chunk (V ≤ kVecs vectors) of the tile's share of the head output, key j's values at
 * v + j·keyStride.
 */
template <int R, int V>
HWY_INLINE void AccumulateChunk(const float* p, int pStride, int width, const float* v,
                                std::int64_t keyStride, float* o, int oStride, const float* alpha) {
    const hn::ScalableTag<float> d;
    const int L = static_cast<int>(hn::Lanes(d));
    decltype(hn::Zero(d)) acc[R][V];
    for (int r = 0; r < R; ++r) {
        const auto a = hn::Set(d, alpha ? alpha[r] : 0.0f); // no alpha: o is not read
        for (int k = 0; k < V; ++k)
            acc[r][k] = alpha ? hn::Mul(a, hn::LoadU(d, o + r * oStride + k * L)) : hn::Zero(d);
    }
    for (int j = 0; j < width; ++j) {
        const float* vj = v + static_cast<std::int64_t>(j) * keyStride;
        // The values kPrefetchKeys keys ahead (a tile's chunk crosses a page every few dozen
        // keys, and the prefetchers stop at pages).
        if constexpr (kPrefetch)
            for (int k = 0; k < V * L; k += kLineFloats)
                hwy::Prefetch(vj + kPrefetchKeys * keyStride + k);
        decltype(hn::Zero(d)) b[V];
        for (int k = 0; k < V; ++k)
            b[k] = hn::LoadU(d, vj + k * L);
        for (int r = 0; r < R; ++r) {
            const auto a = hn::Set(d, p[r * pStride + j]);
            for (int k = 0; k < V; ++k)
                acc[r][k] = hn::MulAdd(a, b[k], acc[r][k]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int k = 0; k < V; ++k)
            hn::StoreU(acc[r][k], d, o + r * oStride + k * L);
}

template <int R> struct AccumulateChunkBlock {
    static void run(int r0, const float* p, int pStride, int width, const float* v,
                    std::int64_t keyStride, int vecs, float* o, int oStride, const float* alpha) {
        p += static_cast<std::int64_t>(r0) * pStride;
        o += static_cast<std::int64_t>(r0) * oStride;
        alpha = alpha ? alpha + r0 : nullptr;
        if constexpr (kVecs >= 3)
            if (vecs >= 3) {
                AccumulateChunk<R, kVecs>(p, pStride, width, v, keyStride, o, oStride, alpha);
                return;
            }
        if (vecs == 2)
            AccumulateChunk<R, 2>(p, pStride, width, v, keyStride, o, oStride, alpha);
        else
            AccumulateChunk<R, 1>(p, pStride, width, v, keyStride, o, oStride, alpha);
    }
};

/**
 * o[r] = alpha[r]·o[r] + Σ_j p[r][j]·v_j for the block's rows and keys j0 + [0, width): the
 * tile's share of the head output, o rows of dhPad floats (a multiple of the lanes), from the
 * values packed by packValueChunks for `packedKeys` keys. Chunks outer, row blocks inner: the
 * tile's part of a chunk, contiguous, stays in L1 for every block. Without alpha, o is
 * overwritten (not read).
 */
void AccumulateValuesRows(int rows, const float* p, int pStride, int width, const float* chunks,
                          int packedKeys, int j0, int dhPad, float* o, int oStride,
                          const float* alpha) {
    const hn::ScalableTag<float> d;
    const int L = static_cast<int>(hn::Lanes(d));
    for (int c = 0; c < dhPad; c += kVecs * L) {
        const int cw = std::min(kVecs * L, dhPad - c); // the last chunk may be narrower
        const float* v =
            chunks + static_cast<std::int64_t>(c) * packedKeys + static_cast<std::int64_t>(j0) * cw;
        ByBlocks<AccumulateChunkBlock>(rows, p, pStride, width, v, static_cast<std::int64_t>(cw),
                                       cw / L, o + c, oStride, alpha);
    }
}

/** Sum (or maximum) of a[0, count). */
HWY_INLINE float Reduce(const float* a, int count, bool max) {
    // The last vector may reach past `count`: those lanes are replaced by the identity (the
    // callers' rows are scratch with at least a vector of slack after them).
    const hn::ScalableTag<float> d;
    const int L = static_cast<int>(hn::Lanes(d));
    const auto identity = hn::Set(d, max ? kNegInf : 0.0f);
    auto acc = identity;
    int j = 0;
    for (; j + L <= count; j += L)
        acc = max ? hn::Max(acc, hn::LoadU(d, a + j)) : hn::Add(acc, hn::LoadU(d, a + j));
    if (j < count) {
        const auto x = hn::IfThenElse(hn::FirstN(d, static_cast<std::size_t>(count - j)),
                                      hn::LoadU(d, a + j), identity);
        acc = max ? hn::Max(acc, x) : hn::Add(acc, x);
    }
    return hn::GetLane(max ? hn::MaxOfLanes(d, acc) : hn::SumOfLanes(d, acc));
}

#if HWY_TARGET != HWY_SCALAR
/** One level of the transpose tree and those below it: N vectors in, part[0] out. */
template <int N, bool MAX, class D, class V> HWY_INLINE void TreeLevels(D d, V* part) {
    if constexpr (N > 1) {
#pragma GCC unroll 16
        for (int k = 0; k < N / 2; ++k) {
            const V even = hn::ConcatEven(d, part[2 * k + 1], part[2 * k]);
            const V odd = hn::ConcatOdd(d, part[2 * k + 1], part[2 * k]);
            part[k] = MAX ? hn::Max(even, odd) : hn::Add(even, odd);
        }
        TreeLevels<N / 2, MAX>(d, part);
    }
}
#endif

/**
 * Sums (or maxima) of `cells` consecutive cells of `width` floats each from x into out, for a
 * width that is a multiple of the lanes or a power of two below them. A transpose tree totals a
 * vector of cells at a time (lane k of its result is cell k's total) for a few operations per
 * cell: cells a vector or more wide are first folded into one vector each; narrower cells share
 * vectors, and the tree's first levels fold them. Remaining cells are reduced one by one.
 */
template <bool MAX> HWY_INLINE void CellTotalsOf(const float* x, int cells, int width, float* out) {
    int v = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<float> d;
    constexpr int kL = static_cast<int>(hn::MaxLanes(d));
    const int L = static_cast<int>(hn::Lanes(d));
    using V = decltype(hn::Zero(d));
    auto op = [](V a, V b) { return MAX ? hn::Max(a, b) : hn::Add(a, b); };
    if (L == kL && width % kL == 0) {
        // Cells of whole vectors: a tree of kL inputs, unrolled so that it stays in registers.
        for (; v + kL <= cells; v += kL) {
            const float* c = x + static_cast<std::size_t>(v) * width;
            V part[kL];
#pragma GCC unroll 16
            for (int k = 0; k < kL; ++k) {
                const float* cell = c + static_cast<std::size_t>(k) * width;
                part[k] = hn::LoadU(d, cell);
                for (int j = kL; j < width; j += kL)
                    part[k] = op(part[k], hn::LoadU(d, cell + j));
            }
            TreeLevels<kL, MAX>(d, part);
            hn::StoreU(part[0], d, out + v);
        }
    } else if (L > 1 && L % width == 0) {
        V part[HWY_MAX_BYTES / sizeof(float)];
        for (; v + L <= cells; v += L) {
            const float* c = x + static_cast<std::size_t>(v) * width;
            for (int k = 0; k < width; ++k)
                part[k] = hn::LoadU(d, c + static_cast<std::size_t>(k) * L);
            for (int count = width; count > 1; count /= 2)
                for (int k = 0; k < count / 2; ++k)
                    part[k] = op(hn::ConcatEven(d, part[2 * k + 1], part[2 * k]),
                                 hn::ConcatOdd(d, part[2 * k + 1], part[2 * k]));
            hn::StoreU(part[0], d, out + v);
        }
    }
#endif
    for (; v < cells; ++v)
        out[v] = Reduce(x + static_cast<std::size_t>(v) * width, width, MAX);
}

HWY_INLINE void CellTotals(const float* x, int cells, int width, bool max, float* out) {
    if (max)
        CellTotalsOf<true>(x, cells, width, out);
    else
        CellTotalsOf<false>(x, cells, width, out);
}

/**
 * Sums (or maxima) of `cells` consecutive cells of any widths: cell k covers x[bounds[k] +
 * offset, bounds[k + 1] + offset). Each cell is folded into one vector (its last one masked),
 * and the transpose tree totals a vector of cells at a time. x needs a vector of slack after
 * the last cell.
 */
HWY_INLINE void CellTotalsVar(const float* x, const int* bounds, int offset, int cells, bool max,
                              float* out) {
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<float> d;
    const int L = static_cast<int>(hn::Lanes(d));
    using V = decltype(hn::Zero(d));
    auto op = [max](V a, V b) { return max ? hn::Max(a, b) : hn::Add(a, b); };
    const V identity = hn::Set(d, max ? kNegInf : 0.0f);
    V part[HWY_MAX_BYTES / sizeof(float)];
    float totals[HWY_MAX_BYTES / sizeof(float)];
    for (int v = 0; v < cells; v += L) {
        const int m = std::min(L, cells - v);
        for (int k = 0; k < L; ++k) {
            V acc = identity;
            if (k < m) {
                const float* c = x + bounds[v + k] + offset;
                const int len = bounds[v + k + 1] - bounds[v + k];
                int j = 0;
                for (; j + L <= len; j += L)
                    acc = op(acc, hn::LoadU(d, c + j));
                if (j < len)
                    acc = op(acc, hn::IfThenElse(hn::FirstN(d, static_cast<std::size_t>(len - j)),
                                                 hn::LoadU(d, c + j), identity));
            }
            part[k] = acc;
        }
        for (int count = L; count > 1; count /= 2)
            for (int k = 0; k < count / 2; ++k)
                part[k] = op(hn::ConcatEven(d, part[2 * k + 1], part[2 * k]),
                             hn::ConcatOdd(d, part[2 * k + 1], part[2 * k]));
        hn::StoreU(part[0], d, totals);
        std::copy(totals, totals + m, out + v);
    }
#else
    for (int v = 0; v < cells; ++v)
        out[v] = Reduce(x + bounds[v] + offset, bounds[v + 1] - bounds[v], max);
#endif
}

/**
 * The tile row's unnormalised weights into p[0, vis): softmax exp(l − m), L2 the same (the sum
 * of squares returned), exp exp(l), relu² (NORM −1) max(l, 0)²·inv; times post where given.
 * Returns the sum the online normalisers need (softmax: Σ, L2: Σ of squares; others 0).
 */
template <int NORM, bool POST>
HWY_INLINE float Weigh(const float* l, const float* post, float* p, int vis, float m, float inv) {
    const hn::ScalableTag<float> d;
    const int L = static_cast<int>(hn::Lanes(d));
    const auto vm = hn::Set(d, m);
    const auto vInv = hn::Set(d, inv);
    auto vsum = hn::Zero(d);
    auto weigh = [&](auto x) {
        if constexpr (NORM == kSoftmax || NORM == kL2)
            return ExpNonPositive(d, hn::Sub(x, vm));
        else if constexpr (NORM == kExp)
            return hn::Exp(d, x);
        else {
            const auto r = hn::Max(x, hn::Zero(d));
            return hn::Mul(hn::Mul(r, r), vInv);
        }
    };
    int j = 0;
    for (; j + L <= vis; j += L) {
        auto e = weigh(hn::LoadU(d, l + j));
        if constexpr (NORM == kSoftmax)
            vsum = hn::Add(vsum, e);
        else if constexpr (NORM == kL2)
            vsum = hn::MulAdd(e, e, vsum);
        if constexpr (POST)
            e = hn::Mul(e, hn::LoadU(d, post + j));
        hn::StoreU(e, d, p + j);
    }
    if (j < vis) { // the tail, in a vector with the lanes past vis zeroed
        const auto mask = hn::FirstN(d, static_cast<std::size_t>(vis - j));
        float tail[HWY_MAX_BYTES / sizeof(float)] = {};
        std::memcpy(tail, l + j, sizeof(float) * static_cast<std::size_t>(vis - j));
        auto e = hn::IfThenElseZero(mask, weigh(hn::LoadU(d, tail)));
        if constexpr (NORM == kSoftmax)
            vsum = hn::Add(vsum, e);
        else if constexpr (NORM == kL2)
            vsum = hn::MulAdd(e, e, vsum);
        if constexpr (POST) {
            std::memcpy(tail, post + j, sizeof(float) * static_cast<std::size_t>(vis - j));
            e = hn::Mul(e, hn::LoadU(d, tail));
        }
        hn::StoreU(e, d, tail);
        std::memcpy(p + j, tail, sizeof(float) * static_cast<std::size_t>(vis - j));
    }
    return NORM == kSoftmax || NORM == kL2 ? hn::GetLane(hn::SumOfLanes(d, vsum)) : 0.0f;
}

/** DeBERTa's c2p + p2c terms of query row i for keys [j0, j1), gathered, into dst. */
void DebertaGather(const TileAttention& t, int i, int j0, int j1, float* dst) {
    const hn::ScalableTag<float> d;
    const hn::RebindToSigned<decltype(d)> di;
    const int L = static_cast<int>(hn::Lanes(d));
    const int n = t.n;
    const std::int64_t stride = t.debertaStride;
    const std::int32_t* back = t.debertaIndex + (i + n - 1); // back[-j]: δ(i − j)
    const std::int32_t* fwd = t.debertaIndex + (n - 1 - i);  // fwd[j]: δ(j − i)
    const float* c2p =
        t.debertaC2P ? t.debertaC2P + static_cast<std::int64_t>(i) * stride : nullptr;
    const float* p2c = t.debertaP2C;
    int j = j0;
    // Vector gathers where the index loads stay inside the 2n − 1 table (j + L − 1 ≤ i + n − 1)
    // and the key rows' offsets fit in 32 bits.
    const bool narrow = static_cast<std::int64_t>(n) * stride < (std::int64_t{1} << 31);
    if (narrow) {
        const auto rowStep = hn::Set(di, static_cast<std::int32_t>(stride * L));
        auto rowOffset = hn::Mul(hn::Iota(di, j0), hn::Set(di, static_cast<std::int32_t>(stride)));
        for (; j + L <= j1 && j + L - 1 <= i + n - 1; j += L) {
            const auto idxBack = hn::Reverse(di, hn::LoadU(di, back - (j + L - 1)));
            auto sum = hn::Zero(d);
            if (c2p)
                sum = hn::GatherIndex(d, c2p, idxBack);
            if (p2c) {
                const auto idx = t.debertaPaper ? hn::LoadU(di, fwd + j) : idxBack;
                sum = hn::Add(sum, hn::GatherIndex(d, p2c, hn::Add(rowOffset, idx)));
            }
            hn::StoreU(sum, d, dst + (j - j0));
            rowOffset = hn::Add(rowOffset, rowStep);
        }
    }
    for (; j < j1; ++j) {
        float sum = c2p ? c2p[back[-j]] : 0.0f;
        if (p2c)
            sum +=
                p2c[static_cast<std::int64_t>(j) * stride + (t.debertaPaper ? fwd[j] : back[-j])];
        dst[j - j0] = sum;
    }
}

/** dst[j − j0] = c + column[j] (c alone without a column) for keys [j0, j1). */
void DebertaConstant(float c, const float* column, int j0, int j1, float* dst) {
    const hn::ScalableTag<float> d;
    const int L = static_cast<int>(hn::Lanes(d));
    const auto vc = hn::Set(d, c);
    int j = j0;
    for (; j + L <= j1; j += L)
        hn::StoreU(column ? hn::Add(vc, hn::LoadU(d, column + j)) : vc, d, dst + (j - j0));
    for (; j < j1; ++j)
        dst[j - j0] = column ? c + column[j] : c;
}

/**
 * DeBERTa's c2p + p2c terms of query row i for keys [j0, j1) into dst (see TileAttention):
 * gathered near the diagonal, a constant plus a p2c column where the indices saturate. Both
 * give the same sums, term for term.
 */
void DebertaRow(const TileAttention& t, int i, int j0, int j1, float* dst) {
    if (!t.debertaSaturates) {
        DebertaGather(t, i, j0, j1, dst);
        return;
    }
    const int n = t.n;
    const bool c2p = t.debertaC2P != nullptr, p2c = t.debertaP2C != nullptr;
    // Keys below lowEnd: δ(i − j) is the high end (and the paper's δ(j − i) the low end); keys
    // from highBegin: the other way round.
    int lowEnd = std::numeric_limits<int>::max(), highBegin = std::numeric_limits<int>::min();
    if (c2p || (p2c && !t.debertaPaper)) {
        lowEnd = i - t.debertaHighRel + 1;
        highBegin = i - t.debertaLowRel;
    }
    if (p2c && t.debertaPaper) {
        lowEnd = std::min(lowEnd, i + t.debertaLowRel + 1);
        highBegin = std::max(highBegin, i + t.debertaHighRel);
    }
    lowEnd = std::clamp(lowEnd, j0, j1);
    highBegin = std::clamp(highBegin, lowEnd, j1);
    const float* c2pRow =
        c2p ? t.debertaC2P + static_cast<std::int64_t>(i) * t.debertaStride : nullptr;
    const int lowIndex = t.debertaIndex[0], highIndex = t.debertaIndex[2 * n - 2];
    if (lowEnd > j0)
        DebertaConstant(c2p ? c2pRow[highIndex] : 0.0f,
                        p2c ? (t.debertaPaper ? t.debertaP2CLow : t.debertaP2CHigh) : nullptr, j0,
                        lowEnd, dst);
    if (highBegin > lowEnd)
        DebertaGather(t, i, lowEnd, highBegin, dst + (lowEnd - j0));
    if (j1 > highBegin)
        DebertaConstant(c2p ? c2pRow[lowIndex] : 0.0f,
                        p2c ? (t.debertaPaper ? t.debertaP2CHigh : t.debertaP2CLow) : nullptr,
                        highBegin, j1, dst + (highBegin - j0));
}

void ExpNonPositiveImpl(const float* x, float* y, std::size_t count) {
    const hn::ScalableTag<float> d;
    const std::size_t L = hn::Lanes(d);
    std::size_t i = 0;
    for (; i + L <= count; i += L)
        hn::StoreU(ExpNonPositive(d, hn::LoadU(d, x + i)), d, y + i);
    if (i < count) {
        float tail[HWY_MAX_BYTES / sizeof(float)] = {};
        std::copy(x + i, x + count, tail);
        hn::StoreU(ExpNonPositive(d, hn::LoadU(d, tail)), d, tail);
        std::copy(tail, tail + (count - i), y + i);
    }
}

/** Per-thread scratch of the fused pass. */
struct Scratch {
    TensorBuffer<float> s, p, add, band, o, m, sum, alpha, rc, ref, lsum, psum, la, qs;
    template <class V> static float* fit(V& v, std::size_t size) {
        if (v.size() < size)
            v.resize(size, 0.0f);
        return v.data();
    }
};

void DotKeyPanelsImpl(int rows, const float* q, int dh, const float* keyPanels, int keys, float* s,
                      int sStride) {
    const int L = LanesImpl();
    DotPanelsRows(rows, q, dh, keyPanels, (keys + L - 1) / L, s, sStride);
}

void WeighValuesImpl(int rows, const float* p, int pStride, int keys, const float* valueChunks,
                     int packedKeys, int dh, float* o, int oStride) {
    const int L = LanesImpl();
    AccumulateValuesRows(rows, p, pStride, keys, valueChunks, packedKeys, 0, (dh + L - 1) / L * L,
                         o, oStride, nullptr);
}

void AttendTilesImpl(const TileAttention& t) {
    const hn::ScalableTag<float> d;
    const int L = static_cast<int>(hn::Lanes(d));
    const int n = t.n, dh = t.dh, rows = t.rows;
    const int dhPad = (dh + L - 1) / L * L;
    const int tc = (std::max(t.tileCols, L) + L - 1) / L * L;
    const bool online = t.norm == kSoftmax || t.norm == kL2;
    const bool squares = t.norm == kL2;
    const bool pooling = t.cells > 0 && t.c1 > t.c0;
    const bool values = t.out != nullptr; // else the weights' cells alone: no value product
    const bool hasBand = t.bandPanels != nullptr;
    const int bandStride = tc + 3 * L + kGroup;
    const int shawWidth = t.shawK >= 0 ? 2 * t.shawK + 1 : 0;

    thread_local Scratch sc;
    float* S = Scratch::fit(sc.s, static_cast<std::size_t>(kGroup) * tc + L);
    float* P = Scratch::fit(sc.p, static_cast<std::size_t>(kGroup) * tc + L);
    float* addBuf = Scratch::fit(sc.add, static_cast<std::size_t>(tc) + L);
    float* B =
        hasBand ? Scratch::fit(sc.band, static_cast<std::size_t>(kGroup) * bandStride) : nullptr;
    float* O = Scratch::fit(sc.o, static_cast<std::size_t>(rows) * dhPad);
    float* M = Scratch::fit(sc.m, static_cast<std::size_t>(rows));
    float* Z = Scratch::fit(sc.sum, static_cast<std::size_t>(rows));
    float* alpha = Scratch::fit(sc.alpha, static_cast<std::size_t>(kGroup));
    const std::size_t cellsAll = pooling ? static_cast<std::size_t>(rows) * t.cells : 0;
    float* RC = pooling ? Scratch::fit(sc.rc, cellsAll) : nullptr;
    float* REF = pooling ? Scratch::fit(sc.ref, cellsAll) : nullptr;
    if (values)
        std::fill(O, O + static_cast<std::size_t>(rows) * dhPad, 0.0f);
    std::fill(M, M + rows, online ? kNegInf : 0.0f);
    std::fill(Z, Z + rows, 0.0f);
    if (pooling) {
        std::fill(RC, RC + cellsAll, 0.0f);
        std::fill(REF, REF + cellsAll, kNegInf); // −inf: cell not touched yet
    }
    if (shawWidth > 0)
        std::fill(t.shawSums, t.shawSums + static_cast<std::size_t>(rows) * shawWidth, 0.0f);

    // Cells of one width, a multiple of the lanes or a power of two below them: those wholly
    // inside a tile's visible keys are totalled with CellTotals.
    int uniformWidth = 0;
    if (pooling && (t.c1 - t.c0) % t.cells == 0) {
        const int w = (t.c1 - t.c0) / t.cells;
        if (w % L == 0 || L % w == 0)
            uniformWidth = w;
    }
    float* lsum = Scratch::fit(sc.lsum, static_cast<std::size_t>(tc) + L);
    float* psum = Scratch::fit(sc.psum, static_cast<std::size_t>(tc) + L);
    const bool maxMode = t.poolMax;
    // Logits of whole cells summed key by key over rows of one cell row (uniform cells only).
    float* LA = Scratch::fit(sc.la, static_cast<std::size_t>(tc) + L);
    struct {
        int rows = 0, u = 0, vA = 0, vB = 0;
    } pend;
    auto flushLogits = [&] {
        if (pend.rows == 0)
            return;
        const int count = pend.vB - pend.vA;
        CellTotals(LA, count, uniformWidth, maxMode, lsum);
        float* lc = t.logitCells + static_cast<std::size_t>(pend.u) * t.cells + pend.vA;
        if (maxMode) {
            for (int k = 0; k < count; ++k)
                lc[k] = Fmax(lc[k], lsum[k]);
        } else {
            std::int32_t* cnt =
                t.logitCounts + static_cast<std::size_t>(pend.u) * t.cells + pend.vA;
            const std::int32_t area = pend.rows * uniformWidth;
            for (int k = 0; k < count; ++k) {
                lc[k] += lsum[k];
                cnt[k] += area;
            }
        }
        pend.rows = 0;
    };

    int maxLimit = 0;
    for (int r = 0; r < rows; ++r)
        maxLimit = std::max(maxLimit, std::clamp(t.limit[r], 0, n));
    auto relu2Inverse = [](float denominator) {
        return denominator > 0.0f ? 1.0f / denominator : 0.0f;
    };
    const float invBlock = relu2Inverse(t.relu2Denominator);
    // The scale is applied to the queries once, so that the logit pass of a tile without
    // position terms only looks for the maximum.
    const float* q = t.q;
    if (t.scale != 1.0f) {
        const std::size_t qSize = static_cast<std::size_t>(rows) * dh;
        float* qs = Scratch::fit(sc.qs, qSize);
        for (std::size_t e = 0; e < qSize; ++e)
            qs[e] = t.q[e] * t.scale;
        q = qs;
    }

    for (int j0 = 0; j0 < maxLimit; j0 += tc) {
        const int j1 = std::min(n, j0 + tc);
        const int w = j1 - j0;
        const int panels = (w + L - 1) / L;
        const float* keyPanels = t.keyPanels + static_cast<std::int64_t>(j0 / L) * dh * L;
        // The region's cells this tile touches.
        int vFirst = 0, vLast = -1;
        if (pooling && j0 < t.c1 && j1 > t.c0) {
            const int a = std::max(j0, t.c0) - t.c0, b = std::min(j1, t.c1) - t.c0;
            vFirst = static_cast<int>(std::upper_bound(t.colStart, t.colStart + t.cells + 1, a) -
                                      t.colStart) -
                     1;
            vLast = static_cast<int>(std::upper_bound(t.colStart, t.colStart + t.cells + 1, b - 1) -
                                     t.colStart) -
                    1;
        }
        // One past the last cell that ends by key je (cells wholly inside [.., je)): where the
        // cells a row totals at once stop. Searched once per tile for the rows that see it all.
        auto cellsEndingBy = [&](int je) {
            const int* cs = t.colStart;
            return static_cast<int>(
                std::upper_bound(cs + 1, cs + t.cells + 1, std::min(je, t.c1) - t.c0) - (cs + 1));
        };
        const int vEndFull = vFirst <= vLast ? cellsEndingBy(j1) : 0;
        for (int g0 = 0; g0 < rows; g0 += kGroup) {
            const int gr = std::min(kGroup, rows - g0);
            bool any = false;
            for (int r = 0; r < gr; ++r)
                any = any || t.limit[g0 + r] > j0;
            if (!any)
                continue;
            DotPanelsRows(gr, q + static_cast<std::int64_t>(g0) * dh, dh, keyPanels, panels, S, tc);
            int bandP0 = 0;
            if (hasBand) {
                // Rows i = row0 + g0 + r use R rows n − 1 − i + j, j ∈ [j0, j1).
                const int iLast = t.row0 + g0 + gr - 1;
                const int lo = n - 1 - iLast + j0;
                const int hi = n - 1 - (t.row0 + g0) + j1 - 1;
                bandP0 = lo / L;
                const int bandPanels = hi / L - bandP0 + 1;
                DotPanelsRows(gr, t.bandQ + static_cast<std::int64_t>(g0) * dh, dh,
                              t.bandPanels + static_cast<std::int64_t>(bandP0) * dh * L, bandPanels,
                              B, bandStride);
            }
            for (int r = 0; r < gr; ++r) {
                const int br = g0 + r;
                const int i = t.row0 + br;
                float* s = S + static_cast<std::size_t>(r) * tc;
                float* prow = P + static_cast<std::size_t>(r) * tc;
                const int vis = std::clamp(t.limit[br] - j0, 0, w);
                alpha[r] = 1.0f;
                if (vis == 0) {
                    std::fill(prow, prow + w, 0.0f);
                    continue;
                }
                const float* add = nullptr;
                if (t.addOffsets)
                    add = t.addOffsets + (n - 1 - i) + j0;
                else if (hasBand)
                    add = B + static_cast<std::size_t>(r) * bandStride + (n - 1 - i + j0) -
                          bandP0 * L;
                else if (t.debertaIndex) {
                    DebertaRow(t, i, j0, j0 + vis, addBuf);
                    add = addBuf;
                } else if (t.shawKeyTerms) {
                    shawKeyRow(t.shawKeyTerms + static_cast<std::size_t>(i) * shawWidth, t.shawK, i,
                               j0, j0 + vis, addBuf);
                    add = addBuf;
                }
                const float addScale = hasBand ? t.bandScale : 1.0f;
                const float* post = t.postOffsets ? t.postOffsets + (n - 1 - i) + j0 : nullptr;
                // Logits and the tile's maximum, in four running maxima: one alone waited on
                // its own latency (4 cycles) at every vector, and perf gave that loop a sixth
                // of the per-logit work's samples.
                float smax = kNegInf;
                int j = 0;
                auto maxOver = [&](auto logit) {
                    if (!online) { // exp and relu² need the logits only
                        for (; j + L <= vis; j += L)
                            (void)logit(j);
                        return;
                    }
                    auto m0 = hn::Set(d, kNegInf), m1 = m0, m2 = m0, m3 = m0;
                    for (; j + 4 * L <= vis; j += 4 * L) {
                        m0 = hn::Max(m0, logit(j));
                        m1 = hn::Max(m1, logit(j + L));
                        m2 = hn::Max(m2, logit(j + 2 * L));
                        m3 = hn::Max(m3, logit(j + 3 * L));
                    }
                    for (; j + L <= vis; j += L)
                        m0 = hn::Max(m0, logit(j));
                    if (vis >= L)
                        smax = hn::GetLane(
                            hn::MaxOfLanes(d, hn::Max(hn::Max(m0, m1), hn::Max(m2, m3))));
                };
                if (add && hasBand) {
                    const auto vb = hn::Set(d, addScale);
                    maxOver([&](int x) {
                        const auto l = hn::MulAdd(hn::LoadU(d, add + x), vb, hn::LoadU(d, s + x));
                        hn::StoreU(l, d, s + x);
                        return l;
                    });
                } else if (add) {
                    maxOver([&](int x) {
                        const auto l = hn::Add(hn::LoadU(d, s + x), hn::LoadU(d, add + x));
                        hn::StoreU(l, d, s + x);
                        return l;
                    });
                } else {
                    maxOver([&](int x) { return hn::LoadU(d, s + x); });
                }
                for (; j < vis; ++j) {
                    s[j] += add ? add[j] * addScale : 0.0f;
                    smax = Fmax(smax, s[j]);
                }
                // Unnormalised weights of the tile (relative to the running maximum).
                float mNew = 0.0f;
                if (online) {
                    mNew = Fmax(M[br], smax);
                    // Once the row's maximum settles, most tiles leave it: e⁰ is 1 exactly.
                    alpha[r] = M[br] == kNegInf ? 0.0f
                               : M[br] == mNew  ? 1.0f
                                                : std::exp(M[br] - mNew);
                }
                float ssum = 0.0f;
                const float inv =
                    t.relu2Denominators ? relu2Inverse(t.relu2Denominators[br]) : invBlock;
                switch (t.norm) {
                case kSoftmax:
                    ssum = post ? Weigh<kSoftmax, true>(s, post, prow, vis, mNew, inv)
                                : Weigh<kSoftmax, false>(s, post, prow, vis, mNew, inv);
                    break;
                case kL2:
                    ssum = post ? Weigh<kL2, true>(s, post, prow, vis, mNew, inv)
                                : Weigh<kL2, false>(s, post, prow, vis, mNew, inv);
                    break;
                case kExp:
                    ssum = post ? Weigh<kExp, true>(s, post, prow, vis, mNew, inv)
                                : Weigh<kExp, false>(s, post, prow, vis, mNew, inv);
                    break;
                default:
                    ssum = post ? Weigh<-1, true>(s, post, prow, vis, mNew, inv)
                                : Weigh<-1, false>(s, post, prow, vis, mNew, inv);
                }
                std::fill(prow + vis, prow + w, 0.0f);
                if (online) {
                    const float a = squares ? alpha[r] * alpha[r] : alpha[r];
                    Z[br] = Z[br] * a + ssum;
                    M[br] = mNew;
                }
                // Shaw's weight sums per relative index.
                if (shawWidth > 0) {
                    float* ws = t.shawSums + static_cast<std::size_t>(br) * shawWidth;
                    const int k = t.shawK;
                    if (alpha[r] != 1.0f)
                        for (int x = 0; x < shawWidth; ++x)
                            ws[x] *= alpha[r];
                    const int je = j0 + vis;           // visible keys of the tile: [j0, je)
                    auto range = [&](int lo, int hi) { // keys [lo, hi] ∩ [j0, je)
                        lo = std::max(lo, j0);
                        hi = std::min(hi, je - 1);
                        return hi < lo ? 0.0f : Reduce(prow + (lo - j0), hi - lo + 1, false);
                    };
                    // A tile wholly on one side of the band |j − i| < k (every tile when
                    // k = 0) sums into one index. Under softmax that sum is Weigh's own: the
                    // same additions, in the same order, as Reduce's over the row, so the row
                    // is not read again.
                    const int one = k == 0 || je - 1 <= i - k ? 0 : j0 >= i + k ? 2 * k : -1;
                    if (one >= 0) {
                        ws[one] += t.norm == kSoftmax && !post ? ssum : range(j0, je - 1);
                    } else {
                        ws[0] += range(0, i - k);
                        ws[2 * k] += range(i + k, n - 1);
                        for (int x = 1; x < 2 * k; ++x) {
                            const int key = i + x - k;
                            if (key >= j0 && key < je)
                                ws[x] += prow[key - j0];
                        }
                    }
                }
                // Pooled cells: the logits straight into the caller's cell rows, the weights
                // into this row's cells, rescaled to the current maximum.
                if (vFirst <= vLast) {
                    const int u = t.rowCell[br];
                    float* lc = t.logitCells + static_cast<std::size_t>(u) * t.cells;
                    std::int32_t* cnt =
                        maxMode ? nullptr : t.logitCounts + static_cast<std::size_t>(u) * t.cells;
                    float* rc = RC + static_cast<std::size_t>(br) * t.cells;
                    float* ref = REF + static_cast<std::size_t>(br) * t.cells;
                    const int je = j0 + vis;
                    auto oneCell = [&](int v) {
                        const int a = std::max(t.c0 + t.colStart[v], j0);
                        const int b = std::min(t.c0 + t.colStart[v + 1], je);
                        if (b <= a)
                            return;
                        const float ls = Reduce(s + (a - j0), b - a, maxMode);
                        const float ps = Reduce(prow + (a - j0), b - a, maxMode);
                        if (maxMode) {
                            lc[v] = Fmax(lc[v], ls);
                        } else {
                            lc[v] += ls;
                            cnt[v] += b - a;
                        }
                        if (ref[v] == kNegInf) {
                            rc[v] = ps;
                        } else {
                            const float f = ref[v] == mNew ? 1.0f : std::exp(ref[v] - mNew);
                            rc[v] = maxMode ? Fmax(rc[v] * f, ps) : rc[v] * f + ps;
                        }
                        ref[v] = mNew;
                    };
                    // Cells wholly inside the tile's visible keys: [vA, vB), totalled together.
                    const int* cs = t.colStart;
                    const int vA = t.c0 + cs[vFirst] >= j0 ? vFirst : vFirst + 1;
                    int vB = je == j1 ? vEndFull : cellsEndingBy(je);
                    vB = std::max(vA, std::min(vB, vLast + 1));
                    for (int v = vFirst; v < vA; ++v)
                        oneCell(v);
                    if (vA < vB) {
                        const int count = vB - vA;
                        const int offset =
                            t.c0 - j0; // cell v: s[cs[v] + offset, cs[v + 1] + offset)
                        if (uniformWidth > 0) {
                            // The logits need no rescaling: rows of one cell row that cover
                            // the same cells are summed key by key first, and totalled once
                            // (flushLogits). The weights are totalled row by row, straight
                            // into the row's cells (each lies in this tile: first touch).
                            const int at = cs[vA] + offset;
                            const int len = count * uniformWidth;
                            if (pend.rows > 0 && (pend.u != u || pend.vA != vA || pend.vB != vB))
                                flushLogits();
                            if (pend.rows == 0) {
                                std::memcpy(LA, s + at, sizeof(float) * std::size_t(len));
                                pend.u = u;
                                pend.vA = vA;
                                pend.vB = vB;
                            } else if (maxMode) {
                                for (int x = 0; x < len; x += L)
                                    hn::StoreU(
                                        hn::Max(hn::LoadU(d, LA + x), hn::LoadU(d, s + at + x)), d,
                                        LA + x);
                            } else {
                                for (int x = 0; x < len; x += L)
                                    hn::StoreU(
                                        hn::Add(hn::LoadU(d, LA + x), hn::LoadU(d, s + at + x)), d,
                                        LA + x);
                            }
                            ++pend.rows;
                            CellTotals(prow + at, count, uniformWidth, maxMode, rc + vA);
                            std::fill(ref + vA, ref + vB, mNew);
                        } else {
                            CellTotalsVar(s, cs + vA, offset, count, maxMode, lsum);
                            CellTotalsVar(prow, cs + vA, offset, count, maxMode, psum);
                            // The cells' first and only touch (each lies in this tile): rc
                            // and ref are set, the logits added to the cell row's.
                            for (int k = 0; k < count; ++k) {
                                const int v = vA + k;
                                lc[v] = maxMode ? Fmax(lc[v], lsum[k]) : lc[v] + lsum[k];
                                rc[v] = psum[k];
                                ref[v] = mNew;
                                if (!maxMode)
                                    cnt[v] += cs[v + 1] - cs[v];
                            }
                        }
                    }
                    for (int v = vB; v <= vLast; ++v)
                        oneCell(v);
                }
            }
            flushLogits(); // S is the next group's
            if (values)
                AccumulateValuesRows(gr, P, tc, w, t.valueChunks, t.valueChunkKeys, j0, dhPad,
                                     O + static_cast<std::size_t>(g0) * dhPad, dhPad, alpha);
        }
    }

    // Each row's normalisation: the head output, Shaw's sums and the weights' cells.
    for (int r = 0; r < rows; ++r) {
        float f = 1.0f;
        if (online)
            f = Z[r] > 0.0f ? (squares ? 1.0f / std::sqrt(Z[r]) : 1.0f / Z[r]) : 0.0f;
        if (values) {
            const float* o = O + static_cast<std::size_t>(r) * dhPad;
            float* out = t.out + static_cast<std::size_t>(r) * dh;
            for (int c = 0; c < dh; ++c)
                out[c] = o[c] * f;
        }
        if (shawWidth > 0) {
            float* ws = t.shawSums + static_cast<std::size_t>(r) * shawWidth;
            for (int x = 0; x < shawWidth; ++x)
                ws[x] *= f;
        }
        if (!pooling)
            continue;
        const int lim = std::clamp(t.limit[r], 0, n);
        float* wc = t.weightCells + static_cast<std::size_t>(t.rowCell[r]) * t.cells;
        const float* rc = RC + static_cast<std::size_t>(r) * t.cells;
        const float* ref = REF + static_cast<std::size_t>(r) * t.cells;
        // Cells from vMask on hold masked keys, which weigh exactly 0 (the maximum sees them).
        const int vMask =
            static_cast<int>(std::upper_bound(t.colStart, t.colStart + t.cells + 1, lim - t.c0) -
                             t.colStart) -
            1;
        // A cell's total was taken relative to the row's maximum at the time (ref); untouched
        // cells (ref = −inf) lie wholly past the visible keys and total 0.
        const auto vM = hn::Set(d, M[r]);
        const auto vF = hn::Set(d, f);
        const auto vNegInf = hn::Set(d, kNegInf);
        auto value = [&](int v, auto rcv, auto refv) {
            const auto touched = hn::Ne(refv, vNegInf);
            // ref ≤ M: the exponent is never positive.
            auto val =
                online ? hn::Mul(hn::Mul(rcv, ExpNonPositive(d, hn::IfThenElseZero(
                                                                    touched, hn::Sub(refv, vM)))),
                                 vF)
                       : rcv;
            val = hn::IfThenElseZero(touched, val);
            (void)v;
            return val;
        };
        int v = 0;
        for (; v + L <= t.cells; v += L) {
            auto val = value(v, hn::LoadU(d, rc + v), hn::LoadU(d, ref + v));
            const auto old = hn::LoadU(d, wc + v);
            if (maxMode) {
                if (v + L > vMask) { // lanes v + k ≥ vMask see the masked zeros
                    const auto lane = hn::Iota(d, static_cast<float>(v));
                    val = hn::IfThenElse(hn::Ge(lane, hn::Set(d, static_cast<float>(vMask))),
                                         hn::Max(val, hn::Zero(d)), val);
                }
                hn::StoreU(hn::Max(old, val), d, wc + v);
            } else {
                hn::StoreU(hn::Add(old, val), d, wc + v);
            }
        }
        for (; v < t.cells; ++v) {
            float val = 0.0f;
            if (ref[v] != kNegInf)
                val = rc[v] * (online ? std::exp(ref[v] - M[r]) * f : 1.0f);
            if (maxMode) {
                if (v >= vMask)
                    val = Fmax(val, 0.0f);
                wc[v] = Fmax(wc[v], val);
            } else {
                wc[v] += val;
            }
        }
    }
}

} // namespace HWY_NAMESPACE
} // namespace cpu
} // namespace pe
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pe::cpu {

HWY_EXPORT(LanesImpl);
HWY_EXPORT(PackPanelsImpl);
HWY_EXPORT(AttendTilesImpl);
HWY_EXPORT(PackValueChunksImpl);
HWY_EXPORT(DotKeyPanelsImpl);
HWY_EXPORT(WeighValuesImpl);
HWY_EXPORT(ExpNonPositiveImpl);

int tileLanes() {
    return HWY_DYNAMIC_DISPATCH(LanesImpl)();
}

std::int64_t panelFloats(int rows, int dh) {
    const int L = tileLanes();
    return static_cast<std::int64_t>((rows + L - 1) / L) * dh * L;
}

void packPanels(const float* src, int rows, std::int64_t stride, int dh, float* out) {
    HWY_DYNAMIC_DISPATCH(PackPanelsImpl)(src, rows, stride, dh, out);
}

std::int64_t valueChunkFloats(int rows, int dh) {
    const int L = tileLanes();
    return static_cast<std::int64_t>((dh + L - 1) / L * L) * rows;
}

void packValueChunks(const float* src, int rows, std::int64_t stride, int dh, float* out) {
    HWY_DYNAMIC_DISPATCH(PackValueChunksImpl)(src, rows, stride, dh, out);
}

void dotKeyPanels(int rows, const float* q, int dh, const float* keyPanels, int keys, float* s,
                  int sStride) {
    const GemmCallCounter counter(rows, keys, dh);
    HWY_DYNAMIC_DISPATCH(DotKeyPanelsImpl)(rows, q, dh, keyPanels, keys, s, sStride);
}

void dotKeys(int rows, const float* q, int dh, const float* keyPanels, const float* keys, int n,
             float* s, int sStride) {
    const int whole = n / tileLanes() * tileLanes();
    if (whole > 0)
        dotKeyPanels(rows, q, dh, keyPanels, whole, s, sStride);
    if (whole < n)
        gemmABt(rows, n - whole, dh, 1.0f, q, dh, keys + static_cast<std::int64_t>(whole) * dh, dh,
                0.0f, s + whole, sStride);
}

void weighValues(int rows, const float* p, int pStride, int keys, const float* valueChunks,
                 int packedKeys, int dh, float* o, int oStride) {
    const GemmCallCounter counter(rows, dh, keys);
    HWY_DYNAMIC_DISPATCH(WeighValuesImpl)
    (rows, p, pStride, keys, valueChunks, packedKeys, dh, o, oStride);
}

void attendTiles(const TileAttention& t) {
    HWY_DYNAMIC_DISPATCH(AttendTilesImpl)(t);
}

void expNonPositive(const float* x, float* y, std::size_t count) {
    HWY_DYNAMIC_DISPATCH(ExpNonPositiveImpl)(x, y, count);
}

} // namespace pe::cpu
#endif
