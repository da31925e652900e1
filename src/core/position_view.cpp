// SPDX-License-Identifier: MIT
#include "position_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "encodings.h"

namespace pe {

namespace {

constexpr double kPi = 3.14159265358979323846;

/** Distances −half·step … half·step (0 always among them), at most maxPoints of them. */
struct Distances {
    int step = 1;
    int half = 0;
    int count() const { return 2 * half + 1; }
    int at(int k) const { return (k - half) * step; }
};

Distances distances(int maxAbs, int maxPoints) {
    Distances d;
    d.step = std::max(1, (2 * maxAbs + maxPoints - 2) / std::max(maxPoints - 1, 1));
    d.half = maxAbs / d.step;
    return d;
}

/** 0, step, 2·step, … < n with at most maxCount entries. */
int stepFor(int n, int maxCount) {
    return std::max(1, (n + maxCount - 1) / maxCount);
}

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

PositionCurves distanceCurves(std::string title, std::string yTitle, const Distances& ds,
                              std::string xTitle = "distance j − i") {
    PositionCurves c;
    c.title = std::move(title);
    c.xTitle = ds.step == 1 ? std::move(xTitle) : xTitle + " (every " + fmt(ds.step) + ")";
    c.yTitle = std::move(yTitle);
    c.xStart = static_cast<double>(ds.at(0));
    c.xStep = ds.step;
    return c;
}

/** [heads, distances] from f(h, r); columns at ds. */
template <typename F> Eigen::MatrixXd perHeadByDistance(int heads, const Distances& ds, F f) {
    Eigen::MatrixXd m(heads, ds.count());
    for (int h = 0; h < heads; ++h)
        for (int k = 0; k < ds.count(); ++k)
            m(h, k) = f(h, ds.at(k));
    return m;
}

void addHeadCurves(PositionCurves& c, const Eigen::MatrixXd& byDistance,
                   const std::vector<std::string>& names) {
    for (int h = 0; h < byDistance.rows() && h < kPositionViewMaxCurves; ++h) {
        PositionCurve curve{names[static_cast<std::size_t>(h)], {}};
        for (int k = 0; k < byDistance.cols(); ++k)
            curve.y.push_back(byDistance(h, k));
        c.curves.push_back(std::move(curve));
    }
}

std::vector<std::string> headNames(int heads) {
    std::vector<std::string> n;
    for (int h = 0; h < heads; ++h)
        n.push_back("head " + std::to_string(h));
    return n;
}

PositionMap t5TableMap(const Weights& w) {
    PositionMap m;
    m.title = "T5 bias table b[h, bucket]";
    m.xTitle = "bucket";
    m.yTitle = "head h";
    m.valueTitle = "b";
    m.values = w.t5Table.transpose();
    return m;
}

bool t5TableFits(const Params& p, const Weights& w) {
    return w.t5Table.rows() == p.buckets && w.t5Table.cols() == p.heads;
}

void shaw(const Params& p, const Weights& w, int N, PositionView& v) {
    const int k = p.clip;
    const int dh = p.headDim();
    v.where =
        "Shaw: position enters the logits and the values: a_ij = q_i·(k_j + a^K[clip(j − i)]), "
        "out_i = Σ_j w_ij (v_j + a^V[clip(j − i)]); X = E, no P.";
    for (auto [table, name] : {std::pair{&w.shawWk, "key"}, std::pair{&w.shawWv, "value"}}) {
        if (table->rows() != 2 * k + 1 || table->cols() != dh)
            continue;
        PositionMap m;
        m.title = std::string("Shaw ") + name + " table a^" + (name[0] == 'k' ? "K" : "V");
        m.xTitle = "feature (d_h)";
        m.yTitle = "clipped distance j − i";
        m.valueTitle = name[0] == 'k' ? "a^K" : "a^V";
        m.values = *table;
        m.rowStart = -k;
        v.maps.push_back(std::move(m));
    }
    if (w.shawWk.rows() != 2 * k + 1 || w.shawWk.cols() != dh)
        return;
    const Distances ds = distances(N - 1, kPositionViewMaxPoints);
    v.curves = distanceCurves("columns of a^K against j − i (constant beyond ±k)", "a^K", ds);
    for (int c = 0; c < std::min(dh, 4); ++c) {
        PositionCurve curve{"a^K col " + std::to_string(c), {}};
        for (int q = 0; q < ds.count(); ++q)
            curve.y.push_back(w.shawWk(shawIndex(0, ds.at(q), k), c));
        v.curves.curves.push_back(std::move(curve));
    }
}

void transformerXl(const Params& p, const Weights& w, int N, PositionView& v) {
    const int d = p.d;
    v.where = "Transformer-XL: position enters the logits only, through a sinusoid of the "
              "distance: (b) q_i·W_r R_{i−j} and (d) v_h·W_r R_{i−j}; X = E, no P.";
    const Distances rows = distances(N - 1, kPositionViewMaxRows);
    const auto rAt = [&](int t) {
        const int tc = p.txlClampLen > 0 ? std::min(t, p.txlClampLen) : t;
        return txlRelativeSinusoid(tc, d);
    };
    PositionMap r;
    r.title = "relative sinusoid R_{i−j}";
    r.xTitle = "feature c ([sin | cos])";
    r.yTitle = rows.step == 1 ? "distance i − j" : "distance i − j (every " + fmt(rows.step) + ")";
    r.valueTitle = "R";
    r.values.resize(rows.count(), d);
    for (int k = 0; k < rows.count(); ++k)
        r.values.row(k) = rAt(rows.at(k));
    r.rowStart = rows.at(0);
    r.rowStep = rows.step;
    if (w.txlWr.rows() == d && w.txlWr.cols() == d) {
        PositionMap projected = r;
        projected.title = "projected R_{i−j}·W_r";
        projected.xTitle = "feature";
        projected.valueTitle = "R·W_r";
        projected.values = r.values * w.txlWr;
        v.maps.push_back(std::move(r));
        v.maps.push_back(std::move(projected));
    } else {
        v.maps.push_back(std::move(r));
    }
    const Distances ds = distances(N - 1, kPositionViewMaxPoints);
    v.curves = distanceCurves("columns of R against i − j", "R", ds, "distance i − j");
    std::vector<int> cols{0, d / 2, d / 4};
    for (int c : cols) {
        if (c >= d)
            continue;
        PositionCurve curve{"col " + std::to_string(c), {}};
        for (int q = 0; q < ds.count(); ++q)
            curve.y.push_back(rAt(ds.at(q))(c));
        v.curves.curves.push_back(std::move(curve));
    }
}

void t5(const Params& p, const Weights& w, int N, PositionView& v) {
    v.where = "T5: position enters as a learned bias b_h[bucket(j − i)] added to each logit "
              "(per head, shared by layers); X = E, no P.";
    const bool bidirectional = !p.unidirectional;
    const Distances ds = distances(N - 1, kPositionViewMaxPoints);
    if (t5TableFits(p, w)) {
        v.maps.push_back(t5TableMap(w));
        PositionMap byDistance;
        byDistance.title = "bias b_h[bucket(j − i)] per head";
        byDistance.xTitle =
            ds.step == 1 ? "distance j − i" : "distance j − i (every " + fmt(ds.step) + ")";
        byDistance.yTitle = "head h";
        byDistance.valueTitle = "b";
        byDistance.values = perHeadByDistance(p.heads, ds, [&](int h, int r) {
            return w.t5Table(t5Bucket(r, bidirectional, p.buckets, p.maxDistance), h);
        });
        byDistance.colStart = ds.at(0);
        byDistance.colStep = ds.step;
        v.maps.push_back(std::move(byDistance));
    }
    v.curves = distanceCurves("bucket of j − i (exact near 0, logarithmic up to max distance)",
                              "bucket", ds);
    PositionCurve bucket{"bucket", {}};
    for (int q = 0; q < ds.count(); ++q)
        bucket.y.push_back(t5Bucket(ds.at(q), bidirectional, p.buckets, p.maxDistance));
    v.curves.curves.push_back(std::move(bucket));
}

void deberta(const Params& p, const Weights& w, int N, PositionView& v) {
    v.where = "DeBERTa: position enters the logits only, through relative embeddings P_r at "
              "δ(i, j): c2p q^c_i·k^r_δ(i,j) and p2c k^c_j·q^r_δ(j,i); X = E, no P.";
    const int rows = static_cast<int>(w.debertaRel.rows());
    if (rows > 0 && w.debertaRel.cols() == p.d) {
        PositionMap rel;
        rel.title = "relative embeddings P_r";
        rel.xTitle = "feature c";
        rel.yTitle = "relative index δ";
        rel.valueTitle = "P_r";
        const int step = stepFor(rows, kPositionViewMaxRows);
        rel.values.resize((rows + step - 1) / step, p.d);
        for (int k = 0; k < rel.values.rows(); ++k)
            rel.values.row(k) = w.debertaRel.row(k * step);
        rel.rowStep = step;
        if (w.debertaWkr.rows() == p.d && w.debertaWkr.cols() == p.d) {
            PositionMap key = rel;
            key.title = "k^r = P_r W_k,r (c2p's keys)";
            key.valueTitle = "k^r";
            key.values = rel.values * w.debertaWkr;
            v.maps.push_back(std::move(rel));
            v.maps.push_back(std::move(key));
        } else {
            v.maps.push_back(std::move(rel));
        }
    }
    const Distances ds = distances(N - 1, kPositionViewMaxPoints);
    v.curves =
        distanceCurves(p.debertaLogBuckets ? "row δ of P_r against i − j (log buckets, clipped)"
                                           : "row δ of P_r against i − j (clipped to ±k)",
                       "δ", ds, "distance i − j");
    PositionCurve index{"δ", {}};
    for (int q = 0; q < ds.count(); ++q)
        index.y.push_back(debertaIndex(ds.at(q), p));
    v.curves.curves.push_back(std::move(index));
}

void rope(const Params& p, int N, PositionView& v) {
    v.where = "RoPE: position enters by rotating each pair of q_i and k_j by p·θ_m, so q_i·k_j "
              "depends on j − i only; X = E, values not rotated.";
    const RopeFrequencies f = ropeFrequencies(p);
    const int M = static_cast<int>(f.theta.size());
    if (M == 0)
        return;
    const int step = stepFor(N, kPositionViewMaxRows);
    PositionMap a;
    a.title = p.ropeScaling == RopeScaling::None ? "rotation angle p·θ_m, wrapped to [−π, π)"
                                                 : "rotation angle (p/s)·θ_m, wrapped to [−π, π)";
    a.xTitle = "pair m (θ_m = base^(−2m/d_rot))";
    a.yTitle = step == 1 ? "position p" : "position p (every " + fmt(step) + ")";
    a.valueTitle = "angle (rad)";
    a.values.resize((N + step - 1) / step, M);
    for (int r = 0; r < a.values.rows(); ++r)
        for (int m = 0; m < M; ++m)
            a.values(r, m) = std::remainder(f.angle(static_cast<double>(r) * step, m), 2 * kPi);
    a.rowStep = step;
    v.maps.push_back(std::move(a));

    const int cstep = stepFor(N, kPositionViewMaxPoints);
    v.curves.title = "relative kernel (1/M) Σ_m cos((j − i)·θ_m) and single pairs";
    v.curves.xTitle = cstep == 1 ? "distance j − i" : "distance j − i (every " + fmt(cstep) + ")";
    v.curves.yTitle = "cos";
    v.curves.xStep = cstep;
    PositionCurve kernel{"mean of M pairs", {}};
    std::vector<int> pairs{0, M / 2, M - 1};
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    std::vector<PositionCurve> single;
    for (int m : pairs)
        single.push_back({"pair " + std::to_string(m), {}});
    for (int r = 0; r < N; r += cstep) {
        double sum = 0.0;
        for (int m = 0; m < M; ++m)
            sum += std::cos(f.angle(r, m));
        kernel.y.push_back(sum / M);
        for (std::size_t k = 0; k < pairs.size(); ++k)
            single[k].y.push_back(std::cos(f.angle(r, pairs[k])));
    }
    v.curves.curves.push_back(std::move(kernel));
    for (PositionCurve& c : single)
        v.curves.curves.push_back(std::move(c));
}

void alibi(const Params& p, int N, PositionView& v) {
    const bool causal = p.alibiMode == AlibiMode::Causal;
    v.where = causal ? "ALiBi: position enters as a fixed bias −m_h (i − j) added to each logit "
                       "(keys j ≤ i; a slope m_h per head); X = E, no P."
                     : "ALiBi: position enters as a fixed bias −m_h |i − j| added to each logit "
                       "(a slope m_h per head); X = E, no P.";
    const std::vector<double> slopes = alibiSlopes(p.heads);
    // Causal: only keys j ≤ i, the left half (r ≤ 0) of a twice as long symmetric axis.
    const Distances ds =
        distances(N - 1, causal ? 2 * kPositionViewMaxPoints - 1 : kPositionViewMaxPoints);
    const auto bias = [&](int h, int r) {
        const double m = slopes[static_cast<std::size_t>(h)];
        return causal ? m * r : -m * std::abs(r); // −m (i − j) with r = j − i
    };
    Eigen::MatrixXd byDistance = perHeadByDistance(p.heads, ds, bias);
    if (causal)
        byDistance = byDistance.leftCols(ds.half + 1).eval();
    PositionMap m;
    m.title = causal ? "ALiBi bias −m_h (i − j) per head" : "ALiBi bias −m_h |j − i| per head";
    m.xTitle = ds.step == 1 ? "distance j − i" : "distance j − i (every " + fmt(ds.step) + ")";
    m.yTitle = "head h";
    m.valueTitle = "bias";
    m.values = byDistance;
    m.colStart = ds.at(0);
    m.colStep = ds.step;
    v.maps.push_back(std::move(m));
    v.curves = distanceCurves("bias against j − i per head (slope m_h)", "bias", ds);
    std::vector<std::string> names;
    for (int h = 0; h < p.heads; ++h)
        names.push_back("head " + std::to_string(h) +
                        ", m = " + fmt(slopes[static_cast<std::size_t>(h)]));
    addHeadCurves(v.curves, byDistance, names);
}

void urpe(const Params& p, const Weights& w, int N, PositionView& v) {
    v.where = p.urpeBias == UrpeBias::T5
                  ? "URPE: position enters after the normaliser, A = softmax(S + b[bucket]) ⊙ "
                    "C[h, j − i] (a T5 bias before it); X = E, no P."
                  : "URPE: position enters after the normaliser, A = softmax(S) ⊙ C[h, j − i]; "
                    "X = E, no P.";
    if (w.urpeC.rows() == p.heads && w.urpeC.cols() == 2 * N - 1) {
        const Distances ds = distances(N - 1, kPositionViewMaxPoints);
        PositionMap c;
        c.title = "URPE table C[h, j − i]";
        c.xTitle = ds.step == 1 ? "distance j − i" : "distance j − i (every " + fmt(ds.step) + ")";
        c.yTitle = "head h";
        c.valueTitle = "C";
        c.values =
            perHeadByDistance(p.heads, ds, [&](int h, int r) { return w.urpeC(h, r + N - 1); });
        c.colStart = ds.at(0);
        c.colStep = ds.step;
        v.curves = distanceCurves("C against j − i per head", "C", ds);
        addHeadCurves(v.curves, c.values, headNames(p.heads));
        v.maps.push_back(std::move(c));
    }
    if (p.urpeBias == UrpeBias::T5 && t5TableFits(p, w))
        v.maps.push_back(t5TableMap(w));
}

} // namespace

PositionView positionView(const Params& p, const Weights& w) {
    PositionView v;
    const int N = std::max(p.seqLen(), 1);
    switch (p.scheme) {
    case Scheme::None:
        v.where = "No position: X = E and every logit q_i·k_j depends on the tokens alone; "
                  "attention is the same for any order of the tokens.";
        break;
    case Scheme::Sinusoidal:
    case Scheme::Learned:
    case Scheme::Mlp:
        v.where = "Absolute: position enters once, X = E + P, before Q, K and V; the logits "
                  "mix content and position through X.";
        break;
    case Scheme::Shaw:
        shaw(p, w, N, v);
        break;
    case Scheme::TransformerXL:
        transformerXl(p, w, N, v);
        break;
    case Scheme::T5:
        t5(p, w, N, v);
        break;
    case Scheme::DeBERTa:
        deberta(p, w, N, v);
        break;
    case Scheme::RoPE:
        rope(p, N, v);
        break;
    case Scheme::ALiBi:
        alibi(p, N, v);
        break;
    case Scheme::URPE:
        urpe(p, w, N, v);
        break;
    }
    return v;
}

} // namespace pe
