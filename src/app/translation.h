// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

#include <vector>

namespace pe {

/** The interface languages of View → Language: `code` as stored in the settings ("" = the
 *  system's), `name` in its own language (never translated). */
struct InterfaceLanguage {
    QString code;
    QString name;
};
/** English and Simplified Chinese; the embedded translations are :/i18n/pe-explorer_<code>.qm. */
const std::vector<InterfaceLanguage>& interfaceLanguages();

/** Installs the interface translation for `code` ("en", "zh_CN"; "" = QLocale::system()) and Qt's
 *  own (standard buttons and dialogs) into the application, replacing any installed before.
 *  Returns the language now in use: "zh_CN", or "en" when no translation matches. */
QString installTranslations(const QString& code);

} // namespace pe
