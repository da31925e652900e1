// SPDX-License-Identifier: MIT
#include "cpu_kernels.h"

#include <cmath>
#include <cstdint>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_kernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace pe {
namespace cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Normaliser values, as in pe::Normaliser (kept numeric so this file needs no core header).
constexpr int kSoftmax = 0;
constexpr int kExp = 1;
constexpr int kL2 = 2;

void FusedRowImpl(const RowPass& p, const float* dots, float* logits, float* weights) {
    const hn::ScalableTag<float> d;
    const int L = static_cast<int>(hn::Lanes(d));
    const int n = p.n;
    const int lim = p.limit < 0 ? 0 : (p.limit > n ? n : p.limit);
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();

    // Pass 1: logits and the row maximum.
    const auto vs = hn::Set(d, p.scale);
    auto vmax = hn::Set(d, kNegInf);
    float smax = kNegInf;
    int j = 0;
    if (p.add) {
        for (; j + L <= lim; j += L) {
            const auto v = hn::MulAdd(hn::LoadU(d, dots + j), vs, hn::LoadU(d, p.add + j));
            hn::StoreU(v, d, logits + j);
            vmax = hn::Max(vmax, v);
        }
        for (; j < lim; ++j) {
            logits[j] = dots[j] * p.scale + p.add[j];
            smax = std::fmax(smax, logits[j]);
        }
    } else {
        for (; j + L <= lim; j += L) {
            const auto v = hn::Mul(hn::LoadU(d, dots + j), vs);
            hn::StoreU(v, d, logits + j);
            vmax = hn::Max(vmax, v);
        }
        for (; j < lim; ++j) {
            logits[j] = dots[j] * p.scale;
            smax = std::fmax(smax, logits[j]);
        }
    }
    for (j = lim; j < n; ++j)
        logits[j] = kNegInf;
    const float rowMax = std::fmax(smax, hn::GetLane(hn::MaxOfLanes(d, vmax)));

    // Pass 2: the normaliser over the visible prefix.
    if (p.norm == kSoftmax || p.norm == kL2 || p.norm == kExp) {
        const bool shift = p.norm != kExp;
        const float m = shift ? rowMax : 0.0f;
        const auto vm = hn::Set(d, m);
        auto vacc = hn::Zero(d);
        float sacc = 0.0f;
        const bool squares = p.norm == kL2;
        for (j = 0; j + L <= lim; j += L) {
            const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, logits + j), vm));
            hn::StoreU(e, d, weights + j);
            vacc = squares ? hn::MulAdd(e, e, vacc) : hn::Add(vacc, e);
        }
        for (; j < lim; ++j) {
            const float e = std::exp(logits[j] - m);
            weights[j] = e;
            sacc += squares ? e * e : e;
        }
        if (shift && lim > 0) {
            const float total = sacc + hn::GetLane(hn::SumOfLanes(d, vacc));
            const float inv = squares ? 1.0f / std::sqrt(total) : 1.0f / total;
            const auto vinv = hn::Set(d, inv);
            for (j = 0; j + L <= lim; j += L)
                hn::StoreU(hn::Mul(hn::LoadU(d, weights + j), vinv), d, weights + j);
            for (; j < lim; ++j)
                weights[j] *= inv;
        }
    } else { // relu2, relu2_visible
        const float inv = p.relu2Denominator > 0.0f ? 1.0f / p.relu2Denominator : 0.0f;
        const auto vinv = hn::Set(d, inv);
        const auto zero = hn::Zero(d);
        for (j = 0; j + L <= lim; j += L) {
            const auto r = hn::Max(hn::LoadU(d, logits + j), zero);
            hn::StoreU(hn::Mul(hn::Mul(r, r), vinv), d, weights + j);
        }
        for (; j < lim; ++j) {
            const float r = std::fmax(logits[j], 0.0f);
            weights[j] = r * r * inv;
        }
    }
    if (p.post) {
        for (j = 0; j + L <= lim; j += L)
            hn::StoreU(hn::Mul(hn::LoadU(d, weights + j), hn::LoadU(d, p.post + j)), d,
                       weights + j);
        for (; j < lim; ++j)
            weights[j] *= p.post[j];
    }
    for (j = lim; j < n; ++j)
        weights[j] = 0.0f;
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

void fusedRow(const RowPass& p, const float* dots, float* logits, float* weights) {
    HWY_DYNAMIC_DISPATCH(FusedRowImpl)(p, dots, logits, weights);
}

const char* simdTarget() {
    return HWY_DYNAMIC_DISPATCH(TargetNameImpl)();
}

} // namespace pe::cpu
#endif
