// SPDX-License-Identifier: MIT
#pragma once

/**
 * An absolute scheme's logits split into their four terms for the window's Logit terms tab and
 * `render`: X = E + P, so q_i·k_j = (e_i + p_i) W_q · (e_j + p_j) W_k = e·e + e·p + p·e + p·p
 * (absoluteTerms()). The trace holds E, P, Q and K but not W_q and W_k: the worker and render
 * attach those (Trace::queryKey). One head at a time, on the engine's float products.
 */

#include <optional>

#include "stages.h" // canSplitLogits, absoluteTerms, StageMat
#include "trace.h"

namespace pe {

/**
 * Head `head`'s four terms, each a [1, n, n] tensor named as absoluteTerms() names it ("ee",
 * "ep", "pe", "pp"), scaled as the logits (1/√d_h) and without the mask, in the trace's float
 * type; their sum is the head's logits before the mask. An empty trace where canSplitLogits is
 * false or the head does not exist.
 */
Trace splitLogits(const Trace& t, int head);

/** Whether splitLogitsInto(t, ·, out) writes into out's own tensors (the same n and type). */
bool splitFits(const Trace& t, const Trace& out);

/**
 * splitLogits into `out`: where splitFits, its tensors are written over in place (the same
 * Tensor objects: views that show them keep valid pointers; 64 MB of fresh pages at n = 2048
 * took longer than the products), else they are replaced.
 */
void splitLogitsInto(const Trace& t, int head, Trace& out);

/**
 * The position part of head `head`'s logits, [n, n]: the sum of its position terms, as the
 * Logit terms tab shows them: an absolute scheme's e·p + p·e + p·p (its four terms here, on the
 * engine's products); T5's, ALiBi's and URPE's T5 bias; Shaw's k-term; Transformer-XL's
 * (b)+(d); DeBERTa's c2p + p2c; RoPE's change by the rotation; zeros for scheme none and for
 * URPE without a bias (its positions multiply the weights, ⊙C). −∞ where the logits are masked.
 * Empty where the trace lacks what it takes: a pooled trace (no n × n logits), an absolute one
 * without its W_q and W_k (Trace::queryKey), a head that does not exist.
 */
std::optional<StageMat> positionPart(const Trace& t, int head);

/**
 * Whether splitting one head of the logits of a trace with parameters p (splitLogits) is long
 * enough to take a thread of a pool rather than a GUI thread's time: n²·d_h of 2^26 and more
 * (n = 2,048 at d_h = 32: 16 ms alone and 46–48 ms of the GUI thread's render time a change on
 * a two-core host, beside the engine; 190 ms at d_h = 256). Off the GUI thread the Logit terms
 * tab drew as soon at n = 2,048 and d_h = 32 (p50 101–106 against 105–106 ms).
 */
bool splitTakesLong(const Params& p);

/** The same for positionPart of one head: the products of an absolute scheme's split, RoPE's
 *  content term or URPE's terms (splitTakesLong's size), or for any scheme an n × n term of
 *  2^20 cells and more (its sums and copies in doubles). */
bool positionPartTakesLong(const Params& p);

} // namespace pe
