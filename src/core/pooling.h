// SPDX-License-Identifier: MIT
#pragma once

/**
 * Pooling of per-head n×n matrices (logits, weights) to screen resolution, streamed: rows arrive
 * in blocks from any thread and are folded into [heads, R_r, R_c] cells. Cell (u, v) of the
 * region [r0, r1) × [c0, c1) covers rows [r0 + ⌊u·(r1−r0)/R_r⌋, r0 + ⌊(u+1)·(r1−r0)/R_r⌋) and
 * columns likewise (the GL backend's pool shader and the window's Grid pool use the same bins).
 * Mean skips infinite entries (masked logits); a cell with none left is −inf. Max takes the
 * largest entry (−inf when all are masked).
 */

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "tensor.h"

namespace pe {

enum class PoolMode { Mean, Max };

/** A rectangle of positions: rows [r0, r1), columns [c0, c1). */
struct PoolRegion {
    int r0 = 0;
    int r1 = 0;
    int c0 = 0;
    int c1 = 0;
    int rows() const { return r1 - r0; }
    int cols() const { return c1 - c0; }
    bool operator==(const PoolRegion&) const = default;
};

/** First position of bin k when `length` positions go into `bins` bins. */
inline int binStart(int k, int length, int bins) {
    return static_cast<int>(static_cast<std::int64_t>(k) * length / bins);
}

class PoolAccumulator {
public:
    /** `resolution` caps the cells per side: R_r = min(rows, resolution), likewise R_c. */
    PoolAccumulator(int heads, PoolRegion region, int resolution, PoolMode mode);

    /**
     * Folds rows [i0, i0 + rows) of head h in: row i starts at data + (i − i0)·stride and holds
     * the columns [0, c1) at least. Rows outside the region are ignored. Thread-safe.
     */
    void addRows(int h, int i0, int rows, const float* data, std::int64_t stride);
    /**
     * For engines that fold cells themselves: the cell row of region row `regionRow` (relative
     * to r0) and the R_c + 1 column bin starts (relative to c0).
     */
    int cellRow(int regionRow) const { return m_rowCell[static_cast<std::size_t>(regionRow)]; }
    const std::vector<int>& columnStarts() const { return m_colStart; }
    /**
     * Adds cell rows [u0, u1) × [0, R_c) of head h, row-major: sums with their entry counts
     * (mean) or maxima (max; counts unused). Thread-safe.
     */
    void addCells(int h, int u0, int u1, const float* cells, const std::int32_t* counts);
    /** The pooled [heads, R_r, R_c] float32 tensor. */
    Tensor result() const;

    const PoolRegion& region() const { return m_region; }
    PoolMode mode() const { return m_mode; }
    int outRows() const { return m_outRows; }
    int outCols() const { return m_outCols; }

private:
    int m_heads;
    PoolRegion m_region;
    int m_outRows;
    int m_outCols;
    PoolMode m_mode;
    std::vector<int> m_rowCell;  ///< cell of each region row
    std::vector<int> m_colStart; ///< R_c + 1 column bin starts, relative to c0
    /**
     * Folds cell rows [u0, u1) of head h in (sums and counts, or maxima), under the head's lock.
     * A cell row's first contribution is stored, later ones added: the storage is never
     * zero-filled up front (at 1024² cells × 8 heads that was 192 MB, written on one thread
     * before any work, most of a pooled forward at n = 2048), and rows nobody added are
     * filled in by result().
     */
    template <typename Sum>
    void merge(int h, int u0, int u1, const Sum* sums, const std::int32_t* counts);

    std::unique_ptr<double[]> m_sum;         ///< mean: sums; max: maxima (rows: see m_touched)
    std::unique_ptr<std::int32_t[]> m_count; ///< mean: finite entries per cell
    std::vector<std::uint8_t> m_touched;     ///< per head × cell row: holds a contribution
    std::unique_ptr<std::mutex[]> m_locks;   ///< one per head
};

/**
 * Pools a region of every head of a [heads, n, n] (or [n, n]) float tensor in one go: the path
 * for a trace that is already in memory.
 */
Tensor poolHeads(const Tensor& t, PoolRegion region, int resolution, PoolMode mode);

} // namespace pe
