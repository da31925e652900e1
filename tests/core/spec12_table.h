// SPDX-License-Identifier: MIT
#pragma once

// The table of SPEC-encodings.md §12, row by row: which configurations can tell n identical
// tokens apart. Shared by the tests of the probe itself and of the stepper's verdict.

#include <QString>

#include <vector>

#include "params.h"

namespace pe::testing {

struct Spec12Row {
    QString name;
    Scheme scheme;
    Normaliser norm;
    bool causal;
    bool cls;
    bool sep;
    bool shawValues;                             ///< false: Shaw "keys only" (w_v = 0)
    bool broken;                                 ///< the configuration can tell positions apart
    RopeScaling ropeScaling = RopeScaling::None; ///< RoPE rows: context stretching, s = 2
};

inline std::vector<Spec12Row> spec12Rows() {
    std::vector<Spec12Row> rows;
    const auto SM = Normaliser::Softmax;
    auto name = [](Scheme s) { return QString::fromLatin1(toString(s).data()); };
    // Logit-only schemes with softmax: identical rows, bidirectional or causal.
    for (bool causal : {false, true}) {
        const QString tag =
            causal ? QStringLiteral(" softmax causal") : QStringLiteral(" softmax bidir");
        for (Scheme s : {Scheme::None, Scheme::T5, Scheme::ALiBi, Scheme::RoPE,
                         Scheme::TransformerXL, Scheme::DeBERTa})
            rows.push_back({name(s) + tag, s, SM, causal, false, false, true, false});
        rows.push_back({QStringLiteral("Shaw keys only") + tag, Scheme::Shaw, SM, causal, false,
                        false, false, false});
    }
    rows.push_back({QStringLiteral("sinusoidal [IN]"), Scheme::Sinusoidal, SM, false, false, false,
                    true, true});
    rows.push_back(
        {QStringLiteral("learned [IN]"), Scheme::Learned, SM, false, false, false, true, true});
    rows.push_back({QStringLiteral("mlp [IN]"), Scheme::Mlp, SM, false, false, false, true, true});
    for (Scheme s : {Scheme::RoPE}) // context stretching keeps RoPE relative: still identical
        for (RopeScaling sc : {RopeScaling::PI, RopeScaling::NTK})
            rows.push_back({name(s) + QLatin1Char(' ') + QString::fromLatin1(toString(sc).data()),
                            s, SM, false, false, false, true, false, sc});
    rows.push_back(
        {QStringLiteral("Shaw with a^V"), Scheme::Shaw, SM, false, false, false, true, true});
    rows.push_back({QStringLiteral("URPE"), Scheme::URPE, SM, false, false, false, true, true});
    for (Scheme s :
         {Scheme::T5, Scheme::ALiBi, Scheme::RoPE, Scheme::TransformerXL, Scheme::DeBERTa})
        for (Normaliser n : {Normaliser::Exp, Normaliser::L2, Normaliser::Relu2})
            rows.push_back({name(s) + QLatin1Char(' ') + QString::fromLatin1(toString(n).data()), s,
                            n, false, false, false, true, true});
    for (Scheme s : {Scheme::T5, Scheme::ALiBi, Scheme::RoPE}) {
        rows.push_back({name(s) + QStringLiteral(" +CLS"), s, SM, false, true, false, true, true});
        rows.push_back({name(s) + QStringLiteral(" +SEP"), s, SM, false, false, true, true, true});
        rows.push_back(
            {name(s) + QStringLiteral(" +CLS+SEP"), s, SM, false, true, true, true, true});
    }
    rows.push_back({QStringLiteral("NoPE l2 bidir"), Scheme::None, Normaliser::L2, false, false,
                    false, true, false});
    rows.push_back(
        {QStringLiteral("NoPE +CLS bidir"), Scheme::None, SM, false, true, false, true, false});
    rows.push_back(
        {QStringLiteral("NoPE +CLS causal"), Scheme::None, SM, true, true, false, true, true});
    rows.push_back({QStringLiteral("NoPE exp causal"), Scheme::None, Normaliser::Exp, true, false,
                    false, true, true});
    return rows;
}

/** The parameters of a row, as SPEC §12's reference runs them (n = 12). */
inline Params spec12Params(const Spec12Row& r) {
    Params p;
    p.scheme = r.scheme;
    p.norm = r.norm;
    p.mask = r.causal ? MaskKind::Causal : MaskKind::None;
    p.alibiMode = r.causal ? AlibiMode::Causal : AlibiMode::Symmetric;
    p.cls = r.cls;
    p.sep = r.sep;
    p.n = 12;
    p.d = 32;
    p.heads = 4;
    p.clip = 4;
    p.ropeScaling = r.ropeScaling;
    p.ropeScale = r.ropeScaling == RopeScaling::None ? 1.0 : 2.0;
    return p;
}

} // namespace pe::testing
