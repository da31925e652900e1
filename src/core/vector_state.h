// SPDX-License-Identifier: MIT
#pragma once

/**
 * The upper halves of the AVX registers, and the SSE code that runs after them.
 *
 * On Intel CPUs since Skylake, while the upper 128 bits of any of ymm0–ymm15 are not zero (after
 * 256- or 512-bit code that returns without VZEROUPPER), every legacy-SSE instruction carries a
 * dependency on the whole register it writes: scalar double code compiled for the x86-64
 * baseline (SSE2) runs several times slower until the next VZEROUPPER. Qt 6.4's AVX2 solid fills
 * (QImage::fill, QPainter::fillRect, lines) return in that state, so on the GUI thread, after
 * any paint, the probe of the Stepper tab took 430 ms instead of 75 (2.4 million normal
 * variates), 6–9 times its time on a clean thread. Threads that never run such code (the
 * workers) are unaffected; AMD's cores carry no such penalty.
 */

namespace pe {

/**
 * VZEROUPPER where the CPU has AVX (nothing elsewhere): the SSE code that follows runs at its
 * own speed. A call, so no caller holds 256-bit values across it (the ABI saves no vector
 * register); a few cycles.
 */
void clearUpperVectorState();

/**
 * Whether the upper halves of ymm0–ymm15 (or zmm0–zmm15) are in use now, as XGETBV(1) reports
 * it; false where the CPU cannot say (no AVX, no XGETBV with ECX = 1). For tests and diagnostics.
 */
bool upperVectorStateDirty();

/** Whether upperVectorStateDirty() can tell on this CPU. */
bool upperVectorStateKnown();

} // namespace pe
