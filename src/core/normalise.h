// SPDX-License-Identifier: MIT
#pragma once

/**
 * Attention normalisers, SPEC §10, one row at a time. A masked logit is −inf; its weight is
 * exactly 0 under every normaliser, and a row with no visible key gives all zeros.
 *   softmax        e^{s_j − max} / Σ e^{s − max}
 *   exp            e^{s_j}
 *   l2             e^{s_j − max} / √(Σ e^{2(s − max)})
 *   relu2          relu(s_j)² / n_k            (n_k = key columns, padding included)
 *   relu2_visible  relu(s_j)² / #visible keys
 */

#include "params.h"

namespace pe {

template <typename T> void normaliseRow(const T* logits, T* out, int nKeys, Normaliser kind);

extern template void normaliseRow<float>(const float*, float*, int, Normaliser);
extern template void normaliseRow<double>(const double*, double*, int, Normaliser);

} // namespace pe
