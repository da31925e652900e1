// SPDX-License-Identifier: MIT
#include <QDir>
#include <QFile>
#include <QImage>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <functional>

#include "cli_run.h"

namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

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

/** The parameters every case shares unless it says otherwise: small and quick. */
QStringList small(const char* scheme, std::initializer_list<const char*> more = {}) {
    return words({"render", "--scheme", scheme, "--n", "6", "--d", "32"}) + words(more);
}

} // namespace

class TestRenderCommand : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void listsViewsAndSchemes() {
        const Run r =
            runCli({QStringLiteral("render"), QStringLiteral("--view"), QStringLiteral("list")});
        QCOMPARE(r.exitCode, 0);
        for (const char* line : {"position ", "rel-index ", "bias ", "terms ", "term:c2p ",
                                 "attention ", "attention-head[:K]", "query-row ", "compare "})
            QVERIFY2(r.out.contains(QLatin1String(line)), line);
        // Each view names the schemes it applies to.
        const QStringList lines = r.out.split(QLatin1Char('\n'));
        auto lineOf = [&lines](const char* view) {
            for (const QString& l : lines)
                if (l.startsWith(QLatin1String(view) + QLatin1Char(' ')))
                    return l;
            return QString();
        };
        QVERIFY(lineOf("position").contains(QLatin1String("sinusoidal, learned")));
        QVERIFY(lineOf("bias").contains(QLatin1String("t5, alibi")));
        QVERIFY(lineOf("term:txl_ac").contains(QLatin1String("txl")));
        QVERIFY(lineOf("attention").contains(QLatin1String("all")));
    }

    void pngSizeFollowsDpi_data() {
        QTest::addColumn<int>("dpi");
        QTest::addColumn<QString>("view");
        QTest::addColumn<QSize>("pixels");
        QTest::newRow("96 dpi, one plot") << 96 << "position" << QSize(400, 300);
        QTest::newRow("192 dpi, one plot") << 192 << "position" << QSize(800, 600);
        QTest::newRow("72 dpi, line plot") << 72 << "position-lines" << QSize(300, 225);
        QTest::newRow("192 dpi, panel") << 192 << "attention" << QSize(800, 600);
    }
    void pngSizeFollowsDpi() {
        QFETCH(int, dpi);
        QFETCH(QString, view);
        QFETCH(QSize, pixels);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("fig.png"));
        const Run r = runCli(small("sinusoidal")
                             << QStringLiteral("--view") << view << QStringLiteral("--size")
                             << QStringLiteral("400x300") << QStringLiteral("--dpi")
                             << QString::number(dpi) << QStringLiteral("-o") << file);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(readAll(file).startsWith("\x89PNG\r\n\x1a\n"));
        const QImage img(file);
        QCOMPARE(img.size(), pixels);
        QCOMPARE(qRound(img.dotsPerMeterX() * 0.0254), dpi);
        QVERIFY2(distinctColours(img) > 20, "the figure looks blank");
    }

    void svgIsXmlWithTheTitle_data() {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("title");
        QTest::newRow("one plot") << "similarity"
                                  << "position similarity P·Pᵀ";
        // A panel: its maps are drawn as plots (text stays text), not pasted as pixels.
        QTest::newRow("panel") << "attention"
                               << "attention weights of every head";
        QTest::newRow("panel maps") << "attention"
                                    << "head 3";
    }
    void svgIsXmlWithTheTitle() {
        QFETCH(QString, view);
        QFETCH(QString, title);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("fig.svg"));
        const Run r = runCli(small("sinusoidal")
                             << QStringLiteral("--view") << view << QStringLiteral("-o") << file);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString svg = QString::fromUtf8(readAll(file));
        QVERIFY(svg.startsWith(QLatin1String("<?xml")));
        QVERIFY(svg.contains(QLatin1String("<svg")));
        QVERIFY2(svg.contains(title), qPrintable(title));
        QVERIFY(svg.contains(QLatin1String("sinusoidal, n=6, d=32"))); // the parameters line
    }

    void pdfHasMagic() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("fig.pdf"));
        const Run r = runCli(small("t5") << QStringLiteral("--view") << QStringLiteral("bias")
                                         << QStringLiteral("-o") << file);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QByteArray pdf = readAll(file);
        QVERIFY(pdf.startsWith("%PDF-"));
        QVERIFY(pdf.trimmed().endsWith("%%EOF"));
    }

    void sessionDrawsWhatItsOptionsDraw_data() {
        QTest::addColumn<QString>("view");
        QTest::newRow("attention head") << "attention-head:1";
        QTest::newRow("relative index") << "rel-index";
        QTest::newRow("logit terms") << "terms";
    }
    void sessionDrawsWhatItsOptionsDraw() {
        QFETCH(QString, view);
        QTemporaryDir dir;
        const QString session = dir.filePath(QStringLiteral("s.json"));
        QFile f(session);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "pe-explorer-session", "version": 1, "scheme": "shaw", "n": 6,
                    "d": 32, "heads": 2, "clip": 3, "mask": "causal", "cls": true,
                    "seed": "7", "input": {"kind": "text", "text": "the cat sat on the mat"}})");
        f.close();
        const QString a = dir.filePath(QStringLiteral("a.png"));
        const QString b = dir.filePath(QStringLiteral("b.png"));
        const QStringList common{QStringLiteral("--view"), view, QStringLiteral("--dpi"),
                                 QStringLiteral("96")};
        const Run fromSession =
            runCli(QStringList{QStringLiteral("render"), QStringLiteral("--session"), session,
                               QStringLiteral("-o"), a}
                   << common);
        QVERIFY2(fromSession.exitCode == 0, qPrintable(fromSession.err));
        // The same parameters as options, with `seed`.
        auto fromOptions = [&](const char* seed) {
            return runCli(words({"render", "--scheme", "shaw", "--text", "the cat sat on the mat",
                                 "--d", "32", "--heads", "2", "--clip", "3", "--mask", "causal",
                                 "--cls", "--seed", seed, "-o"})
                          << b << common);
        };
        const Run same = fromOptions("7");
        QVERIFY2(same.exitCode == 0, qPrintable(same.err));
        const QImage ia(a), ib(b);
        QVERIFY(!ia.isNull());
        QCOMPARE(ia.size(), ib.size());
        QVERIFY(ia == ib);
        // …and another seed draws another figure: the comparison can fail.
        const Run other = fromOptions("8");
        QVERIFY2(other.exitCode == 0, qPrintable(other.err));
        if (view != QLatin1String("rel-index")) // the index does not depend on the seed
            QVERIFY(QImage(b) != ia);
    }

    // A session from a newer version: drawn from what this version reads, with one warning line
    // naming what it ignored, and the same figure as without the unknown keys.
    void newerSessionWarnsAndDraws() {
        QTemporaryDir dir;
        auto write = [&dir](const char* name, const QByteArray& json) {
            QFile f(dir.filePath(QString::fromLatin1(name)));
            return f.open(QIODevice::WriteOnly) && f.write(json) == json.size();
        };
        QVERIFY(write("newer.json", R"({"version": 3, "scheme": "t5", "n": 8, "d": 32,
                                       "heads": 2, "hologram": true, "input": {"kind": "zeros"}})"));
        QVERIFY(write("plain.json", R"({"version": 1, "scheme": "t5", "n": 8, "d": 32,
                                       "heads": 2, "input": {"kind": "zeros"}})"));
        const QString a = dir.filePath(QStringLiteral("a.png"));
        const QString b = dir.filePath(QStringLiteral("b.png"));
        const Run newer =
            runCli(QStringList{QStringLiteral("render"), QStringLiteral("--session"),
                               dir.filePath(QStringLiteral("newer.json")), QStringLiteral("--view"),
                               QStringLiteral("attention-head:1"), QStringLiteral("--dpi"),
                               QStringLiteral("96"), QStringLiteral("-o"), a});
        QCOMPARE(newer.exitCode, 0);
        const QString err = newer.err.trimmed();
        QVERIFY2(!err.contains(QLatin1Char('\n')) &&
                     err.startsWith(QLatin1String("pe-explorer-cli: warning: --session ")) &&
                     err.contains(QLatin1String("format 3 is newer")) &&
                     err.contains(QLatin1String("\"hologram\"")),
                 qPrintable(newer.err));
        const Run plain =
            runCli(QStringList{QStringLiteral("render"), QStringLiteral("--session"),
                               dir.filePath(QStringLiteral("plain.json")), QStringLiteral("--view"),
                               QStringLiteral("attention-head:1"), QStringLiteral("--dpi"),
                               QStringLiteral("96"), QStringLiteral("-o"), b});
        QCOMPARE(plain.exitCode, 0);
        QVERIFY2(plain.err.trimmed().isEmpty(), qPrintable(plain.err));
        QVERIFY(!QImage(a).isNull());
        QVERIFY(QImage(a) == QImage(b));
    }

    void allDrawsEveryApplicableView_data() {
        QTest::addColumn<QString>("scheme");
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QStringList>("skipped");
        const QStringList common{QStringLiteral("attention-head-1.png"),
                                 QStringLiteral("attention.png"), QStringLiteral("query-row.png"),
                                 QStringLiteral("terms.png")};
        auto with = [&common](std::initializer_list<const char*> extra) {
            QStringList l = common;
            for (const char* e : extra)
                l << QLatin1String(e);
            l.sort();
            return l;
        };
        QTest::newRow("sinusoidal")
            << "sinusoidal" << with({"position.png", "position-lines.png", "similarity.png"})
            << QStringList{QStringLiteral("rel-index"), QStringLiteral("bias")};
        QTest::newRow("t5") << "t5" << with({"rel-index.png", "bias.png"})
                            << QStringList{QStringLiteral("position"),
                                           QStringLiteral("similarity")};
        QTest::newRow("rope") << "rope" << with({})
                              << QStringList{QStringLiteral("position"),
                                             QStringLiteral("rel-index"), QStringLiteral("bias")};
    }
    void allDrawsEveryApplicableView() {
        QFETCH(QString, scheme);
        QFETCH(QStringList, files);
        QFETCH(QStringList, skipped);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("figures"));
        const Run r =
            runCli(small(scheme.toLatin1().constData())
                   << QStringLiteral("--head") << QStringLiteral("1") << QStringLiteral("--dpi")
                   << QStringLiteral("48") << QStringLiteral("--out") << out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(out), files);
        for (const QString& view : skipped)
            QVERIFY2(r.err.contains(QStringLiteral("skipping view %1:").arg(view)),
                     qPrintable(r.err));
        QSet<QByteArray> distinct;
        for (const QString& f : files) {
            const QImage img(out + QLatin1Char('/') + f);
            QVERIFY2(!img.isNull(), qPrintable(f));
            QVERIFY2(distinctColours(img) > 20, qPrintable(f));
            distinct.insert(readAll(out + QLatin1Char('/') + f));
        }
        QCOMPARE(distinct.size(), files.size()); // every view draws its own figure
    }

    void compareDrawsAandBandTheDifference() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("cmp.svg"));
        const Run r =
            runCli(small("t5") << QStringLiteral("--view") << QStringLiteral("compare")
                               << QStringLiteral("--compare-scheme") << QStringLiteral("alibi,rope")
                               << QStringLiteral("-o") << file);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString svg = QString::fromUtf8(readAll(file));
        // …and the further schemes below them, as the window's gallery.
        for (const char* title :
             {"A: t5, head 0", "B: alibi, head 0", "A − B (t5 − alibi)", "rope, head 0"})
            QVERIFY2(svg.contains(QString::fromUtf8(title)), title);
        // The position term of the logits: an absolute A (its W_q, W_k attached as the window
        // does) against relative schemes, no map left saying it has none.
        const QString pos = dir.filePath(QStringLiteral("pos.svg"));
        const Run q = runCli(small("sinusoidal")
                             << QStringLiteral("--view") << QStringLiteral("compare")
                             << QStringLiteral("--compare-scheme") << QStringLiteral("t5,deberta")
                             << QStringLiteral("--compare-tensor") << QStringLiteral("position")
                             << QStringLiteral("-o") << pos);
        QVERIFY2(q.exitCode == 0, qPrintable(q.err));
        const QString posSvg = QString::fromUtf8(readAll(pos));
        QVERIFY(posSvg.contains(QLatin1String("A: sinusoidal, head 0")));
        QVERIFY(posSvg.contains(QLatin1String("deberta, head 0")));
        QVERIFY(!posSvg.contains(QLatin1String("no position term")));
    }

    // --square-cells: the similarity map (n × n, viridis: every cell saturated) is as tall as
    // it is wide in an 800 × 400 figure; without it the map fills the wide box.
    void squareCellsDrawSquareMaps() {
        QTemporaryDir dir;
        auto mapSize = [](const QImage& img) {
            // The longest run of saturated pixels along the middle row, then down the middle of
            // that run: the map's width and height (the colour bar is a narrow run of its own).
            auto saturated = [&img](int x, int y) {
                const QColor c = img.pixelColor(x, y);
                return std::max({c.red(), c.green(), c.blue()}) -
                           std::min({c.red(), c.green(), c.blue()}) >
                       40;
            };
            auto longest = [](int count, const std::function<bool(int)>& in, int* middle) {
                int best = 0, run = 0;
                for (int k = 0; k < count; ++k) {
                    run = in(k) ? run + 1 : 0;
                    if (run > best) {
                        best = run;
                        *middle = k - run / 2;
                    }
                }
                return best;
            };
            int x = 0, y = 0;
            const int w = longest(
                img.width(), [&](int k) { return saturated(k, img.height() / 2); }, &x);
            const int h = longest(
                img.height(), [&](int k) { return saturated(x, k); }, &y);
            return QSize(w, h);
        };
        for (bool square : {false, true}) {
            const QString file =
                dir.filePath(square ? QStringLiteral("sq.png") : QStringLiteral("fill.png"));
            QStringList args =
                words({"render", "--scheme", "sinusoidal", "--n", "32", "--d", "32", "--view",
                       "similarity", "--size", "800x400", "--dpi", "96", "-o"})
                << file;
            if (square)
                args << QStringLiteral("--square-cells");
            const Run r = runCli(args);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            const QSize map = mapSize(QImage(file));
            const QString text = QStringLiteral("%1 x %2").arg(map.width()).arg(map.height());
            QVERIFY2(map.height() > 200, qPrintable(text));
            if (square)
                QVERIFY2(std::abs(map.width() - map.height()) <= 3, qPrintable(text));
            else
                QVERIFY2(map.width() > map.height() + 150, qPrintable(text));
        }
    }

    void worksWithoutDisplay() {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* var : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            env.remove(QLatin1String(var));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("fig.png"));
        const Run r = runCli(small("alibi") << QStringLiteral("--view") << QStringLiteral("bias")
                                            << QStringLiteral("--dpi") << QStringLiteral("96")
                                            << QStringLiteral("-o") << file,
                             env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err)); // no platform chatter either
        QCOMPARE(QImage(file).size(), QSize(800, 600));
    }

    void longSequencesArePooledAsInTheWindow() {
        // Above 2,048 positions the full trace is not made (at n = 20,000 it needed 24 GB):
        // the logits and weights come pooled, the index and bias from their tables.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("figs"));
        const Run r = runCli(
            words({"render", "--scheme", "t5", "--n", "2100", "--d", "16", "--heads", "2", "--dpi",
                   "96", "--view", "rel-index,bias,attention-head,query-row,terms", "--out"})
            << out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("n = 2100 > 2048: pooled mode")) &&
                     r.err.contains(QLatin1String("1024 cells a side (mean)")),
                 qPrintable(r.err));
        for (const char* name :
             {"rel-index.png", "bias.png", "attention-head-0.png", "query-row.png", "terms.png"}) {
            const QImage img(QDir(out).filePath(QLatin1String(name)));
            QVERIFY2(img.width() >= 500 && img.height() >= 400, name);
            QVERIFY2(distinctColours(img) > 20, name); // maps drawn, not empty axes
        }
        // A view of n × n tensors that pooled mode does not compute: refused, nothing written.
        const QString file = dir.filePath(QStringLiteral("compare.png"));
        const Run c = runCli(words({"render", "--scheme", "t5", "--n", "2100", "--d", "16",
                                    "--heads", "2", "--view", "compare", "-o"})
                             << file);
        QCOMPARE(c.exitCode, 2);
        QVERIFY2(c.err.contains(QLatin1String("not drawn above 2048 positions")),
                 qPrintable(c.err));
        QVERIFY(!QFileInfo::exists(file));
    }

    void errorsExitTwoWithOneLineAndNoFile_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown view")
            << small("rope", {"--view", "heatmap", "-o", "@/fig.png"}) << "unknown view 'heatmap'";
        QTest::newRow("view not applicable")
            << small("rope", {"--view", "position", "-o", "@/fig.png"})
            << "does not apply to scheme rope (it applies to: sinusoidal, learned, mlp)";
        QTest::newRow("term not applicable")
            << small("rope", {"--view", "term:c2p", "-o", "@/fig.png"}) << "applies to: deberta";
        QTest::newRow("no such head")
            << small("rope", {"--view", "attention-head:4", "-o", "@/fig.png"})
            << "head 4 does not exist";
        QTest::newRow("query outside")
            << small("rope", {"--view", "query-row", "--query", "6", "-o", "@/fig.png"})
            << "--query 6 is outside the sequence";
        QTest::newRow("unwritable folder")
            << small("rope", {"--view", "attention", "-o", "@/missing/fig.png"})
            << "does not exist";
        QTest::newRow("output is a file")
            << small("rope", {"--out", "@/session.json"}) << "session.json";
        QTest::newRow("two views, one file")
            << small("rope", {"--view", "attention,terms", "-o", "@/fig.png"})
            << "-o takes one view";
        QTest::newRow("unknown format")
            << small("rope", {"--view", "terms", "--format", "gif", "-o", "@/fig.png"})
            << "--format: unknown value 'gif'";
        QTest::newRow("format against name")
            << small("rope", {"--view", "terms", "--format", "pdf", "-o", "@/fig.png"})
            << "--format pdf does not match -o";
        QTest::newRow("format from name")
            << small("rope", {"--view", "terms", "-o", "@/fig.tiff"}) << "cannot tell";
        QTest::newRow("colour map") << small("rope", {"--colormap", "jet", "-o", "@/fig.png"})
                                    << "--colormap: unknown value 'jet'";
        QTest::newRow("size") << small("rope", {"--size", "big", "-o", "@/fig.png"})
                              << "--size: expected WIDTHxHEIGHT";
        QTest::newRow("bad parameter, as trace says it")
            << small("rope", {"--norm", "softer", "-o", "@/fig.png"})
            << "--norm: unknown value 'softer'";
        QTest::newRow("no scheme") << words({"render", "--view", "terms", "-o", "@/fig.png"})
                                   << "--scheme or --session is required";
        QTest::newRow("malformed session")
            << words({"render", "--session", "@/broken.json", "-o", "@/fig.png"})
            << "not a JSON session";
        QTest::newRow("session with a bad value")
            << words({"render", "--session", "@/badscheme.json", "-o", "@/fig.png"})
            << "\"scheme\" has an unknown value";
        QTest::newRow("session and options")
            << words({"render", "--session", "@/session.json", "--scheme", "t5", "-o", "@/fig.png"})
            << "--session excludes --scheme";
    }
    void errorsExitTwoWithOneLineAndNoFile() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        auto write = [&dir](const char* name, const char* text) {
            QFile f(dir.filePath(QLatin1String(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        };
        write("session.json", R"({"scheme": "rope", "n": 4})");
        write("broken.json", "{ \"scheme\": ");
        write("badscheme.json", R"({"scheme": "rotary"})");
        const QStringList before = filesIn(dir.path());
        for (QString& a : args)
            a.replace(QLatin1Char('@'), dir.path());
        const Run r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0); // one line
        QVERIFY2(r.err.startsWith(QLatin1String("pe-explorer-cli: error: ")), qPrintable(r.err));
        QCOMPARE(filesIn(dir.path()), before); // nothing written, nothing left behind
    }

    void outFolderKeepsOtherFilesAndAddsFigures() {
        QTemporaryDir dir;
        QFile keep(dir.filePath(QStringLiteral("notes.txt")));
        QVERIFY(keep.open(QIODevice::WriteOnly));
        keep.write("mine");
        keep.close();
        const Run r = runCli(small("alibi")
                             << QStringLiteral("--view") << QStringLiteral("bias,attention-head:2")
                             << QStringLiteral("--format") << QStringLiteral("pdf")
                             << QStringLiteral("--out") << dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(dir.path()),
                 (QStringList{QStringLiteral("attention-head-2.pdf"), QStringLiteral("bias.pdf"),
                              QStringLiteral("notes.txt")}));
    }
};

QTEST_GUILESS_MAIN(TestRenderCommand)
#include "tst_render_command.moc"
