// SPDX-License-Identifier: MIT
#include "trace.h"

#include <cmath>
#include <limits>

#include "encodings.h"
#include "normalise.h"
#include "trace_internal.h"

namespace pe {

const Tensor* Trace::find(std::string_view name) const {
    for (const auto& [n, t] : tensors)
        if (n == name)
            return &t;
    return nullptr;
}

Tensor* Trace::find(std::string_view name) {
    for (auto& [n, t] : tensors)
        if (n == name)
            return &t;
    return nullptr;
}

std::vector<std::string> traceTensorNames(const Params& p) {
    std::vector<std::string> names{"E"};
    if (isAbsolute(p.scheme))
        names.push_back("P");
    for (const char* n : {"X", "Q", "K", "V", "logits", "weights", "head_out", "out"})
        names.emplace_back(n);
    if (hasRelIndex(p))
        names.emplace_back("rel_index");
    if (hasBias(p))
        names.emplace_back("bias");
    switch (p.scheme) {
    case Scheme::Shaw:
        names.emplace_back("shaw_k_term");
        names.emplace_back("shaw_v_term");
        break;
    case Scheme::TransformerXL:
        names.emplace_back("txl_ac");
        names.emplace_back("txl_bd");
        break;
    case Scheme::DeBERTa:
        names.emplace_back("c2c");
        if (p.debertaC2P)
            names.emplace_back("c2p");
        if (p.debertaP2C)
            names.emplace_back("p2c");
        break;
    case Scheme::URPE:
        names.emplace_back("urpe_C");
        break;
    default:
        break;
    }
    return names;
}

TensorSpec traceTensorSpec(const Params& p, std::string_view name) {
    const std::int64_t N = p.seqLen(), d = p.d, H = p.heads, dh = p.headDim();
    const DType f = p.precision == Precision::Float64 ? DType::F64 : DType::F32;
    if (name == "E" || name == "P" || name == "X" || name == "out")
        return {f, {N, d}};
    if (name == "Q" || name == "K" || name == "V" || name == "head_out" || name == "shaw_v_term")
        return {f, {H, N, dh}};
    if (name == "rel_index")
        return {DType::I32, {N, N}};
    return {f, {H, N, N}};
}

std::uint64_t estimateTraceBytes(const Params& p) {
    const std::uint64_t N = static_cast<std::uint64_t>(std::max(p.seqLen(), 0));
    const std::uint64_t H = static_cast<std::uint64_t>(std::max(p.heads, 1));
    const std::uint64_t d = static_cast<std::uint64_t>(std::max(p.d, 0));
    const std::uint64_t es = p.precision == Precision::Float64 ? 8 : 4;
    std::uint64_t nn = 0; // per-head n×n tensors kept in the trace
    for (const std::string& name : traceTensorNames(p))
        if (name == "logits" || name == "weights" || name == "bias" || name == "shaw_k_term" ||
            name == "txl_ac" || name == "txl_bd" || name == "c2c" || name == "c2p" ||
            name == "p2c" || name == "urpe_C")
            ++nn;
    std::uint64_t bytes = nn * H * N * N * es;
    if (hasRelIndex(p))
        bytes += N * N * 4;
    bytes += 3 * N * N * es;  // working buffers of one head (content, gathers)
    bytes += 12 * N * d * es; // E, P, X, Q, K, V, head_out, out and projections
    bytes += 4 * N * d * 8;   // double-precision staging of small tables
    return bytes;
}

std::vector<std::string> defaultTokens(const Params& p) {
    std::vector<std::string> t;
    if (p.cls)
        t.emplace_back("[CLS]");
    for (int i = 0; i < p.n; ++i)
        t.push_back(std::string("t") += std::to_string(i));
    if (p.sep)
        t.emplace_back("[SEP]");
    return t;
}

namespace {

template <typename T>
using MatR = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T> using MapR = Eigen::Map<MatR<T>>;

template <typename T>
Expected<Trace> forward(const Params& p, const Weights& w, const Eigen::MatrixXd& Efull,
                        bool addPosition, const std::atomic<bool>* cancel) {
    const int N = p.seqLen();
    const int d = p.d;
    const int H = p.heads;
    const int dh = p.headDim();
    const DType dt = std::is_same_v<T, float> ? DType::F32 : DType::F64;
    const T ninf = -std::numeric_limits<T>::infinity();
    const double invSqrtDh = 1.0 / std::sqrt(static_cast<double>(dh));
    const std::int64_t N64 = N, d64 = d, H64 = H, dh64 = dh;

    Trace tr;
    tr.tensors.reserve(32); // references into it are held below: no reallocation
    tr.params = p;
    tr.tokens = defaultTokens(p);
    auto add = [&tr](const char* name, DType t, std::vector<std::int64_t> shape) -> Tensor& {
        tr.tensors.emplace_back(name, Tensor(t, std::move(shape)));
        return tr.tensors.back().second;
    };
    auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };

    // Input: E (special rows included), P, X = E + P.
    MapR<T> E(add("E", dt, {N64, d64}).template data<T>(), N, d);
    E = Efull.cast<T>();
    MatR<T> X = E;
    if (isAbsolute(p.scheme)) {
        MapR<T> P(add("P", dt, {N64, d64}).template data<T>(), N, d);
        if (addPosition) {
            P = absoluteEncoding(p, w).cast<T>();
        } else {
            P.setZero();
        }
        X += P;
    }
    MapR<T>(add("X", dt, {N64, d64}).template data<T>(), N, d) = X;

    // Projections, split per head: Q[h] = X W_q[:, h dh : (h+1) dh].
    const MatR<T> Qf = X * w.W_q.cast<T>();
    const MatR<T> Kf = X * w.W_k.cast<T>();
    const MatR<T> Vf = X * w.W_v.cast<T>();
    Tensor& Qt = add("Q", dt, {H64, N64, dh64});
    Tensor& Kt = add("K", dt, {H64, N64, dh64});
    Tensor& Vt = add("V", dt, {H64, N64, dh64});
    auto headMap = [N, dh](Tensor& t, int h) {
        return MapR<T>(t.template data<T>() + static_cast<std::ptrdiff_t>(h) * N * dh, N, dh);
    };
    std::vector<double> positions(static_cast<std::size_t>(N));
    for (int i = 0; i < N; ++i)
        positions[static_cast<std::size_t>(i)] = i;
    const RopeFrequencies rope = p.scheme == Scheme::RoPE ? ropeFrequencies(p) : RopeFrequencies{};
    for (int h = 0; h < H; ++h) {
        headMap(Qt, h) = Qf.middleCols(h * dh, dh);
        headMap(Kt, h) = Kf.middleCols(h * dh, dh);
        headMap(Vt, h) = Vf.middleCols(h * dh, dh);
        if (p.scheme == Scheme::RoPE) {
            // Rotate in double: the angle p·θ loses accuracy in float32 (SPEC §7).
            for (Tensor* t : {&Qt, &Kt}) {
                Eigen::MatrixXd x = headMap(*t, h).template cast<double>();
                applyRope(x, positions, rope, p.ropeConvention);
                headMap(*t, h) = x.cast<T>();
            }
        }
    }

    // Per-head n×n outputs.
    Tensor& logitsT = add("logits", dt, {H64, N64, N64});
    Tensor& weightsT = add("weights", dt, {H64, N64, N64});
    Tensor& headOutT = add("head_out", dt, {H64, N64, dh64});
    Tensor& outT = add("out", dt, {N64, d64});
    auto nnMap = [N](Tensor& t, int h) {
        return MapR<T>(t.template data<T>() + static_cast<std::ptrdiff_t>(h) * N * N, N, N);
    };

    // Relative index (integer, shared by heads).
    const bool t5Bias =
        p.scheme == Scheme::T5 || (p.scheme == Scheme::URPE && p.urpeBias == UrpeBias::T5);
    Tensor* relIndexT = hasRelIndex(p) ? &add("rel_index", DType::I32, {N64, N64}) : nullptr;
    if (relIndexT) {
        std::int32_t* ri = relIndexT->data<std::int32_t>();
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j) {
                int v = 0;
                if (p.scheme == Scheme::Shaw)
                    v = shawIndex(i, j, p.clip);
                else if (t5Bias)
                    v = t5Bucket(j - i, !p.unidirectional, p.buckets, p.maxDistance);
                else // DeBERTa: rel = i − j
                    v = debertaIndex(i - j, p);
                ri[static_cast<std::ptrdiff_t>(i) * N + j] = v;
            }
    }
    Tensor* biasT = hasBias(p) ? &add("bias", dt, {H64, N64, N64}) : nullptr;
    Tensor* shawK = nullptr;
    Tensor* shawV = nullptr;
    Tensor* txlAc = nullptr;
    Tensor* txlBd = nullptr;
    Tensor* c2cT = nullptr;
    Tensor* c2pT = nullptr;
    Tensor* p2cT = nullptr;
    Tensor* urpeCT = nullptr;
    switch (p.scheme) {
    case Scheme::Shaw:
        shawK = &add("shaw_k_term", dt, {H64, N64, N64});
        shawV = &add("shaw_v_term", dt, {H64, N64, dh64});
        break;
    case Scheme::TransformerXL:
        txlAc = &add("txl_ac", dt, {H64, N64, N64});
        txlBd = &add("txl_bd", dt, {H64, N64, N64});
        break;
    case Scheme::DeBERTa:
        c2cT = &add("c2c", dt, {H64, N64, N64});
        if (p.debertaC2P)
            c2pT = &add("c2p", dt, {H64, N64, N64});
        if (p.debertaP2C)
            p2cT = &add("p2c", dt, {H64, N64, N64});
        break;
    case Scheme::URPE:
        urpeCT = &add("urpe_C", dt, {H64, N64, N64});
        break;
    default:
        break;
    }

    // Shared position tables.
    const std::vector<double> slopes =
        p.scheme == Scheme::ALiBi ? alibiSlopes(H) : std::vector<double>{};
    // Transformer-XL: project R_t once for every t the grid needs (t = i − j, clamped).
    const int tMin = -(N - 1);
    MatR<T> txlR; // rows t − tMin, [2N−1, d]
    if (p.scheme == Scheme::TransformerXL) {
        Eigen::MatrixXd R(2 * N - 1, d);
        for (int t = tMin; t <= N - 1; ++t) {
            const int tc = p.txlClampLen > 0 ? std::min(t, p.txlClampLen) : t;
            R.row(t - tMin) = txlRelativeSinusoid(tc, d);
        }
        txlR = (R * w.txlWr).cast<T>();
    }
    MatR<T> debKr, debQr; // [2 span, d]
    if (p.scheme == Scheme::DeBERTa) {
        debKr = (w.debertaRel * w.debertaWkr).cast<T>();
        debQr = (w.debertaRel * w.debertaWqr).cast<T>();
    }
    const double debScale = 1.0 / std::sqrt(static_cast<double>(dh) * (1 + p.debertaTerms()));

    auto visible = [&p](int i, int j) {
        return (p.mask != MaskKind::Causal || j <= i) && (p.validLen < 0 || j < p.validLen);
    };
    const std::int32_t* ri = relIndexT ? relIndexT->data<std::int32_t>() : nullptr;

    MatR<T> concat(N, d);
    MatR<T> S(N, N);
    for (int h = 0; h < H; ++h) {
        if (cancelled())
            return Error{"cancelled"};
        const MapR<T> q = headMap(Qt, h), k = headMap(Kt, h), v = headMap(Vt, h);
        MapR<T> logits = nnMap(logitsT, h);
        MapR<T> weights = nnMap(weightsT, h);
        const MatR<T> content = q * k.transpose();

        switch (p.scheme) {
        case Scheme::None:
        case Scheme::Sinusoidal:
        case Scheme::Learned:
        case Scheme::Mlp:
        case Scheme::RoPE:
            S = content * T(invSqrtDh);
            break;
        case Scheme::Shaw: {
            // Efficient form: q · w_kᵀ is n × (2k+1), then a gather by the clipped offset.
            const MatR<T> qw = q * w.shawWk.cast<T>().transpose();
            MapR<T> kt = nnMap(*shawK, h);
            for (int i = 0; i < N; ++i)
                for (int j = 0; j < N; ++j)
                    kt(i, j) = qw(i, ri[static_cast<std::ptrdiff_t>(i) * N + j]) * T(invSqrtDh);
            S = content * T(invSqrtDh) + kt;
            break;
        }
        case Scheme::TransformerXL: {
            const Eigen::Matrix<T, 1, Eigen::Dynamic> u = w.txlU.row(h).cast<T>();
            const Eigen::Matrix<T, 1, Eigen::Dynamic> vb = w.txlV.row(h).cast<T>();
            MapR<T> ac = nnMap(*txlAc, h);
            MapR<T> bd = nnMap(*txlBd, h);
            ac = (content + (k * u.transpose()).transpose().replicate(N, 1)) * T(invSqrtDh);
            const MatR<T> qv = q.rowwise() + vb;
            const MatR<T> B = qv * txlR.middleCols(h * dh, dh).transpose(); // [N, 2N−1]
            for (int i = 0; i < N; ++i)
                for (int j = 0; j < N; ++j)
                    bd(i, j) = B(i, (i - j) - tMin) * T(invSqrtDh);
            S = ac + bd;
            break;
        }
        case Scheme::T5:
        case Scheme::URPE:
        case Scheme::ALiBi: {
            S = p.scheme == Scheme::T5 ? content : MatR<T>(content * T(invSqrtDh));
            if (p.scheme == Scheme::ALiBi || t5Bias) {
                // Written to `bias` for t5 and alibi; URPE's optional T5 bias is only added.
                for (int i = 0; i < N; ++i)
                    for (int j = 0; j < N; ++j) {
                        double bv;
                        if (p.scheme == Scheme::ALiBi)
                            bv = p.alibiMode == AlibiMode::Symmetric ? -slopes[h] * std::abs(i - j)
                                                                     : -slopes[h] * (i - j);
                        else
                            bv = w.t5Table(ri[static_cast<std::ptrdiff_t>(i) * N + j], h);
                        S(i, j) += T(bv);
                        if (biasT)
                            nnMap(*biasT, h)(i, j) = T(bv);
                    }
            }
            break;
        }
        case Scheme::DeBERTa: {
            const T sc = T(debScale);
            MapR<T> c2c = nnMap(*c2cT, h);
            c2c = content * sc;
            S = c2c;
            if (c2pT) {
                const MatR<T> qk = q * debKr.middleCols(h * dh, dh).transpose(); // [N, 2span]
                MapR<T> c2p = nnMap(*c2pT, h);
                for (int i = 0; i < N; ++i)
                    for (int j = 0; j < N; ++j)
                        c2p(i, j) = qk(i, ri[static_cast<std::ptrdiff_t>(i) * N + j]) * sc;
                S += c2p;
            }
            if (p2cT) {
                const MatR<T> kq = k * debQr.middleCols(h * dh, dh).transpose(); // [N, 2span]
                MapR<T> p2c = nnMap(*p2cT, h);
                for (int i = 0; i < N; ++i)
                    for (int j = 0; j < N; ++j) {
                        const int idx = p.p2cConvention == P2CConvention::Code
                                            ? ri[static_cast<std::ptrdiff_t>(i) * N + j]
                                            : debertaIndex(j - i, p);
                        p2c(i, j) = kq(j, idx) * sc;
                    }
                S += p2c;
            }
            break;
        }
        }

        // Mask into the logits, then normalise row by row.
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j)
                logits(i, j) = visible(i, j) ? S(i, j) : ninf;
        for (int i = 0; i < N; ++i)
            normaliseRow<T>(&logits(i, 0), &weights(i, 0), N, p.norm);

        if (urpeCT) {
            MapR<T> C = nnMap(*urpeCT, h);
            for (int i = 0; i < N; ++i)
                for (int j = 0; j < N; ++j)
                    C(i, j) = T(w.urpeC(h, urpeIndex(i, j, N)));
            weights = weights.cwiseProduct(C);
        }

        MapR<T> ho = headMap(headOutT, h);
        ho = weights * v;
        if (shawV) {
            // Value term: sum the weights per clipped offset, then one small product.
            const int K = 2 * p.clip + 1;
            MatR<T> Wsum = MatR<T>::Zero(N, K);
            for (int i = 0; i < N; ++i)
                for (int j = 0; j < N; ++j)
                    Wsum(i, ri[static_cast<std::ptrdiff_t>(i) * N + j]) += weights(i, j);
            MapR<T> vt = headMap(*shawV, h);
            vt = Wsum * w.shawWv.cast<T>();
            ho += vt;
        }
        concat.middleCols(h * dh, dh) = ho;
    }
    MapR<T>(outT.template data<T>(), N, d) = concat * w.W_o.cast<T>();
    return tr;
}

} // namespace

Eigen::MatrixXd absoluteEncoding(const Params& p, const Weights& w) {
    const int N = p.seqLen();
    switch (p.scheme) {
    case Scheme::Sinusoidal:
        return sinusoidal(N, p.d, p.base, p.layout);
    case Scheme::Learned:
        return w.learnedTable.topRows(N);
    case Scheme::Mlp:
        return mlpEncoding(N, p.mlpFeatures, p.base, w.mlpW1, w.mlpB1, w.mlpW2, w.mlpB2);
    default:
        return {};
    }
}

Eigen::MatrixXd assembleSequence(const Params& p, const Weights& w) {
    Eigen::MatrixXd E(p.seqLen(), p.d);
    int r = 0;
    if (p.cls)
        E.row(r++) = w.cls.row(0);
    E.middleRows(r, p.n) = w.E;
    r += p.n;
    if (p.sep)
        E.row(r) = w.sep.row(0);
    return E;
}

Expected<Trace> computeTraceFromSequence(const Params& p, const Weights& w,
                                         const Eigen::MatrixXd& Efull, bool addPosition,
                                         const std::atomic<bool>* cancel) {
    if (Status s = validate(p); !s)
        return s.error();
    if (Status s = checkWeights(p, w); !s)
        return s.error();
    if (Efull.rows() != p.seqLen() || Efull.cols() != p.d)
        return Error{"the input sequence must be [" + std::to_string(p.seqLen()) + ", " +
                     std::to_string(p.d) + "]"};
    if (p.precision == Precision::Float64)
        return forward<double>(p, w, Efull, addPosition, cancel);
    return forward<float>(p, w, Efull, addPosition, cancel);
}

Expected<Trace> computeTrace(const Params& p, const Weights& w, const std::atomic<bool>* cancel) {
    if (Status s = validate(p); !s)
        return s.error();
    if (Status s = checkWeights(p, w); !s)
        return s.error();
    return computeTraceFromSequence(p, w, assembleSequence(p, w), true, cancel);
}

} // namespace pe
