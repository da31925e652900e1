// SPDX-License-Identifier: MIT
#pragma once

/**
 * Fused attention over tiles, for the pooled path: one head × one block of query rows walks the
 * keys in tiles of a few hundred columns; each tile's dot products, position terms, mask and
 * normaliser stay in L1/L2, are folded into pooled cells and multiplied into the head output
 * before the next tile. No row of n logits ever reaches memory. Softmax and L2 normalise online
 * (the running row maximum rescales what came before, as fused attention kernels do), so every
 * dot product is computed once. Highway kernels (AVX-512, AVX2, ...) picked at run time; the keys
 * are packed once per head into panels of one vector's width, the values into column chunks.
 */

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace pe::cpu {

/** Floats per vector of the tile kernels on this machine: the width of a key panel. */
int tileLanes();

/** Floats packPanels writes for `rows` rows of `dh` columns: ⌈rows / lanes⌉ · dh · lanes. */
std::int64_t panelFloats(int rows, int dh);

/**
 * Packs rows [0, rows) of a row-major matrix (row r at src + r·stride, dh columns) into panels of
 * `tileLanes()` rows: panel p holds, for each column c, the lanes rows pL … pL + L − 1 (zero past
 * the last row). The layout the tile kernel reads keys (and Transformer-XL's R) in.
 */
void packPanels(const float* src, int rows, std::int64_t stride, int dh, float* out);

/** Floats packValueChunks writes for `rows` rows of `dh` columns: rows · dh rounded up to lanes. */
std::int64_t valueChunkFloats(int rows, int dh);

/**
 * Packs rows [0, rows) of a row-major matrix (row r at src + r·stride, dh columns) column chunk
 * by column chunk: the columns, padded with zeros to a multiple of the lanes, in chunks of
 * W = two vectors (the last one narrower where they do not fill it). Chunk k (columns
 * c0 = k·W …, width w) holds row r's w floats at out + c0·rows + r·w. A tile's keys then lie
 * contiguous in each chunk, so the value products read each chunk from L1 for every block of
 * query rows (read in place, the rows of a head's values, a power of two apart, map to a few
 * cache sets and came from L2).
 */
void packValueChunks(const float* src, int rows, std::int64_t stride, int dh, float* out);

/**
 * s[r][j] = q_r · k_j for rows [0, rows) (q: rows of dh floats) and keys [0, keys) from their
 * packPanels panels: the key product of a block of rows without a GEMM library's per-call
 * packing. Writes whole panels, columns [0, ⌈keys / lanes⌉ · lanes) of each row (those past
 * `keys` are 0): sStride must be at least that.
 */
void dotKeyPanels(int rows, const float* q, int dh, const float* keyPanels, int keys, float* s,
                  int sStride);

/**
 * s[r][j] = q_r · k_j for rows [0, rows) and every key j < n: the keys in whole panels
 * (⌊n / lanes⌋ · lanes of them) from their packPanels panels by dotKeyPanels, the rest from
 * `keys` (row-major, dh floats a row) by GEMM. Writes exactly columns [0, n) of each row.
 */
void dotKeys(int rows, const float* q, int dh, const float* keyPanels, const float* keys, int n,
             float* s, int sStride);

/**
 * o[r][c] = Σ_{j < keys} p[r][j] · v_j[c] for rows [0, rows), from values packed by
 * packValueChunks for `packedKeys` ≥ keys keys: the value product of a block of rows. Writes
 * columns [0, dh rounded up to lanes) of each o row (oStride at least that).
 */
void weighValues(int rows, const float* p, int pStride, int keys, const float* valueChunks,
                 int packedKeys, int dh, float* o, int oStride);

/** One head × one block of query rows of the fused pass; see attendTiles. */
struct TileAttention {
    int n = 0;                                ///< keys
    int dh = 0;                               ///< head width
    int row0 = 0;                             ///< first query row of the block (absolute)
    int rows = 0;                             ///< query rows in the block
    const float* q = nullptr;                 ///< row0's query (TXL: q + u), rows of dh floats
    const float* keyPanels = nullptr;         ///< packPanels of the head's keys
    const float* valueChunks = nullptr;       ///< packValueChunks of the head's values
    int valueChunkKeys = 0;                   ///< the rows packValueChunks was given (≥ n)
    float scale = 1.0f;                       ///< on the dot products (not on the position terms)
    int norm = 0;                             ///< pe::Normaliser as int
    float relu2Denominator = 1.0f;            ///< relu²'s divisor (N or the visible keys)
    const float* relu2Denominators = nullptr; ///< per block row instead, where given
    const int* limit = nullptr;               ///< per block row: keys [0, limit[r]) are visible

    // Position terms. add[i][j] and post[i][j] (URPE's C) from per-offset tables of 2n − 1
    // entries, indexed by n − 1 − i + j; or Transformer-XL's band (q + v)_i · R[n − 1 − i + j]
    // from R's panels; or any other additive term from a callback filling dst[0, j1 − j0).
    const float* addOffsets = nullptr;
    const float* postOffsets = nullptr;
    const float* bandQ = nullptr;      ///< TXL: (q + v) rows of the block, dh floats each
    const float* bandPanels = nullptr; ///< TXL: packPanels of R's 2n − 1 rows (this head)
    float bandScale = 1.0f;
    // DeBERTa: add[i][j] = c2p[i][δ(i − j)] + p2c[j][δ(i − j)] (or δ(j − i), the paper's
    // convention), δ(r) = debertaIndex[n − 1 + r]; either table may be absent. Gathered with
    // vector gathers a tile row at a time.
    const std::int32_t* debertaIndex = nullptr;
    const float* debertaC2P = nullptr; ///< this head's [n, stride]: query rows
    const float* debertaP2C = nullptr; ///< this head's [n, stride]: key rows
    int debertaStride = 0;
    bool debertaPaper = false;
    // Where δ saturates (when debertaSaturates): δ(r) = δ(−(n − 1)) for r ≤ debertaLowRel and
    // δ(n − 1) for r ≥ debertaHighRel. Keys whose indices all lie there take c2p's entry as a
    // constant and p2c's from these columns (this head's p2c[j][δ(−(n − 1))] and
    // p2c[j][δ(n − 1)], n floats each, needed with p2c), loaded instead of gathered: all but a
    // band of keys around the diagonal. Otherwise every key is gathered.
    bool debertaSaturates = false;
    int debertaLowRel = 0, debertaHighRel = 0;
    const float* debertaP2CLow = nullptr;
    const float* debertaP2CHigh = nullptr;
    /** Shaw's key term: this head's [n, 2k + 1] table q_i·w^K_t (scaled), k = shawK. */
    const float* shawKeyTerms = nullptr;

    /**
     * Shaw's value term: when ≥ 0, shawSums[r·(2k+1) + t] receives the weight row r puts on
     * relative index t: t = 0 sums keys j ≤ i − k, t = 2k keys j ≥ i + k, others key i + t − k.
     */
    int shawK = -1;
    float* shawSums = nullptr;

    // Pooling: region columns [c0, c1) in `cells` bins (colStart: cells + 1 starts relative to
    // c0); block row r folds into cell row rowCell[r] (relative to the block's first cell row).
    // Sums (mean) or maxima (poolMax) are added to / maxed into the caller's arrays, which
    // hold cellRows × cells entries; logit counts count the visible (finite) logits. The caller
    // counts the weights' entries (all finite) itself.
    int c0 = 0;
    int c1 = 0;
    int cells = 0;
    const int* colStart = nullptr;
    const int* rowCell = nullptr;
    bool poolMax = false;
    float* logitCells = nullptr;
    std::int32_t* logitCounts = nullptr;
    float* weightCells = nullptr;

    /** The block's head output, rows of dh floats; none: the value product is left out (the
     *  logits' and weights' cells alone). */
    float* out = nullptr;
    int tileCols = 512; ///< keys per tile (rounded up to a multiple of tileLanes())
};

/**
 * Shaw's key term of query row i for keys [j0, j1) into dst: key j takes
 * sk[clip(j − i, −k, k) + k] (sk: row i of the q·w^K table), constant runs at both ends.
 */
inline void shawKeyRow(const float* sk, int k, int i, int j0, int j1, float* dst) {
    const int lo = std::clamp(i - k, j0, j1);     // j < lo: index 0
    const int hi = std::clamp(i + k + 1, j0, j1); // j ≥ hi: index 2k
    for (int j = j0; j < lo; ++j)
        dst[j - j0] = sk[0];
    for (int j = lo; j < hi; ++j)
        dst[j - j0] = sk[j - i + k];
    for (int j = hi; j < j1; ++j)
        dst[j - j0] = sk[2 * k];
}

/** Runs the fused pass of one head × row block (thread-safe; scratch is per thread). */
void attendTiles(const TileAttention& t);

/**
 * y = e^x for x ≤ 0, x[0, count), as softmax and L2 compute it in the fused pass and the full
 * row pass (x = logit − the row's maximum): within an ulp of the exact value where that is a
 * normal float, 0 where it is not (x < −87.34, −∞ included). For tests; the passes inline it.
 */
void expNonPositive(const float* x, float* y, std::size_t count);

} // namespace pe::cpu
