// SPDX-License-Identifier: MIT
#pragma once

/**
 * The tensors a forward pass reads, named as in SPEC-trace.md's "Weights" table. An empty
 * matrix means "not given": completeWeights() generates it from the seed, deterministically on
 * every platform (own PRNG, one stream per tensor name).
 */

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "expected.h"
#include "params.h"

namespace pe {

using MatrixXdR = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Weights {
    Eigen::MatrixXd E;                      ///< [n, d] input tokens only (no special rows)
    Eigen::MatrixXd W_q, W_k, W_v, W_o;     ///< [d, d], row-vector convention Q = X W_q
    Eigen::MatrixXd cls, sep;               ///< [1, d]
    Eigen::MatrixXd learnedTable;           ///< [P_max, d]
    Eigen::MatrixXd shawWk, shawWv;         ///< [2k+1, d_h], shared by heads
    Eigen::MatrixXd txlU, txlV;             ///< [heads, d_h]
    Eigen::MatrixXd txlWr;                  ///< [d, d]
    Eigen::MatrixXd t5Table;                ///< [buckets, heads]
    Eigen::MatrixXd debertaRel;             ///< [2 span, d]
    Eigen::MatrixXd debertaWqr, debertaWkr; ///< [d, d]
    Eigen::MatrixXd urpeC;                  ///< [heads, 2 N − 1], N = sequence length
    Eigen::MatrixXd mlpW1, mlpB1;           ///< [2F, H], [1, H] (mlp encoding)
    Eigen::MatrixXd mlpW2, mlpB2;           ///< [H, d], [1, d]
};

/** One named weight: its trace name, the shape the parameters require, and where it lives. */
struct WeightSpec {
    std::string name;
    std::vector<std::int64_t> shape; ///< required shape; P_max rows of learned.table are free (-1)
    Eigen::MatrixXd Weights::*member;
    bool used; ///< whether the current scheme/options read it
};

/** Every weight name the trace contract knows, with shapes for these parameters. */
std::vector<WeightSpec> weightSpecs(const Params& p);

/** Elements of `spec` as completeWeights draws it for p (learned.table at p.learnedRows). */
std::int64_t weightElements(const WeightSpec& spec, const Params& p);

/**
 * Fills every empty, used tensor from p.seed. Given tensors are kept as they are. Scales:
 * W_* and the other d×d projections N(0, 1/d); learned.table N(0, 0.02²); mlp.w1 N(0, 1/F)
 * (unit-variance pre-activations, since |φ(p)|² = F), mlp.b1 and mlp.b2 N(0, 0.1²),
 * mlp.w2 N(0, 2/H) (He: E[GELU(z)²] ≈ 0.43 for z ~ N(0, 1), so P's entries have RMS ≈ 0.9).
 */
void completeWeights(const Params& p, Weights& w);

/**
 * Bytes of the used tensors completeWeights draws (float64), the learned table at
 * p.learnedRows rows: 8·learnedRows·d, 6.4 GB for 2^20 rows at d = 768, whatever n is.
 */
std::uint64_t estimateWeightBytes(const Params& p);

/** Checks the shapes of the used tensors; the error names the tensor and both shapes. */
Status checkWeights(const Params& p, const Weights& w);

/** Seeded standard normal matrix (Box–Muller over xoshiro256**), stream chosen by `stream`. */
Eigen::MatrixXd seededNormal(int rows, int cols, std::uint64_t seed, const std::string& stream);

/** 64-bit FNV-1a hash, used to derive per-tensor and per-token streams. */
std::uint64_t hash64(std::string_view s);

} // namespace pe
