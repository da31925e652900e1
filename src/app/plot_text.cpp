// SPDX-License-Identifier: MIT
#include "plot_text.h"

namespace pe {

PlotText::PlotText(QCustomPlot* plot, const QString& text, const QFont& font,
                   const QColor& backdrop)
    : QCPTextElement(plot, text, font)
    , m_backdrop(backdrop) {}

void PlotText::measure() const {
    if (m_measured && m_measuredText == mText && m_measuredFont == mFont &&
        m_measuredMargins == mMargins)
        return;
    m_minimum = QCPTextElement::minimumOuterSizeHint();
    m_maximum = QCPTextElement::maximumOuterSizeHint();
    m_measuredText = mText;
    m_measuredFont = mFont;
    m_measuredMargins = mMargins;
    m_measured = true;
}

QSize PlotText::minimumOuterSizeHint() const {
    measure();
    return m_minimum;
}

QSize PlotText::maximumOuterSizeHint() const {
    measure();
    return m_maximum;
}

void PlotText::draw(QCPPainter* painter) {
    if (painter->modes().testFlag(QCPPainter::pmVectorized) ||
        painter->modes().testFlag(QCPPainter::pmNoCaching) || mRect.isEmpty() ||
        painter->transform().type() > QTransform::TxTranslate) {
        QCPTextElement::draw(painter);
        return;
    }
    const qreal dpr = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
    const QFont font = mainFont();
    const QColor color = mainTextColor();
    const QSize pixels = (QSizeF(mRect.size()) * dpr).toSize();
    if (m_image.size() != pixels || m_image.devicePixelRatio() != dpr || m_imageText != mText ||
        m_imageFont != font || m_imageColor != color || m_imageFlags != mTextFlags) {
        m_image = QImage(pixels, QImage::Format_RGB32);
        m_image.setDevicePixelRatio(dpr);
        m_image.fill(m_backdrop);
        QCPPainter p(&m_image);
        // As on the plot: QCPPainter's antialiasing also shifts the drawing by half a pixel.
        p.setAntialiasing(painter->antialiasing());
        p.setFont(font);
        p.setPen(QPen(color));
        p.drawText(QRect(QPoint(0, 0), mRect.size()), mTextFlags, mText, &m_imageBounds);
        m_imageText = mText;
        m_imageFont = font;
        m_imageColor = color;
        m_imageFlags = mTextFlags;
        ++m_renders;
    }
    // The image holds the half-pixel shift already: drawn unshifted, pixel for pixel.
    painter->save();
    painter->setAntialiasing(false);
    painter->drawImage(mRect.topLeft(), m_image);
    painter->restore();
    mTextBoundingRect = m_imageBounds.translated(mRect.topLeft()); // as QCPTextElement sets it
}

} // namespace pe
