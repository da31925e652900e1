// SPDX-License-Identifier: MIT
#pragma once

/**
 * The attention pipeline as a strip of stages, for the stepper: tokens → E → +P → X → Q, K, V
 * per head → rotation → logits (content and position terms) → mask → normaliser → ⊙C → ·V
 * (+ value term) → head outputs → concat → W_O → output.
 *
 * Every stage exists for every scheme (a stage the scheme does not use passes its input through
 * and says so), so a reader can always step to it. stageMatrices() takes what a stage shows from
 * a Trace; what the trace does not hold is derived from it: the unrotated Q/K of RoPE (rotating
 * back by −p), the content part of the logits (Q Kᵀ, scaled as the scheme scales it), the
 * visibility mask, the weights before URPE's ⊙C (the normaliser applied to the trace's logits),
 * A·V, the concatenation of the heads. Matrices are [rows, cols] in double; masked logits keep −∞.
 */

#include <Eigen/Core>
#include <string>
#include <vector>

#include "params.h"
#include "trace.h"

namespace pe {

/** Matrices of the stages are row-major, like the trace's tensors: slicing a head is a copy. */
using StageMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class StageId {
    Tokens,
    Embed,
    AddPosition,
    Input,
    Project,
    Rotate,
    Logits,
    Mask,
    Normalise,
    PostMultiply,
    Values,
    HeadOutputs,
    Concat,
    OutputProjection,
    Output
};
inline constexpr int kStageCount = 15;

struct StageInfo {
    StageId id = StageId::Tokens;
    std::string key;             ///< short label for the strip, e.g. "+P", "Q K V", "⊙C"
    std::string title;           ///< one line, e.g. "Add the position encoding P"
    std::string formula;         ///< this stage's formula for the scheme (Unicode text)
    std::string note;            ///< what happens here for this scheme, in a sentence
    bool applies = true;         ///< false: the scheme passes its input through unchanged here
    bool positionEnters = false; ///< a position signal enters the computation at this stage
};

/** All kStageCount stages in pipeline order, described for these parameters. */
std::vector<StageInfo> stageList(const Params& p);
/** Short stable name of a stage ("tokens", "E", "P", "X", "QKV", "rotate", "logits", …). */
std::string stageName(StageId id);

/** Which way a matrix axis runs, for labels: token positions, features, or the vocabulary
 *  (the distinct tokens, named in StageMatrix::colLabels). */
enum class StageAxis { Position, Feature, Vocabulary };

struct StageMatrix {
    std::string name;          ///< file-safe name, e.g. "Q", "content", "c2p", "mask"
    std::string title;         ///< e.g. "queries Q, head 1 (before rotation)"
    std::string traceName;     ///< the trace tensor this equals ("" = derived from the trace)
    bool perHead = false;      ///< traceName is [heads, …] and this is head `head`'s slice
    bool positionTerm = false; ///< a position term of the logits (Logits stage)
    /// A logit term's short name for a legend: "e·p", "c2p", "(b)+(d)", "content", "position",
    /// "rotation" (empty for other matrices).
    std::string label;
    StageAxis rows = StageAxis::Position;
    StageAxis cols = StageAxis::Position;
    std::vector<std::string> colLabels; ///< for StageAxis::Vocabulary columns
    StageMat values;
};

/**
 * The matrices shown at stage `id` for head `head` of `t`. `Wo` [d, d], if given, is shown at the
 * W_O stage (the trace does not hold weights). Stages a scheme does not use return what passes
 * through (or nothing, for +P, rotation and ⊙C).
 */
std::vector<StageMatrix> stageMatrices(const Trace& t, StageId id, int head,
                                       const Eigen::MatrixXd* Wo = nullptr);
/**
 * The flops stageMatrices(t, id, …) spends on products beyond slicing the trace's tensors: the
 * Logits stage's terms (logitTerms: an absolute scheme's four by W_q's and W_k's head columns,
 * 8·n·d·d_h + 8·n²·d_h; RoPE's logits with and without the rotation, 4·n²·d_h); else 0.
 */
double stageFlops(const Trace& t, StageId id);

/** Visibility [N, N]: 1 where key j is visible to query i (causal mask, valid length), else 0. */
StageMat visibilityMask(const Params& p);

/** One of the four terms of an absolute scheme's logits: (e_i or p_i) W_q · (e_j or p_j) W_k. */
struct AbsoluteTerm {
    const char* name;   ///< "ee", "ep", "pe", "pp"
    const char* title;  ///< e.g. "e·p content→position": (e_i W_q)·(p_j W_k) / √d_h
    const char* label;  ///< "e·e", "e·p", "p·e", "p·p"
    bool queryPosition; ///< p_i (else e_i) on the query side
    bool keyPosition;   ///< p_j (else e_j) on the key side
};
/** The four terms, content→content first. */
const std::vector<AbsoluteTerm>& absoluteTerms();
/**
 * Whether `t`'s logits split into the four terms: an absolute scheme's trace with E and P and
 * the W_q, W_k it was computed with (Trace::queryKey), all of the trace's width.
 */
bool canSplitLogits(const Trace& t);

/**
 * The logits of head `head` before the mask, split into terms whose sum is the logits:
 * content term(s) first (positionTerm = false), then position term(s). RoPE splits into the
 * unrotated q·k and the change the rotation makes; an absolute scheme (X = E + P) into e·e, e·p,
 * p·e and p·p where canSplitLogits.
 */
std::vector<StageMatrix> logitTerms(const Trace& t, int head);

/**
 * Row `row` of each of logitTerms(t, head), as 1 × n matrices (names, titles and flags as
 * there). An absolute scheme's four terms are computed for that row alone: e_i W_q W_kᵀ Eᵀ
 * costs n·d, where the whole terms cost n²·d_h (the stepper's focus plot, on the GUI thread).
 */
std::vector<StageMatrix> logitTermsRow(const Trace& t, int head, int row);

/** RoPE's `name` ("Q" or "K") of head `head` turned back: each row rotated by −i, as before the
 *  rotation. */
StageMat unrotated(const Trace& t, const char* name, int head);

/** A head slice [rows, cols] of a [heads, rows, cols] tensor (or the [rows, cols] tensor). */
StageMat headSlice(const Tensor& t, int head);
/** Row `row` of head `head` of `t` (as headSlice(t, head).row(row), without the slice). */
std::vector<double> headRow(const Tensor& t, int head, int row);

/** Largest sequence the stepper steps through (derived n×n matrices are held in double). */
inline constexpr int kMaxStepperPositions = 1024;

/** Why the probe (SPEC §12) comes out as it does for these parameters, in a sentence. */
std::string probeReason(const Params& p, bool canTellApart, bool shawValues = true);

} // namespace pe
