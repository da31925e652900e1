// SPDX-License-Identifier: MIT
#include "plot_background.h"

#include "qcp.h"

namespace pe {

namespace {

/** The plot's whole viewport in one colour, drawn first of everything in the plot. */
class BackgroundFill : public QCPLayerable {
public:
    BackgroundFill(QCustomPlot* plot, const QBrush& brush)
        : QCPLayerable(plot, QStringLiteral("background"))
        , m_brush(brush) {
        moveToLayer(layer(), true); // before the axis rects and colour scales of its layer
    }

protected:
    void applyDefaultAntialiasingHint(QCPPainter* painter) const override {
        painter->setAntialiasing(false);
    }
    void draw(QCPPainter* painter) override { painter->fillRect(mParentPlot->viewport(), m_brush); }

private:
    QBrush m_brush;
};

} // namespace

void paintBackgroundInBuffer(QCustomPlot* plot) {
    // QCustomPlot's own background brush (white) has no getter: background() is its pixmap.
    new BackgroundFill(plot, QBrush(Qt::white));
    plot->setBackground(Qt::NoBrush);
}

} // namespace pe
