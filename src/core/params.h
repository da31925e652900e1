// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "expected.h"

namespace pe {

/** The position-encoding scheme; see SPEC-encodings.md §1–§9. */
enum class Scheme {
    None,
    Sinusoidal,
    Learned,
    Shaw,
    TransformerXL,
    T5,
    DeBERTa,
    RoPE,
    ALiBi,
    URPE,
    Mlp ///< learnable absolute encoding: an MLP of fixed Fourier features of p (d2l exercise 2)
};
/** The attention normaliser N(S); SPEC §10. */
enum class Normaliser { Softmax, Exp, L2, Relu2, Relu2Visible };
enum class MaskKind { None, Causal };
/** Sinusoid layouts, SPEC §1: paper interleaved, concat [sin|cos], tensor2tensor/fairseq ladder. */
enum class SinLayout { Interleaved, Concat, T2T };
/** RoPE pairings, SPEC §7: (2m, 2m+1) or (m, m + d_rot/2). */
enum class RopeConvention { Interleaved, Half };
/**
 * RoPE context stretching for a stretch s (Params::ropeScale): none; position interpolation
 * (Chen et al. 2023), angle = (p / s)·θ_m; NTK-aware base scaling, base' =
 * base·s^(d_rot/(d_rot−2)).
 */
enum class RopeScaling { None, PI, NTK };
/** ALiBi forms, SPEC §8: paper −m(i−j) under a causal mask, or −m|i−j|. */
enum class AlibiMode { Causal, Symmetric };
/** DeBERTa p2c index, SPEC §6: released code δ(i,j) or the paper's δ(j,i). */
enum class P2CConvention { Code, Paper };
enum class UrpeBias { None, T5 };
enum class Precision { Float32, Float64 };

/** Ranges of the mlp encoding's sizes (Params::mlpFeatures, Params::mlpHidden). */
inline constexpr int kMaxMlpFeatures = 256;
inline constexpr int kMaxMlpHidden = 4096;

/**
 * Every parameter of one attention computation: a plain value type, copied into workers.
 * Names follow SPEC-trace.md. `n` counts input tokens; special tokens come on top, so the
 * sequence that attention sees has `seqLen()` positions.
 */
struct Params {
    Scheme scheme = Scheme::None;
    int n = 16;    ///< input tokens (special tokens come on top)
    int d = 64;    ///< model width
    int heads = 4; ///< number of heads; d % heads == 0
    Normaliser norm = Normaliser::Softmax;
    MaskKind mask = MaskKind::None;
    int validLen = -1; ///< keys at positions >= validLen are padding; -1 = all valid

    int clip = 16;       ///< Shaw clip distance k; DeBERTa v1 span k
    double base = 10000; ///< sinusoid and RoPE base
    SinLayout layout = SinLayout::Interleaved;
    RopeConvention ropeConvention = RopeConvention::Interleaved;
    int ropeDims = 0; ///< rotated features per head (partial rotary); 0 = d_h
    RopeScaling ropeScaling = RopeScaling::None;
    double ropeScale = 1.0; ///< stretch s > 0 of pi / ntk; ignored with RopeScaling::None

    int buckets = 32;      ///< T5 num_buckets
    int maxDistance = 128; ///< T5 max_distance
    bool unidirectional = false;

    AlibiMode alibiMode = AlibiMode::Symmetric;

    bool debertaC2P = true;
    bool debertaP2C = true;
    P2CConvention p2cConvention = P2CConvention::Code;
    bool debertaLogBuckets = false; ///< v2/v3 log buckets, span = position_buckets (SPEC §6)
    int debertaBuckets = 256;       ///< position_buckets (v2/v3)
    int debertaMaxPosition = 512;   ///< max_relative_positions (v2/v3)

    int txlClampLen = 0; ///< Transformer-XL clamp_len; 0 = off

    UrpeBias urpeBias = UrpeBias::None;

    int learnedRows = 1024; ///< P_max of a generated learned table (GPT-2's n_ctx)

    int mlpFeatures = 8; ///< F: Fourier frequencies of the mlp encoding (φ has 2F entries)
    int mlpHidden = 64;  ///< H: hidden width of the mlp encoding

    bool cls = false;
    bool sep = false;
    std::uint64_t seed = 0;
    Precision precision = Precision::Float32;

    int seqLen() const { return n + (cls ? 1 : 0) + (sep ? 1 : 0); }
    int headDim() const { return heads > 0 ? d / heads : 0; }
    /** Number of DeBERTa position terms (c2p, p2c) in force. */
    int debertaTerms() const { return (debertaC2P ? 1 : 0) + (debertaP2C ? 1 : 0); }
    /** DeBERTa relative span: k (v1) or position_buckets (v2/v3: pos_ebd_size, SPEC §6). */
    int debertaSpan() const { return debertaLogBuckets ? debertaBuckets : clip; }
    /** RoPE rotated features per head, d_rot (ropeDims, or the head width when 0). */
    int ropeRotatedDims() const { return ropeDims == 0 ? headDim() : ropeDims; }

    bool operator==(const Params&) const = default;
};

/** Checks every parameter; the error names the option at fault (CLI spelling). */
Status validate(const Params& p);

/**
 * p with every parameter that its scheme does not read set to its default: two sets of
 * parameters whose canonical forms are equal give the same trace, tensor for tensor (Shaw's
 * clip k means nothing to RoPE, nor T5's buckets to ALiBi). A generated learned.table's row
 * count P_max (learnedRows) counts only up to the sequence's length: the trace reads its
 * first rows, the same for every P_max that holds them. Only for parameters that validate.
 */
Params canonical(const Params& p);
/** canonical(a) == canonical(b): a trace computed for a is a trace for b (the same input). */
inline bool sameTrace(const Params& a, const Params& b) {
    return canonical(a) == canonical(b);
}

/** True for schemes that add an encoding P to the input embeddings. */
bool isAbsolute(Scheme s);
/** True for schemes that produce a relative index matrix (rel_index). */
bool hasRelIndex(const Params& p);
/** True for schemes whose trace writes the additive per-head bias (t5, alibi; SPEC-trace). */
bool hasBias(const Params& p);

// Names as the CLI and session files spell them, and back.
std::string_view toString(Scheme s);
std::string_view toString(Normaliser n);
std::string_view toString(MaskKind m);
std::string_view toString(SinLayout l);
std::string_view toString(RopeConvention c);
std::string_view toString(RopeScaling s);
std::string_view toString(AlibiMode m);
std::string_view toString(P2CConvention c);
std::string_view toString(UrpeBias b);
std::string_view toString(Precision p);
std::optional<Scheme> schemeFromString(std::string_view s);
std::optional<Normaliser> normaliserFromString(std::string_view s);
std::optional<MaskKind> maskFromString(std::string_view s);
std::optional<SinLayout> layoutFromString(std::string_view s);
std::optional<RopeConvention> ropeConventionFromString(std::string_view s);
std::optional<RopeScaling> ropeScalingFromString(std::string_view s);
std::optional<AlibiMode> alibiModeFromString(std::string_view s);
std::optional<P2CConvention> p2cFromString(std::string_view s);
std::optional<UrpeBias> urpeBiasFromString(std::string_view s);
std::optional<Precision> precisionFromString(std::string_view s);

/** Every value of one of the enums above, in the order of its name table (the default
 *  first where there is one), for --help, error messages and combo boxes. */
template <typename E> const std::vector<E>& allValues();
template <> const std::vector<Scheme>& allValues<Scheme>();
template <> const std::vector<Normaliser>& allValues<Normaliser>();
template <> const std::vector<MaskKind>& allValues<MaskKind>();
template <> const std::vector<SinLayout>& allValues<SinLayout>();
template <> const std::vector<RopeConvention>& allValues<RopeConvention>();
template <> const std::vector<RopeScaling>& allValues<RopeScaling>();
template <> const std::vector<AlibiMode>& allValues<AlibiMode>();
template <> const std::vector<P2CConvention>& allValues<P2CConvention>();
template <> const std::vector<UrpeBias>& allValues<UrpeBias>();
template <> const std::vector<Precision>& allValues<Precision>();

inline const std::vector<Scheme>& allSchemes() {
    return allValues<Scheme>();
}
inline const std::vector<Normaliser>& allNormalisers() {
    return allValues<Normaliser>();
}

} // namespace pe
