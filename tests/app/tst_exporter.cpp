// SPDX-License-Identifier: MIT
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "exporter.h"
#include "heatmap_view.h"
#include "qcp.h"
#include "write_failure.h"

#include <cstring>

using namespace pe;

class TestExporter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void figure_data();
    void figure();
    void pngDpiIsRecorded();
    void npyHeaderAndData();
    void csvValues();
    void failedWriteLeavesNoFile();
    void injectedWriteFailure_data();
    void injectedWriteFailure();

private:
    HeatmapView* m_view = nullptr;
    QTemporaryDir m_dir;
};

void TestExporter::initTestCase() {
    m_view = new HeatmapView;
    m_view->resize(500, 400);
    Grid g{3, 4, {}};
    for (int k = 0; k < 12; ++k)
        g.values.push_back(k - 5.5);
    HeatmapInfo info;
    info.title = QStringLiteral("test matrix");
    info.rowLabels = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
    info.colLabels = {QStringLiteral("w"), QStringLiteral("x"), QStringLiteral("y"),
                      QStringLiteral("z")};
    m_view->show();
    m_view->setData(g, info);
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
}

void TestExporter::figure_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("magic");
    QTest::addColumn<int>("minSize");
    QTest::newRow("png") << QStringLiteral("f.png") << QByteArray("\x89PNG\r\n\x1a\n") << 4000;
    QTest::newRow("svg") << QStringLiteral("f.svg") << QByteArray("<?xml") << 2000;
    QTest::newRow("pdf") << QStringLiteral("f.pdf") << QByteArray("%PDF-") << 1000;
}

void TestExporter::figure() {
    QFETCH(QString, name);
    QFETCH(QByteArray, magic);
    QFETCH(int, minSize);
    bool ok = false;
    const QString path = m_dir.filePath(name);
    const Status st = exportPlot(m_view->plot(), path, figureFormatFor(path, &ok), 150);
    QVERIFY(ok);
    QVERIFY2(st.ok(), st.ok() ? "" : st.error().message.c_str());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY(bytes.startsWith(magic));
    QVERIFY2(bytes.size() > minSize, QByteArray::number(bytes.size()).constData());
    if (name.endsWith(QLatin1String(".svg")))
        QVERIFY(bytes.contains("test matrix")); // the title is text, not pixels
}

void TestExporter::pngDpiIsRecorded() {
    const QString path = m_dir.filePath(QStringLiteral("dpi.png"));
    QVERIFY(exportPlot(m_view->plot(), path, FigureFormat::Png, 300).ok());
    QImage img(path);
    QVERIFY(!img.isNull());
    QCOMPARE(qRound(img.dotsPerMeterX() * 0.0254), 300);
    // 300 dpi: the plot's size scaled by 300/96.
    QVERIFY(qAbs(img.width() - qRound(m_view->plot()->width() * 300.0 / 96.0)) <= 2);
}

void TestExporter::npyHeaderAndData() {
    const Grid g{2, 3, {1, 2, 3, 4, 5, -6.25}};
    const QByteArray b = npyBytes(g);
    QVERIFY(b.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
    const int headerLen =
        static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
    QCOMPARE((10 + headerLen) % 64, 0);
    QVERIFY(b.mid(10, headerLen).contains("'shape': (2, 3)"));
    QVERIFY(b.mid(10, headerLen).contains("'<f8'"));
    QCOMPARE(b.size(), 10 + headerLen + 6 * 8);
    double last = 0;
    std::memcpy(&last, b.constData() + b.size() - 8, 8);
    QCOMPARE(last, -6.25);
    const QString path = m_dir.filePath(QStringLiteral("m.npy"));
    QVERIFY(writeNpy(g, path).ok());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), b);
}

void TestExporter::csvValues() {
    const Grid g{2, 2, {0.1, 1e-300, -3, 2.5}};
    const QString path = m_dir.filePath(QStringLiteral("m.csv"));
    QVERIFY(writeCsv(g, path).ok());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().split('\n');
    // Every value reads back exactly (17 significant digits).
    const QList<QByteArray> first = lines.at(0).split(',');
    QCOMPARE(first.size(), 2);
    QCOMPARE(first.at(0).toDouble(), 0.1);
    QCOMPARE(first.at(1).toDouble(), 1e-300);
    QCOMPARE(lines.at(1), QByteArray("-3,2.5"));
    QCOMPARE(lines.size(), 3); // two rows and the empty string after the last newline
}

void TestExporter::failedWriteLeavesNoFile() {
    // A directory in the way of the file: the write fails, says why, and leaves nothing.
    const QString path = m_dir.filePath(QStringLiteral("blocked.png"));
    QVERIFY(QDir(m_dir.path()).mkdir(QStringLiteral("blocked.png")));
    const Status st = exportPlot(m_view->plot(), path, FigureFormat::Png, 96);
    QVERIFY(!st.ok());
    QVERIFY(QString::fromStdString(st.error().message).contains(QStringLiteral("blocked.png")));
    const QString missing = m_dir.filePath(QStringLiteral("nodir/x.npy"));
    QVERIFY(!writeNpy(Grid{1, 1, {1}}, missing).ok());
    QVERIFY(!QFile::exists(missing));
    const QStringList left = QDir(m_dir.path()).entryList(QDir::Files);
    for (const QString& f : left)
        QVERIFY2(!f.contains(QLatin1String("blocked")), qPrintable(f));
}

void TestExporter::injectedWriteFailure_data() {
    QTest::addColumn<bool>("fullDisk");
    QTest::addColumn<QString>("file");
    for (const char* f : {"f.png", "f.svg", "f.pdf", "m.npy", "m.csv"}) {
        QTest::addRow("read-only folder, %s", f) << false << QString::fromLatin1(f);
        QTest::addRow("full disk, %s", f) << true << QString::fromLatin1(f);
    }
}

void TestExporter::injectedWriteFailure() {
    // The export fails, the error names the file and the reason, and no file (not even
    // QSaveFile's temporary) is left beside it.
    QFETCH(bool, fullDisk);
    QFETCH(QString, file);
    QTemporaryDir scratch;
    const QString folder = fullDisk ? scratch.path() : readOnlyFolder(scratch.path());
    const QStringList before = everyEntry(folder);
    const QString path = QDir(folder).filePath(file);
    Grid big{64, 64, {}};
    for (int k = 0; k < 64 * 64; ++k)
        big.values.push_back(k * 0.37 - 11.0);
    auto write = [&]() -> Status {
        if (file.endsWith(QLatin1String(".npy")))
            return writeNpy(big, path);
        if (file.endsWith(QLatin1String(".csv")))
            return writeCsv(big, path);
        bool ok = false;
        const FigureFormat fmt = figureFormatFor(path, &ok);
        return exportPlot(m_view->plot(), path, fmt, 96);
    };
    Status st = Status::success();
    bool limited = true;
    if (fullDisk) {
        const FileSizeLimit limit(512); // every file here is larger: the write hits "disk full"
        limited = limit.ok();
        st = write();
    } else {
        st = write();
    }
    QVERIFY(limited);
    QVERIFY(!st.ok());
    const QString why = QString::fromStdString(st.error().message);
    qInfo("%s", qPrintable(why)); // what the user would read
    if (fullDisk) // the reason is the failed write's (EFBIG here; ENOSPC on a real full disk)
        QVERIFY2(why.endsWith(QLatin1String(": File too large")), qPrintable(why));
    QVERIFY2(why.contains(path), qPrintable(why));
    QVERIFY2(why.size() > path.size() + 20, qPrintable(why)); // a reason follows the path
    if (folder == QLatin1String("/proc")) // running as root: /proc lists processes coming and going
        QVERIFY(!QFile::exists(path));
    else
        QCOMPARE(everyEntry(folder), before);
}

QTEST_MAIN(TestExporter)
#include "tst_exporter.moc"
