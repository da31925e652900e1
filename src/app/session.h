// SPDX-License-Identifier: MIT
#pragma once

/**
 * Session files: every Params field and the input choice as JSON, spelled as the CLI spells
 * them (SPEC-trace.md). The seed is written as a string so all 64 bits survive.
 */

#include <QJsonObject>
#include <QString>

#include "expected.h"
#include "params.h"
#include "sample_input.h"

namespace pe {

struct Session {
    Params params;
    InputChoice input;
    bool operator==(const Session&) const = default;
};

QJsonObject toJson(const Session& s);
/** Missing keys keep their defaults; a wrong type or unknown enum name is an error naming it. */
Expected<Session> sessionFromJson(const QJsonObject& o);

/** Writes atomically (QSaveFile); the error says why. */
Status saveSession(const Session& s, const QString& path);
Expected<Session> loadSession(const QString& path);

} // namespace pe
