// SPDX-License-Identifier: MIT
#include "sample_input.h"

#include <QCoreApplication>

#include <algorithm>

#include "tokenizer.h"

namespace pe {

QStringList sampleSentenceList() {
    QStringList out;
    for (const std::string& s : sampleSentences())
        out << QString::fromStdString(s);
    return out;
}

std::vector<std::string> inputTokens(const InputChoice& in, int n) {
    std::vector<std::string> base;
    switch (in.kind) {
    case InputKind::Identical:
        base = {"the"};
        break;
    case InputKind::Zeros:
        base = {kZeroToken};
        break;
    case InputKind::Text:
        base = tokenize(in.text.toStdString());
        break;
    case InputKind::Sentence: {
        const auto& s = sampleSentences();
        const std::size_t idx =
            (in.sentence >= 0 && static_cast<std::size_t>(in.sentence) < s.size())
                ? static_cast<std::size_t>(in.sentence)
                : 0;
        if (!s.empty())
            base = tokenize(s[idx]);
        break;
    }
    }
    if (base.empty())
        base = {"<empty>"};
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(std::max(n, 0)));
    for (int i = 0; i < n; ++i)
        out.push_back(base[static_cast<std::size_t>(i) % base.size()]);
    return out;
}

std::vector<std::string> sequenceLabels(const Params& p, const std::vector<std::string>& tokens) {
    std::vector<std::string> out;
    out.reserve(tokens.size() + 2);
    if (p.cls)
        out.emplace_back("[CLS]");
    out.insert(out.end(), tokens.begin(), tokens.end());
    if (p.sep)
        out.emplace_back("[SEP]");
    return out;
}

Eigen::MatrixXd inputEmbeddings(const Params& p, const std::vector<std::string>& tokens) {
    Eigen::MatrixXd E = embedTokens(tokens, p.d, p.seed);
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i] == kZeroToken)
            E.row(static_cast<Eigen::Index>(i)).setZero();
    return E;
}

QString toString(InputKind k) {
    switch (k) {
    case InputKind::Sentence:
        return QStringLiteral("sentence");
    case InputKind::Text:
        return QStringLiteral("text");
    case InputKind::Identical:
        return QStringLiteral("identical");
    case InputKind::Zeros:
        return QStringLiteral("zeros");
    }
    return {};
}

InputKind inputKindFromString(const QString& s) {
    if (s == QLatin1String("text"))
        return InputKind::Text;
    if (s == QLatin1String("identical"))
        return InputKind::Identical;
    if (s == QLatin1String("zeros"))
        return InputKind::Zeros;
    return InputKind::Sentence;
}

QString toString(WeightsKind k) {
    switch (k) {
    case WeightsKind::Random:
        return QStringLiteral("random");
    case WeightsKind::Identity:
        return QStringLiteral("identity");
    case WeightsKind::Trained:
        return QStringLiteral("trained");
    }
    return {};
}

WeightsKind weightsKindFromString(const QString& s) {
    if (s == QLatin1String("identity"))
        return WeightsKind::Identity;
    if (s == QLatin1String("trained"))
        return WeightsKind::Trained;
    return WeightsKind::Random;
}

// The weights line of the window's attention views: in the interface language (the window's
// translation scans this file too, src/app/CMakeLists.txt).
QString describeWeights(WeightsKind k, std::uint64_t seed) {
    switch (k) {
    case WeightsKind::Identity:
        return QCoreApplication::translate("pe::Weights", "weights: identity projections");
    case WeightsKind::Trained:
        return QCoreApplication::translate("pe::Weights", "weights: trained");
    case WeightsKind::Random:
        break;
    }
    return QCoreApplication::translate("pe::Weights", "weights: random, seed %1").arg(seed);
}

QString describeWeights(const InputChoice& in, std::uint64_t seed) {
    if (in.weights != WeightsKind::Trained)
        return describeWeights(in.weights, seed);
    if (!in.trained)
        return describeWeights(WeightsKind::Random, seed);
    return in.trainedName.isEmpty()
               ? describeWeights(WeightsKind::Trained, seed)
               : QCoreApplication::translate("pe::Weights", "weights: trained: %1")
                     .arg(in.trainedName);
}

} // namespace pe
