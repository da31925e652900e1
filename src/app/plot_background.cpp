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

/**
 * The plot's paint buffer as an opaque image (QCustomPlot's own is a pixmap with an alpha
 * channel): BackgroundFill covers every pixel first, so clearing it to transparent before each
 * replot is skipped, and the paint copies it onto the window instead of blending it.
 */
class OpaquePaintBuffer : public QCPAbstractPaintBuffer {
public:
    OpaquePaintBuffer(const QSize& size, double devicePixelRatio)
        : QCPAbstractPaintBuffer(size, devicePixelRatio) {
        OpaquePaintBuffer::reallocateBuffer();
    }
    QCPPainter* startPainting() override { return new QCPPainter(&m_image); }
    void draw(QCPPainter* painter) const override {
        if (painter && painter->isActive())
            painter->drawImage(0, 0, m_image);
    }
    void clear(const QColor& color) override {
        if (color.alpha() == 255) // QCustomPlot clears to transparent: BackgroundFill paints
            m_image.fill(color);
    }

protected:
    void reallocateBuffer() override {
        setInvalidated();
        m_image = QImage(mSize * mDevicePixelRatio, QImage::Format_RGB32);
        m_image.setDevicePixelRatio(mDevicePixelRatio);
        m_image.fill(Qt::white);
    }

private:
    QImage m_image;
};

/** QCustomPlot's paint buffers (a protected member, reached through a member pointer). */
struct BufferAccess : QCustomPlot {
    static QList<QSharedPointer<QCPAbstractPaintBuffer>>& of(QCustomPlot* plot) {
        return plot->*(&BufferAccess::mPaintBuffers);
    }
};

} // namespace

void paintBackgroundInBuffer(QCustomPlot* plot) {
    // QCustomPlot's own background brush (white) has no getter: background() is its pixmap.
    new BackgroundFill(plot, QBrush(Qt::white));
    plot->setBackground(Qt::NoBrush);
    // The first buffer, made before QCustomPlot makes its own at the first replot; it keeps it
    // as long as every layer shares one buffer (the views set "overlay" logical first).
    auto& buffers = BufferAccess::of(plot);
    if (buffers.isEmpty())
        buffers.append(QSharedPointer<QCPAbstractPaintBuffer>(
            new OpaquePaintBuffer(plot->viewport().size(), plot->bufferDevicePixelRatio())));
    // That buffer covers the widget: Qt need not paint the parents' backgrounds under it first.
    plot->setAttribute(Qt::WA_OpaquePaintEvent);
}

} // namespace pe
