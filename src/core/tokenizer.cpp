// SPDX-License-Identifier: MIT
#include "tokenizer.h"

#include <unordered_map>
#include <vector>

#include "weights.h"

namespace pe {

namespace {

/** Decodes one UTF-8 code point at s[i], advancing i; invalid bytes decode as U+FFFD. */
char32_t decode(std::string_view s, std::size_t& i) {
    const auto b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + static_cast<std::size_t>(len) > s.size()) {
        ++i;
        return 0xFFFD;
    }
    char32_t cp = len == 1 ? b : (b & (0x7F >> len));
    for (int k = 1; k < len; ++k) {
        const auto c = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
        if ((c >> 6) != 2) {
            ++i;
            return 0xFFFD;
        }
        cp = (cp << 6) | (c & 0x3F);
    }
    i += static_cast<std::size_t>(len);
    return cp;
}

bool isSpace(char32_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
           c == 0x00A0 || c == 0x3000 || (c >= 0x2000 && c <= 0x200B);
}

bool isCjk(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x3040 && c <= 0x30FF) ||
           (c >= 0x3001 && c <= 0x303F) || (c >= 0xFF00 && c <= 0xFFEF) ||
           (c >= 0x20000 && c <= 0x2FFFF);
}

bool isWordChar(char32_t c) {
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
    // Other scripts (Latin accents, Greek, Cyrillic, …) form words; general punctuation does not.
    return !(c >= 0x2000 && c <= 0x206F) && !isCjk(c);
}

} // namespace

std::vector<std::string> tokenize(std::string_view s) {
    std::vector<std::string> out;
    std::string word;
    auto flush = [&] {
        if (!word.empty())
            out.push_back(std::move(word));
        word.clear();
    };
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t start = i;
        const char32_t c = decode(s, i);
        const std::string_view bytes = s.substr(start, i - start);
        if (isSpace(c)) {
            flush();
        } else if (isCjk(c)) {
            flush();
            out.emplace_back(bytes);
        } else if (isWordChar(c)) {
            word.append(bytes);
        } else if (c == '\'' && !word.empty() && i < s.size() &&
                   isWordChar(static_cast<unsigned char>(s[i]))) {
            word.append(bytes); // don't, it's
        } else {
            flush();
            out.emplace_back(bytes);
        }
    }
    flush();
    return out;
}

Eigen::MatrixXd embedTokens(const std::vector<std::string>& tokens, int d, std::uint64_t seed) {
    // A token's row depends on the token alone: draw each distinct token once (a sample
    // sentence repeated to n = 512 has a few dozen) into a row-major table, then fill E column
    // by column. (Copying whole rows into the column-major E strides by n doubles per element:
    // a cache miss each, 1–2 ms at n = 512, d = 256.)
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    std::unordered_map<std::string, Eigen::Index> distinct;
    std::vector<Eigen::Index> which(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i)
        which[i] = distinct.try_emplace(tokens[i], static_cast<Eigen::Index>(distinct.size()))
                       .first->second;
    RowMajor table(static_cast<Eigen::Index>(distinct.size()), d);
    for (const auto& [token, k] : distinct)
        table.row(k) = seededNormal(1, d, seed, "token:" + token).row(0);
    Eigen::MatrixXd E(static_cast<Eigen::Index>(tokens.size()), d);
    for (Eigen::Index c = 0; c < d; ++c) {
        double* column = E.col(c).data();
        for (std::size_t i = 0; i < tokens.size(); ++i)
            column[i] = table(which[i], c);
    }
    return E;
}

const std::vector<std::string>& sampleSentences() {
    static const std::vector<std::string> s{
        "The quick brown fox jumps over the lazy dog.",
        "Attention is all you need, but position matters too.",
        "The cat sat on the mat, and the dog sat on the log.",
        "Self-attention is permutation invariant: without positions, order is lost.",
        "我爱自然语言处理。",
        "位置编码让模型知道词的顺序。",
    };
    return s;
}

} // namespace pe
