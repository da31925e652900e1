// SPDX-License-Identifier: MIT
#pragma once

namespace pe {

/**
 * Sets glibc's allocator up for a long interactive session (call once, first thing in main).
 * By default glibc raises its mmap threshold up to 32 MB each time a large block is freed, so
 * later trace-sized buffers (weights, embeddings, heat-map grids, GL staging: hundreds of KB to
 * tens of MB) come from its arenas, and what is freed there stays resident: the GUI soak
 * (bench/soak) saw 150–250 MB kept this way after a few hundred actions and growing. A fixed
 * threshold of 256 KB and a 1 MB trim threshold hand such blocks back when they are freed.
 * No effect without glibc.
 */
void tuneAllocatorForLongSessions();

} // namespace pe
