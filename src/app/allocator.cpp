// SPDX-License-Identifier: MIT
#include "allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pe {

void tuneAllocatorForLongSessions() {
#if defined(__GLIBC__)
    // Setting either also turns off glibc's dynamic adjustment of both.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
#endif
}

} // namespace pe
