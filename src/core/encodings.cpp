// SPDX-License-Identifier: MIT
#include "encodings.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

namespace pe {

Eigen::VectorXd sinusoidFrequencies(int d, double base, SinLayout layout) {
    if (layout == SinLayout::T2T) {
        const int K = d / 2;
        const double logInc = std::log(base) / std::max(K - 1, 1);
        Eigen::VectorXd w(K);
        for (int m = 0; m < K; ++m)
            w(m) = std::exp(-m * logInc);
        return w;
    }
    const int K = layout == SinLayout::Interleaved ? (d + 1) / 2 : d / 2;
    Eigen::VectorXd w(K);
    for (int m = 0; m < K; ++m)
        w(m) = std::pow(base, -2.0 * m / d);
    return w;
}

namespace {

/**
 * Calls put(p, column, value) for every written entry of the sinusoidal table's rows [r0, r1):
 * pair m's sine and cosine columns; an interleaved odd d's last pair has no cosine, and t2t's
 * odd d leaves its last column alone (zero).
 */
template <typename Put>
void forSinusoidEntries(int d, const Eigen::VectorXd& w, SinLayout layout, double start, int r0,
                        int r1, Put&& put) {
    const bool interleaved = layout == SinLayout::Interleaved;
    for (int m = 0; m < static_cast<int>(w.size()); ++m) {
        const int sc = interleaved ? 2 * m : m;
        const int cc = interleaved ? 2 * m + 1 : m + d / 2;
        for (int p = r0; p < r1; ++p) {
            const double a = (start + p) * w(m);
            put(p, sc, std::sin(a));
            if (cc < d)
                put(p, cc, std::cos(a));
        }
    }
}

} // namespace

Eigen::MatrixXd sinusoidal(int n, int d, double base, SinLayout layout, double start) {
    Eigen::MatrixXd pe(n, d);
    sinusoidalInto(pe, base, layout, start);
    return pe;
}

void sinusoidalInto(Eigen::Ref<Eigen::MatrixXd> out, double base, SinLayout layout, double start) {
    const int n = static_cast<int>(out.rows()), d = static_cast<int>(out.cols());
    assert((layout != SinLayout::Concat || d % 2 == 0) && "concat layout needs an even width");
    out.setZero();
    forSinusoidEntries(d, sinusoidFrequencies(d, base, layout), layout, start, 0, n,
                       [&out](int p, int c, double v) { out(p, c) = v; });
}

void sinusoidalRows(int d, double base, SinLayout layout, int r0, int r1, float* out,
                    double start) {
    assert((layout != SinLayout::Concat || d % 2 == 0) && "concat layout needs an even width");
    std::fill(out, out + static_cast<std::size_t>(r1 - r0) * d, 0.0f);
    const Eigen::VectorXd w = sinusoidFrequencies(d, base, layout);
    for (int p = r0; p < r1; ++p) { // a row at a time: its writes stay in one line of `out`
        float* row = out + static_cast<std::size_t>(p - r0) * d;
        forSinusoidEntries(d, w, layout, start, p, p + 1,
                           [row](int, int c, double v) { row[c] = static_cast<float>(v); });
    }
}

Eigen::RowVectorXd txlRelativeSinusoid(double t, int d) {
    const int half = d / 2;
    Eigen::RowVectorXd r(d);
    for (int m = 0; m < half; ++m) {
        const double a = t * std::pow(10000.0, -2.0 * m / d);
        r(m) = std::sin(a);
        r(half + m) = std::cos(a);
    }
    return r;
}

void txlRelativeSinusoidRows(int n, int d, int clampLen, int r0, int r1, float* out) {
    const int half = d / 2;
    std::vector<double> freq(static_cast<std::size_t>(half));
    for (int m = 0; m < half; ++m)
        freq[static_cast<std::size_t>(m)] = std::pow(10000.0, -2.0 * m / d);
    for (int r = r0; r < r1; ++r) {
        int t = n - 1 - r;
        if (clampLen > 0)
            t = std::min(t, clampLen);
        float* row = out + static_cast<std::size_t>(r - r0) * d;
        for (int m = 0; m < half; ++m) {
            const double a = static_cast<double>(t) * freq[static_cast<std::size_t>(m)];
            row[m] = static_cast<float>(std::sin(a));
            row[half + m] = static_cast<float>(std::cos(a));
        }
    }
}

namespace {

/**
 * Mesh-TF's _relative_position_bucket with its large-distance branch in floating type F: a log of
 * F(n)/max_exact, over a Python-double log of max_distance/max_exact cast to F, truncated.
 */
template <typename F> int t5BucketIn(int rel, bool bidirectional, int numBuckets, int maxDistance) {
    long n = -static_cast<long>(rel);
    int half = numBuckets;
    int offset = 0;
    if (bidirectional) {
        half = numBuckets / 2;
        offset = rel > 0 ? half : 0;
        n = std::labs(n);
    } else {
        n = std::max(n, 0L);
    }
    const int exact = half / 2;
    if (n < exact)
        return offset + static_cast<int>(n);
    const F ratio = static_cast<F>(n) / static_cast<F>(exact);
    const F denom = static_cast<F>(std::log(static_cast<double>(maxDistance) / exact));
    const F scaled = std::log(ratio) / denom * static_cast<F>(half - exact);
    const long large = exact + static_cast<long>(scaled); // truncation toward zero (scaled >= 0)
    return offset + static_cast<int>(std::min<long>(half - 1, large));
}

} // namespace

int t5Bucket(int rel, bool bidirectional, int numBuckets, int maxDistance) {
    return t5BucketIn<float>(rel, bidirectional, numBuckets, maxDistance);
}

int t5BucketF64(int rel, bool bidirectional, int numBuckets, int maxDistance) {
    return t5BucketIn<double>(rel, bidirectional, numBuckets, maxDistance);
}

int debertaLogBucket(int rel, int buckets, int maxPosition) {
    const int mid = buckets / 2;
    const int a = std::abs(rel);
    if (a <= mid)
        return rel;
    const double logPos =
        std::ceil(std::log(static_cast<double>(a) / mid) /
                  std::log(static_cast<double>(maxPosition - 1) / mid) * (mid - 1)) +
        mid;
    return (rel > 0 ? 1 : -1) * static_cast<int>(logPos);
}

int debertaIndex(int rel, const Params& p) {
    const int span = p.debertaSpan();
    const int b =
        p.debertaLogBuckets ? debertaLogBucket(rel, p.debertaBuckets, p.debertaMaxPosition) : rel;
    return std::clamp(b + span, 0, 2 * span - 1);
}

std::vector<double> alibiSlopes(int heads) {
    auto pow2 = [](int n) {
        const double start =
            std::pow(2.0, -std::pow(2.0, -(std::log2(static_cast<double>(n)) - 3)));
        std::vector<double> s(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i)
            s[static_cast<std::size_t>(i)] = start * std::pow(start, i);
        return s;
    };
    if (heads <= 0)
        return {};
    const double l = std::log2(static_cast<double>(heads));
    if (l == std::floor(l))
        return pow2(heads);
    const int c = 1 << static_cast<int>(std::floor(l));
    std::vector<double> s = pow2(c);
    const std::vector<double> s2 = alibiSlopes(2 * c);
    for (std::size_t i = 0; i < s2.size() && static_cast<int>(s.size()) < heads; i += 2)
        s.push_back(s2[i]);
    return s;
}

std::vector<int> urpeOfficialBuckets(int L) {
    std::vector<int> b(static_cast<std::size_t>(L) * static_cast<std::size_t>(L));
    int lo = 0;
    for (int i = 0; i < L; ++i) {
        for (int j = 0; j < L; ++j) {
            const int rel = j - i;
            // T5 magnitude with 64 buckets -> half 32, exact 16, max distance 128, capped at 31.
            const int mag = t5Bucket(-std::abs(rel), false, 32, 128);
            int v = rel > 0 ? mag : (rel < 0 ? -mag : 0);
            if (v >= 0)
                v += 2;
            b[static_cast<std::size_t>(i) * L + j] = v;
            lo = std::min(lo, v);
        }
    }
    for (int& v : b)
        v -= lo;
    return b;
}

double ropeNtkBase(double base, int dRot, double scale) {
    return base * std::pow(scale, static_cast<double>(dRot) / (dRot - 2));
}

RopeFrequencies ropeFrequencies(double base, int dRot, RopeScaling scaling, double scale) {
    RopeFrequencies f;
    const int half = dRot / 2;
    const double b = scaling == RopeScaling::NTK ? ropeNtkBase(base, dRot, scale) : base;
    f.theta.resize(static_cast<std::size_t>(half));
    for (int m = 0; m < half; ++m)
        f.theta[static_cast<std::size_t>(m)] = std::pow(b, -2.0 * m / dRot);
    f.positionDivisor = scaling == RopeScaling::PI ? scale : 1.0;
    return f;
}

RopeFrequencies ropeFrequencies(const Params& p) {
    return ropeFrequencies(p.base, p.ropeRotatedDims(), p.ropeScaling, p.ropeScale);
}

void applyRope(Eigen::Ref<Eigen::MatrixXd> x, const std::vector<double>& positions, double base,
               RopeConvention conv, int dRot) {
    applyRope(x, positions, ropeFrequencies(base, dRot), conv);
}

void applyRope(Eigen::Ref<Eigen::MatrixXd> x, const std::vector<double>& positions,
               const RopeFrequencies& f, RopeConvention conv) {
    const int half = static_cast<int>(f.theta.size());
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const double pos = positions[static_cast<std::size_t>(r)];
        for (int m = 0; m < half; ++m) {
            const double ang = f.angle(pos, m);
            const double c = std::cos(ang), s = std::sin(ang);
            const int ia = conv == RopeConvention::Interleaved ? 2 * m : m;
            const int ib = conv == RopeConvention::Interleaved ? 2 * m + 1 : m + half;
            const double a = x(r, ia), b = x(r, ib);
            x(r, ia) = a * c - b * s;
            x(r, ib) = b * c + a * s;
        }
    }
}

Eigen::MatrixXd mlpFourierFeatures(int n, int features, double base, double start) {
    Eigen::MatrixXd phi(n, 2 * features);
    for (int k = 0; k < features; ++k) {
        const double w = std::pow(base, -static_cast<double>(k) / features);
        for (int p = 0; p < n; ++p) {
            const double a = (start + p) * w;
            phi(p, 2 * k) = std::sin(a);
            phi(p, 2 * k + 1) = std::cos(a);
        }
    }
    return phi;
}

double gelu(double x) {
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

Eigen::MatrixXd mlpEncoding(int n, int features, double base, const Eigen::MatrixXd& W1,
                            const Eigen::MatrixXd& b1, const Eigen::MatrixXd& W2,
                            const Eigen::MatrixXd& b2, double start) {
    assert(W1.rows() == 2 * features && b1.cols() == W1.cols() && W2.rows() == W1.cols() &&
           b2.cols() == W2.cols() && "mlp encoding: W1 [2F, H], b1 [1, H], W2 [H, d], b2 [1, d]");
    Eigen::MatrixXd hidden = mlpFourierFeatures(n, features, base, start) * W1;
    hidden.rowwise() += b1.row(0);
    hidden = hidden.unaryExpr([](double v) { return gelu(v); });
    Eigen::MatrixXd P = hidden * W2;
    P.rowwise() += b2.row(0);
    return P;
}

} // namespace pe
