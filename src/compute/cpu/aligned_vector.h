// SPDX-License-Identifier: MIT
#pragma once

/**
 * std::vector whose storage starts on a 64-byte boundary: a cache line, and one AVX-512 vector.
 * glibc's malloc aligns to 16 bytes (a fresh mapping's block starts 16 bytes past its page), so
 * a float buffer's 64-byte loads and stores each straddle two cache lines there: a split load or
 * store, which on Intel's AVX-512 cores costs about two accesses, on every vector of the n² pass.
 */

#include <cstddef>
#include <new>
#include <vector>

namespace pe {

template <class T> struct CacheLineAllocator {
    using value_type = T;
    static constexpr std::align_val_t kAlign{64};
    CacheLineAllocator() noexcept = default;
    template <class U> CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
    void deallocate(T* p, std::size_t n) noexcept { ::operator delete(p, n * sizeof(T), kAlign); }
    template <class U> bool operator==(const CacheLineAllocator<U>&) const noexcept { return true; }
};

/** A vector of T that starts on a cache line. */
template <class T> using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

} // namespace pe
