// SPDX-License-Identifier: MIT
#pragma once

namespace pe {

/**
 * Sets glibc's allocator up for a long interactive session (call once, first thing in main).
 * By default glibc raises its mmap threshold up to 32 MB each time a large block is freed, so
 * later trace-sized buffers (weights, embeddings, heat-map grids, GL staging: hundreds of KB to
 * tens of MB) come from its arenas, and what is freed there stays resident: the GUI soak
 * (bench/soak) saw 150–250 MB kept this way after a few hundred actions and growing. A fixed
 * threshold of 4 MB hands the large blocks back when they are freed, trimMemoryWhenIdle the
 * smaller ones' free pages once the window is quiet, and two arenas (instead of 8 per core) keep
 * the threads' free fragments in fewer places. (A 256 KB threshold, until 2026-11-26, made
 * every block of an interactive change at n = 512 fresh zero-filled pages: 3–5 ms of CPU per
 * change; the short soak's growth measured the same with either. The trim threshold, 1 MB
 * until 2026-11-27, is 8 MB: with 1 MB the heap's top went back to the system at each free
 * and the next change faulted it in again.)
 * No effect without glibc.
 */
void tuneAllocatorForLongSessions();

/**
 * Asks for the free memory of malloc's arenas to go back to the system once the window has been
 * quiet for kTrimAfterMs: each call (a result shown, a grid made) restarts the wait, so a busy
 * window never trims. Traces, grids and images are freed in fragments that glibc keeps
 * resident otherwise (24 MB at the end of a 10,000-action soak, after the workers' own trim).
 * Call on the GUI thread; no effect without glibc.
 */
void trimMemoryWhenIdle();
inline constexpr int kTrimAfterMs = 2500;

} // namespace pe
