// SPDX-License-Identifier: MIT
#include <QImage>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"

namespace {

int distinctColours(const QImage& img) {
    QSet<QRgb> seen;
    for (int y = 0; y < img.height(); y += 3)
        for (int x = 0; x < img.width(); x += 3)
            seen.insert(img.pixel(x, y));
    return static_cast<int>(seen.size());
}

QStringList words(std::initializer_list<const char*> w) {
    QStringList out;
    for (const char* x : w)
        out << QString::fromUtf8(x);
    return out;
}

} // namespace

/** `render --view binary|offset|cost|distance|depth`: the Insights tab's pages as files. */
class TestRenderInsights : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyPageWritesAReadablePng_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QSize>("size");
        const QStringList base =
            words({"render", "--scheme", "sinusoidal", "--n", "24", "--d", "32", "--dpi", "96"});
        QTest::newRow("binary") << base + words({"--view", "binary"}) << QSize(1500, 560);
        QTest::newRow("offset") << base + words({"--view", "offset", "--delta", "3"})
                                << QSize(1100, 900);
        QTest::newRow("offset learned") << words({"render", "--scheme", "learned", "--n", "24",
                                                  "--d", "8", "--dpi", "96", "--view", "offset"})
                                        << QSize(1100, 900);
        QTest::newRow("cost") << base + words({"--view", "cost", "--kernel", "5"})
                              << QSize(1500, 560);
        QTest::newRow("distance") << base + words({"--view", "distance"}) << QSize(1500, 560);
        QTest::newRow("depth") << base + words({"--view", "depth", "--layers", "4", "--no-residual",
                                                "--depth-norm", "rmsnorm"})
                               << QSize(1100, 900);
        QTest::newRow("sized") << base + words({"--view", "depth", "--size", "900x700"})
                               << QSize(900, 700);
    }
    void everyPageWritesAReadablePng() {
        QFETCH(QStringList, args);
        QFETCH(QSize, size);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("page.png"));
        const Run r = runCli(args + QStringList{QStringLiteral("-o"), file});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QImage img(file);
        QVERIFY(!img.isNull());
        QCOMPARE(img.size(), size);
        QVERIFY(distinctColours(img) > 20); // curves, maps and text, not a blank page
    }

    void pagesMixWithTraceViewsInAFolder() {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("figs"));
        const Run r = runCli(words({"render", "--scheme", "rope", "--n", "12", "--d", "16", "--dpi",
                                    "96", "--view", "binary,offset,attention", "--out"}) +
                             QStringList{out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(out),
                 (QStringList{QStringLiteral("attention.png"), QStringLiteral("binary.png"),
                              QStringLiteral("offset.png")}));
    }

    void listShowsThePages() {
        const Run r = runCli(words({"render", "--view", "list"}));
        QCOMPARE(r.exitCode, 0);
        for (const char* page : {"binary", "offset", "cost", "distance", "depth"})
            QVERIFY2(r.out.contains(QLatin1String(page)), page);
        // offset applies to the schemes with a P (or RoPE's rotation) only.
        const QString offsetLine = r.out.split(QLatin1Char('\n'))
                                       .filter(QRegularExpression(QStringLiteral("^offset ")))
                                       .value(0);
        QVERIFY2(offsetLine.contains(QLatin1String("sinusoidal, learned, rope, mlp")),
                 qPrintable(offsetLine));
    }

    void badInputExitsTwoAndWritesNothing_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("delta >= n") << words({"render", "--scheme", "sinusoidal", "--n", "8",
                                              "--view", "offset", "--delta", "8"})
                                    << "--delta 8 must be below n = 8";
        QTest::newRow("delta 0") << words({"render", "--scheme", "sinusoidal", "--n", "8", "--view",
                                           "offset", "--delta", "0"})
                                 << "--delta 0 must be at least 1";
        QTest::newRow("scheme without P") << words({"render", "--scheme", "t5", "--view", "offset"})
                                          << "scheme t5 has no position table P";
        QTest::newRow("no layers")
            << words({"render", "--scheme", "sinusoidal", "--view", "depth", "--layers", "0"})
            << "--layers 0 must be between 1 and 32";
        QTest::newRow("kernel 1") << words({"render", "--scheme", "sinusoidal", "--view", "cost",
                                            "--kernel", "1"})
                                  << "--kernel 1";
        QTest::newRow("norm") << words({"render", "--scheme", "sinusoidal", "--view", "depth",
                                        "--depth-norm", "batch"})
                              << "--depth-norm: unknown value 'batch'";
    }
    void badInputExitsTwoAndWritesNothing() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("figs"));
        // In a folder: nothing may be created, not even the folder.
        const Run r = runCli(args + QStringList{QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0); // one line
        QCOMPARE(filesIn(dir.path()), QStringList{});
    }
};

QTEST_MAIN(TestRenderInsights)
#include "tst_render_insights.moc"
