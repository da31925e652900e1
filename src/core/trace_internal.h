// SPDX-License-Identifier: MIT
#pragma once

#include "trace.h"

namespace pe {

/**
 * The forward pass on an already assembled sequence (special rows included). With
 * addPosition = false an absolute scheme's P is zero (later layers of a stack).
 */
Expected<Trace> computeTraceFromSequence(const Params& p, const Weights& w,
                                         const Eigen::MatrixXd& Efull, bool addPosition,
                                         const std::atomic<bool>* cancel = nullptr);

} // namespace pe
