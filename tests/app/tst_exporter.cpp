// SPDX-License-Identifier: MIT
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "exporter.h"
#include "heatmap_view.h"
#include "qcp.h"

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

QTEST_MAIN(TestExporter)
#include "tst_exporter.moc"
