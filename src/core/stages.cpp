// SPDX-License-Identifier: MIT
#include "stages.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <type_traits>

#include "encodings.h"
#include "normalise.h"

namespace pe {

namespace {

bool ropeScheme(const Params& p) {
    return p.scheme == Scheme::RoPE;
}

bool t5BiasIn(const Params& p) {
    return p.scheme == Scheme::T5 || (p.scheme == Scheme::URPE && p.urpeBias == UrpeBias::T5);
}

bool logitPosition(const Params& p) {
    switch (p.scheme) {
    case Scheme::Shaw:
    case Scheme::TransformerXL:
    case Scheme::T5:
    case Scheme::DeBERTa:
    case Scheme::ALiBi:
        return true;
    case Scheme::URPE:
        return p.urpeBias == UrpeBias::T5;
    default:
        return false;
    }
}

bool masked(const Params& p) {
    return p.mask == MaskKind::Causal || (p.validLen >= 0 && p.validLen < p.seqLen());
}

std::string maskFormula(const Params& p) {
    std::string s;
    if (p.mask == MaskKind::Causal)
        s = "S_ij ← −∞ where j > i (causal)";
    if (p.validLen >= 0 && p.validLen < p.seqLen()) {
        if (!s.empty())
            s += "; ";
        s += "S_ij ← −∞ where j ≥ L = " + std::to_string(p.validLen) + " (padding)";
    }
    return s.empty() ? "no mask: every key is visible to every query" : s;
}

std::string positionFormula(const Params& p) {
    switch (p.scheme) {
    case Scheme::Sinusoidal:
        switch (p.layout) {
        case SinLayout::Interleaved:
            return "P[p, 2m] = sin(p·ω_m), P[p, 2m+1] = cos(p·ω_m), ω_m = base^(−2m/d)";
        case SinLayout::Concat:
            return "P[p] = [sin(p·ω_0 … p·ω_{d/2−1}) | cos(…)], ω_m = base^(−2m/d)";
        case SinLayout::T2T:
            return "P[p] = [sin(p·ω_m) | cos(p·ω_m)], ω_m = exp(−m·ln(base)/(⌊d/2⌋−1))";
        }
        break;
    case Scheme::Learned:
        return "P[p] = table[p] (a learned row per absolute position, P_max rows)";
    case Scheme::Mlp:
        return "P[p] = GELU(φ(p)·W1 + b1)·W2 + b2, φ(p) = [sin(p·ω_k), cos(p·ω_k)]_{k<F}, "
               "ω_k = base^(−k/F), F = " +
               std::to_string(p.mlpFeatures) + ", H = " + std::to_string(p.mlpHidden) +
               " (defined at every position)";
    default:
        break;
    }
    return "no absolute encoding: P = 0, position enters later";
}

std::string logitFormula(const Params& p) {
    switch (p.scheme) {
    case Scheme::None:
        return "S_ij = q_i·k_j / √d_h";
    case Scheme::Sinusoidal:
    case Scheme::Learned:
    case Scheme::Mlp:
        return "S_ij = q_i·k_j / √d_h = (e_i + p_i) W_q·(e_j + p_j) W_k / √d_h   "
               "(e·e + e·p + p·e + p·p)";
    case Scheme::RoPE:
        return "S_ij = (R_i q_i)·(R_j k_j) / √d_h = q_i·R_{j−i} k_j / √d_h";
    case Scheme::Shaw:
        return "S_ij = (q_i·k_j + q_i·a^K_{clip(j−i, −k, k)}) / √d_h";
    case Scheme::TransformerXL:
        return "S_ij = [(q_i + u)·k_j + (q_i + v)·r_{i−j}] / √d_h";
    case Scheme::T5:
        return "S_ij = q_i·k_j + b_h[bucket(j−i)]   (T5 has no 1/√d_h)";
    case Scheme::ALiBi:
        return p.alibiMode == AlibiMode::Symmetric ? "S_ij = q_i·k_j / √d_h − m_h·|i−j|"
                                                   : "S_ij = q_i·k_j / √d_h − m_h·(i−j)";
    case Scheme::DeBERTa: {
        std::string s = "S_ij = (q^c_i·k^c_j";
        if (p.debertaC2P)
            s += " + q^c_i·k^r_δ(i,j)";
        if (p.debertaP2C)
            s += p.p2cConvention == P2CConvention::Code ? " + k^c_j·q^r_δ(i,j)"
                                                        : " + k^c_j·q^r_δ(j,i)";
        return s + ") / √(" + std::to_string(1 + p.debertaTerms()) + "·d_h)";
    }
    case Scheme::URPE:
        return p.urpeBias == UrpeBias::T5 ? "S_ij = q_i·k_j / √d_h + b_h[bucket(j−i)]"
                                          : "S_ij = q_i·k_j / √d_h";
    }
    return {};
}

std::string normFormula(Normaliser n) {
    switch (n) {
    case Normaliser::Softmax:
        return "a_ij = e^{S_ij} / Σ_j e^{S_ij}   (rows sum to 1)";
    case Normaliser::Exp:
        return "a_ij = e^{S_ij}   (not normalised)";
    case Normaliser::L2:
        return "a_ij = e^{S_ij} / √(Σ_j e^{2 S_ij})   (rows have unit L2 norm)";
    case Normaliser::Relu2:
        return "a_ij = relu(S_ij)² / n_k   (n_k = key columns)";
    case Normaliser::Relu2Visible:
        return "a_ij = relu(S_ij)² / #visible keys of row i";
    }
    return {};
}

std::string ropeFormula(const Params& p) {
    const std::string pair = p.ropeConvention == RopeConvention::Interleaved
                                 ? "pair m = features (2m, 2m+1)"
                                 : "pair m = features (m, m + d_rot/2)";
    std::string s = "q̃_i = R_i q_i, k̃_j = R_j k_j: (a, b) → (a cos pθ_m − b sin pθ_m, b cos pθ_m + "
                    "a sin pθ_m), θ_m = base^(−2m/d_rot), " +
                    pair;
    char scale[32];
    std::snprintf(scale, sizeof scale, "%g", p.ropeScale);
    if (p.ropeScaling == RopeScaling::PI)
        s += std::string("; position interpolation: p → p/s, s = ") + scale;
    else if (p.ropeScaling == RopeScaling::NTK)
        s += std::string("; NTK-aware: base → base·s^(d_rot/(d_rot−2)), s = ") + scale;
    return s;
}

StageMatrix mat(std::string name, std::string title, std::string traceName, bool perHead,
                StageAxis rows, StageAxis cols, StageMat values) {
    StageMatrix m;
    m.name = std::move(name);
    m.title = std::move(title);
    m.traceName = std::move(traceName);
    m.perHead = perHead;
    m.rows = rows;
    m.cols = cols;
    m.values = std::move(values);
    return m;
}

const Tensor* need(const Trace& t, const char* name) {
    return t.find(name);
}

std::vector<double> positionsOf(int n, double sign) {
    std::vector<double> pos(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        pos[static_cast<std::size_t>(i)] = sign * i;
    return pos;
}

/** The content scale of the logits: T5 uses none, DeBERTa 1/√(d_h(1+#terms)). */
double contentScale(const Params& p) {
    const double dh = p.headDim();
    if (p.scheme == Scheme::T5)
        return 1.0;
    if (p.scheme == Scheme::DeBERTa)
        return 1.0 / std::sqrt(dh * (1 + p.debertaTerms()));
    return 1.0 / std::sqrt(dh);
}

/** Logits before the mask: the sum of the terms (the trace's logits hold −∞ where masked). */
StageMat unmaskedLogits(const std::vector<StageMatrix>& terms) {
    StageMat s = terms.front().values;
    for (std::size_t k = 1; k < terms.size(); ++k)
        s += terms[k].values;
    return s;
}

StageMat normalised(const StageMat& logits, Normaliser norm) {
    using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const RowMat s = logits;
    RowMat a(s.rows(), s.cols());
    for (Eigen::Index i = 0; i < s.rows(); ++i)
        normaliseRow<double>(&s(i, 0), &a(i, 0), static_cast<int>(s.cols()), norm);
    return a;
}

} // namespace

StageMat unrotated(const Trace& t, const char* name, int head) {
    Eigen::MatrixXd x = headSlice(*need(t, name), head); // applyRope works on column-major
    const Params& p = t.params;
    applyRope(x, positionsOf(static_cast<int>(x.rows()), -1.0), ropeFrequencies(p),
              p.ropeConvention);
    return StageMat(x);
}

std::string stageName(StageId id) {
    static const char* const kNames[kStageCount] = {
        "tokens",  "E",       "P",      "X",        "QKV",    "rotate", "logits", "mask",
        "weights", "times_C", "values", "head_out", "concat", "W_O",    "out"};
    return kNames[static_cast<int>(id)];
}

StageMat headSlice(const Tensor& t, int head) {
    const int rank = static_cast<int>(t.rank());
    const std::int64_t rows = rank == 3 ? t.dim(1) : (rank == 2 ? t.dim(0) : 1);
    const std::int64_t cols =
        rank >= 2 ? t.dim(static_cast<std::size_t>(rank - 1)) : (rank == 1 ? t.dim(0) : 0);
    const std::int64_t off = rank == 3 ? static_cast<std::int64_t>(head) * rows * cols : 0;
    // The tensor is row-major: map the block and convert it in one pass.
    auto slice = [&](const auto* data) {
        using T = std::remove_const_t<std::remove_pointer_t<decltype(data)>>;
        using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        return StageMat(Eigen::Map<const RowMat>(data + off, rows, cols).template cast<double>());
    };
    if (t.holds<float>())
        return slice(t.data<float>());
    if (t.holds<double>())
        return slice(t.data<double>());
    return slice(t.data<std::int32_t>());
}

std::vector<double> headRow(const Tensor& t, int head, int row) {
    const int rank = static_cast<int>(t.rank());
    const std::int64_t rows = rank == 3 ? t.dim(1) : (rank == 2 ? t.dim(0) : 1);
    const std::int64_t cols =
        rank >= 2 ? t.dim(static_cast<std::size_t>(rank - 1)) : (rank == 1 ? t.dim(0) : 0);
    if (row < 0 || row >= rows)
        return {};
    const std::int64_t off =
        (rank == 3 ? static_cast<std::int64_t>(head) * rows * cols : 0) + row * cols;
    auto copy = [&](const auto* data) {
        return std::vector<double>(data + off, data + off + cols);
    };
    if (t.holds<float>())
        return copy(t.data<float>());
    if (t.holds<double>())
        return copy(t.data<double>());
    return copy(t.data<std::int32_t>());
}

StageMat visibilityMask(const Params& p) {
    const int N = p.seqLen();
    StageMat m(N, N);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j)
            m(i, j) = ((p.mask != MaskKind::Causal || j <= i) && (p.validLen < 0 || j < p.validLen))
                          ? 1.0
                          : 0.0;
    return m;
}

std::vector<StageInfo> stageList(const Params& p) {
    const bool abs = isAbsolute(p.scheme);
    const bool rope = ropeScheme(p);
    const bool urpe = p.scheme == Scheme::URPE;
    const bool shaw = p.scheme == Scheme::Shaw;
    const std::string N = "N = " + std::to_string(p.seqLen());
    std::vector<StageInfo> s(kStageCount);
    auto set = [&s](StageId id, std::string key, std::string title, std::string formula,
                    std::string note, bool applies = true, bool position = false) {
        StageInfo& x = s[static_cast<std::size_t>(id)];
        x.id = id;
        x.key = std::move(key);
        x.title = std::move(title);
        x.formula = std::move(formula);
        x.note = std::move(note);
        x.applies = applies;
        x.positionEnters = position;
    };
    std::string tokens = "tokens: ";
    tokens += p.cls ? "[CLS] " : "";
    tokens += "w_0 … w_{n−1}";
    tokens += p.sep ? " [SEP]" : "";
    tokens += ", " + N + " positions";
    if (p.validLen >= 0 && p.validLen < p.seqLen())
        tokens += "; positions ≥ L = " + std::to_string(p.validLen) + " are padding";
    set(StageId::Tokens, "tokens", "Tokens and positions", tokens,
        "Words and punctuation (CJK one character each); [CLS]/[SEP] are positions like any "
        "other; padded keys are marked (pad).");
    set(StageId::Embed, "E", "Token embeddings E",
        "E[i] = table(token_i)   [N, d]: the same token always gets the same row",
        "No position yet: two equal tokens have equal rows of E.");
    set(StageId::AddPosition, "+P", "Add the absolute position encoding P", positionFormula(p),
        abs ? "Position enters here, once, added to every input row."
            : "This scheme adds nothing at the input: X = E.",
        abs, abs);
    set(StageId::Input, "X", "Input to attention X", abs ? "X = E + P   [N, d]" : "X = E   [N, d]",
        "What the layer sees: one row per position.");
    set(StageId::Project, "Q K V", "Project to queries, keys, values per head",
        "Q = X W_q, K = X W_k, V = X W_v; head h takes columns [h·d_h, (h+1)·d_h), d_h = " +
            std::to_string(p.headDim()),
        rope ? "Shown before the rotation."
             : "Linear maps of each row: still no relative position.");
    set(StageId::Rotate, "rotate", "Rotate q and k (RoPE)",
        rope ? ropeFormula(p) : "no rotation: q̃ = q, k̃ = k",
        rope ? "Position enters here: each q and k is rotated by its own absolute position; the "
               "dot product then depends on j − i only."
             : "Only RoPE rotates q and k.",
        rope, rope);
    std::string logitNote;
    if (logitPosition(p))
        logitNote = "Position enters here: the logits gain a position term besides the content "
                    "term q·k.";
    else if (rope)
        logitNote = "The content term on rotated vectors carries the position: shown split into "
                    "the unrotated q·k and what the rotation changes.";
    else if (abs)
        logitNote = "X carries the position: q·k splits into four terms, content→content, the "
                    "cross terms content→position and position→content, and position→position "
                    "(the expansion Transformer-XL and DeBERTa start from).";
    else
        logitNote = "Only content: q·k sees no position unless X carries it.";
    set(StageId::Logits, "logits", "Logits: content and position terms", logitFormula(p), logitNote,
        true, logitPosition(p));
    set(StageId::Mask, "mask", "Mask", maskFormula(p),
        p.mask == MaskKind::Causal ? "The causal mask is positional: row i sees i + 1 keys."
                                   : "Masked logits are −∞; their weights are exactly 0.",
        masked(p), p.mask == MaskKind::Causal);
    set(StageId::Normalise, "normalise", "Normalise: " + std::string(toString(p.norm)),
        normFormula(p.norm),
        p.norm == Normaliser::Softmax
            ? "Rows of A are stochastic: Σ_j a_ij = 1."
            : "Rows of A are not stochastic: this matters for the probe.");
    set(StageId::PostMultiply, "⊙C", "Multiply by URPE's Toeplitz C",
        urpe ? "a_ij ← a_ij · C_h[j−i]   (rows need not sum to 1)" : "no ⊙C: weights = A",
        urpe ? "Position enters here: each weight is scaled by a learned function of j − i."
             : "Only URPE multiplies the weights.",
        urpe, urpe);
    set(StageId::Values, shaw ? "·V + a^V" : "·V", "Weighted sum of values",
        shaw ? "o_i = Σ_j a_ij (v_j + a^V_{clip(j−i, −k, k)})" : "o_i = Σ_j a_ij v_j",
        shaw ? "Position enters here too: the value term adds a^V by relative distance."
             : "With identical tokens v_j = v, so o_i = (Σ_j a_ij) v.",
        true, shaw);
    set(StageId::HeadOutputs, "heads", "Head outputs",
        "head_out[h] = O_h   [N, d_h], one block per head", "Each head has its own output.");
    set(StageId::Concat, "concat", "Concatenate the heads",
        "concat = [O_0 | O_1 | … | O_{H−1}]   [N, d]", "Head outputs side by side, in head order.");
    set(StageId::OutputProjection, "W_O", "Output projection", "out = concat · W_O   (W_O [d, d])",
        "Mixes the heads; no bias.");
    set(StageId::Output, "out", "Output", "out   [N, d]: one row per position",
        "With n identical tokens, equal rows here mean the layer cannot tell positions apart.");
    return s;
}

namespace {

StageMatrix absoluteTerm(const AbsoluteTerm& a, StageMat values) {
    StageMatrix m =
        mat(a.name, a.title, "", true, StageAxis::Position, StageAxis::Position, std::move(values));
    m.positionTerm = a.queryPosition || a.keyPosition;
    m.label = a.label;
    return m;
}

} // namespace

bool canSplitLogits(const Trace& t) {
    const Tensor* E = t.find("E");
    const Tensor* P = t.find("P");
    const Params& p = t.params;
    const auto square = [&p](const Eigen::MatrixXd& w) {
        return w.rows() == p.d && w.cols() == p.d;
    };
    return isAbsolute(p.scheme) && t.queryKey && E && P && E->rank() == 2 &&
           P->shape() == E->shape() && E->dim(1) == p.d && E->dtype() == P->dtype() &&
           (E->holds<float>() || E->holds<double>()) && square(t.queryKey->wq) &&
           square(t.queryKey->wk);
}

const std::vector<AbsoluteTerm>& absoluteTerms() {
    static const std::vector<AbsoluteTerm> kTerms{
        {"ee", "e·e content→content", "e·e", false, false},
        {"ep", "e·p content→position", "e·p", false, true},
        {"pe", "p·e position→content", "p·e", true, false},
        {"pp", "p·p position→position", "p·p", true, true},
    };
    return kTerms;
}

std::vector<StageMatrix> logitTerms(const Trace& t, int head) {
    const Params& p = t.params;
    const StageAxis P = StageAxis::Position;
    std::vector<StageMatrix> terms;
    auto traced = [&](const char* name, const std::string& title, bool position,
                      const char* label) {
        if (const Tensor* x = t.find(name)) {
            StageMatrix m = mat(name, title, name, true, P, P, headSlice(*x, head));
            m.positionTerm = position;
            m.label = label;
            terms.push_back(std::move(m));
        }
    };
    const double scale = contentScale(p);
    auto contentTerm = [&](const StageMat& q, const StageMat& k, const std::string& title) {
        terms.push_back(mat("content", title, "", true, P, P, (q * k.transpose()) * scale));
        terms.back().label = "content";
    };
    switch (p.scheme) {
    case Scheme::TransformerXL:
        traced("txl_ac", "content (a)+(c): (q_i + u)·k_j / √d_h", false, "(a)+(c)");
        traced("txl_bd", "position (b)+(d): (q_i + v)·r_{i−j} / √d_h", true, "(b)+(d)");
        return terms;
    case Scheme::DeBERTa:
        traced("c2c", "content→content q^c·k^c", false, "c2c");
        traced("c2p", "content→position q^c·k^r_δ", true, "c2p");
        traced("p2c", "position→content k^c·q^r_δ", true, "p2c");
        return terms;
    case Scheme::RoPE: {
        const StageMat q0 = unrotated(t, "Q", head), k0 = unrotated(t, "K", head);
        contentTerm(q0, k0, "content q_i·k_j / √d_h (unrotated)");
        const StageMat q = headSlice(*need(t, "Q"), head), k = headSlice(*need(t, "K"), head);
        StageMatrix rot = mat("rotation", "position: change by the rotation", "", true, P, P,
                              (q * k.transpose()) * scale - terms[0].values);
        rot.positionTerm = true;
        rot.label = "rotation";
        terms.push_back(std::move(rot));
        return terms;
    }
    default:
        break;
    }
    if (canSplitLogits(t)) {
        // X = E + P: q_i·k_j = (e_i + p_i) W_q W_kᵀ (e_j + p_j)ᵀ, four terms (the expansion
        // Transformer-XL and DeBERTa start from).
        const int dh = p.headDim();
        const Eigen::MatrixXd wq = t.queryKey->wq.middleCols(head * dh, dh);
        const Eigen::MatrixXd wk = t.queryKey->wk.middleCols(head * dh, dh);
        const StageMat e = headSlice(*need(t, "E"), 0), pos = headSlice(*need(t, "P"), 0);
        const StageMat qe = e * wq, qp = pos * wq, ke = e * wk, kp = pos * wk;
        for (const AbsoluteTerm& a : absoluteTerms())
            terms.push_back(absoluteTerm(
                a, ((a.queryPosition ? qp : qe) * (a.keyPosition ? kp : ke).transpose()) * scale));
        return terms;
    }
    const StageMat q = headSlice(*need(t, "Q"), head), k = headSlice(*need(t, "K"), head);
    contentTerm(q, k, p.scheme == Scheme::T5 ? "content q_i·k_j" : "content q_i·k_j / √d_h");
    switch (p.scheme) {
    case Scheme::Shaw:
        traced("shaw_k_term", "position q_i·a^K_clip(j−i) / √d_h", true, "position");
        break;
    case Scheme::T5:
    case Scheme::ALiBi:
        traced("bias",
               p.scheme == Scheme::T5 ? "position bias b_h[bucket(j−i)]"
                                      : "position bias −m_h·|i−j|",
               true, "position");
        if (p.scheme == Scheme::ALiBi && p.alibiMode == AlibiMode::Causal)
            terms.back().title = "position bias −m_h·(i−j)";
        break;
    case Scheme::URPE:
        if (t5BiasIn(p)) {
            // The trace does not write URPE's bias: recover it per bucket from visible logits
            // (bias = S − content); a bucket no visible cell uses stays 0.
            const StageMat S = headSlice(*need(t, "logits"), head);
            const StageMat idx = headSlice(*need(t, "rel_index"), 0);
            std::map<int, double> byBucket;
            for (Eigen::Index i = 0; i < S.rows(); ++i)
                for (Eigen::Index j = 0; j < S.cols(); ++j)
                    if (std::isfinite(S(i, j)))
                        byBucket.emplace(static_cast<int>(idx(i, j)),
                                         S(i, j) - terms[0].values(i, j));
            StageMat b = StageMat::Zero(S.rows(), S.cols());
            for (Eigen::Index i = 0; i < S.rows(); ++i)
                for (Eigen::Index j = 0; j < S.cols(); ++j)
                    if (auto it = byBucket.find(static_cast<int>(idx(i, j))); it != byBucket.end())
                        b(i, j) = it->second;
            StageMatrix m = mat("bias", "position bias b_h[bucket(j−i)]", "", true, P, P, b);
            m.positionTerm = true;
            m.label = "position";
            terms.push_back(std::move(m));
        }
        break;
    default:
        break;
    }
    return terms;
}

std::vector<StageMatrix> logitTermsRow(const Trace& t, int head, int row) {
    std::vector<StageMatrix> terms;
    if (!canSplitLogits(t)) {
        terms = logitTerms(t, head);
        for (StageMatrix& m : terms)
            m.values = StageMat(m.values.row(row));
        return terms;
    }
    // Row i of (a_i W_q)·(B W_k)ᵀ is B · (W_k (W_qᵀ a_iᵀ)): two d × d_h products of a vector,
    // then one n × d.
    const Params& p = t.params;
    const int dh = p.headDim();
    const Eigen::MatrixXd wq = t.queryKey->wq.middleCols(head * dh, dh);
    const Eigen::MatrixXd wk = t.queryKey->wk.middleCols(head * dh, dh);
    const StageMat e = headSlice(*need(t, "E"), 0), pos = headSlice(*need(t, "P"), 0);
    const double scale = contentScale(p);
    for (const AbsoluteTerm& a : absoluteTerms()) {
        const Eigen::VectorXd query = (a.queryPosition ? pos : e).row(row).transpose();
        const Eigen::VectorXd b = wk * (wq.transpose() * query);
        terms.push_back(
            absoluteTerm(a, StageMat(((a.keyPosition ? pos : e) * b).transpose() * scale)));
    }
    return terms;
}

double stageFlops(const Trace& t, StageId id) {
    if (id != StageId::Logits)
        return 0.0;
    const Params& p = t.params;
    const double n = p.seqLen(), dh = p.headDim();
    if (canSplitLogits(t))
        return 8.0 * n * p.d * dh + 8.0 * n * n * dh;
    return p.scheme == Scheme::RoPE ? 4.0 * n * n * dh : 0.0;
}

std::vector<StageMatrix> stageMatrices(const Trace& t, StageId id, int head,
                                       const Eigen::MatrixXd* Wo) {
    const Params& p = t.params;
    const StageAxis P = StageAxis::Position, F = StageAxis::Feature;
    std::vector<StageMatrix> out;
    auto whole = [&](const char* name, const std::string& title, StageAxis cols) {
        if (const Tensor* x = t.find(name))
            out.push_back(mat(name, title, name, false, P, cols, headSlice(*x, 0)));
    };
    auto perHead = [&](const char* name, const std::string& title, StageAxis cols) {
        if (const Tensor* x = t.find(name))
            out.push_back(mat(name, title, name, true, P, cols, headSlice(*x, head)));
    };
    switch (id) {
    case StageId::Tokens: {
        // One-hot rows over the distinct tokens, in order of first appearance: E = onehot · table.
        std::vector<std::string> vocab;
        std::vector<int> column(t.tokens.size());
        for (std::size_t i = 0; i < t.tokens.size(); ++i) {
            const auto it = std::find(vocab.begin(), vocab.end(), t.tokens[i]);
            column[i] = static_cast<int>(it - vocab.begin());
            if (it == vocab.end())
                vocab.push_back(t.tokens[i]);
        }
        StageMat onehot = StageMat::Zero(static_cast<Eigen::Index>(column.size()),
                                         static_cast<Eigen::Index>(vocab.size()));
        for (std::size_t i = 0; i < column.size(); ++i)
            onehot(static_cast<Eigen::Index>(i), column[i]) = 1.0;
        StageMatrix m = mat("onehot", "tokens as one-hot rows over the distinct tokens", "", false,
                            P, StageAxis::Vocabulary, std::move(onehot));
        m.colLabels = std::move(vocab);
        out.push_back(std::move(m));
        break;
    }
    case StageId::Embed:
        whole("E", "token embeddings E", F);
        break;
    case StageId::AddPosition:
        whole("P", "position encoding P", F);
        break;
    case StageId::Input:
        whole("X", isAbsolute(p.scheme) ? "input X = E + P" : "input X = E", F);
        break;
    case StageId::Project:
        if (ropeScheme(p)) {
            out.push_back(
                mat("Q", "queries Q (before rotation)", "", true, P, F, unrotated(t, "Q", head)));
            out.push_back(
                mat("K", "keys K (before rotation)", "", true, P, F, unrotated(t, "K", head)));
        } else {
            perHead("Q", "queries Q", F);
            perHead("K", "keys K", F);
        }
        perHead("V", "values V", F);
        break;
    case StageId::Rotate:
        if (ropeScheme(p)) {
            perHead("Q", "rotated queries R_i q_i", F);
            perHead("K", "rotated keys R_j k_j", F);
            const RopeFrequencies f = ropeFrequencies(p);
            const int pairs = static_cast<int>(f.theta.size());
            StageMat ang(p.seqLen(), pairs);
            for (int i = 0; i < p.seqLen(); ++i)
                for (int m = 0; m < pairs; ++m)
                    ang(i, m) = f.angle(i, m);
            out.push_back(mat("angle",
                              p.ropeScaling == RopeScaling::PI
                                  ? "rotation angle (p/s)·θ_m (radians)"
                                  : "rotation angle p·θ_m (radians)",
                              "", false, P, F, ang));
        }
        break;
    case StageId::Logits: {
        out = logitTerms(t, head);
        // Their sum beside two or three terms; four (an absolute scheme's) fill the stage, and
        // the mask stage shows the logits.
        if (out.size() > 1 && out.size() < 4)
            out.push_back(
                mat("sum", "logits S before the mask (sum)", "", true, P, P, unmaskedLogits(out)));
        break;
    }
    case StageId::Mask:
        out.push_back(mat("mask", "visible (1) / masked (0)", "", false, P, P, visibilityMask(p)));
        perHead("logits", "masked logits S", P);
        break;
    case StageId::Normalise: {
        // The trace's weights where they are A itself; before URPE's ⊙C, A is derived by the
        // same normaliser from the trace's logits.
        const std::string title = "weights A = " + std::string(toString(p.norm)) + "(S)";
        const StageMat A = p.scheme == Scheme::URPE
                               ? normalised(headSlice(*need(t, "logits"), head), p.norm)
                               : headSlice(*need(t, "weights"), head);
        out.push_back(mat("A", title, p.scheme == Scheme::URPE ? "" : "weights", true, P, P, A));
        break;
    }
    case StageId::PostMultiply:
        if (p.scheme == Scheme::URPE) {
            perHead("urpe_C", "Toeplitz C_h[j−i]", P);
            perHead("weights", "weights A ⊙ C", P);
        }
        break;
    case StageId::Values: {
        const StageMat A = headSlice(*need(t, "weights"), head);
        const StageMat V = headSlice(*need(t, "V"), head);
        perHead("V", "values V", F);
        out.push_back(mat("AV", "Σ_j a_ij v_j", "", true, P, F, A * V));
        perHead("shaw_v_term", "value term Σ_j a_ij a^V_clip(j−i)", F);
        break;
    }
    case StageId::HeadOutputs:
        perHead("head_out", "head output O_h", F);
        break;
    case StageId::Concat: {
        const Tensor* ho = need(t, "head_out");
        const int dh = p.headDim();
        StageMat c(p.seqLen(), p.d);
        for (int h = 0; h < p.heads; ++h)
            c.middleCols(h * dh, dh) = headSlice(*ho, h);
        out.push_back(mat("concat", "concat [O_0 | … | O_{H−1}]", "", false, P, F, c));
        break;
    }
    case StageId::OutputProjection:
        if (Wo)
            out.push_back(mat("W_O", "output projection W_O", "", false, F, F, *Wo));
        whole("out", "out = concat · W_O", F);
        break;
    case StageId::Output:
        whole("out", "output", F);
        break;
    }
    return out;
}

std::string probeReason(const Params& p, bool canTellApart, bool shawValues) {
    if (canTellApart) {
        if (isAbsolute(p.scheme))
            return "P makes the input rows differ, so the values differ by position.";
        if (p.scheme == Scheme::Shaw && shawValues)
            return "The value term a^V adds a different vector to each position's output.";
        if (p.scheme == Scheme::URPE)
            return "⊙C makes the rows non-stochastic: the weights' sums vary with position.";
        if (p.norm != Normaliser::Softmax)
            return "The rows of A are not stochastic, and their sums vary with position.";
        if (p.cls || p.sep)
            return "The special token's weight varies with position, and its value differs.";
        return "The output rows differ by position.";
    }
    std::string why = "Rows of A are stochastic and every value is the same v, so "
                      "o_i = Σ_j a_ij v = v for every i";
    if (p.scheme == Scheme::None && p.norm != Normaliser::Softmax)
        why = "The logits carry no position, so every row gets the same weights";
    else if (p.scheme == Scheme::None && (p.cls || p.sep))
        why = "Without a position signal every input row weighs the special tokens alike";
    return why + ": position-dependent logits alone cannot help.";
}

} // namespace pe
