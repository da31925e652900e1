// SPDX-License-Identifier: MIT
#include "logit_split.h"

#include <cmath>
#include <type_traits>

#include <Eigen/Core>

#include "stages.h"
#ifdef PE_HAVE_FAST_CPU
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
        cpu::gemmABt(static_cast<int>(a.rows()), static_cast<int>(b.rows()),
                     static_cast<int>(a.cols()), alpha, a.data(), static_cast<int>(a.cols()),
                     b.data(), static_cast<int>(b.cols()), 0.0f, c, static_cast<int>(b.rows()));
        return;
    }
#endif
    Eigen::Map<RowMat<T>>(c, a.rows(), b.rows()).noalias() = alpha * a * b.transpose();
}

/** x · w (row-major n × d times d × k). */
template <typename T> RowMat<T> productAB(const RowMat<T>& x, const RowMat<T>& w) {
    RowMat<T> out(x.rows(), w.cols());
#ifdef PE_HAVE_FAST_CPU
    if constexpr (std::is_same_v<T, float>) {
        cpu::gemmAB(static_cast<int>(x.rows()), static_cast<int>(w.cols()),
                    static_cast<int>(x.cols()), 1.0f, x.data(), static_cast<int>(x.cols()),
                    w.data(), static_cast<int>(w.cols()), 0.0f, out.data(),
                    static_cast<int>(w.cols()));
        return out;
    }
#endif
    out.noalias() = x * w;
    return out;
}

template <typename T> Trace split(const Trace& t, int head) {
    const Params& p = t.params;
    const Tensor& E = *t.find("E");
    const Tensor& P = *t.find("P");
    const auto n = static_cast<Eigen::Index>(E.dim(0));
    const auto d = static_cast<Eigen::Index>(E.dim(1));
    const int dh = p.headDim();
    const Eigen::Map<const RowMat<T>> e(E.data<T>(), n, d), pos(P.data<T>(), n, d);
    const RowMat<T> x[2] = {e, pos}; // content, position
    const RowMat<T> wq = t.queryKey->wq.middleCols(head * dh, dh).template cast<T>();
    const RowMat<T> wk = t.queryKey->wk.middleCols(head * dh, dh).template cast<T>();
    const RowMat<T> q[2] = {productAB(x[0], wq), productAB(x[1], wq)};
    const RowMat<T> k[2] = {productAB(x[0], wk), productAB(x[1], wk)};
    const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(dh)));
    Trace out;
    out.params = p;
    out.tokens = t.tokens;
    for (const AbsoluteTerm& a : absoluteTerms()) {
        Tensor term(std::is_same_v<T, float> ? DType::F32 : DType::F64, {1, n, n});
        productABt(q[a.queryPosition ? 1 : 0], k[a.keyPosition ? 1 : 0], scale, term.data<T>());
        out.tensors.emplace_back(a.name, std::move(term));
    }
    return out;
}

} // namespace

bool canSplitLogits(const Trace& t) {
    const Tensor* E = t.find("E");
    const Tensor* P = t.find("P");
    const Params& p = t.params;
    return isAbsolute(p.scheme) && t.queryKey && E && P && E->rank() == 2 &&
           P->shape() == E->shape() && E->dim(1) == p.d && E->dtype() == P->dtype() &&
           (E->holds<float>() || E->holds<double>()) && t.queryKey->wq.rows() == p.d &&
           t.queryKey->wq.cols() == p.d && t.queryKey->wk.rows() == p.d &&
           t.queryKey->wk.cols() == p.d;
}

Trace splitLogits(const Trace& t, int head) {
    if (!canSplitLogits(t) || head < 0 || head >= t.params.heads)
        return {};
    return t.find("E")->holds<float>() ? split<float>(t, head) : split<double>(t, head);
}

} // namespace pe
