// SPDX-License-Identifier: MIT
#include "logit_split.h"

#include <cmath>
#include <future>
#include <limits>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "stages.h"
#ifdef PE_HAVE_FAST_CPU
#include "cpu_attention_tiles.h"
#include "cpu_gemm.h"
#endif

namespace pe {

namespace {

template <typename T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/** a · bᵀ · alpha into c (row-major, m × n from m × k and n × k). */
template <typename T> void productABt(const RowMat<T>& a, const RowMat<T>& b, T alpha, T* c) {
#ifdef PE_HAVE_FAST_CPU
    if constexpr (std::is_same_v<T, float>) {
        const int m = static_cast<int>(a.rows()), n = static_cast<int>(b.rows()),
                  k = static_cast<int>(a.cols());
        // The engine's key product: b's rows packed in panels once, then every row of a against
        // them, c written once. The GEMM library first wrote c with zeros (beta = 0) and packed
        // b in its own way: at n = 2,048, d_h = 32 the Logit terms tab's four products took
        // 10–16 ms more CPU a change (of about 165 beside the GUI thread).
        std::vector<float> panels(static_cast<std::size_t>(cpu::panelFloats(n, k)));
        cpu::packPanels(b.data(), n, k, k, panels.data());
        const RowMat<float> scaled = alpha * a;
        cpu::dotKeys(m, scaled.data(), k, panels.data(), b.data(), n, c, n);
        return;
    }
#endif
    Eigen::Map<RowMat<T>>(c, a.rows(), b.rows()).noalias() = alpha * a * b.transpose();
}

/** x · w: x row-major n × d (the trace's E or P in place), w d × k. */
template <typename T>
RowMat<T> productAB(const T* x, Eigen::Index n, Eigen::Index d, const RowMat<T>& w) {
    RowMat<T> out(n, w.cols());
#ifdef PE_HAVE_FAST_CPU
    if constexpr (std::is_same_v<T, float>) {
        cpu::gemmAB(static_cast<int>(n), static_cast<int>(w.cols()), static_cast<int>(d), 1.0f, x,
                    static_cast<int>(d), w.data(), static_cast<int>(w.cols()), 0.0f, out.data(),
                    static_cast<int>(w.cols()));
        return out;
    }
#endif
    out.noalias() = Eigen::Map<const RowMat<T>>(x, n, d) * w;
    return out;
}

/** The four terms' tensors: [1, n, n] of T. */
template <typename T> bool termsFit(const Trace& out, std::int64_t n) {
    if (out.tensors.size() != absoluteTerms().size())
        return false;
    for (std::size_t k = 0; k < out.tensors.size(); ++k) {
        const auto& [name, x] = out.tensors[k];
        if (name != absoluteTerms()[k].name || x.shape() != std::vector<std::int64_t>{1, n, n} ||
            !x.template holds<T>() || x.isExternal())
            return false;
    }
    return true;
}

template <typename T> void split(const Trace& t, int head, Trace& out) {
    const Params& p = t.params;
    const Tensor& E = *t.find("E");
    const Tensor& P = *t.find("P");
    const auto n = static_cast<Eigen::Index>(E.dim(0));
    const auto d = static_cast<Eigen::Index>(E.dim(1));
    const int dh = p.headDim();
    const RowMat<T> wq = t.queryKey->wq.middleCols(head * dh, dh).template cast<T>();
    const RowMat<T> wk = t.queryKey->wk.middleCols(head * dh, dh).template cast<T>();
    // [0]: the content part of q (or k), e W; [1]: the position part, p W.
    const RowMat<T> q[2] = {productAB(E.data<T>(), n, d, wq), productAB(P.data<T>(), n, d, wq)};
    const RowMat<T> k[2] = {productAB(E.data<T>(), n, d, wk), productAB(P.data<T>(), n, d, wk)};
    const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(dh)));
    if (!termsFit<T>(out, n)) {
        out.tensors.clear();
        for (const AbsoluteTerm& a : absoluteTerms())
            out.tensors.emplace_back(
                a.name, Tensor(std::is_same_v<T, float> ? DType::F32 : DType::F64, {1, n, n}));
    }
    out.params = p;
    out.tokens = t.tokens;
    std::vector<std::future<void>> running;
    for (std::size_t x = 0; x < absoluteTerms().size(); ++x) {
        const AbsoluteTerm& a = absoluteTerms()[x];
        const RowMat<T>& qa = q[a.queryPosition ? 1 : 0];
        const RowMat<T>& kb = k[a.keyPosition ? 1 : 0];
        T* dst = out.tensors[x].second.template data<T>();
        // The four n² products side by side where they are worth a thread each (n = 2048,
        // d_h = 64: 0.5 GFLOP each).
        if (n >= 512)
            running.push_back(std::async(
                std::launch::async, [&qa, &kb, scale, dst] { productABt(qa, kb, scale, dst); }));
        else
            productABt(qa, kb, scale, dst);
    }
    for (std::future<void>& f : running)
        f.get();
}

} // namespace

bool splitFits(const Trace& t, const Trace& out) {
    if (!canSplitLogits(t))
        return false;
    const std::int64_t n = t.find("E")->dim(0);
    return t.find("E")->holds<float>() ? termsFit<float>(out, n) : termsFit<double>(out, n);
}

void splitLogitsInto(const Trace& t, int head, Trace& out) {
    if (!canSplitLogits(t) || head < 0 || head >= t.params.heads) {
        out = Trace{};
        return;
    }
    if (t.find("E")->holds<float>())
        split<float>(t, head, out);
    else
        split<double>(t, head, out);
}

Trace splitLogits(const Trace& t, int head) {
    Trace out;
    splitLogitsInto(t, head, out);
    return out;
}

namespace {

/**
 * RoPE's change by the rotation, S − q⁰·k⁰ᵀ/√d_h with q⁰, k⁰ the head's queries and keys turned
 * back (core's unrotated; logitTerms computes the same, and the rotated product again, in
 * double): one product on the engine's float kernels. Masked cells keep S's −∞.
 */
StageMat ropeRotation(const Trace& t, int head, const StageMat& s) {
    const RowMat<float> q = unrotated(t, "Q", head).cast<float>();
    const RowMat<float> k = unrotated(t, "K", head).cast<float>();
    RowMat<float> content(q.rows(), k.rows());
    productABt(q, k, static_cast<float>(1.0 / std::sqrt(double(t.params.headDim()))),
               content.data());
    return s - content.cast<double>();
}

} // namespace

std::optional<StageMat> positionPart(const Trace& t, int head) {
    const Params& p = t.params;
    const Tensor* logits = t.find("logits");
    const std::int64_t n = p.seqLen();
    if (!logits || head < 0 || head >= p.heads || logits->rank() != 3 || logits->dim(1) != n ||
        logits->dim(2) != n)
        return std::nullopt; // pooled, or not a trace of these parameters
    const StageMat s = headSlice(*logits, head);
    StageMat sum = StageMat::Zero(n, n);
    // The trace's own tensors where it holds the terms (each [heads, n, n], as the logits).
    bool missing = false;
    auto add = [&](const char* name) {
        const Tensor* x = t.find(name);
        if (x && x->rank() == 3 && x->dim(1) == n && x->dim(2) == n)
            sum += headSlice(*x, head);
        else
            missing = true;
    };
    switch (p.scheme) {
    case Scheme::None:
        break;
    case Scheme::T5:
    case Scheme::ALiBi:
        add("bias");
        break;
    case Scheme::Shaw:
        add("shaw_k_term");
        break;
    case Scheme::TransformerXL:
        add("txl_bd");
        break;
    case Scheme::DeBERTa:
        add("c2p");
        add("p2c");
        break;
    case Scheme::RoPE:
        if (!t.find("Q") || !t.find("K"))
            return std::nullopt;
        sum = ropeRotation(t, head, s);
        break;
    case Scheme::URPE:
        // Without its T5 bias URPE's positions multiply the weights (⊙C): the logits have none.
        // With it, the bias is recovered per bucket from the logits (logitTerms, which reads Q,
        // K and the index without asking whether they are there).
        if (p.urpeBias == UrpeBias::T5) {
            if (!t.find("Q") || !t.find("K") || !t.find("rel_index"))
                return std::nullopt;
            missing = true;
            for (const StageMatrix& m : logitTerms(t, head))
                if (m.positionTerm) {
                    sum += m.values;
                    missing = false;
                }
        }
        break;
    default: // the absolute schemes: e·p + p·e + p·p
        if (!canSplitLogits(t))
            return std::nullopt;
        {
            const Trace terms = splitLogits(t, head);
            for (const AbsoluteTerm& a : absoluteTerms())
                if (a.queryPosition || a.keyPosition)
                    sum += headSlice(*terms.find(a.name), 0);
        }
        break;
    }
    if (missing)
        return std::nullopt;
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j)
            if (s(i, j) == -std::numeric_limits<double>::infinity())
                sum(i, j) = s(i, j);
    return sum;
}

bool splitTakesLong(const Params& p) {
    const double n = p.seqLen();
    return n * n * p.headDim() >= double(1 << 26);
}

bool positionPartTakesLong(const Params& p) {
    const double n = p.seqLen();
    return n * n >= double(1 << 20) || splitTakesLong(p);
}

} // namespace pe
