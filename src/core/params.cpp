// SPDX-License-Identifier: MIT
#include "params.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace pe {

namespace {

template <typename E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<Scheme, 11> kSchemes{{{Scheme::None, "none"},
                                          {Scheme::Sinusoidal, "sinusoidal"},
                                          {Scheme::Learned, "learned"},
                                          {Scheme::Shaw, "shaw"},
                                          {Scheme::TransformerXL, "txl"},
                                          {Scheme::T5, "t5"},
                                          {Scheme::DeBERTa, "deberta"},
                                          {Scheme::RoPE, "rope"},
                                          {Scheme::ALiBi, "alibi"},
                                          {Scheme::URPE, "urpe"},
                                          {Scheme::Mlp, "mlp"}}};
constexpr NameTable<Normaliser, 5> kNorms{{{Normaliser::Softmax, "softmax"},
                                           {Normaliser::Exp, "exp"},
                                           {Normaliser::L2, "l2"},
                                           {Normaliser::Relu2, "relu2"},
                                           {Normaliser::Relu2Visible, "relu2_visible"}}};
constexpr NameTable<MaskKind, 2> kMasks{{{MaskKind::None, "none"}, {MaskKind::Causal, "causal"}}};
constexpr NameTable<SinLayout, 3> kLayouts{{{SinLayout::Interleaved, "interleaved"},
                                            {SinLayout::Concat, "concat"},
                                            {SinLayout::T2T, "t2t"}}};
constexpr NameTable<RopeConvention, 2> kRope{
    {{RopeConvention::Interleaved, "interleaved"}, {RopeConvention::Half, "half"}}};
constexpr NameTable<RopeScaling, 3> kRopeScaling{
    {{RopeScaling::None, "none"}, {RopeScaling::PI, "pi"}, {RopeScaling::NTK, "ntk"}}};
constexpr NameTable<AlibiMode, 2> kAlibi{
    {{AlibiMode::Symmetric, "symmetric"}, {AlibiMode::Causal, "causal"}}};
constexpr NameTable<P2CConvention, 2> kP2C{
    {{P2CConvention::Code, "code"}, {P2CConvention::Paper, "paper"}}};
constexpr NameTable<UrpeBias, 2> kUrpe{{{UrpeBias::None, "none"}, {UrpeBias::T5, "t5"}}};
constexpr NameTable<Precision, 2> kPrecision{
    {{Precision::Float32, "float32"}, {Precision::Float64, "float64"}}};

template <typename E, std::size_t N> std::string_view nameOf(const NameTable<E, N>& t, E v) {
    for (const auto& [e, s] : t)
        if (e == v)
            return s;
    return "?";
}

template <typename E, std::size_t N>
std::optional<E> parse(const NameTable<E, N>& t, std::string_view s) {
    for (const auto& [e, name] : t)
        if (name == s)
            return e;
    return std::nullopt;
}

Error err(std::string s) {
    return Error{std::move(s)};
}

} // namespace

std::string_view toString(Scheme s) {
    return nameOf(kSchemes, s);
}
std::string_view toString(Normaliser n) {
    return nameOf(kNorms, n);
}
std::string_view toString(MaskKind m) {
    return nameOf(kMasks, m);
}
std::string_view toString(SinLayout l) {
    return nameOf(kLayouts, l);
}
std::string_view toString(RopeConvention c) {
    return nameOf(kRope, c);
}
std::string_view toString(RopeScaling s) {
    return nameOf(kRopeScaling, s);
}
std::string_view toString(AlibiMode m) {
    return nameOf(kAlibi, m);
}
std::string_view toString(P2CConvention c) {
    return nameOf(kP2C, c);
}
std::string_view toString(UrpeBias b) {
    return nameOf(kUrpe, b);
}
std::string_view toString(Precision p) {
    return nameOf(kPrecision, p);
}
std::optional<Scheme> schemeFromString(std::string_view s) {
    return parse(kSchemes, s);
}
std::optional<Normaliser> normaliserFromString(std::string_view s) {
    return parse(kNorms, s);
}
std::optional<MaskKind> maskFromString(std::string_view s) {
    return parse(kMasks, s);
}
std::optional<SinLayout> layoutFromString(std::string_view s) {
    return parse(kLayouts, s);
}
std::optional<RopeConvention> ropeConventionFromString(std::string_view s) {
    return parse(kRope, s);
}
std::optional<RopeScaling> ropeScalingFromString(std::string_view s) {
    return parse(kRopeScaling, s);
}
std::optional<AlibiMode> alibiModeFromString(std::string_view s) {
    return parse(kAlibi, s);
}
std::optional<P2CConvention> p2cFromString(std::string_view s) {
    return parse(kP2C, s);
}
std::optional<UrpeBias> urpeBiasFromString(std::string_view s) {
    return parse(kUrpe, s);
}
std::optional<Precision> precisionFromString(std::string_view s) {
    return parse(kPrecision, s);
}

namespace {

template <typename E, std::size_t N> std::vector<E> valuesOf(const NameTable<E, N>& t) {
    std::vector<E> r;
    for (const auto& [e, name] : t)
        r.push_back(e);
    return r;
}

} // namespace

#define PE_ALL_VALUES(E, table)                                                                    \
    template <> const std::vector<E>& allValues<E>() {                                             \
        static const std::vector<E> v = valuesOf(table);                                           \
        return v;                                                                                  \
    }
PE_ALL_VALUES(Scheme, kSchemes)
PE_ALL_VALUES(Normaliser, kNorms)
PE_ALL_VALUES(MaskKind, kMasks)
PE_ALL_VALUES(SinLayout, kLayouts)
PE_ALL_VALUES(RopeConvention, kRope)
PE_ALL_VALUES(RopeScaling, kRopeScaling)
PE_ALL_VALUES(AlibiMode, kAlibi)
PE_ALL_VALUES(P2CConvention, kP2C)
PE_ALL_VALUES(UrpeBias, kUrpe)
PE_ALL_VALUES(Precision, kPrecision)
#undef PE_ALL_VALUES

bool isAbsolute(Scheme s) {
    return s == Scheme::Sinusoidal || s == Scheme::Learned || s == Scheme::Mlp;
}

bool hasRelIndex(const Params& p) {
    return p.scheme == Scheme::Shaw || p.scheme == Scheme::T5 || p.scheme == Scheme::DeBERTa ||
           (p.scheme == Scheme::URPE && p.urpeBias == UrpeBias::T5);
}

Params canonical(const Params& p) {
    Params c; // the defaults, then what p's scheme reads
    c.scheme = p.scheme;
    c.n = p.n;
    c.d = p.d;
    c.heads = p.heads;
    c.norm = p.norm;
    c.mask = p.mask;
    c.validLen = p.validLen;
    c.cls = p.cls;
    c.sep = p.sep;
    c.seed = p.seed;
    c.precision = p.precision;
    switch (p.scheme) {
    case Scheme::Sinusoidal:
        c.base = p.base;
        c.layout = p.layout;
        break;
    case Scheme::Shaw:
        c.clip = p.clip;
        break;
    case Scheme::TransformerXL:
        c.txlClampLen = p.txlClampLen;
        break;
    case Scheme::DeBERTa:
        c.debertaC2P = p.debertaC2P;
        c.debertaP2C = p.debertaP2C;
        if (p.debertaP2C)
            c.p2cConvention = p.p2cConvention;
        c.debertaLogBuckets = p.debertaLogBuckets;
        if (p.debertaLogBuckets) {
            c.debertaBuckets = p.debertaBuckets;
            c.debertaMaxPosition = p.debertaMaxPosition;
        } else {
            c.clip = p.clip; // the span k
        }
        break;
    case Scheme::RoPE:
        c.base = p.base;
        c.ropeConvention = p.ropeConvention;
        c.ropeDims = p.ropeDims;
        c.ropeScaling = p.ropeScaling;
        if (p.ropeScaling != RopeScaling::None)
            c.ropeScale = p.ropeScale;
        break;
    case Scheme::ALiBi:
        c.alibiMode = p.alibiMode;
        break;
    case Scheme::URPE:
        c.urpeBias = p.urpeBias;
        break;
    case Scheme::Mlp:
        c.base = p.base; // the Fourier features' frequencies
        c.mlpFeatures = p.mlpFeatures;
        c.mlpHidden = p.mlpHidden;
        break;
    case Scheme::Learned:
        // The trace reads the table's first seqLen rows, drawn row by row from one stream: the
        // same for every P_max that holds them; one that does not is a failure of its own.
        c.learnedRows = std::min(p.learnedRows, p.seqLen());
        break;
    case Scheme::None:
    case Scheme::T5: // below, with URPE's T5 bias
        break;
    }
    if (p.scheme == Scheme::T5 || (p.scheme == Scheme::URPE && p.urpeBias == UrpeBias::T5)) {
        c.buckets = p.buckets;
        c.maxDistance = p.maxDistance;
        c.unidirectional = p.unidirectional;
    }
    return c;
}

bool hasBias(const Params& p) {
    return p.scheme == Scheme::T5 || p.scheme == Scheme::ALiBi;
}

Status validate(const Params& p) {
    constexpr int kMaxN = 1 << 20;
    constexpr int kMaxD = 1 << 16;
    if (p.n < 1 || p.n > kMaxN)
        return err("--n must be between 1 and " + std::to_string(kMaxN) + ", got " +
                   std::to_string(p.n));
    if (p.d < 1 || p.d > kMaxD)
        return err("--d must be between 1 and " + std::to_string(kMaxD) + ", got " +
                   std::to_string(p.d));
    if (p.heads < 1)
        return err("--heads must be at least 1, got " + std::to_string(p.heads));
    if (p.d % p.heads != 0)
        return err("--d " + std::to_string(p.d) + " is not divisible by --heads " +
                   std::to_string(p.heads));
    const int N = p.seqLen();
    if (p.validLen < -1 || p.validLen > N)
        return err("--valid-len must be between 0 and the sequence length " + std::to_string(N) +
                   " (special tokens included), got " + std::to_string(p.validLen));
    if (p.clip < 0)
        return err("--clip must be >= 0, got " + std::to_string(p.clip));
    if (!(p.base > 1.0) || !std::isfinite(p.base))
        return err("--base must be a finite number greater than 1");
    if (!(p.ropeScale > 0.0) || !std::isfinite(p.ropeScale)) {
        char got[32];
        std::snprintf(got, sizeof got, "%g", p.ropeScale);
        return err(std::string("--rope-scale must be a finite number greater than 0, got ") + got);
    }
    if (p.mlpFeatures < 1 || p.mlpFeatures > kMaxMlpFeatures)
        return err("--mlp-features must be between 1 and " + std::to_string(kMaxMlpFeatures) +
                   ", got " + std::to_string(p.mlpFeatures));
    if (p.mlpHidden < 1 || p.mlpHidden > kMaxMlpHidden)
        return err("--mlp-hidden must be between 1 and " + std::to_string(kMaxMlpHidden) +
                   ", got " + std::to_string(p.mlpHidden));
    const int dh = p.headDim();
    switch (p.scheme) {
    case Scheme::Sinusoidal:
        if (p.layout == SinLayout::Concat && p.d % 2 != 0)
            return err("--layout concat needs an even --d, got " + std::to_string(p.d));
        break;
    case Scheme::Learned:
        if (p.learnedRows < 1)
            return err("--max-positions must be >= 1");
        break;
    case Scheme::TransformerXL:
        if (p.d % 2 != 0)
            return err("txl needs an even --d for its [sin | cos] relative sinusoid, got " +
                       std::to_string(p.d));
        if (p.txlClampLen < 0)
            return err("--clamp-len must be >= 0");
        break;
    case Scheme::T5:
        break;
    case Scheme::DeBERTa:
        if (p.debertaLogBuckets) {
            if (p.debertaBuckets < 4 || p.debertaBuckets % 2 != 0)
                return err("--deberta-buckets must be even and >= 4");
            if (p.debertaMaxPosition <= p.debertaBuckets / 2 + 1)
                return err("--deberta-max-position must exceed half the buckets plus one");
        } else if (p.clip < 1) {
            return err("--clip (the DeBERTa span k) must be >= 1 for deberta, got " +
                       std::to_string(p.clip));
        }
        break;
    case Scheme::RoPE: {
        const int dRot = p.ropeRotatedDims();
        if (dRot % 2 != 0)
            return err("rope needs an even head width d/heads (rotary dims), got " +
                       std::to_string(dRot));
        if (dRot < 2 || dRot > dh)
            return err("--rope-dims must be even and between 2 and d/heads = " +
                       std::to_string(dh));
        if (p.ropeScaling == RopeScaling::NTK && dRot < 4)
            return err("--rope-scaling ntk needs at least 4 rotated dims (its exponent "
                       "d_rot/(d_rot - 2) is undefined at d_rot = 2), got " +
                       std::to_string(dRot));
        break;
    }
    case Scheme::ALiBi:
        if (p.alibiMode == AlibiMode::Causal && p.mask != MaskKind::Causal)
            return err("--alibi-mode causal is the paper's causal form and needs --mask causal");
        break;
    case Scheme::URPE:
    case Scheme::None:
    case Scheme::Shaw:
    case Scheme::Mlp:
        break;
    }
    if (p.scheme == Scheme::T5 || (p.scheme == Scheme::URPE && p.urpeBias == UrpeBias::T5)) {
        if (p.buckets < 2)
            return err("--buckets must be >= 2, got " + std::to_string(p.buckets));
        if (p.buckets % 2 != 0)
            return err("--buckets must be even, got " + std::to_string(p.buckets));
        const int half = p.unidirectional ? p.buckets : p.buckets / 2;
        if (half / 2 < 1)
            return err("--buckets is too small: at least 2 exact buckets per direction are needed");
        if (p.maxDistance <= half / 2)
            return err("--max-distance must be greater than the exact range " +
                       std::to_string(half / 2) + ", got " + std::to_string(p.maxDistance));
    }
    return Status::success();
}

} // namespace pe
