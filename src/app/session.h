// SPDX-License-Identifier: MIT
#pragma once

/**
 * Session files: every Params field and the input choice as JSON, spelled as the CLI spells
 * them (SPEC-trace.md). The seed is written as a string so all 64 bits survive.
 */

#include <QJsonObject>
#include <QString>

#include "expected.h"
#include "insights_worker.h"
#include "params.h"
#include "sample_input.h"

namespace pe {

/** The Insights tab's page and page options (the Measure run is not kept: it takes seconds). */
struct InsightsState {
    InsightPage page = InsightPage::Binary;
    InsightSettings settings;
    bool operator==(const InsightsState&) const = default;
};

struct Session {
    Params params;
    InputChoice input;
    /** Written by the window, restored when a session file is opened; absent in the sessions
     *  of parameter changes (undo), which leave the tab as it is. */
    std::optional<InsightsState> insights{};
    bool operator==(const Session&) const = default;
};

QJsonObject toJson(const Session& s);
/**
 * Missing keys keep their defaults; a wrong type or unknown enum name is an error naming it.
 * What a newer version may have written is loaded as far as this version understands it: keys
 * it does not know are skipped, and `ignored` (when given) receives one line naming them and a
 * format version above this build's; it is empty when everything was read as written. A
 * valid_len past the sequence (n plus [CLS]/[SEP], which older builds accepted) is read as the
 * sequence's length, and the line says so.
 */
Expected<Session> sessionFromJson(const QJsonObject& o, QString* ignored = nullptr);

/** Writes atomically (QSaveFile); the error says why. */
Status saveSession(const Session& s, const QString& path);
/** Reads a session file; `ignored` as for sessionFromJson. */
Expected<Session> loadSession(const QString& path, QString* ignored = nullptr);

} // namespace pe
