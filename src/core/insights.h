// SPDX-License-Identifier: MIT
#pragma once

/**
 * The "why" pages (docs/insights.md): the numbers behind the d2l chapter's arguments, computed
 * in double from the parameters. Each page is one function returning a result struct with every
 * number and curve the page plots; errors are values whose message names the option at fault in
 * the CLI's spelling (e.g. "--delta 40 must be below n = 32").
 *
 *   binary   – bits of positions 0…N−1 beside the sinusoid ladder ω_j and its periods 2π/ω_j.
 *   offset   – the linear map M_δ with P[i+δ] = M_δ·P[i] (exact for sinusoids, least squares for
 *              any other table), and the Toeplitz (relative) property of P·Pᵀ and of RoPE's q·k.
 *   cost     – FLOPs, sequential operations and maximum path length of a CNN, an RNN and
 *              self-attention (exact integer formulas, see CostRow).
 *   distance – mean attention weight and mean position term against the offset j − i; ALiBi
 *              slopes, T5 bucket boundaries, RoPE's long-term decay.
 *   depth    – L stacked layers with their own seeded weights: effective rank, uniformity
 *              residual, attention entropy and a linear position probe per layer.
 *
 * N = p.seqLen() (n plus special tokens) throughout. Offsets r = j − i run over
 * [−(N−1), N−1] and are stored at index r + N − 1 of a [2N − 1] vector.
 */

#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "expected.h"
#include "params.h"
#include "trace.h"
#include "weights.h"

namespace pe {

/** The pages, in the order the window lists them. */
enum class InsightPage { Binary, Offset, Cost, Distance, Depth };
std::string_view toString(InsightPage page);
std::optional<InsightPage> insightPageFromString(std::string_view s);
const std::vector<InsightPage>& allInsightPages();

/** Progress of a long computation: `done` of `total` steps (layers, schemes, heads). */
using InsightProgress = std::function<void(int done, int total)>;

/**
 * One attention layer forward: the same contract as computeTrace (Params, complete Weights,
 * cancel flag). Core's default is computeTrace itself (exact, single-threaded); the compute
 * library offers the fast CPU engine (insights_engine.h).
 */
using LayerForward =
    std::function<Expected<Trace>(const Params&, const Weights&, const std::atomic<bool>*)>;
/** computeTrace as a LayerForward. */
LayerForward referenceLayerForward();

// ---------------------------------------------------------------------------------------------
// binary
// ---------------------------------------------------------------------------------------------

/**
 * The binary-digits analogy (d2l, "Absolute Positional Information").
 * bits(i, b) = ⌊i / 2^b⌋ mod 2 for i < N, b < B = max(1, ⌈log2 N⌉) (lowest bit first);
 * bit b has period 2^(b+1). The sinusoids of p.layout have frequencies omega (interleaved and
 * concat: ω_j = base^(−2j/d); t2t: its own ladder exp(−j·ln(base)/max(K−1, 1)), SPEC §1), one
 * per sin/cos pair (interleaved with odd d: the lone last sine counts as a pair), periods 2π/ω_j.
 * Works for every scheme: it shows the sinusoidal table of p's n, d, base and layout.
 */
struct BinaryInsight {
    int positions = 0;                                                ///< N
    int bitCount = 0;                                                 ///< B
    Eigen::Matrix<std::int32_t, Eigen::Dynamic, Eigen::Dynamic> bits; ///< [N, B], 0 or 1
    Eigen::VectorXd bitPeriod;                                        ///< [B], 2^(b+1)
    Eigen::VectorXd omega;  ///< [K], K = number of frequencies in the table (d/2 for even d)
    Eigen::VectorXd period; ///< [K], 2π/ω_j
    Eigen::MatrixXd P;      ///< [N, d], sinusoidal(N, d, base, layout)
};
Expected<BinaryInsight> binaryInsight(const Params& p);

// ---------------------------------------------------------------------------------------------
// offset
// ---------------------------------------------------------------------------------------------

enum class OffsetMethod { Exact, LeastSquares };
std::string_view toString(OffsetMethod m); ///< "exact", "least_squares"

struct OffsetOptions {
    int delta = 1; ///< δ, 1 ≤ δ < N
    /** A user-loaded table [rows, d] examined instead of the scheme's P (least squares); empty:
     *  the scheme's own P. N becomes its row count. */
    Eigen::MatrixXd table;
};

/**
 * The relative-position argument (d2l, "Relative Positional Information").
 *
 * Which P: sinusoidal → sinusoidal(N, d, base, layout), M_δ exact: for every frequency pair
 * (sin column s, cos column c; interleaved s = 2j, c = 2j+1; concat and t2t s = j, c = j + K)
 * M[s,s] = M[c,c] = cos δω_j, M[s,c] = sin δω_j, M[c,s] = −sin δω_j; t2t's zero column for odd d
 * maps to 0; interleaved with odd d has a lone sine and is refused (--d). Other absolute schemes
 * (learned, mlp, …) and a user table → least squares, Mᵀ = argmin ‖P[δ:] − P[:−δ]Mᵀ‖_F
 * (minimum-norm solution; with N − δ ≤ d every table fits exactly: `underdetermined`).
 * RoPE → "P" is R_i·u, the rotation of p's convention (per head, rotated dims, base) applied to
 * u = (1,…,1)/√d, and M_δ = R_δ exactly; ropeDeviation checks that the rotated q·k depends only
 * on m − n. Any other scheme (none, shaw, txl, t5, deberta, alibi, urpe) has no P: an error.
 *
 * In float32 (p.precision) P is rounded to float first, as the engines hold it; all arithmetic
 * is in double. residual = P[δ:] − P[:−δ]Mᵀ (row i holds P[i+δ] − M_δ·P[i]).
 */
struct OffsetInsight {
    int delta = 0;
    OffsetMethod method = OffsetMethod::Exact;
    std::string source;           ///< what P is, e.g. "sinusoidal (interleaved)", "learned table"
    bool underdetermined = false; ///< least squares with N − δ ≤ d: any table fits
    Eigen::MatrixXd P;            ///< [N, d]
    Eigen::MatrixXd M;            ///< [d, d], P[i+δ] ≈ M·P[i] (column vectors)
    Eigen::MatrixXd shifted;      ///< [N − δ, d], P[δ:]
    Eigen::MatrixXd predicted;    ///< [N − δ, d], P[:−δ]·Mᵀ
    Eigen::MatrixXd residual;     ///< [N − δ, d], shifted − predicted
    Eigen::VectorXd rowResidual;  ///< [N − δ], ‖residual row i‖₂
    double maxAbsResidual = 0;    ///< max |residual|
    double relativeResidual = 0;  ///< ‖residual‖_F / ‖P[δ:]‖_F
    /** P·Pᵀ per diagonal r = j − i (index r + N − 1): mean of the diagonal, and the largest
     *  |G_ij − mean| on it. */
    Eigen::VectorXd gramDiagonalMean;  ///< [2N − 1]
    Eigen::VectorXd toeplitzDeviation; ///< [2N − 1]
    double toeplitzMaxDeviation = 0;   ///< max of toeplitzDeviation
    double gramMaxAbs = 0;             ///< max |G_ij|, to read the deviation against
    /** RoPE only: S_mn = (R_m q)·(R_n k) for seeded q, k ∈ R^{d_h} (head 0's rotation);
     *  largest |S_mn − mean of its diagonal| per diagonal, and its max. Empty otherwise. */
    Eigen::VectorXd ropeDeviation; ///< [2N − 1]
    double ropeMaxDeviation = 0;
};

/** True when the offset page applies to p (a P to examine, or RoPE's rotation). */
bool offsetApplies(const Params& p);
/**
 * The offset page. `w` supplies a given learned table (or other weights); missing ones are
 * generated from p.seed. Errors: "--delta D must be at least 1", "--delta D must be below
 * n = N", "--scheme S has no position table P for the offset page (…)", odd d (interleaved).
 * `cancel` is polled between the row blocks of the Gram matrices (Error{"cancelled"}).
 */
Expected<OffsetInsight> offsetInsight(const Params& p, const OffsetOptions& o,
                                      const Weights* w = nullptr,
                                      const std::atomic<bool>* cancel = nullptr);

// ---------------------------------------------------------------------------------------------
// cost
// ---------------------------------------------------------------------------------------------

/**
 * One row of the d2l comparison for n tokens of width d (a multiply-add counts as 2 FLOPs):
 *   CNN (kernel k, d → d channels, padding omitted): 2·k·n·d²
 *   RNN (h_t = W h_{t−1}, the d×d multiply only):     2·n·d²
 *   self-attention (Q·Kᵀ and A·V, n·n·d each):        4·n²·d
 * projections, softmax and biases are not counted. Sequential operations: 1, n, 1. Maximum path
 * length (layers between the farthest positions): ⌈(n−1)/(k−1)⌉, n − 1, 1 (0 for n = 1).
 */
struct CostRow {
    std::int64_t n = 0;
    std::int64_t cnnFlops = 0, rnnFlops = 0, attentionFlops = 0;
    std::int64_t cnnSequential = 0, rnnSequential = 0, attentionSequential = 0;
    std::int64_t cnnPath = 0, rnnPath = 0, attentionPath = 0;
};
CostRow costRow(std::int64_t n, std::int64_t d, std::int64_t k);

struct CostOptions {
    int kernel = 3;   ///< k ≥ 2 (--kernel)
    int nMax = 16384; ///< rows n = 1, 2, 4, …, up to nMax (--n-max, 1 … 2^20)
};

struct CostInsight {
    int d = 0, kernel = 0;
    std::vector<CostRow> rows; ///< n = 2^0 … 2^⌊log2 nMax⌋
    /** Where the FLOP curves cross (real n): attention = RNN at n = d/2, attention = CNN at
     *  n = k·d/2; the CNN never drops below the RNN (k ≥ 2). */
    double attentionRnnCrossover = 0;
    double attentionCnnCrossover = 0;
};
/** The cost page for p.d; errors name --kernel, --n-max, --d. */
Expected<CostInsight> costInsight(const Params& p, const CostOptions& o);

/** Least-squares slope of log y against log x over the points with x ≥ xMin (the exponent of
 *  y ∝ x^a); NaN when fewer than two points qualify or a value is not positive. */
double fitPowerLawExponent(const std::vector<double>& x, const std::vector<double>& y,
                           double xMin = 0);

// ---------------------------------------------------------------------------------------------
// distance
// ---------------------------------------------------------------------------------------------

/**
 * How attention and the position signal depend on the offset r = j − i.
 *
 * weightProfile(h, r + N − 1) = mean over query rows i with 0 ≤ i + r < N of A_h[i, i + r]
 * (masked cells excluded; NaN where no cell qualifies). positionProfile likewise of the
 * position term, defined per scheme as the part of the logits the position scheme puts there:
 * t5, alibi: the bias; shaw: shaw_k_term; txl: txl_bd; deberta: c2p + p2c; urpe: its T5 bias (0
 * without one; URPE's ⊙C multiplies the weights, it is not a logit term); rope: rotated minus
 * unrotated q·k/√d_h (stages.h logitTerms); absolute schemes (sinusoidal, learned, mlp): logits
 * of X = E + P minus logits of E alone (same weights); none: 0.
 *
 * alibiSlopes (alibi), t5BucketStart (t5 and urpe with t5 bias: the smallest |r| of every
 * bucket, from t5Bucket) are filled where the scheme has them. ropeDecay is computed for every
 * scheme (its d_h, base): ropeDecay[r] = (1/K)·Σ_{j=1}^{K} |S_j(r)|, K = d_rot/2,
 * S_j(r) = Σ_{k=0}^{j−1} e^{i r θ_k}, θ_k = base^(−2k/d_rot): RoFormer §3.4.3's
 * (2/d)·Σ|S_j| with d = d_rot. At r = 0 every S_j = j, so ropeDecay[0] = (K+1)/2.
 */
struct DistanceInsight {
    Scheme scheme = Scheme::None;
    int positions = 0;                   ///< N
    std::string positionTermName;        ///< e.g. "bias", "logits(E+P) − logits(E)"
    Eigen::MatrixXd weightProfile;       ///< [heads, 2N − 1]
    Eigen::VectorXd weightProfileMean;   ///< [2N − 1], mean over heads
    Eigen::MatrixXd positionProfile;     ///< [heads, 2N − 1]
    Eigen::VectorXd positionProfileMean; ///< [2N − 1]
    Eigen::VectorXd alibiSlopes;         ///< [heads] (alibi), else empty
    std::vector<int> t5BucketStart;      ///< (t5) smallest |r| of each bucket reached, ascending
    Eigen::VectorXd ropeDecay;           ///< [N], r = 0 … N − 1
};

/** RoFormer's relative upper bound (see DistanceInsight::ropeDecay) for r = 0 … count − 1. */
Eigen::VectorXd ropeDecayCurve(int count, int dRot, double base);

/**
 * The distance page for p's scheme: one forward pass through `forward` (the position-free
 * logits that absolute schemes and RoPE subtract are (E W_q)(E W_k)ᵀ/√d_h per head, in double),
 * with `w` (missing weights generated from p.seed; E from the seed when empty). `cancel` is polled
 * between heads; a cancelled run returns Error{"cancelled"}.
 */
Expected<DistanceInsight> distanceInsight(const Params& p, const Weights* w = nullptr,
                                          const LayerForward& forward = referenceLayerForward(),
                                          const InsightProgress& progress = {},
                                          const std::atomic<bool>* cancel = nullptr);

// ---------------------------------------------------------------------------------------------
// depth
// ---------------------------------------------------------------------------------------------

enum class DepthNorm { None, LayerNorm, RmsNorm };
std::string_view toString(DepthNorm n); ///< "none", "layernorm", "rmsnorm"
std::optional<DepthNorm> depthNormFromString(std::string_view s);

inline constexpr int kMaxDepthLayers = 32;

struct DepthOptions {
    int layers = 12;      ///< L, 1 … kMaxDepthLayers (--layers)
    bool residual = true; ///< X ← X + f(X) instead of X ← f(X) (--residual/--no-residual)
    DepthNorm norm = DepthNorm::None; ///< pre-norm before attention and MLP (--depth-norm)
    bool mlp = false;                 ///< a ReLU MLP d → 4d → d after attention (--mlp)
};

/**
 * Numbers of one layer's output X [N, d] (layer 0 = the input E + P):
 *   effectiveRank      exp(−Σ p_k ln p_k), p_k = σ_k / Σσ (singular values of X);
 *   uniformityResidual ‖X − 1·x̄ᵀ‖_F / ‖X‖_F, x̄ the mean row (0 when X = 0);
 *   attentionEntropy   mean over heads and query rows of −Σ_j a_ij ln a_ij, a row normalised to
 *                      sum 1 over its visible keys (NaN for layer 0 and rows summing to 0);
 *   positionR2         R² of the least-squares fit i ≈ X_i·β + c over all rows;
 *   positionR2Heldout  the probe fitted on even positions with a small ridge penalty
 *                      (λ = 1e-3·‖A‖_F²/(d+1), A = [X_even 1]), R² on the odd positions (it can be
 *                      < 0; with N ≤ d + 1 the in-sample fit is exact, this one is not).
 */
struct DepthLayer {
    int layer = 0;
    double effectiveRank = 0;
    double uniformityResidual = 0;
    double attentionEntropy = 0;
    double positionR2 = 0;
    double positionR2Heldout = 0;
};

/**
 * Stacks L layers. Layer l (1-based) has its own weights: completeWeights with seed
 * depthLayerSeed(p.seed, l) (layer 1 = p.seed, the trace's own weights). Layer 1 sees p as given
 * (E, special tokens, absolute P added once); later layers see the previous output as E with
 * n = N, no special tokens and, for absolute schemes, no P (relative schemes act in every layer).
 * One layer: H = norm(X); X ← (residual ? X : 0) + Attn(H); with mlp, H = norm(X);
 * X ← (residual ? X : 0) + relu(H W1) W2, W1 [d, 4d] and W2 [4d, d] seeded N(0, 1/fan_in).
 * Norms have no gain or bias (LayerNorm ε = 1e-5, RMSNorm ε = 1e-6).
 */
struct DepthInsight {
    DepthOptions options;
    std::vector<DepthLayer> layers; ///< layer 0 (the input) … L
};
std::uint64_t depthLayerSeed(std::uint64_t seed, int layer);

/** The numbers of DepthLayer for one X (attention weights, [heads, N, N], optional). */
DepthLayer depthLayerStats(const Eigen::MatrixXd& X, const Tensor* weights = nullptr);

/** Errors: "--layers L must be between 1 and 32". `progress` counts layers. */
Expected<DepthInsight> depthInsight(const Params& p, const DepthOptions& o,
                                    const Weights* w = nullptr,
                                    const LayerForward& forward = referenceLayerForward(),
                                    const InsightProgress& progress = {},
                                    const std::atomic<bool>* cancel = nullptr);

} // namespace pe
