// SPDX-License-Identifier: MIT
#pragma once

/**
 * The scheme's relative matrices as functions of the offset j − i. The relative index, the
 * additive bias and URPE's C are Toeplitz: entry (i, j) of the n × n matrix is the table's entry
 * (j − i) + n − 1, so one row of 2n − 1 values per head holds the whole matrix. From these
 * tables the pooled cells of any rectangle of (i, j) come exactly, in O(1) per cell, with no
 * n × n matrix made (the window's Relative tab in pooled mode), and the fast CPU engine builds
 * its rows from them.
 */

#include <vector>

#include "params.h"
#include "pooling.h"
#include "weights.h"

namespace pe {

struct RelativeTables {
    int seqLen = 0; ///< n: each table has 2n − 1 entries, entry o for j − i = o − (n − 1)
    int heads = 0;
    /** rel_index by offset (Shaw, T5, URPE with T5's bias, DeBERTa); empty for the others. */
    std::vector<int> index;
    /** [heads][2n − 1]: what the scheme adds to the logits (T5 and URPE's T5 bias, ALiBi). */
    std::vector<double> bias;
    /** [heads][2n − 1]: URPE's C. */
    std::vector<double> urpeC;

    bool empty() const { return index.empty() && bias.empty() && urpeC.empty(); }
    std::size_t offsets() const {
        return seqLen > 0 ? 2 * static_cast<std::size_t>(seqLen) - 1 : 0;
    }
    const double* biasOf(int h) const {
        return bias.data() + static_cast<std::size_t>(h) * offsets();
    }
    const double* urpeCOf(int h) const {
        return urpeC.data() + static_cast<std::size_t>(h) * offsets();
    }
};

/**
 * The tables of `p`'s scheme from the completed weights `w`, with the values the reference trace
 * gives (SPEC §§4–9), in double. The trace's `bias` tensor is written for T5 and ALiBi only;
 * URPE's T5 bias, added to the logits, is in `bias` here too (hasBias(p) tells them apart).
 */
RelativeTables relativeTables(const Params& p, const Weights& w);

/** A table rounded to float, as the engines hold it (every n × n tensor built from the same
 * floats). */
std::vector<float> roundedToFloat(const std::vector<double>& table);

/**
 * The n × n Toeplitz matrix M(i, j) = table[(j − i) + n − 1] over `region`, pooled to
 * rows × cols cells with pooling.h's bins (each side capped at the region's): the mean of each
 * cell, exact up to rounding (sums of sums in long double), or its largest entry (a range
 * maximum over the cell's interval of offsets). Row-major, rows × cols values.
 */
template <typename T>
std::vector<double> poolToeplitz(const T* table, int n, PoolRegion region, int rows, int cols,
                                 PoolMode mode);
/**
 * poolToeplitz into `out`, which holds rows × cols values (the caller's reused buffer: a fresh
 * 8 MB vector per 1,024² map cost more in page faults than the pooling). False, and nothing
 * written, where poolToeplitz gives nothing or the capped sides are not rows × cols.
 */
template <typename T>
bool poolToeplitzInto(const T* table, int n, PoolRegion region, int rows, int cols, PoolMode mode,
                      double* out);

} // namespace pe
