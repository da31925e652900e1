// SPDX-License-Identifier: MIT
// e^x for x ≤ 0 in Highway vectors: the exponential of the normalisers that subtract the row's
// maximum first, shared by the full row pass (cpu_kernels.cpp) and the pooled path's fused tile
// pass (cpu_attention_tiles.cpp). Included once per target after <hwy/highway.h>, as Highway's
// "-inl" headers are (the guard below toggles with HWY_TARGET_TOGGLE).

#if defined(PE_COMPUTE_CPU_EXP_NON_POSITIVE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef PE_COMPUTE_CPU_EXP_NON_POSITIVE_INL_H_
#undef PE_COMPUTE_CPU_EXP_NON_POSITIVE_INL_H_
#else
#define PE_COMPUTE_CPU_EXP_NON_POSITIVE_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace pe {
namespace cpu {
namespace HWY_NAMESPACE {

/**
 * e^x for x ≤ 0 (x = logit − the row's maximum, or its running maximum in the online
 * normalisers), within 0.89 ulp of the exact value where the target has fused multiply-adds
 * (every float of [−104, 0] checked against double precision; Cephes's polynomial, used here
 * before, gave 1.01) and 0.96 where it has not (SSE, every 61st float: tst_cpu_dispatch); 0 where
 * e^x would be subnormal (x < −87.34): such a weight is nothing next to the row's maximum, which
 * weighs 1. About half the instructions of Highway's Exp, which also serves x > 0 and converts
 * through a range-checked float→int: that conversion and the reconstruction of 2^n in two steps
 * took half the per-logit work of the fused pass on AVX2. Here n = round(x / ln 2) comes with its
 * integer bits from adding 1.5·2²³, r = x − n·ln 2 (ln 2 in two parts, the first exact in
 * products with n), e^r from a polynomial, and 2^n from n's bits. With FMA the polynomial is of
 * degree 6 in Horner's form (1 and r exact, c2…c6 fitted for the least maximum relative error on
 * |r| ≤ ln 2 / 2): six multiply-adds, where Cephes's 1 + r + r²·P(r) takes eight instructions;
 * without FMA each Horner step rounds twice and Cephes's form is the more accurate.
 */
template <class D, class V> HWY_INLINE V ExpNonPositive(D d, V x) {
    namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET <= HWY_AVX3
    // AVX-512: 2^n applied by VSCALEFPS, one instruction for the five that build and apply it
    // (compare, integer add, shift, multiply, select). x is then clamped at −104, where y·2^n
    // rounds to 0 even without flush-to-zero; between there and −87.34 the result is
    // subnormal, which the engine's threads flush to 0 (DenormalGuard), as the select returns.
    // Every other result is the same float: scaling by 2^n is exact.
    constexpr bool kScalef = sizeof(hn::TFromD<D>) * hn::MaxLanes(d) == 64;
#else
    constexpr bool kScalef = false;
#endif
    const V in = x;
    const auto kMin = hn::Set(d, -87.33654f);      // ln of the smallest normal float
    const auto kShifter = hn::Set(d, 12582912.0f); // 1.5·2²³: its ulp is 1
    x = hn::Max(x, kScalef ? hn::Set(d, -104.0f) : kMin);
    const auto t = hn::MulAdd(x, hn::Set(d, 1.44269504088896341f), kShifter);
    const auto n = hn::Sub(t, kShifter); // round(x / ln 2)
    auto r = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), x);
    r = hn::NegMulAdd(n, hn::Set(d, -2.12194440e-4f), r);
#if HWY_NATIVE_FMA
    const auto one = hn::Set(d, 1.0f);
    auto p = hn::Set(d, 1.3814612757e-3f);
    p = hn::MulAdd(p, r, hn::Set(d, 8.3687100559e-3f));
    p = hn::MulAdd(p, r, hn::Set(d, 4.1668388993e-2f));
    p = hn::MulAdd(p, r, hn::Set(d, 1.6666521132e-1f));
    p = hn::MulAdd(p, r, hn::Set(d, 4.9999994040e-1f));
    p = hn::MulAdd(p, r, one);
    const auto y = hn::MulAdd(p, r, one);
#else // Horner's last steps rounded twice each: 1.14 ulp; Cephes's form stays within 0.96
    auto p = hn::Set(d, 1.9875691500e-4f);
    p = hn::MulAdd(p, r, hn::Set(d, 1.3981999507e-3f));
    p = hn::MulAdd(p, r, hn::Set(d, 8.3334519073e-3f));
    p = hn::MulAdd(p, r, hn::Set(d, 4.1665795894e-2f));
    p = hn::MulAdd(p, r, hn::Set(d, 1.6666665459e-1f));
    p = hn::MulAdd(p, r, hn::Set(d, 5.0000001201e-1f));
    const auto y = hn::Add(hn::MulAdd(p, hn::Mul(r, r), r), hn::Set(d, 1.0f));
#endif
#if HWY_TARGET <= HWY_AVX3
    if constexpr (kScalef)
        return V{_mm512_scalef_ps(y.raw, n.raw)};
#endif
    // n in [−126, 0]: t's bits are those of 1.5·2²³ plus n, and n + 127 is 2^n's biased exponent.
    const hn::RebindToSigned<D> di;
    const auto bits = hn::Add(hn::BitCast(di, t), hn::Set(di, 127 - 0x4B400000));
    const auto scale = hn::BitCast(d, hn::ShiftLeft<23>(bits));
    return hn::IfThenElseZero(hn::Ge(in, kMin), hn::Mul(y, scale));
}

} // namespace HWY_NAMESPACE
} // namespace cpu
} // namespace pe
HWY_AFTER_NAMESPACE();

#endif // PE_COMPUTE_CPU_EXP_NON_POSITIVE_INL_H_
