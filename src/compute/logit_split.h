// SPDX-License-Identifier: MIT
#pragma once

/**
 * An absolute scheme's logits split into their four terms for the window's Logit terms tab and
 * `render`: X = E + P, so q_i·k_j = (e_i + p_i) W_q · (e_j + p_j) W_k = e·e + e·p + p·e + p·p
 * (absoluteTerms()). The trace holds E, P, Q and K but not W_q and W_k: the worker and render
 * attach those (Trace::queryKey). One head at a time, on the engine's float products.
 */

#include "stages.h" // canSplitLogits, absoluteTerms
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

} // namespace pe
