// SPDX-License-Identifier: MIT
#pragma once
// One change to each parameter (to another valid value), and the settings they are made under:
// what the tests of canonical() apply to every scheme, asserting that two parameter sets give
// the same trace exactly when canonical() says so.

#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "params.h"
#include "trace.h"

namespace pe::testing {

using ParamChange = std::pair<const char*, std::function<void(Params&)>>;

/** A Params field added since this list was written must be added to canonical() and here. */
static_assert(sizeof(Params) == 144, "Params changed: say in canonical() which schemes read the "
                                     "new field, and change it in parameterChanges()");

/** The parameters the changes below start from: n = 11, d = 24, 3 heads, clip 3, seed 7. */
inline Params changesBase(Scheme s) {
    Params p;
    p.scheme = s;
    p.n = 11;
    p.d = 24;
    p.heads = 3;
    p.clip = 3;
    p.seed = 7;
    return p;
}

/** Under each of these settings (the scheme's own default first), each change below. */
inline std::vector<ParamChange> parameterSettings() {
    return {
        {"default", [](Params&) {}},
        {"causal", [](Params& p) { p.mask = MaskKind::Causal; }},
        {"urpe t5 bias", [](Params& p) { p.urpeBias = UrpeBias::T5; }},
        {"deberta log buckets",
         [](Params& p) {
             p.debertaLogBuckets = true;
             p.debertaBuckets = 8; // a span of 4: n = 11 reaches the log buckets
         }},
        {"deberta no p2c", [](Params& p) { p.debertaP2C = false; }},
        {"rope pi x2",
         [](Params& p) {
             p.ropeScaling = RopeScaling::PI;
             p.ropeScale = 2;
         }},
    };
}

/** Each parameter changed to another value that changesBase() can take. */
inline std::vector<ParamChange> parameterChanges() {
    return {
        {"n", [](Params& p) { p.n = 12; }},
        {"d", [](Params& p) { p.d = 30; }},
        {"heads", [](Params& p) { p.heads = 2; }},
        {"norm", [](Params& p) { p.norm = Normaliser::Exp; }},
        {"mask", [](Params& p) { p.mask = MaskKind::Causal; }},
        {"validLen", [](Params& p) { p.validLen = 8; }},
        {"cls", [](Params& p) { p.cls = true; }},
        {"sep", [](Params& p) { p.sep = true; }},
        {"seed", [](Params& p) { p.seed += 1; }},
        {"precision",
         [](Params& p) {
             p.precision =
                 p.precision == Precision::Float64 ? Precision::Float32 : Precision::Float64;
         }},
        {"clip", [](Params& p) { p.clip = 5; }},
        {"base", [](Params& p) { p.base = 500; }},
        {"layout concat", [](Params& p) { p.layout = SinLayout::Concat; }},
        {"layout t2t", [](Params& p) { p.layout = SinLayout::T2T; }},
        {"ropeConvention", [](Params& p) { p.ropeConvention = RopeConvention::Half; }},
        {"ropeDims", [](Params& p) { p.ropeDims = 4; }},
        {"ropeScaling pi x2",
         [](Params& p) {
             p.ropeScaling = RopeScaling::PI;
             p.ropeScale = 2;
         }},
        {"ropeScaling ntk x2",
         [](Params& p) {
             p.ropeScaling = RopeScaling::NTK;
             p.ropeScale = 2;
         }},
        {"ropeScale", [](Params& p) { p.ropeScale = 3; }},
        {"buckets", [](Params& p) { p.buckets = 8; }},
        {"maxDistance", [](Params& p) { p.maxDistance = 16; }},
        {"unidirectional", [](Params& p) { p.unidirectional = true; }},
        {"alibiMode", [](Params& p) { p.alibiMode = AlibiMode::Causal; }},
        {"debertaC2P", [](Params& p) { p.debertaC2P = false; }},
        {"debertaP2C", [](Params& p) { p.debertaP2C = !p.debertaP2C; }},
        {"p2cConvention", [](Params& p) { p.p2cConvention = P2CConvention::Paper; }},
        {"debertaLogBuckets", [](Params& p) { p.debertaLogBuckets = !p.debertaLogBuckets; }},
        {"debertaBuckets", [](Params& p) { p.debertaBuckets = 12; }},
        {"debertaMaxPosition", [](Params& p) { p.debertaMaxPosition = 8; }},
        {"txlClampLen", [](Params& p) { p.txlClampLen = 4; }},
        {"urpeBias", [](Params& p) { p.urpeBias = UrpeBias::T5; }},
        {"learnedRows", [](Params& p) { p.learnedRows = 64; }},
        {"mlpFeatures", [](Params& p) { p.mlpFeatures = 4; }},
        {"mlpHidden", [](Params& p) { p.mlpHidden = 16; }},
    };
}

/** Empty when a and b hold the same tokens and tensors, bit for bit; else the first difference. */
inline std::string traceDifference(const Trace& a, const Trace& b) {
    if (a.tokens != b.tokens)
        return "tokens";
    if (a.tensors.size() != b.tensors.size())
        return "tensor count";
    for (std::size_t k = 0; k < a.tensors.size(); ++k) {
        const auto& [an, at] = a.tensors[k];
        const auto& [bn, bt] = b.tensors[k];
        if (an != bn || at.shape() != bt.shape() || at.dtype() != bt.dtype() ||
            std::memcmp(at.raw(), bt.raw(), at.byteSize()) != 0)
            return an;
    }
    return {};
}

/** What checkCanonical found: the pairs it ran, and the first disagreement (empty: none). */
struct CanonicalCheck {
    int same = 0;      ///< pairs canonical() calls the same, whose traces were equal
    int different = 0; ///< pairs it calls different, whose traces differed
    std::string failure;
};

/**
 * For every scheme, setting and change (those that validate and change something), whether
 * sameTrace(p, q) holds exactly when run(p) and run(q) are equal bit for bit.
 */
inline CanonicalCheck checkCanonical(const std::function<Params(Scheme)>& base,
                                     const std::function<Trace(const Params&)>& run) {
    CanonicalCheck c;
    for (Scheme s : allSchemes())
        for (const auto& [setting, set] : parameterSettings()) {
            Params p = base(s);
            set(p);
            if (!validate(p))
                continue;
            const Trace tp = run(p);
            for (const auto& [name, change] : parameterChanges()) {
                Params q = p;
                change(q);
                if (q == p || !validate(q))
                    continue;
                const bool same = sameTrace(p, q);
                const std::string diff = traceDifference(tp, run(q));
                if (same == diff.empty()) {
                    ++(same ? c.same : c.different);
                    continue;
                }
                c.failure = std::string(toString(s)) + ", " + setting + ", " + name + ": " +
                            (same ? "canonical() calls them the same, but " + diff + " differs"
                                  : "canonical() tells them apart, but the traces are equal");
                return c;
            }
        }
    return c;
}

} // namespace pe::testing
