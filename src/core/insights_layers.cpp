// SPDX-License-Identifier: MIT
// The distance and depth pages (insights.h): both run attention layers through a LayerForward.
#include "insights.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "encodings.h"
#include "stages.h"

namespace pe {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/** The held-out probe's ridge strength, relative to the mean squared column norm. */
constexpr double kHeldoutRidge = 1e-3;

bool cancelled(const std::atomic<bool>* cancel) {
    return cancel && cancel->load(std::memory_order_relaxed);
}

/** A [rows, cols] tensor (or rank-2 slice) as a column-major double matrix. */
Eigen::MatrixXd tensorMatrix(const Tensor& t) {
    const Eigen::Index rows = t.dim(0), cols = t.dim(1);
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index j = 0; j < cols; ++j)
            m(i, j) = t.at(i * cols + j);
    return m;
}

/** Per-offset mean of `values` [N, N] over the cells `visible` marks (NaN where none). */
Eigen::RowVectorXd offsetMean(const StageMat& values, const StageMat& visible) {
    const Eigen::Index N = values.rows();
    Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(2 * N - 1);
    Eigen::RowVectorXd count = Eigen::RowVectorXd::Zero(2 * N - 1);
    for (Eigen::Index i = 0; i < N; ++i)
        for (Eigen::Index j = 0; j < N; ++j)
            if (visible(i, j) > 0 && std::isfinite(values(i, j))) {
                sum(j - i + N - 1) += values(i, j);
                count(j - i + N - 1) += 1;
            }
    Eigen::RowVectorXd out(2 * N - 1);
    for (Eigen::Index k = 0; k < out.size(); ++k)
        out(k) = count(k) > 0 ? sum(k) / count(k) : kNaN;
    return out;
}

/** Column means ignoring NaN (NaN where every entry is NaN). */
Eigen::VectorXd nanMeanOverRows(const Eigen::MatrixXd& m) {
    Eigen::VectorXd out(m.cols());
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
        double s = 0;
        int k = 0;
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            if (!std::isnan(m(r, c))) {
                s += m(r, c);
                ++k;
            }
        out(c) = k ? s / k : kNaN;
    }
    return out;
}

std::string positionTermName(const Params& p) {
    if (isAbsolute(p.scheme))
        return "logits(E+P) − logits(E)";
    switch (p.scheme) {
    case Scheme::T5:
    case Scheme::ALiBi:
        return "bias";
    case Scheme::Shaw:
        return "shaw_k_term";
    case Scheme::TransformerXL:
        return "txl_bd";
    case Scheme::DeBERTa:
        return "c2p + p2c";
    case Scheme::RoPE:
        return "rotated − unrotated q·k/√d_h";
    case Scheme::URPE:
        return p.urpeBias == UrpeBias::T5 ? "T5 bias" : "none (⊙C acts on the weights)";
    default:
        return "none";
    }
}

void layerNormRows(Eigen::MatrixXd& x, DepthNorm norm) {
    if (norm == DepthNorm::None)
        return;
    const double d = static_cast<double>(x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        auto row = x.row(i);
        if (norm == DepthNorm::LayerNorm) {
            const double mean = row.sum() / d;
            row.array() -= mean;
            const double var = row.squaredNorm() / d;
            row /= std::sqrt(var + 1e-5);
        } else {
            row /= std::sqrt(row.squaredNorm() / d + 1e-6);
        }
    }
}

/**
 * R² of ŷ = [X 1]β fitted on the rows `fit`, scored on the rows `score`. ridge > 0 adds
 * ridge·(‖A‖_F² / columns)·‖β‖² to the fit (not on the intercept's column scale alone).
 */
double probeR2(const Eigen::MatrixXd& X, const std::vector<int>& fit, const std::vector<int>& score,
               double ridge = 0) {
    if (fit.size() < 2 || score.size() < 2)
        return kNaN;
    const Eigen::Index d = X.cols();
    Eigen::MatrixXd A(static_cast<Eigen::Index>(fit.size()), d + 1);
    Eigen::VectorXd y(A.rows());
    for (Eigen::Index r = 0; r < A.rows(); ++r) {
        A.row(r).head(d) = X.row(fit[r]);
        A(r, d) = 1.0;
        y(r) = fit[r];
    }
    Eigen::VectorXd beta;
    if (ridge > 0) {
        const double lambda = ridge * A.squaredNorm() / static_cast<double>(A.cols());
        Eigen::MatrixXd G = A.transpose() * A;
        G.diagonal().array() += lambda;
        beta = G.ldlt().solve(A.transpose() * y);
    } else {
        beta = A.completeOrthogonalDecomposition().solve(y);
    }
    double mean = 0;
    for (int i : score)
        mean += i;
    mean /= static_cast<double>(score.size());
    double ssRes = 0, ssTot = 0;
    for (int i : score) {
        const double yhat = X.row(i).dot(beta.head(d)) + beta(d);
        ssRes += (i - yhat) * (i - yhat);
        ssTot += (i - mean) * (i - mean);
    }
    return ssTot > 0 ? 1.0 - ssRes / ssTot : kNaN;
}

/** Mean over heads and rows of −Σ a ln a, each row of [H, R, C] scaled to sum 1 (NaN if none). */
template <typename T> double meanRowEntropy(const T* a, const std::vector<std::int64_t>& shape) {
    const std::int64_t rowsTotal = shape[0] * shape[1], C = shape[2];
    double sum = 0;
    std::int64_t rows = 0;
    for (std::int64_t r = 0; r < rowsTotal; ++r) {
        const T* row = a + r * C;
        double rowSum = 0;
        for (std::int64_t j = 0; j < C; ++j)
            rowSum += std::max(static_cast<double>(row[j]), 0.0);
        if (!(rowSum > 0) || !std::isfinite(rowSum))
            continue;
        double e = 0;
        for (std::int64_t j = 0; j < C; ++j) {
            const double q = std::max(static_cast<double>(row[j]), 0.0) / rowSum;
            if (q > 0)
                e -= q * std::log(q);
        }
        sum += e;
        ++rows;
    }
    return rows > 0 ? sum / static_cast<double>(rows) : kNaN;
}

} // namespace

// ---------------------------------------------------------------------------------------------

Eigen::VectorXd ropeDecayCurve(int count, int dRot, double base) {
    const int K = dRot / 2;
    Eigen::VectorXd out = Eigen::VectorXd::Zero(std::max(count, 0));
    if (K == 0)
        return out;
    std::vector<double> theta(K);
    for (int k = 0; k < K; ++k)
        theta[k] = std::pow(base, -2.0 * k / dRot);
    for (int r = 0; r < count; ++r) {
        std::complex<double> S(0, 0);
        double total = 0;
        for (int k = 0; k < K; ++k) {
            S += std::polar(1.0, r * theta[k]); // S_{k+1} = Σ_{k'=0}^{k} e^{i r θ_k'}
            total += std::abs(S);
        }
        out(r) = total / K;
    }
    return out;
}

Expected<DistanceInsight> distanceInsight(const Params& p, const Weights* w,
                                          const LayerForward& forward,
                                          const InsightProgress& progress,
                                          const std::atomic<bool>* cancel) {
    if (Status st = validate(p); !st)
        return st.error();
    const int N = p.seqLen();
    const int H = p.heads;
    Weights full = w ? *w : Weights{};
    completeWeights(p, full);
    if (Status st = checkWeights(p, full); !st)
        return st.error();

    // Absolute schemes and RoPE: the position term is the logits minus the logits of the same
    // layer without position, (E W_q)(E W_k)ᵀ/√d_h per head, computed here in double.
    const bool contentFromE = isAbsolute(p.scheme) || p.scheme == Scheme::RoPE;
    const int steps = H + 1;
    int done = 0;
    auto step = [&] {
        if (progress)
            progress(++done, steps);
    };

    auto trace = forward(p, full, cancel);
    if (!trace)
        return trace.error();
    step();
    const Tensor* weights = trace->find("weights");
    const Tensor* logits = trace->find("logits");
    if (!weights || !logits || weights->rank() != 3)
        return Error{"the engine returned no full weights tensor"};

    DistanceInsight r;
    r.scheme = p.scheme;
    r.positions = N;
    r.positionTermName = positionTermName(p);
    r.weightProfile.resize(H, 2 * N - 1);
    r.positionProfile.resize(H, 2 * N - 1);
    const StageMat visible = visibilityMask(p);
    const int dh = p.headDim();
    Eigen::MatrixXd E;
    if (contentFromE) {
        const Tensor* e = trace->find("E");
        if (!e)
            return Error{"the engine returned no E tensor"};
        E = tensorMatrix(*e);
    }
    // Position terms the trace holds as tensors (read directly; the rest is derived).
    std::vector<const char*> traced;
    if (p.scheme == Scheme::T5 || p.scheme == Scheme::ALiBi)
        traced = {"bias"};
    else if (p.scheme == Scheme::Shaw)
        traced = {"shaw_k_term"};
    else if (p.scheme == Scheme::TransformerXL)
        traced = {"txl_bd"};
    else if (p.scheme == Scheme::DeBERTa)
        traced = {"c2p", "p2c"};
    for (int h = 0; h < H; ++h) {
        if (cancelled(cancel))
            return Error{"cancelled"};
        r.weightProfile.row(h) = offsetMean(headSlice(*weights, h), visible);
        StageMat term = StageMat::Zero(N, N);
        if (contentFromE) {
            const Eigen::MatrixXd q = E * full.W_q.middleCols(h * dh, dh);
            const Eigen::MatrixXd k = E * full.W_k.middleCols(h * dh, dh);
            term = headSlice(*logits, h);
            term.noalias() -= (q * k.transpose()) / std::sqrt(static_cast<double>(dh));
        } else if (!traced.empty()) {
            for (const char* name : traced)
                if (const Tensor* x = trace->find(name))
                    term += headSlice(*x, h);
        } else if (p.scheme != Scheme::None) { // URPE's bias: recovered by the stepper's split
            for (const StageMatrix& m : logitTerms(*trace, h))
                if (m.positionTerm)
                    term += m.values;
        }
        r.positionProfile.row(h) = offsetMean(term, visible);
        step();
    }
    r.weightProfileMean = nanMeanOverRows(r.weightProfile);
    r.positionProfileMean = nanMeanOverRows(r.positionProfile);

    if (p.scheme == Scheme::ALiBi) {
        const std::vector<double> s = alibiSlopes(H);
        r.alibiSlopes =
            Eigen::Map<const Eigen::VectorXd>(s.data(), static_cast<Eigen::Index>(s.size()));
    }
    if (p.scheme == Scheme::T5 || (p.scheme == Scheme::URPE && p.urpeBias == UrpeBias::T5)) {
        int last = -1;
        const int reach = std::max(N, p.maxDistance + 1);
        for (int rel = 0; rel < reach; ++rel) {
            const int b = t5Bucket(rel, !p.unidirectional, p.buckets, p.maxDistance);
            if (b != last)
                r.t5BucketStart.push_back(rel);
            last = b;
        }
    }
    r.ropeDecay = ropeDecayCurve(N, p.ropeDims > 0 ? p.ropeDims : p.headDim(), p.base);
    return r;
}

// ---------------------------------------------------------------------------------------------

std::string_view toString(DepthNorm n) {
    switch (n) {
    case DepthNorm::LayerNorm:
        return "layernorm";
    case DepthNorm::RmsNorm:
        return "rmsnorm";
    default:
        return "none";
    }
}

std::optional<DepthNorm> depthNormFromString(std::string_view s) {
    for (DepthNorm n : {DepthNorm::None, DepthNorm::LayerNorm, DepthNorm::RmsNorm})
        if (toString(n) == s)
            return n;
    return std::nullopt;
}

std::uint64_t depthLayerSeed(std::uint64_t seed, int layer) {
    if (layer <= 1)
        return seed;
    // splitmix64 of (seed, layer): distinct, reproducible streams per layer.
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(layer);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

DepthLayer depthLayerStats(const Eigen::MatrixXd& X, const Tensor* weights) {
    DepthLayer s;
    const Eigen::Index N = X.rows();
    // Singular values from the smaller Gram matrix.
    const Eigen::MatrixXd G =
        N <= X.cols() ? Eigen::MatrixXd(X * X.transpose()) : Eigen::MatrixXd(X.transpose() * X);
    const Eigen::VectorXd lambda =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(G, Eigen::EigenvaluesOnly).eigenvalues();
    const Eigen::VectorXd sigma = lambda.cwiseMax(0.0).cwiseSqrt();
    const double total = sigma.sum();
    if (total > 0) {
        double entropy = 0;
        for (Eigen::Index k = 0; k < sigma.size(); ++k) {
            const double q = sigma(k) / total;
            if (q > 0)
                entropy -= q * std::log(q);
        }
        s.effectiveRank = std::exp(entropy);
    }
    const double norm = X.norm();
    const Eigen::RowVectorXd mean = X.colwise().mean();
    s.uniformityResidual = norm > 0 ? (X.rowwise() - mean).norm() / norm : 0.0;

    s.attentionEntropy = kNaN;
    if (weights && weights->rank() == 3) {
        if (weights->holds<float>())
            s.attentionEntropy = meanRowEntropy(weights->data<float>(), weights->shape());
        else if (weights->holds<double>())
            s.attentionEntropy = meanRowEntropy(weights->data<double>(), weights->shape());
    }

    std::vector<int> all(N), even, odd;
    for (int i = 0; i < N; ++i) {
        all[i] = i;
        (i % 2 ? odd : even).push_back(i);
    }
    s.positionR2 = probeR2(X, all, all);
    s.positionR2Heldout = probeR2(X, even, odd, kHeldoutRidge);
    return s;
}

Expected<DepthInsight> depthInsight(const Params& p, const DepthOptions& o, const Weights* w,
                                    const LayerForward& forward, const InsightProgress& progress,
                                    const std::atomic<bool>* cancel) {
    if (o.layers < 1 || o.layers > kMaxDepthLayers)
        return Error{"--layers " + std::to_string(o.layers) + " must be between 1 and " +
                     std::to_string(kMaxDepthLayers)};
    if (Status st = validate(p); !st)
        return st.error();
    const int N = p.seqLen();
    const int d = p.d;
    const bool absolute = isAbsolute(p.scheme);
    Weights first = w ? *w : Weights{};
    completeWeights(p, first);
    if (Status st = checkWeights(p, first); !st)
        return st.error();

    // Layer 0: what the first layer sees, E + P with the special rows.
    Eigen::MatrixXd X;
    if (absolute) {
        auto t = forward(p, first, cancel);
        if (!t)
            return t.error();
        X = tensorMatrix(*t->find("X"));
    } else {
        X = assembleSequence(p, first);
    }

    DepthInsight out;
    out.options = o;
    DepthLayer zero = depthLayerStats(X);
    zero.layer = 0;
    out.layers.push_back(zero);

    for (int l = 1; l <= o.layers; ++l) {
        if (cancelled(cancel))
            return Error{"cancelled"};
        Params pl = p;
        pl.n = N;
        pl.cls = pl.sep = false;
        if (absolute)
            pl.scheme = Scheme::None; // P enters once, before the first layer
        pl.seed = depthLayerSeed(p.seed, l);
        Weights wl;
        if (l == 1) {
            wl = first; // the given (or seeded) weights of the trace itself
            wl.cls.resize(0, 0);
            wl.sep.resize(0, 0);
        }
        Eigen::MatrixXd H = X;
        layerNormRows(H, o.norm);
        wl.E = H;
        completeWeights(pl, wl);
        auto t = forward(pl, wl, cancel);
        if (!t)
            return t.error();
        const Eigen::MatrixXd attn = tensorMatrix(*t->find("out"));
        X = o.residual ? Eigen::MatrixXd(X + attn) : attn;
        if (o.mlp) {
            const Eigen::MatrixXd W1 =
                seededNormal(d, 4 * d, pl.seed, "insight.depth.mlp.W1") / std::sqrt(double(d));
            const Eigen::MatrixXd W2 =
                seededNormal(4 * d, d, pl.seed, "insight.depth.mlp.W2") / std::sqrt(4.0 * d);
            Eigen::MatrixXd Hm = X;
            layerNormRows(Hm, o.norm);
            const Eigen::MatrixXd f = (Hm * W1).cwiseMax(0.0) * W2;
            X = o.residual ? Eigen::MatrixXd(X + f) : f;
        }
        DepthLayer s = depthLayerStats(X, t->find("weights"));
        s.layer = l;
        out.layers.push_back(s);
        if (progress)
            progress(l, o.layers);
    }
    return out;
}

} // namespace pe
