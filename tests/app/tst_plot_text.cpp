// SPDX-License-Identifier: MIT
// PlotText, the plots' title lines: on screen pixel for pixel what QCPTextElement draws, its text
// rendered once while text and box stay the same, its size hints following the text, and in
// vector exports real text, not an image of it.
#include <QBuffer>
#include <QSvgGenerator>
#include <QTest>

#include "plot_background.h"
#include "plot_text.h"
#include "qcp.h"

using namespace pe;

class TestPlotText : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void drawsWhatQCPTextElementDraws();
    void rendersOncePerTextAndBox();
    void sizeFollowsTheText();
    void vectorExportsGetText();
};

namespace {

const QString kTitle = QStringLiteral("attention weights, head 0");
const QString kSubtitle = QStringLiteral("t5, n=512, d=256, heads=8, softmax, buckets=32, seed=3");

/** A plot as the views make it: white background in its buffer, a title and a grey subtitle. */
template <typename Text> struct TitledPlot {
    QCustomPlot plot;
    Text* title;
    Text* subtitle;
    TitledPlot() {
        plot.resize(420, 260);
        if (QCPLayer* overlay = plot.layer(QStringLiteral("overlay")))
            overlay->setMode(QCPLayer::lmLogical);
        paintBackgroundInBuffer(&plot);
        plot.plotLayout()->insertRow(0);
        title = new Text(&plot, kTitle, QFont(QStringLiteral("DejaVu Sans"), 11, QFont::Bold));
        plot.plotLayout()->addElement(0, 0, title);
        plot.plotLayout()->insertRow(1);
        subtitle = new Text(&plot, kSubtitle, QFont(QStringLiteral("DejaVu Sans"), 8));
        subtitle->setTextColor(QColor(80, 80, 80));
        plot.plotLayout()->addElement(1, 0, subtitle);
        plot.grab(); // delivers the pending resize (a replot at the final size)
        plot.replot();
    }
    QImage screen() { return plot.grab().toImage().convertToFormat(QImage::Format_RGB32); }
};

} // namespace

void TestPlotText::drawsWhatQCPTextElementDraws() {
    TitledPlot<QCPTextElement> reference;
    TitledPlot<PlotText> cached;
    const QImage want = reference.screen();
    const QImage got = cached.screen();
    QCOMPARE(got.size(), want.size());
    // The title's row holds dark pixels: text was drawn, and not somewhere else.
    const QRect titleBox = cached.title->outerRect();
    bool dark = false;
    for (int y = titleBox.top(); y <= titleBox.bottom() && !dark; ++y)
        for (int x = titleBox.left(); x <= titleBox.right() && !dark; ++x)
            dark = qGray(got.pixel(x, y)) < 64;
    QVERIFY(dark);
    QVERIFY(cached.title->renders() >= 1 && cached.subtitle->renders() >= 1); // the cached path
    QCOMPARE(got, want);
}

void TestPlotText::rendersOncePerTextAndBox() {
    TitledPlot<PlotText> p;
    p.screen();
    const int first = p.title->renders();
    QVERIFY(first >= 1);
    p.plot.replot();
    p.plot.replot();
    p.screen();
    QCOMPARE(p.title->renders(), first); // same text, same box: the image is reused
    p.title->setText(QStringLiteral("attention weights, head 1"));
    p.plot.replot();
    QCOMPARE(p.title->renders(), first + 1);
    const int subtitle = p.subtitle->renders();
    p.plot.resize(500, 260); // a wider box centres the text elsewhere
    p.plot.grab();
    QCOMPARE(p.title->renders(), first + 2);
    QCOMPARE(p.subtitle->renders(), subtitle + 1);
    // And what is on screen after all that is still QCPTextElement's drawing of the new text.
    TitledPlot<QCPTextElement> reference;
    reference.title->setText(QStringLiteral("attention weights, head 1"));
    reference.plot.resize(500, 260);
    reference.plot.replot();
    QCOMPARE(p.screen(), reference.screen());
}

void TestPlotText::sizeFollowsTheText() {
    TitledPlot<PlotText> p;
    const int oneLine = p.subtitle->outerRect().height();
    p.subtitle->setText(kSubtitle + QStringLiteral("\nsecond line"));
    p.plot.replot();
    QVERIFY2(
        p.subtitle->outerRect().height() > oneLine + 5,
        qPrintable(QStringLiteral("%1 -> %2").arg(oneLine).arg(p.subtitle->outerRect().height())));
    p.subtitle->setText(kSubtitle);
    p.plot.replot();
    QCOMPARE(p.subtitle->outerRect().height(), oneLine);
}

void TestPlotText::vectorExportsGetText() {
    TitledPlot<PlotText> p;
    p.screen();
    const int before = p.title->renders();
    QByteArray svg;
    QBuffer out(&svg);
    out.open(QIODevice::WriteOnly);
    QSvgGenerator gen;
    gen.setOutputDevice(&out);
    gen.setSize(p.plot.size());
    QCPPainter painter(&gen);
    p.plot.toPainter(&painter, p.plot.width(), p.plot.height());
    painter.end();
    QCOMPARE(p.title->renders(), before);
    QVERIFY2(svg.contains(kTitle.toUtf8()), "the title is text in the SVG");
    QVERIFY(!svg.contains("<image"));
}

QTEST_MAIN(TestPlotText)
#include "tst_plot_text.moc"
