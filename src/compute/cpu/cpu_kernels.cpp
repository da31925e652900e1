// SPDX-License-Identifier: MIT
#include "cpu_kernels.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_kernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "exp_non_positive-inl.h"

HWY_BEFORE_NAMESPACE();
namespace pe {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Normaliser values, as in pe::Normaliser (kept numeric so this file needs no core header).
constexpr int kSoftmax = 0;
constexpr int kExp = 1;
constexpr int kL2 = 2;

/**
 * Calls scalar(j) and vec(j, slot) over [j0, j1): scalar up to the first j where `alignTo + j`
 * lies on a vector boundary (at once when alignTo is null), then vec for each whole vector, then
 * scalar for the tail. vec may then use aligned (streaming) stores at alignTo + j. The whole
 * vectors go four at a time, slot an std::integral_constant 0 … 3 (the last ones, fewer than
 * four, in slot 0), so that a reduction across the row can keep four independent accumulators.
 */
template <class D, class Vec, class Scalar>
HWY_INLINE void ForEachAligned4(D d, int j0, int j1, const float* alignTo, const Vec& vec,
                                const Scalar& scalar) {
    const int L = static_cast<int>(hn::Lanes(d));
    int j = j0;
    if (alignTo) {
        const std::uintptr_t bytes = static_cast<std::uintptr_t>(L) * sizeof(float);
        while (j < j1 && reinterpret_cast<std::uintptr_t>(alignTo + j) % bytes != 0)
            scalar(j++);
    }
    for (; j + 4 * L <= j1; j += 4 * L) {
        vec(j, std::integral_constant<int, 0>());
        vec(j + L, std::integral_constant<int, 1>());
        vec(j + 2 * L, std::integral_constant<int, 2>());
        vec(j + 3 * L, std::integral_constant<int, 3>());
    }
    for (; j + L <= j1; j += L)
        vec(j, std::integral_constant<int, 0>());
    for (; j < j1; ++j)
        scalar(j);
}

/** ForEachAligned4 for a vec(j) that keeps no per-slot state. */
template <class D, class Vec, class Scalar>
HWY_INLINE void ForEachAligned(D d, int j0, int j1, const float* alignTo, const Vec& vec,
                               const Scalar& scalar) {
    ForEachAligned4(
        d, j0, j1, alignTo, [&](int j, auto) { vec(j); }, scalar);
}

void FusedRowImpl(const RowPass& p, const float* dots, float* logits, float* weights,
                  float* logitsOut, float* weightsOut) {
    const hn::ScalableTag<float> d;
    const int n = p.n;
    const int lim = p.limit < 0 ? 0 : (p.limit > n ? n : p.limit);
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();

    // Pass 1: logits (also streamed to logitsOut) and the row maximum, in four running maxima
    // (one alone waits on its own latency at every vector).
    const auto vs = hn::Set(d, p.scale);
    decltype(hn::Zero(d)) vmaxes[4] = {hn::Set(d, kNegInf), hn::Set(d, kNegInf),
                                       hn::Set(d, kNegInf), hn::Set(d, kNegInf)};
    float smax = kNegInf;
    const float* add = p.add;
    auto logitVec = [&](int j, auto slot) {
        const auto x = hn::LoadU(d, dots + j);
        const auto v = add ? hn::MulAdd(x, vs, hn::LoadU(d, add + j)) : hn::Mul(x, vs);
        hn::StoreU(v, d, logits + j);
        if (logitsOut)
            hn::Stream(v, d, logitsOut + j);
        vmaxes[decltype(slot)::value] = hn::Max(vmaxes[decltype(slot)::value], v);
    };
    auto logitScalar = [&](int j) {
        const float v = add ? dots[j] * p.scale + add[j] : dots[j] * p.scale;
        logits[j] = v;
        if (logitsOut)
            logitsOut[j] = v;
        smax = std::fmax(smax, v);
    };
    ForEachAligned4(d, 0, lim, logitsOut, logitVec, logitScalar);
    if (logitsOut) {
        const auto vinf = hn::Set(d, kNegInf);
        ForEachAligned(
            d, lim, n, logitsOut, [&](int j) { hn::Stream(vinf, d, logitsOut + j); },
            [&](int j) { logitsOut[j] = kNegInf; });
    }
    if (logits != weights)
        for (int j = lim; j < n; ++j)
            logits[j] = kNegInf;
    const auto vmax = hn::Max(hn::Max(vmaxes[0], vmaxes[1]), hn::Max(vmaxes[2], vmaxes[3]));
    const float rowMax = std::fmax(smax, hn::GetLane(hn::MaxOfLanes(d, vmax)));

    // Pass 2 (and 3): the normaliser over the visible prefix; the last pass streams the weights.
    const float* post = p.post;
    auto finalVec = [&](int j, auto w) {
        if (post)
            w = hn::Mul(w, hn::LoadU(d, post + j));
        hn::StoreU(w, d, weights + j);
        if (weightsOut)
            hn::Stream(w, d, weightsOut + j);
    };
    auto finalScalar = [&](int j, float w) {
        if (post)
            w *= post[j];
        weights[j] = w;
        if (weightsOut)
            weightsOut[j] = w;
    };
    if (p.norm == kSoftmax || p.norm == kL2) {
        const auto vm = hn::Set(d, rowMax);
        auto vacc = hn::Zero(d);
        float sacc = 0.0f;
        const bool squares = p.norm == kL2;
        ForEachAligned(
            d, 0, lim, nullptr,
            [&](int j) {
                const auto e = ExpNonPositive(d, hn::Sub(hn::LoadU(d, logits + j), vm));
                hn::StoreU(e, d, weights + j);
                vacc = squares ? hn::MulAdd(e, e, vacc) : hn::Add(vacc, e);
            },
            [&](int j) {
                const float e = std::exp(logits[j] - rowMax);
                weights[j] = e;
                sacc += squares ? e * e : e;
            });
        if (lim > 0) {
            const float total = sacc + hn::GetLane(hn::SumOfLanes(d, vacc));
            const float inv = squares ? 1.0f / std::sqrt(total) : 1.0f / total;
            const auto vinv = hn::Set(d, inv);
            ForEachAligned(
                d, 0, lim, weightsOut,
                [&](int j) { finalVec(j, hn::Mul(hn::LoadU(d, weights + j), vinv)); },
                [&](int j) { finalScalar(j, weights[j] * inv); });
        }
    } else if (p.norm == kExp) {
        ForEachAligned(
            d, 0, lim, weightsOut,
            [&](int j) { finalVec(j, hn::Exp(d, hn::LoadU(d, logits + j))); },
            [&](int j) { finalScalar(j, std::exp(logits[j])); });
    } else { // relu2, relu2_visible
        const float inv = p.relu2Denominator > 0.0f ? 1.0f / p.relu2Denominator : 0.0f;
        const auto vinv = hn::Set(d, inv);
        const auto zero = hn::Zero(d);
        ForEachAligned(
            d, 0, lim, weightsOut,
            [&](int j) {
                const auto r = hn::Max(hn::LoadU(d, logits + j), zero);
                finalVec(j, hn::Mul(hn::Mul(r, r), vinv));
            },
            [&](int j) {
                const float r = std::fmax(logits[j], 0.0f);
                finalScalar(j, r * r * inv);
            });
    }
    for (int j = lim; j < n; ++j)
        weights[j] = 0.0f;
    if (weightsOut) {
        const auto zero = hn::Zero(d);
        ForEachAligned(
            d, lim, n, weightsOut, [&](int j) { hn::Stream(zero, d, weightsOut + j); },
            [&](int j) { weightsOut[j] = 0.0f; });
    }
}

template <typename T> void StreamCopyT(T* dst, const T* src, std::size_t n) {
    const hn::ScalableTag<T> d;
    const std::size_t L = hn::Lanes(d);
    const std::uintptr_t align = L * sizeof(T);
    std::size_t j = 0;
    while (j < n && reinterpret_cast<std::uintptr_t>(dst + j) % align != 0) {
        dst[j] = src[j];
        ++j;
    }
    for (; j + L <= n; j += L)
        hn::Stream(hn::LoadU(d, src + j), d, dst + j);
    for (; j < n; ++j)
        dst[j] = src[j];
    hwy::FlushStream();
}

float SumImpl(const float* a, std::size_t n) {
    const hn::ScalableTag<float> d;
    const std::size_t L = hn::Lanes(d);
    auto acc0 = hn::Zero(d), acc1 = hn::Zero(d);
    std::size_t j = 0;
    for (; j + 2 * L <= n; j += 2 * L) {
        acc0 = hn::Add(acc0, hn::LoadU(d, a + j));
        acc1 = hn::Add(acc1, hn::LoadU(d, a + j + L));
    }
    for (; j + L <= n; j += L)
        acc0 = hn::Add(acc0, hn::LoadU(d, a + j));
    float s = hn::GetLane(hn::SumOfLanes(d, hn::Add(acc0, acc1)));
    for (; j < n; ++j)
        s += a[j];
    return s;
}

void StreamCopyF32(float* dst, const float* src, std::size_t n) {
    StreamCopyT(dst, src, n);
}

void StreamCopyI32(std::int32_t* dst, const std::int32_t* src, std::size_t n) {
    StreamCopyT(dst, src, n);
}

const char* TargetNameImpl() {
    return hwy::TargetName(HWY_TARGET);
}

} // namespace HWY_NAMESPACE
} // namespace cpu
} // namespace pe
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace pe::cpu {

HWY_EXPORT(FusedRowImpl);
HWY_EXPORT(TargetNameImpl);
HWY_EXPORT(StreamCopyF32);
HWY_EXPORT(SumImpl);

float sum(const float* a, std::size_t n) {
    return HWY_DYNAMIC_DISPATCH(SumImpl)(a, n);
}
HWY_EXPORT(StreamCopyI32);

void streamCopy(float* dst, const float* src, std::size_t n) {
    HWY_DYNAMIC_DISPATCH(StreamCopyF32)(dst, src, n);
}

void streamCopy(std::int32_t* dst, const std::int32_t* src, std::size_t n) {
    HWY_DYNAMIC_DISPATCH(StreamCopyI32)(dst, src, n);
}

void fusedRow(const RowPass& p, const float* dots, float* logits, float* weights, float* logitsOut,
              float* weightsOut) {
    HWY_DYNAMIC_DISPATCH(FusedRowImpl)(p, dots, logits, weights, logitsOut, weightsOut);
}

void streamFence() {
    hwy::FlushStream();
}

const char* simdTarget() {
    return HWY_DYNAMIC_DISPATCH(TargetNameImpl)();
}

} // namespace pe::cpu
#endif
