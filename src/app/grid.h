// SPDX-License-Identifier: MIT
#pragma once

/**
 * A 2-D matrix of doubles (row-major) as the views see it, and the reductions they need:
 * slicing a head out of a trace tensor, the Gram matrix P·Pᵀ and pooling to screen resolution.
 */

#include <cstdint>
#include <vector>

#include "pooling.h"
#include "tensor.h"

namespace pe {

struct Grid {
    int rows = 0;
    int cols = 0;
    std::vector<double> values; ///< rows × cols, row-major

    bool empty() const { return rows == 0 || cols == 0; }
    double at(int r, int c) const {
        return values[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) +
                      static_cast<std::size_t>(c)];
    }
    double& at(int r, int c) {
        return values[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) +
                      static_cast<std::size_t>(c)];
    }
    double minValue() const;
    double maxValue() const;
    /** Smallest and largest finite entry (masked logits are −inf); false when there is none. */
    bool finiteRange(double* lo, double* hi) const;
    bool operator==(const Grid&) const = default;
};

/** Head `head` of a [heads, r, c] tensor, or the whole of a [r, c] tensor (head ignored). */
Grid sliceHead(const Tensor& t, int head);
/** Number of heads of a view tensor: dim 0 of rank 3, else 1. */
int headCount(const Tensor& t);
/** P·Pᵀ for P [n, d]. */
Grid gram(const Grid& p);
/** P·Pᵀ into `out` as a [1, n, n] tensor of doubles (its buffer reused where the shape holds),
 *  which a map reads in place (HeatmapView::setSlice). */
void gramInto(const Grid& p, Tensor& out);
/** Row `r` of a grid. */
std::vector<double> row(const Grid& g, int r);

/**
 * Pools the block [r0, r1) × [c0, c1) of `g` to at most outRows × outCols cells. Each output cell
 * is the mean (or max) of the input cells whose index maps to it (bin k covers
 * [r0 + k·h/outRows, r0 + (k+1)·h/outRows)). A region smaller than the target is copied as is.
 * The mean skips infinite entries (masked logits); a cell with none left is −inf.
 */
Grid pool(const Grid& g, int r0, int r1, int c0, int c1, int outRows, int outCols, PoolMode mode);

/**
 * pool() of sliceHead(t, head), read in place from the tensor (no full-size copy). With `lo`
 * (and `hi`, `any`), the same pass also gives the smallest and largest finite entry of the
 * region (*any false when there is none), as sliceRange does for the whole slice. Large slices
 * are pooled by two threads unless `split` is false (callers that already run views in parallel).
 */
Grid poolSlice(const Tensor& t, int head, int r0, int r1, int c0, int c1, int outRows, int outCols,
               PoolMode mode, double* lo = nullptr, double* hi = nullptr, bool* any = nullptr,
               bool split = true);
/** Smallest and largest finite entry of sliceHead(t, head); false when there is none. */
bool sliceRange(const Tensor& t, int head, double* lo, double* hi);
/** sliceHead(t, head).at(r, c), read in place. */
double sliceAt(const Tensor& t, int head, int r, int c);
/**
 * sliceHead(a, headA) − sliceHead(b, headB) as a [1, rows, cols] tensor of doubles (the
 * difference of two floats is exact there), read from both in place; an empty tensor where the
 * slices' shapes differ.
 */
Tensor sliceDifference(const Tensor& a, int headA, const Tensor& b, int headB);
/** The same into `out`, whose storage is reused where it already has that shape (no fresh
 *  pages to fault in); large slices by two threads. */
void sliceDifference(const Tensor& a, int headA, const Tensor& b, int headB, Tensor& out);

} // namespace pe

namespace pe {
/**
 * Like sliceHead, but a slice larger than maxRows × maxCols is mean-pooled straight from the
 * tensor (never materialised at full size), skipping infinite entries as pool() does.
 * *binRows / *binCols get the positions per cell.
 */
Grid sliceHeadBinned(const Tensor& t, int head, int maxRows, int maxCols, int* binRows,
                     int* binCols);
} // namespace pe
