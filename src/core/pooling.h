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
#include <map>
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
     * the columns [0, c1) at least. Rows outside the region are ignored. Thread-safe. Each row
     * of a head is added at most once (by addRows or addCells).
     */
    void addRows(int h, int i0, int rows, const float* data, std::int64_t stride);
    /**
     * For engines that fold cells themselves: the cell row of region row `regionRow` (relative
     * to r0) and the R_c + 1 column bin starts (relative to c0).
     */
    int cellRow(int regionRow) const { return m_rowCell[static_cast<std::size_t>(regionRow)]; }
    const std::vector<int>& columnStarts() const { return m_colStart; }
    /**
     * Adds region rows [r0, r1) (relative to the region's first row) of head h, which the
     * caller folded into cell rows cellRow(r0) … cellRow(r1 − 1) × [0, R_c), row-major: sums
     * with their entry counts (mean; no counts: every entry counts) or maxima (max; counts
     * unused). Thread-safe. Each row of a head is added at most once.
     */
    void addCells(int h, int r0, int r1, const float* cells, const std::int32_t* counts);
    /** The pooled [heads, R_r, R_c] float32 tensor (moved out: call once, after the adds). */
    Tensor result();

    const PoolRegion& region() const { return m_region; }
    PoolMode mode() const { return m_mode; }
    int outRows() const { return m_outRows; }
    int outCols() const { return m_outCols; }

private:
    /** A cell row that some of its rows have reached: its running sums (or maxima). */
    struct Partial {
        std::vector<double> sum;
        std::vector<std::int32_t> count; ///< mean only
        int rows = 0;                    ///< region rows added so far
    };
    /**
     * Folds region rows [r0, r1) of head h in, given as their cell rows' sums and counts (or
     * maxima). A cell row that the contribution covers whole is final: its cells are written to
     * the result at once, with no lock and no storage of their own. Only cell rows split
     * between contributions (at most two per block of rows) wait in `m_partial`, under the
     * head's lock, until their last row arrives. A cell row's storage is thus the result's
     * (at 1024² cells × 8 heads, sums and counts of every cell were 192 MB of fresh pages per
     * computation, faulted in again each time).
     */
    template <typename Sum>
    void merge(int h, int r0, int r1, const Sum* sums, const std::int32_t* counts);
    /** Writes cell row `row` (head × cell row) of the result from sums and counts. */
    template <typename Sum>
    void finish(std::size_t row, int rows, const Sum* sum, const std::int32_t* count);

    int m_heads;
    PoolRegion m_region;
    int m_outRows;
    int m_outCols;
    PoolMode m_mode;
    std::vector<int> m_rowCell;  ///< cell of each region row
    std::vector<int> m_colStart; ///< R_c + 1 column bin starts, relative to c0
    Tensor m_out;                ///< [heads, R_r, R_c]: final cell rows as they complete
    /** Per head × cell row: final in m_out (else partial in m_partial, or nothing added). */
    std::vector<std::uint8_t> m_final;
    std::vector<std::map<int, Partial>> m_partial; ///< per head: cell row → partial
    std::unique_ptr<std::mutex[]> m_locks;         ///< one per head
};

/**
 * Pools a region of every head of a [heads, n, n] (or [n, n]) float tensor in one go: the path
 * for a trace that is already in memory.
 */
Tensor poolHeads(const Tensor& t, PoolRegion region, int resolution, PoolMode mode);

} // namespace pe
