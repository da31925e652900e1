// SPDX-License-Identifier: MIT
#include "vector_state.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

#include <cstdint>

namespace pe {

namespace {

bool hasAvx() {
    static const bool avx = __builtin_cpu_supports("avx");
    return avx;
}

/** XGETBV with ECX = 1 (the XINUSE bitmap): CPUID.(EAX=0DH, ECX=1):EAX bit 2. */
bool hasXinuse() {
    static const bool known = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!hasAvx() || __get_cpuid_max(0, nullptr) < 0xD)
            return false;
        __cpuid_count(0xD, 1, a, b, c, d);
        return (a & (1u << 2)) != 0;
    }();
    return known;
}

__attribute__((target("avx"))) void zeroUpper() {
    __builtin_ia32_vzeroupper();
}

} // namespace

void clearUpperVectorState() {
    if (hasAvx())
        zeroUpper();
}

bool upperVectorStateKnown() {
    return hasXinuse();
}

bool upperVectorStateDirty() {
    if (!hasXinuse())
        return false;
    std::uint32_t lo = 0, hi = 0;
    asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    // Bit 2: the upper halves of ymm0–15 (AVX); bit 6: bits 511:256 of zmm0–15 (ZMM_Hi256).
    return (lo & ((1u << 2) | (1u << 6))) != 0;
}

} // namespace pe

#else

namespace pe {

void clearUpperVectorState() {}
bool upperVectorStateKnown() {
    return false;
}
bool upperVectorStateDirty() {
    return false;
}

} // namespace pe

#endif
