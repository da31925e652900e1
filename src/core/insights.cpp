// SPDX-License-Identifier: MIT
// The binary, offset and cost pages (insights.h); distance and depth are in insights_layers.cpp.
#include "insights.h"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "encodings.h"

namespace pe {

namespace {

constexpr std::array<std::pair<InsightPage, std::string_view>, 5> kPages{{
    {InsightPage::Binary, "binary"},
    {InsightPage::Offset, "offset"},
    {InsightPage::Cost, "cost"},
    {InsightPage::Distance, "distance"},
    {InsightPage::Depth, "depth"},
}};

/** A table as the engines hold it: rounded to float in float32 mode. */
Eigen::MatrixXd asHeld(Eigen::MatrixXd m, Precision precision) {
    if (precision == Precision::Float32)
        m = m.cast<float>().cast<double>();
    return m;
}

/**
 * Per diagonal r = j − i of G = A·Bᵀ ([N, N], index r + N − 1): the mean, and the largest
 * |G_ij − mean|. Computed in row blocks so that no N×N matrix is held.
 */
struct DiagonalStats {
    Eigen::VectorXd mean, deviation;
    double maxDeviation = 0;
    double maxAbs = 0;
};
std::optional<DiagonalStats> diagonalStats(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                           const std::atomic<bool>* cancel) {
    const Eigen::Index N = A.rows();
    const Eigen::Index D = 2 * N - 1;
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(D);
    Eigen::VectorXd lo = Eigen::VectorXd::Constant(D, std::numeric_limits<double>::infinity());
    Eigen::VectorXd hi = Eigen::VectorXd::Constant(D, -std::numeric_limits<double>::infinity());
    DiagonalStats s;
    constexpr Eigen::Index kBlock = 256;
    for (Eigen::Index i0 = 0; i0 < N; i0 += kBlock) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return std::nullopt;
        const Eigen::Index rows = std::min(kBlock, N - i0);
        const Eigen::MatrixXd G = A.middleRows(i0, rows) * B.transpose();
        for (Eigen::Index j = 0; j < N; ++j)
            for (Eigen::Index r = 0; r < rows; ++r) {
                const double g = G(r, j);
                const Eigen::Index k = j - (i0 + r) + N - 1;
                sum(k) += g;
                lo(k) = std::min(lo(k), g);
                hi(k) = std::max(hi(k), g);
                s.maxAbs = std::max(s.maxAbs, std::abs(g));
            }
    }
    s.mean.resize(D);
    s.deviation.resize(D);
    for (Eigen::Index k = 0; k < D; ++k) {
        const double count = static_cast<double>(N - std::abs(k - (N - 1)));
        s.mean(k) = sum(k) / count;
        s.deviation(k) = std::max(hi(k) - s.mean(k), s.mean(k) - lo(k));
    }
    s.maxDeviation = D > 0 ? s.deviation.maxCoeff() : 0.0;
    return s;
}

/** RoPE applied per head to every row of x [rows, d], row r at position positions[r]. */
void ropeAllHeads(const Params& p, Eigen::MatrixXd& x, const std::vector<double>& positions) {
    const int dh = p.headDim();
    const RopeFrequencies f = ropeFrequencies(p); // --rope-scaling pi/ntk included
    for (int h = 0; h < p.heads; ++h) {
        Eigen::MatrixXd slice = x.middleCols(h * dh, dh);
        applyRope(slice, positions, f, p.ropeConvention);
        x.middleCols(h * dh, dh) = slice;
    }
}

/** The exact shift map of a sinusoid table (see OffsetInsight). */
Expected<Eigen::MatrixXd> sinusoidShift(const Params& p, int delta) {
    const int d = p.d;
    if (p.layout == SinLayout::Interleaved && d % 2 == 1)
        return Error{"--d " + std::to_string(d) +
                     " is odd: the interleaved table ends in a lone sine column, which no fixed "
                     "linear map shifts; use an even --d or --layout t2t"};
    const Eigen::VectorXd w = sinusoidFrequencies(d, p.base, p.layout);
    const int K = static_cast<int>(w.size());
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(d, d);
    for (int j = 0; j < K; ++j) {
        const int s = p.layout == SinLayout::Interleaved ? 2 * j : j;
        const int c = p.layout == SinLayout::Interleaved ? 2 * j + 1 : j + (d / 2);
        const double angle = delta * w(j);
        M(s, s) = M(c, c) = std::cos(angle);
        M(s, c) = std::sin(angle);
        M(c, s) = -std::sin(angle);
    }
    return M; // t2t's zero column (odd d) maps to 0
}

} // namespace

std::string_view toString(InsightPage page) {
    for (const auto& [p, name] : kPages)
        if (p == page)
            return name;
    return "?";
}

std::optional<InsightPage> insightPageFromString(std::string_view s) {
    for (const auto& [p, name] : kPages)
        if (name == s)
            return p;
    return std::nullopt;
}

const std::vector<InsightPage>& allInsightPages() {
    static const std::vector<InsightPage> all = [] {
        std::vector<InsightPage> v;
        for (const auto& e : kPages)
            v.push_back(e.first);
        return v;
    }();
    return all;
}

std::string_view toString(OffsetMethod m) {
    return m == OffsetMethod::Exact ? "exact" : "least_squares";
}

LayerForward referenceLayerForward() {
    return [](const Params& p, const Weights& w, const std::atomic<bool>* cancel) {
        return computeTrace(p, w, cancel);
    };
}

// ---------------------------------------------------------------------------------------------

Expected<BinaryInsight> binaryInsight(const Params& p) {
    if (Status st = validate(p); !st)
        return st.error();
    BinaryInsight b;
    const int N = p.seqLen();
    b.positions = N;
    int B = 0;
    while (B < 31 && (std::int64_t{1} << B) < N)
        ++B;
    b.bitCount = std::max(1, B);
    b.bits.resize(N, b.bitCount);
    for (int i = 0; i < N; ++i)
        for (int k = 0; k < b.bitCount; ++k)
            b.bits(i, k) = (i >> k) & 1;
    b.bitPeriod.resize(b.bitCount);
    for (int k = 0; k < b.bitCount; ++k)
        b.bitPeriod(k) = std::ldexp(1.0, k + 1);
    b.omega = sinusoidFrequencies(p.d, p.base, p.layout);
    b.period = (2 * std::numbers::pi) * b.omega.cwiseInverse();
    b.P = sinusoidal(N, p.d, p.base, p.layout);
    return b;
}

// ---------------------------------------------------------------------------------------------

bool offsetApplies(const Params& p) {
    return isAbsolute(p.scheme) || p.scheme == Scheme::RoPE;
}

Expected<OffsetInsight> offsetInsight(const Params& p, const OffsetOptions& o, const Weights* w,
                                      const std::atomic<bool>* cancel) {
    const bool userTable = o.table.size() > 0;
    if (!userTable && !offsetApplies(p))
        return Error{"--scheme " + std::string(toString(p.scheme)) +
                     " has no position table P for the offset page (it applies to the absolute "
                     "schemes, to rope, and to a table given with --table)"};
    if (!userTable) {
        if (Status st = validate(p); !st)
            return st.error();
    }
    const int N = userTable ? static_cast<int>(o.table.rows()) : p.seqLen();
    const int delta = o.delta;
    if (delta < 1)
        return Error{"--delta " + std::to_string(delta) + " must be at least 1"};
    if (delta >= N)
        return Error{"--delta " + std::to_string(delta) +
                     " must be below n = " + std::to_string(N) +
                     (userTable  ? " (the rows of --table)"
                      : N != p.n ? " (--n " + std::to_string(p.n) + " plus special tokens)"
                                 : "")};

    OffsetInsight r;
    r.delta = delta;
    if (userTable) {
        r.method = OffsetMethod::LeastSquares;
        r.source = "the given table";
        r.P = asHeld(o.table, p.precision);
    } else if (p.scheme == Scheme::Sinusoidal) {
        auto M = sinusoidShift(p, delta);
        if (!M)
            return M.error();
        r.method = OffsetMethod::Exact;
        r.source = "sinusoidal (" + std::string(toString(p.layout)) + ")";
        r.P = asHeld(sinusoidal(N, p.d, p.base, p.layout), p.precision);
        r.M = std::move(*M);
    } else if (p.scheme == Scheme::RoPE) {
        r.method = OffsetMethod::Exact;
        r.source = "rope rotation R_i·u, u = (1, …, 1)/√d";
        std::vector<double> pos(N);
        for (int i = 0; i < N; ++i)
            pos[i] = i;
        r.P = Eigen::MatrixXd::Constant(N, p.d, 1.0 / std::sqrt(static_cast<double>(p.d)));
        ropeAllHeads(p, r.P, pos);
        r.P = asHeld(std::move(r.P), p.precision);
        // Column c of M is R_δ e_c: rotate the identity's rows to position δ, transpose.
        Eigen::MatrixXd I = Eigen::MatrixXd::Identity(p.d, p.d);
        ropeAllHeads(p, I, std::vector<double>(p.d, static_cast<double>(delta)));
        r.M = I.transpose();
        // The relative property of the rotated logits: (R_m q)·(R_n k) depends on n − m only.
        const int dh = p.headDim();
        Params head = p;
        head.d = dh;
        head.heads = 1;
        Eigen::MatrixXd Q = seededNormal(1, dh, p.seed, "insight.rope.q").replicate(N, 1);
        Eigen::MatrixXd K = seededNormal(1, dh, p.seed, "insight.rope.k").replicate(N, 1);
        ropeAllHeads(head, Q, pos);
        ropeAllHeads(head, K, pos);
        const auto s = diagonalStats(asHeld(Q, p.precision), asHeld(K, p.precision), cancel);
        if (!s)
            return Error{"cancelled"};
        r.ropeDeviation = s->deviation;
        r.ropeMaxDeviation = s->maxDeviation;
    } else {
        r.method = OffsetMethod::LeastSquares;
        Weights full = w ? *w : Weights{};
        if (p.scheme == Scheme::Learned) {
            if (full.learnedTable.size() == 0)
                completeWeights(p, full);
            if (Status st = checkWeights(p, full); !st)
                return st.error();
            r.source = "learned table";
            r.P = asHeld(full.learnedTable.topRows(N), p.precision);
        } else { // any other absolute scheme: its P as the forward pass computes it
            completeWeights(p, full);
            auto t = computeTrace(p, full, cancel);
            if (!t)
                return t.error();
            const Tensor* P = t->find("P");
            if (!P)
                return Error{"--scheme " + std::string(toString(p.scheme)) + " has no P"};
            r.source = std::string(toString(p.scheme)) + " encoding";
            r.P.resize(N, p.d);
            for (int i = 0; i < N; ++i)
                for (int c = 0; c < p.d; ++c)
                    r.P(i, c) = P->at(static_cast<std::int64_t>(i) * p.d + c);
        }
    }

    const Eigen::Index d = r.P.cols();
    const Eigen::Index rows = N - delta;
    r.shifted = r.P.bottomRows(rows);
    if (cancel && cancel->load(std::memory_order_relaxed))
        return Error{"cancelled"};
    if (r.method == OffsetMethod::LeastSquares) {
        const Eigen::MatrixXd A = r.P.topRows(rows);
        r.M = A.completeOrthogonalDecomposition().solve(r.shifted).transpose();
        r.underdetermined = rows <= d;
    }
    r.predicted = r.P.topRows(rows) * r.M.transpose();
    r.residual = r.shifted - r.predicted;
    r.rowResidual = r.residual.rowwise().norm();
    r.maxAbsResidual = r.residual.size() ? r.residual.cwiseAbs().maxCoeff() : 0.0;
    const double norm = r.shifted.norm();
    r.relativeResidual = norm > 0 ? r.residual.norm() / norm : 0.0;

    const auto g = diagonalStats(r.P, r.P, cancel);
    if (!g)
        return Error{"cancelled"};
    r.gramDiagonalMean = g->mean;
    r.toeplitzDeviation = g->deviation;
    r.toeplitzMaxDeviation = g->maxDeviation;
    r.gramMaxAbs = g->maxAbs;
    return r;
}

// ---------------------------------------------------------------------------------------------

CostRow costRow(std::int64_t n, std::int64_t d, std::int64_t k) {
    CostRow c;
    c.n = n;
    c.cnnFlops = 2 * k * n * d * d;
    c.rnnFlops = 2 * n * d * d;
    c.attentionFlops = 4 * n * n * d;
    c.cnnSequential = 1;
    c.rnnSequential = n;
    c.attentionSequential = 1;
    c.cnnPath = n > 1 ? (n - 1 + (k - 2)) / (k - 1) : 0; // ⌈(n−1)/(k−1)⌉
    c.rnnPath = n > 1 ? n - 1 : 0;
    c.attentionPath = n > 1 ? 1 : 0;
    return c;
}

Expected<CostInsight> costInsight(const Params& p, const CostOptions& o) {
    constexpr int kMaxKernel = 4096;
    constexpr int kMaxN = 1 << 20;
    if (o.kernel < 2 || o.kernel > kMaxKernel)
        return Error{"--kernel " + std::to_string(o.kernel) + " must be between 2 and " +
                     std::to_string(kMaxKernel)};
    if (o.nMax < 1 || o.nMax > kMaxN)
        return Error{"--n-max " + std::to_string(o.nMax) + " must be between 1 and " +
                     std::to_string(kMaxN)};
    if (p.d < 1 || p.d > 65536)
        return Error{"--d " + std::to_string(p.d) + " must be between 1 and 65536"};
    CostInsight c;
    c.d = p.d;
    c.kernel = o.kernel;
    for (std::int64_t n = 1; n <= o.nMax; n *= 2)
        c.rows.push_back(costRow(n, p.d, o.kernel));
    c.attentionRnnCrossover = p.d / 2.0;
    c.attentionCnnCrossover = o.kernel * p.d / 2.0;
    return c;
}

double fitPowerLawExponent(const std::vector<double>& x, const std::vector<double>& y,
                           double xMin) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int count = 0;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (x[i] < xMin)
            continue;
        if (!(x[i] > 0) || !(y[i] > 0))
            return std::numeric_limits<double>::quiet_NaN();
        const double lx = std::log(x[i]), ly = std::log(y[i]);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
        ++count;
    }
    const double den = count * sxx - sx * sx;
    if (count < 2 || den <= 0)
        return std::numeric_limits<double>::quiet_NaN();
    return (count * sxy - sx * sy) / den;
}

} // namespace pe
