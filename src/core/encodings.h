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

/** Transformer-XL relative sinusoid R_t = [sin(t ω) | cos(t ω)], ω_m = 10000^(−2m/d), SPEC §4. */
Eigen::RowVectorXd txlRelativeSinusoid(double t, int d);

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
 * RoPE in place on the rows of x [n, d_h]: row r is at absolute position positions[r].
 * θ_m = base^(−2m/d_rot); pairs per `conv`; features [d_rot, d_h) pass through. SPEC §7.
 */
void applyRope(Eigen::Ref<Eigen::MatrixXd> x, const std::vector<double>& positions, double base,
               RopeConvention conv, int dRot);

} // namespace pe
