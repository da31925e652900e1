// SPDX-License-Identifier: MIT
#pragma once

/**
 * A small, deterministic tokenizer for sample texts: words (letters, digits, apostrophes
 * inside words) and single punctuation marks; CJK ideographs, kana and CJK punctuation one
 * character each. Whitespace separates and is dropped. Input is UTF-8.
 */

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pe {

std::vector<std::string> tokenize(std::string_view utf8);

/**
 * A seeded per-token embedding table: the same token always gets the same N(0, 1) row for a
 * given seed and width, whatever sentence it appears in. Returns [tokens, d].
 */
Eigen::MatrixXd embedTokens(const std::vector<std::string>& tokens, int d, std::uint64_t seed);

/** Built-in sample sentences (English and Chinese). */
const std::vector<std::string>& sampleSentences();

} // namespace pe
