// SPDX-License-Identifier: MIT
#include "probe.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "encodings.h"
#include "trace_internal.h"
#include "weights.h"

namespace pe {

namespace {

Eigen::MatrixXd rmsNorm(const Eigen::MatrixXd& x) {
    Eigen::MatrixXd y = x;
    for (Eigen::Index r = 0; r < x.rows(); ++r)
        y.row(r) /= std::sqrt(x.row(r).squaredNorm() / static_cast<double>(x.cols()) + 1e-6);
    return y;
}

/** The parameters the probe computes with. */
Params probeParams(const Params& base) {
    Params p = base;
    p.precision = Precision::Float64;
    // The learned table's rows past the sequence are never read, and its rows are drawn in
    // row order: the first seqLen rows are the same for any row count. Drawing all
    // learnedRows (up to 2^20) three times took 1.5 s of the GUI thread at d = 16.
    if (p.scheme == Scheme::Learned)
        p.learnedRows = std::min(p.learnedRows, p.seqLen());
    return p;
}

/**
 * An absolute scheme's position tensors (its learned table or MLP): drawn once for the input,
 * where the position enters; the layers add none (computeTraceFromSequence with addPosition =
 * false) and take these as they are rather than drawing their own.
 */
bool isInputPositionTensor(const std::string& name) {
    return name == "learned.table" || name.rfind("mlp.", 0) == 0;
}

} // namespace

std::int64_t probeDrawCount(const Params& base, int layers) {
    const Params p = probeParams(base);
    const std::int64_t d = p.d;
    std::int64_t input = d, layer = d * d + 2 * d * (2 * d); // E's row; k_noise, ffn1, ffn2
    for (const WeightSpec& spec : weightSpecs(p)) {
        if (!spec.used || spec.name == "E")
            continue;
        const std::int64_t count = weightElements(spec, p);
        input += count;
        const bool special = spec.name == "special.cls" || spec.name == "special.sep";
        if (!special && !isInputPositionTensor(spec.name))
            layer += count;
    }
    return input + std::max(layers, 0) * layer;
}

ProbeResult runProbe(const Params& base, int layers, bool shawValues,
                     const std::atomic<bool>* cancel) {
    const auto cancelled = [cancel] { return cancel && cancel->load(); };
    const Params p = probeParams(base);
    const int d = p.d;
    Weights w0;
    w0.E = seededNormal(1, d, p.seed, "probe.token").replicate(p.n, 1); // n identical tokens
    completeWeights(p, w0);
    Eigen::MatrixXd x = assembleSequence(p, w0);
    // The position signal of absolute schemes enters the residual stream once, at the input.
    if (isAbsolute(p.scheme))
        x += absoluteEncoding(p, w0);
    const int first = p.cls ? 1 : 0;

    for (int layer = 0; layer < layers; ++layer) {
        if (cancelled())
            return {};
        Params pl = p;
        pl.seed = p.seed + 1000 * static_cast<std::uint64_t>(layer + 1);
        Weights w;
        w.E = w0.E;
        w.cls = w0.cls;
        w.sep = w0.sep;
        for (const WeightSpec& spec : weightSpecs(pl))
            if (spec.used && isInputPositionTensor(spec.name))
                w.*(spec.member) = w0.*(spec.member);
        completeWeights(pl, w);
        if (cancelled())
            return {};
        // Keys close to the queries so relu² sees positive logits (SPEC §10 pitfall).
        w.W_k = w.W_q + 0.1 * seededNormal(d, d, pl.seed, "probe.k_noise") / std::sqrt(double(d));
        if (p.scheme == Scheme::Shaw && !shawValues)
            w.shawWv.setZero();
        auto tr = computeTraceFromSequence(pl, w, rmsNorm(x), false, cancel);
        if (!tr)
            return {};
        const Tensor* out = tr->find("out");
        Eigen::MatrixXd attn(x.rows(), d);
        for (Eigen::Index i = 0; i < attn.rows(); ++i)
            for (int c = 0; c < d; ++c)
                attn(i, c) = out->data<double>()[i * d + c];
        x += attn;
        if (cancelled())
            return {};
        const Eigen::MatrixXd W1 =
            seededNormal(d, 2 * d, pl.seed, "probe.ffn1") / std::sqrt(double(d));
        const Eigen::MatrixXd W2 =
            seededNormal(2 * d, d, pl.seed, "probe.ffn2") / std::sqrt(2.0 * d);
        x += (rmsNorm(x) * W1).cwiseMax(0.0) * W2;
    }
    ProbeResult r;
    for (int i = first; i < first + p.n; ++i)
        r.spread = std::max(r.spread, (x.row(i) - x.row(first)).cwiseAbs().maxCoeff());
    r.canTellApart = r.spread > kProbeBrokenThreshold;
    return r;
}

} // namespace pe
