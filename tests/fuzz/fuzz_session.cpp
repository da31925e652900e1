// SPDX-License-Identifier: MIT
// libFuzzer harness: a session file's bytes through the loader's steps (QJsonDocument, then
// sessionFromJson), then what the window and the CLI do next with an accepted session: validate
// the parameters and, when they are valid, build the input tokens (capped at 64). An accepted
// session must survive toJson -> sessionFromJson unchanged.
#include <QByteArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "params.h"
#include "sample_input.h"
#include "session.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return 0;
    const auto s = pe::sessionFromJson(doc.object());
    if (!s)
        return 0;
    const auto again = pe::sessionFromJson(pe::toJson(*s));
    if (!again || !(*again == *s))
        __builtin_trap();
    if (pe::validate(s->params)) {
        const auto tokens = pe::inputTokens(s->input, std::min(s->params.n, 64));
        if (tokens.size() != static_cast<std::size_t>(std::min(s->params.n, 64)))
            __builtin_trap();
    }
    return 0;
}
