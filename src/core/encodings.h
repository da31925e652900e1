// SPDX-License-Identifier: MIT
#pragma once

/**
 * The position-dependent building blocks of SPEC-encodings.md, as pure functions in double.
 * Shapes are noted per function; matrices are Eigen column-major unless stated.
 */

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "params.h"

namespace pe {

/**
 * Sinusoidal table PE [n, d], SPEC §1. Row p is position `start + p`.
 * interleaved: PE[p, 2m] = sin(p ω_m), PE[p, 2m+1] = cos(p ω_m), ω_m = base^(−2m/d);
 * concat: [sin | cos] with the same ω (even d); t2t: ω_m = exp(−m ln(base)/max(K−1, 1)),
 * K = ⌊d/2⌋, [sin | cos | 0 if d odd]. Angles are computed in double.
 */
Eigen::MatrixXd sinusoidal(int n, int d, double base = 10000.0,
                           SinLayout layout = SinLayout::Interleaved, double start = 0.0);

/**
 * sinusoidal() written into `out` (its rows are positions start, start + 1, …; d = its width):
 * for filling row ranges of one table from several threads, with the same values.
 */
void sinusoidalInto(Eigen::Ref<Eigen::MatrixXd> out, double base, SinLayout layout,
                    double start = 0.0);

/**
 * Rows [r0, r1) of sinusoidal(·, d, base, layout, start) in float, row-major, `out` being row
 * r0: the same angles and sines in double, cast. Rows split across threads give the same table
 * (the fast engine's P; one thread in double then a transposing copy took seconds at n = 65536).
 */
void sinusoidalRows(int d, double base, SinLayout layout, int r0, int r1, float* out,
                    double start = 0.0);

/**
 * The frequencies of that table, one per sin/cos pair: ω_m = base^(−2m/d) for m < ⌈d/2⌉
 * (interleaved; an odd d's last column is a lone sine) or m < d/2 (concat), and t2t's
 * exp(−m ln(base)/max(K−1, 1)) for m < K = ⌊d/2⌋.
 */
Eigen::VectorXd sinusoidFrequencies(int d, double base, SinLayout layout);

/** Transformer-XL relative sinusoid R_t = [sin(t ω) | cos(t ω)], ω_m = 10000^(−2m/d), SPEC §4. */
Eigen::RowVectorXd txlRelativeSinusoid(double t, int d);

/**
 * Rows [r0, r1) of the engines' table of txlRelativeSinusoid in float, [2n − 1, d] row-major:
 * row r is t = n − 1 − r (i − j of offset r), clamped to clampLen when it is positive. The
 * values equal txlRelativeSinusoid's cast to float (the same operations, the frequencies
 * computed once per call instead of once per row: 2n − 1 rows of d/2 powers cost more than the
 * sines). `out` is row r0; rows split across threads give the same table.
 */
void txlRelativeSinusoidRows(int n, int d, int clampLen, int r0, int r1, float* out);

/** Shaw index clip(j − i, −k, k) + k ∈ [0, 2k], SPEC §3. */
inline int shawIndex(int i, int j, int k) {
    const int r = j - i;
    return (r < -k ? -k : (r > k ? k : r)) + k;
}

/**
 * T5 bucket of rel = j − i, SPEC §5, evaluated in float32 exactly as Mesh-TF does.
 * `bidirectional = !unidirectional`.
 */
int t5Bucket(int rel, bool bidirectional = true, int numBuckets = 32, int maxDistance = 128);

/** The same bucket evaluated in float64 (for the spec's float32-vs-float64 examples). */
int t5BucketF64(int rel, bool bidirectional = true, int numBuckets = 32, int maxDistance = 128);

/** DeBERTa v2/v3 log bucket of rel = i − j, SPEC §6 (odd function). */
int debertaLogBucket(int rel, int buckets = 256, int maxPosition = 512);

/**
 * DeBERTa index δ = clip(bucket(rel) + span, 0, 2 span − 1) for rel = i − j, SPEC §6.
 * bucket is the identity unless p.debertaLogBuckets.
 */
int debertaIndex(int rel, const Params& p);

/**
 * ALiBi slopes for h heads, SPEC §8: 2^(−8k/h) for powers of two (computed as s·s^(k−1) like
 * the reference), else slopes(c) followed by the even entries of slopes(2c).
 */
std::vector<double> alibiSlopes(int heads);

/** URPE unique-table column (j − i) + L − 1 for a C table of 2L − 1 entries, SPEC §9. */
inline int urpeIndex(int i, int j, int L) {
    return (j - i) + L - 1;
}

/**
 * URPE's official bucketed index (ur_attn_unique = False) for an L×L grid, SPEC §9:
 * sign(rel)·T5mag(|rel|) with 64 buckets / max distance 128, +2 where ≥ 0, then shifted so the
 * grid minimum is 0. Returned as an [L × L] row-major vector of ints.
 */
std::vector<int> urpeOfficialBuckets(int L);

/**
 * RoPE angles with context stretching: angle(p, m) = (p / positionDivisor)·θ_m, m < d_rot/2.
 *  - none: θ_m = base^(−2m/d_rot), divisor 1 (SPEC §7);
 *  - pi (position interpolation, Chen et al. 2023): the same θ_m, divisor s;
 *  - ntk (NTK-aware base scaling): θ_m = base'^(−2m/d_rot), base' = base·s^(d_rot/(d_rot−2)),
 *    divisor 1 (d_rot >= 4; validate() refuses ntk at d_rot = 2).
 * Every engine computes its angles through this, in double.
 */
struct RopeFrequencies {
    std::vector<double> theta;    ///< θ_m (or θ'_m), d_rot/2 entries
    double positionDivisor = 1.0; ///< s for pi, else 1
    double angle(double position, int m) const {
        return (position / positionDivisor) * theta[static_cast<std::size_t>(m)];
    }
};
RopeFrequencies ropeFrequencies(double base, int dRot, RopeScaling scaling = RopeScaling::None,
                                double scale = 1.0);
/** The frequencies of p (p.base, p.ropeRotatedDims(), p.ropeScaling, p.ropeScale). */
RopeFrequencies ropeFrequencies(const Params& p);
/** NTK-aware base base·s^(d_rot/(d_rot−2)), d_rot >= 4. */
double ropeNtkBase(double base, int dRot, double scale);

/**
 * RoPE in place on the rows of x [n, d_h]: row r is at absolute position positions[r],
 * rotated by f.angle(positions[r], m); pairs per `conv`; features [d_rot, d_h) pass through
 * (d_rot = 2·f.theta.size()). SPEC §7.
 */
void applyRope(Eigen::Ref<Eigen::MatrixXd> x, const std::vector<double>& positions,
               const RopeFrequencies& f, RopeConvention conv);
/** Unscaled RoPE: θ_m = base^(−2m/d_rot). */
void applyRope(Eigen::Ref<Eigen::MatrixXd> x, const std::vector<double>& positions, double base,
               RopeConvention conv, int dRot);

/**
 * Fourier features of the mlp encoding, φ [n, 2F] for positions start … start + n − 1:
 * φ(p)[2k] = sin(p·ω_k), φ(p)[2k+1] = cos(p·ω_k), ω_k = base^(−k/F), k < F (angles in double).
 */
Eigen::MatrixXd mlpFourierFeatures(int n, int features, double base = 10000.0, double start = 0.0);

/** Exact GELU, 0.5·x·(1 + erf(x/√2)). */
double gelu(double x);

/**
 * The mlp encoding P [n, d] (row-vector convention): P = GELU(φ·W1 + b1)·W2 + b2 with φ from
 * mlpFourierFeatures. W1 [2F, H], b1 [1, H], W2 [H, d], b2 [1, d]; computed in double.
 */
Eigen::MatrixXd mlpEncoding(int n, int features, double base, const Eigen::MatrixXd& W1,
                            const Eigen::MatrixXd& b1, const Eigen::MatrixXd& W2,
                            const Eigen::MatrixXd& b2, double start = 0.0);

} // namespace pe
