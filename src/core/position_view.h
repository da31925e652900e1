// SPDX-License-Identifier: MIT
#pragma once

/**
 * What a scheme has in place of an absolute encoding P, for the Encoding tab: its relative
 * tables and curves, computed from the parameters and the (completed) weights, and one line on
 * where position enters the layer. Absolute schemes get the line only (P is in the trace).
 *
 *  - Shaw:      a^K, a^V [2k+1, d_h] against the clipped distance; a^K's columns against j − i.
 *  - Transformer-XL: R_{i−j} [·, d] = [sin((i−j)ω) | cos((i−j)ω)] (clamped) and R·W_r; columns.
 *  - T5:        the table b [heads, buckets] and the bias b[h, bucket(j − i)] [heads, 2N−1];
 *               the bucket of j − i.
 *  - DeBERTa:   the relative embeddings P_r [2 span, d]; the index δ(i − j) against i − j.
 *  - RoPE:      the angle (p/s)·θ_m wrapped to [−π, π) [positions, d_rot/2]; the relative kernel
 *               (1/M) Σ_m cos(r·θ_m) against r = j − i ≥ 0 (RoFormer's long-term decay).
 *  - ALiBi:     the bias −m_h |j − i| (symmetric) or −m_h (i − j) (causal) [heads, 2N−1] and per
 *               head against j − i, slopes m_h in the curve names.
 *  - URPE:      C [heads, 2N−1] and per head against j − i (and T5's table with a T5 bias).
 *  - none:      the line only (the view shows X = E).
 * Long axes are sampled: at most kMaxRows rows and kMaxPoints curve points (rowStep/xStep > 1).
 */

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "params.h"
#include "weights.h"

namespace pe {

struct RelativeTables;

struct PositionMap {
    std::string title;
    std::string xTitle;
    std::string yTitle;
    std::string valueTitle;
    Eigen::MatrixXd values; ///< [rows, cols]
    double rowStart = 0.0;  ///< row r stands for rowStart + r·rowStep (a position or distance)
    double rowStep = 1.0;
    double colStart = 0.0; ///< column c stands for colStart + c·colStep
    double colStep = 1.0;
};

struct PositionCurve {
    std::string name;
    std::vector<double> y;
};

struct PositionCurves {
    std::string title;
    std::string xTitle;
    std::string yTitle;
    double xStart = 0.0; ///< point k is at x = xStart + k·xStep
    double xStep = 1.0;
    std::vector<PositionCurve> curves;
};

struct PositionView {
    std::string where;             ///< one line: where position enters the layer
    std::vector<PositionMap> maps; ///< up to two; none for absolute schemes and none
    PositionCurves curves;         ///< no curves: nothing to plot
    /**
     * The relative index, bias and URPE's C by offset (positionView leaves it null; the window's
     * worker and `render` set it): the Relative tab draws its maps from them, pooled exactly
     * where no n × n matrix is computed, else row by row before the forward pass ends.
     */
    std::shared_ptr<const RelativeTables> relative;
};

constexpr int kPositionViewMaxRows = 1024;
constexpr int kPositionViewMaxPoints = 4097;
constexpr int kPositionViewMaxCurves = 8;

/** The view of `p`'s scheme; `w` completed for p (completeWeights). Tables of the wrong shape
 *  (a trained model without them) are left out. */
PositionView positionView(const Params& p, const Weights& w);

} // namespace pe
