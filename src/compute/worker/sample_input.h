// SPDX-License-Identifier: MIT
#pragma once

/**
 * What the tokens of a computation are: a built-in sentence, typed text, n identical tokens (the
 * probe of SPEC §12) or n all-zero embeddings.
 * The token list is cycled (or cut) to exactly Params::n tokens, so the sequence-length control
 * keeps its meaning whatever the input; embeddings come from the core's seeded per-token table.
 */

#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "params.h"
#include "weights.h"

namespace pe {

enum class InputKind { Sentence, Text, Identical, Zeros };

/** The token of InputKind::Zeros: it embeds to the zero vector (the tokenizer never emits it). */
inline constexpr const char* kZeroToken = "<0>";

/**
 * Which attention weights W_q, W_k, W_v, W_o [d, d] the worker uses: the seeded random ones, or
 * identity projections (W = I, so Q = K = V = X and the maps show the scheme's own structure; the
 * position tables stay seeded), or a trained lab model's layer (InputChoice::trained; random
 * weights when none is given).
 */
enum class WeightsKind { Random, Identity, Trained };

struct InputChoice {
    InputKind kind = InputKind::Sentence;
    int sentence = 0;                          ///< index into sampleSentenceList()
    QString text;                              ///< typed text (InputKind::Text)
    WeightsKind weights = WeightsKind::Random; ///< W_q, W_k, W_v, W_o
    /** WeightsKind::Trained: a trained model's tensors for one layer (null: random weights). */
    std::shared_ptr<const Weights> trained{};
    QString trainedName{}; ///< e.g. "shift-3, t5, layer 1 of 2"

    bool operator==(const InputChoice&) const = default;
};

/** The core's built-in sample sentences (tokenizer.h), as Qt strings. */
QStringList sampleSentenceList();

/** Exactly `n` input-token labels (no special tokens) for this choice. */
std::vector<std::string> inputTokens(const InputChoice& in, int n);

/** Labels of every position: [CLS]? tokens [SEP]? */
std::vector<std::string> sequenceLabels(const Params& p, const std::vector<std::string>& tokens);

/** Token embeddings E [n, d] for the input tokens (special rows excluded); kZeroToken rows are 0.
 */
Eigen::MatrixXd inputEmbeddings(const Params& p, const std::vector<std::string>& tokens);

QString toString(InputKind k);
QString toString(WeightsKind k);
WeightsKind weightsKindFromString(const QString& s);
/** "weights: random, seed 0", "weights: identity projections", "weights: trained". */
QString describeWeights(WeightsKind k, std::uint64_t seed);
/** describeWeights for a request: "weights: trained: NAME" when a trained model is given, and
 *  random weights ("weights: random, seed S") when Trained is chosen without one. */
QString describeWeights(const InputChoice& in, std::uint64_t seed);
InputKind inputKindFromString(const QString& s);

} // namespace pe
