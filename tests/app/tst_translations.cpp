// SPDX-License-Identifier: MIT
// The Chinese interface: the embedded zh_CN translation loads, the committed .ts is complete and
// covers every tr() string now in src/app (lupdate is run on the sources into a temporary .ts),
// the window's menus and tabs come up in Chinese, and View → Language is remembered.
#include <QAction>
#include <QDirIterator>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLibraryInfo>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>

#include "help.h"
#include "main_window.h"
#include "settings.h"
#include "trace_views.h"
#include "translation.h"

using namespace pe;

namespace {

/** One <message> of a .ts file. */
struct TsMessage {
    QString context;
    QString source;
    QString comment;
    QString type;             ///< "", "unfinished", "vanished", "obsolete"
    QStringList translations; ///< one, or the numerus forms
    QString key() const { return context + u'\x1f' + source + u'\x1f' + comment; }
    QString describe() const {
        return QStringLiteral("  %1: \"%2\"%3")
            .arg(context, source,
                 comment.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(comment));
    }
};

QList<TsMessage> readTs(const QString& path, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = f.errorString();
        return {};
    }
    QList<TsMessage> out;
    QXmlStreamReader xml(&f);
    QString context;
    TsMessage m;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        const auto name = xml.name();
        if (name == QLatin1String("context")) {
            context.clear();
        } else if (name == QLatin1String("name") && context.isEmpty()) {
            context = xml.readElementText();
        } else if (name == QLatin1String("message")) {
            m = TsMessage{context, {}, {}, {}, {}};
        } else if (name == QLatin1String("source")) {
            m.source = xml.readElementText();
        } else if (name == QLatin1String("comment")) {
            m.comment = xml.readElementText();
        } else if (name == QLatin1String("translation")) {
            m.type = xml.attributes().value(QLatin1String("type")).toString();
            // Either text or <numerusform> children.
            QString text;
            while (!(xml.isEndElement() && xml.name() == QLatin1String("translation")) &&
                   !xml.atEnd()) {
                xml.readNext();
                if (xml.isCharacters())
                    text += xml.text();
                else if (xml.isStartElement() && xml.name() == QLatin1String("numerusform"))
                    m.translations << xml.readElementText();
            }
            if (m.translations.isEmpty())
                m.translations << text;
            out << m;
        }
    }
    if (xml.hasError())
        *error = QStringLiteral("%1 at line %2").arg(xml.errorString()).arg(xml.lineNumber());
    return out;
}

bool hasCjk(const QString& s) {
    for (QChar c : s)
        if (c.unicode() >= 0x4E00 && c.unicode() <= 0x9FFF)
            return true;
    return false;
}

const QString kTs = QStringLiteral(PE_SOURCE_DIR "/resources/translations/pe-explorer_zh_CN.ts");
const QString kQm = QStringLiteral(":/i18n/pe-explorer_zh_CN.qm");

} // namespace

class TestTranslations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void embeddedTranslationLoads();
    void tsIsComplete();
    void everyTrStringIsInTheTs();
    void noEscapesInTrStrings();
    void windowInChinese();
    void englishStaysEnglish();
    void languageMenuIsRemembered();
};

void TestTranslations::initTestCase() {
    QStandardPaths::setTestModeEnabled(true); // settings in a test location, never the user's
    QCoreApplication::setOrganizationName(QStringLiteral("pe-explorer-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_translations"));
    QSettings().clear();
}

void TestTranslations::cleanup() {
    installTranslations(QStringLiteral("en")); // each test starts in English
}

void TestTranslations::embeddedTranslationLoads() {
    QTranslator t;
    QVERIFY2(t.load(kQm), "the .qm is not embedded (qt_add_translations in src/app)");
    QCOMPARE(t.language(), QStringLiteral("zh_CN"));
    QCOMPARE(t.translate("pe::MainWindow", "&File"), QStringLiteral("文件(&F)"));
    QCOMPARE(t.translate("pe::MainWindow", "%n thread(s)", nullptr, 4),
             QStringLiteral("%n 个线程"));
    // The tour's pages are marked with QT_TRANSLATE_NOOP and translated when shown.
    QCOMPARE(t.translate("pe::TourDialog", tourPages().front().tab.toUtf8().constData()),
             QStringLiteral("位置编码"));

    // What the window installs: zh_CN by name and by a Chinese locale; English installs none.
    QCOMPARE(installTranslations(QStringLiteral("zh_CN")), QStringLiteral("zh_CN"));
    QCOMPARE(QCoreApplication::translate("pe::MainWindow", "&View"), QStringLiteral("视图(&V)"));
    // Qt's own buttons too, where the distribution ships qtbase_zh_CN.qm (qt6-translations-l10n).
    if (QFile::exists(QLibraryInfo::path(QLibraryInfo::TranslationsPath) +
                      QStringLiteral("/qtbase_zh_CN.qm")))
        QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"), QStringLiteral("取消"));
    QCOMPARE(installTranslations(QStringLiteral("en")), QStringLiteral("en"));
    QCOMPARE(QCoreApplication::translate("pe::MainWindow", "&View"), QStringLiteral("&View"));
    QCOMPARE(installTranslations(QStringLiteral("fr_FR")), QStringLiteral("en")); // none: English
    // "" follows the system locale: CTest runs this test with LANGUAGE=zh_CN, LANG=C.UTF-8 (as a
    // desktop whose language list starts with Chinese).
    QCOMPARE(qEnvironmentVariable("LANGUAGE"), QStringLiteral("zh_CN"));
    QCOMPARE(installTranslations(QString()), QStringLiteral("zh_CN"));
}

void TestTranslations::tsIsComplete() {
    QString error;
    const QList<TsMessage> ts = readTs(kTs, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(ts.size() > 300);
    QStringList untranslated;
    for (const TsMessage& m : ts) {
        bool empty = m.translations.isEmpty();
        for (const QString& t : m.translations)
            empty = empty || (t.trimmed().isEmpty() && !m.source.trimmed().isEmpty());
        if (m.type == QLatin1String("unfinished") || empty)
            untranslated << m.describe();
        // A placeholder lost in translation shows "%1" or drops a value.
        for (const QString& t : m.translations)
            for (int k = 1; k <= 9; ++k) {
                const QString ph = QStringLiteral("%%1").arg(k);
                if (m.source.contains(ph) != t.contains(ph))
                    untranslated << m.describe() + QStringLiteral(" [placeholder %1]").arg(ph);
            }
    }
    QVERIFY2(untranslated.isEmpty(),
             qPrintable(QStringLiteral("%1 untranslated message(s) in %2:\n%3")
                            .arg(untranslated.size())
                            .arg(kTs, untranslated.join(u'\n'))));
}

void TestTranslations::everyTrStringIsInTheTs() {
    // lupdate on the sources as they are now, into a scratch .ts: every tr() string it finds must
    // be in the committed one (and nothing the sources no longer have).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString scratch = dir.filePath(QStringLiteral("scratch_zh_CN.ts"));
    QProcess lupdate;
    lupdate.setProcessChannelMode(QProcess::MergedChannels);
    lupdate.start(QStringLiteral(PE_LUPDATE),
                  {QStringLiteral("-silent"), QStringLiteral("-locations"), QStringLiteral("none"),
                   QStringLiteral(PE_SOURCE_DIR "/src/app"), QStringLiteral(PE_SOURCE_DIR "/ui"),
                   QStringLiteral(PE_SOURCE_DIR "/src/compute/worker/sample_input.cpp"),
                   QStringLiteral("-ts"), scratch});
    QVERIFY2(lupdate.waitForFinished(120000), "lupdate did not finish");
    QVERIFY2(lupdate.exitStatus() == QProcess::NormalExit && lupdate.exitCode() == 0,
             lupdate.readAll().constData());
    QString error;
    const QList<TsMessage> fresh = readTs(scratch, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QList<TsMessage> committed = readTs(kTs, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(fresh.size() > 300); // lupdate found the sources

    QSet<QString> have;
    for (const TsMessage& m : committed)
        if (m.type != QLatin1String("vanished") && m.type != QLatin1String("obsolete"))
            have.insert(m.key());
    QSet<QString> now;
    QStringList missing;
    for (const TsMessage& m : fresh) {
        now.insert(m.key());
        if (!have.contains(m.key()))
            missing << m.describe();
    }
    QStringList stale;
    for (const TsMessage& m : committed)
        if (have.contains(m.key()) && !now.contains(m.key()))
            stale << m.describe();
    QVERIFY2(missing.isEmpty(),
             qPrintable(QStringLiteral("%1 tr() string(s) of src/app are not in %2 (run `cmake "
                                       "--build build/ci --target update_translations`, then "
                                       "translate them):\n%3")
                            .arg(missing.size())
                            .arg(kTs, missing.join(u'\n'))));
    QVERIFY2(stale.isEmpty(),
             qPrintable(QStringLiteral("%1 message(s) of %2 are no longer in the sources (run "
                                       "update_translations):\n%3")
                            .arg(stale.size())
                            .arg(kTs, stale.join(u'\n'))));
}

void TestTranslations::noEscapesInTrStrings() {
    // lupdate 6.4 reads "\u201cAb" as one code point (it takes every hex digit that follows), so
    // such a source in the .ts never matches the compiled string and stays untranslated at run
    // time. Translatable strings spell their characters out (the sources are UTF-8).
    const QRegularExpression call(
        QStringLiteral(R"(\b(tr|translate|QT_TRANSLATE_NOOP|QT_TR_NOOP)\s*\()"));
    QStringList bad;
    QDirIterator it(QStringLiteral(PE_SOURCE_DIR "/src/app"),
                    {QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files);
    QStringList files{QStringLiteral(PE_SOURCE_DIR "/src/compute/worker/sample_input.cpp")};
    while (it.hasNext())
        files << it.next();
    for (const QString& path : files) {
        QFile f(path);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
        const QString text = QString::fromUtf8(f.readAll());
        for (auto m = call.globalMatch(text); m.hasNext();) {
            const auto match = m.next();
            // The call's arguments: up to the parenthesis that closes it, outside string literals.
            int depth = 1;
            bool inString = false;
            qsizetype k = match.capturedEnd();
            for (; k < text.size() && depth > 0; ++k) {
                const QChar c = text.at(k);
                if (inString) {
                    if (c == u'\\') {
                        const QChar next = k + 1 < text.size() ? text.at(k + 1) : QChar();
                        if (next == u'u' || next == u'U' || next == u'x')
                            bad << QStringLiteral("%1:%2").arg(
                                QFileInfo(path).fileName(),
                                QString::number(text.left(k).count(u'\n') + 1));
                        ++k;
                    } else if (c == u'"') {
                        inString = false;
                    }
                } else if (c == u'"') {
                    inString = true;
                } else if (c == u'(') {
                    ++depth;
                } else if (c == u')') {
                    --depth;
                }
            }
        }
    }
    QVERIFY2(bad.isEmpty(),
             qPrintable(QStringLiteral("\\u/\\x escapes in translatable strings (write the "
                                       "character itself): %1")
                            .arg(bad.join(QStringLiteral(", ")))));
}

void TestTranslations::windowInChinese() {
    QCOMPARE(installTranslations(QStringLiteral("zh_CN")), QStringLiteral("zh_CN"));
    MainWindow w(Settings::defaultSession(), /*persist=*/false);
    const QList<QAction*> menus = w.menuBar()->actions();
    QVERIFY(menus.size() >= 5);
    for (QAction* m : menus) {
        QVERIFY2(hasCjk(m->text()), qPrintable(m->text()));
        // Every entry of every menu, but the models of the Presets menu (BERT, GPT-2, …); the
        // colour maps (viridis, …) and languages (in their own names) sit in submenus.
        if (m->text() == QStringLiteral("预设(&P)"))
            continue;
        for (QAction* a : m->menu()->actions())
            if (!a->isSeparator())
                QVERIFY2(hasCjk(a->text()), qPrintable(a->text()));
    }
    QMenu* file = menus.front()->menu();
    QCOMPARE(menus.front()->text(), QStringLiteral("文件(&F)"));
    QCOMPARE(file->actions().front()->text(), QStringLiteral("打开会话(&O)…"));
    QTabWidget* tabs = w.views();
    QVERIFY(tabs->count() >= 7);
    for (int k = 0; k < tabs->count(); ++k)
        QVERIFY2(hasCjk(tabs->tabText(k)), qPrintable(tabs->tabText(k)));
    QCOMPARE(tabs->tabText(3), QStringLiteral("注意力(&A)"));
    const auto docks = w.findChildren<QDockWidget*>();
    QVERIFY(!docks.isEmpty());
    QCOMPARE(docks.front()->windowTitle(), QStringLiteral("参数"));
    TourDialog tour;
    QCOMPARE(tour.windowTitle(), QStringLiteral("标签页导览"));
    QCOMPARE(tour.findChildren<QLabel*>().front()->text(), QStringLiteral("<h3>位置编码</h3>"));
    // Help → About this scheme: name, labels and what to look at translated, formula as it is.
    const QString help = schemeHelpHtml(Scheme::T5);
    QVERIFY2(help.contains(QStringLiteral("T5 相对位置注意力偏置")), qPrintable(help));
    QVERIFY2(help.contains(QStringLiteral("<b>公式：</b>")), qPrintable(help));
    QVERIFY2(help.contains(schemeHelp(Scheme::T5).formula), qPrintable(help));
}

void TestTranslations::englishStaysEnglish() {
    QCOMPARE(installTranslations(QStringLiteral("en")), QStringLiteral("en"));
    MainWindow w(Settings::defaultSession(), /*persist=*/false);
    QCOMPARE(w.menuBar()->actions().front()->text(), QStringLiteral("&File"));
    for (int k = 0; k < w.views()->count(); ++k)
        QVERIFY2(!hasCjk(w.views()->tabText(k)), qPrintable(w.views()->tabText(k)));
}

void TestTranslations::languageMenuIsRemembered() {
    Settings settings;
    settings.setTourDone(true);
    QCOMPARE(settings.language(), QString()); // default: the system's
    MainWindow w(Settings::defaultSession(), /*persist=*/true);
    auto* menu = w.findChild<QMenu*>(QStringLiteral("languageMenu"));
    QVERIFY(menu);
    QStringList names;
    QAction* chinese = nullptr;
    for (QAction* a : menu->actions()) {
        names << a->text();
        // Says when a change takes effect (restart: run-time texts are built once).
        QVERIFY2(a->toolTip().contains(QLatin1String("restart")), qPrintable(a->toolTip()));
        if (a->data().toString() == QLatin1String("zh_CN"))
            chinese = a;
    }
    QCOMPARE(names, (QStringList{QStringLiteral("&System language"), QStringLiteral("English"),
                                 QStringLiteral("简体中文")}));
    QVERIFY(menu->actions().front()->isChecked());
    QVERIFY(chinese);
    chinese->trigger();
    QCOMPARE(Settings().language(), QStringLiteral("zh_CN"));
    MainWindow again(Settings::defaultSession(), /*persist=*/true);
    auto* menu2 = again.findChild<QMenu*>(QStringLiteral("languageMenu"));
    QVERIFY(menu2 && menu2->actions().size() == 3);
    QVERIFY(menu2->actions().at(2)->isChecked());
    QSettings().clear();
}

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
