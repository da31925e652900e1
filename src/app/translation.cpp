// SPDX-License-Identifier: MIT
#include "translation.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QPointer>
#include <QTranslator>

namespace pe {

const std::vector<InterfaceLanguage>& interfaceLanguages() {
    static const std::vector<InterfaceLanguage> languages{
        {QStringLiteral("en"), QStringLiteral("English")},
        {QStringLiteral("zh_CN"), QStringLiteral("简体中文")},
    };
    return languages;
}

QString installTranslations(const QString& code) {
    static QPointer<QTranslator> own;
    static QPointer<QTranslator> qt;
    for (QTranslator* t : {own.data(), qt.data()}) {
        if (t) {
            QCoreApplication::removeTranslator(t);
            delete t;
        }
    }
    const QLocale locale = code.isEmpty() ? QLocale::system() : QLocale(code);
    auto* app = new QTranslator(QCoreApplication::instance());
    // Tries pe-explorer_zh_Hans_CN, pe-explorer_zh_CN, … in the order of locale.uiLanguages()
    // (the system's: $LANGUAGE, else LC_ALL/LC_MESSAGES/LANG); English has no file.
    if (!app->load(locale, QStringLiteral("pe-explorer"), QStringLiteral("_"),
                   QStringLiteral(":/i18n"))) {
        delete app;
        return QStringLiteral("en");
    }
    // Qt's own strings (OK/Cancel, the file dialog) when the distribution ships them
    // (Debian: qt6-translations-l10n); without them those stay English. Installed first: the
    // translator installed last is asked first, so ours wins where both have a text.
    auto* base = new QTranslator(QCoreApplication::instance());
    if (base->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                   QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(base);
        qt = base;
    } else {
        delete base;
    }
    QCoreApplication::installTranslator(app);
    own = app;
    const QString name = app->language(); // "zh_CN", from the .ts
    return name.isEmpty() ? locale.name() : name;
}

} // namespace pe
