// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QFont>
#include <QImage>
#include <QMargins>
#include <QSize>
#include <QString>

#include "qcp.h"

namespace pe {

/**
 * A plot's title line (QCPTextElement) that lays its text out once. QCPTextElement measures its
 * text for each of the layout's two size queries and shapes it again to draw it, at every replot:
 * text layout was the largest single cost of a replot's layout and a tenth of the GUI thread's
 * work per change. This one keeps its size hints while text, font and margins stay the same, and
 * on screen draws an image of the text, rendered once per text, size and colour onto the plot's
 * own background colour (opaque, so sub-pixel antialiasing looks as it did), pixel for pixel
 * what QCPTextElement draws. Exports (QCustomPlot::toPainter asks for no caching: PNG, SVG, PDF)
 * and scaled or rotated painters get the text itself, drawn by QCPTextElement.
 */
class PlotText : public QCPTextElement {
    Q_OBJECT
public:
    PlotText(QCustomPlot* plot, const QString& text, const QFont& font,
             const QColor& backdrop = Qt::white);

    /** Images of the text rendered so far (each is kept until the text or its box changes). */
    int renders() const { return m_renders; }

protected:
    void draw(QCPPainter* painter) override;
    QSize minimumOuterSizeHint() const override;
    QSize maximumOuterSizeHint() const override;

private:
    /** Refreshes the size hints when the text, font or margins changed since they were taken. */
    void measure() const;

    QColor m_backdrop;
    // Size hints, and what they were taken for.
    mutable QString m_measuredText;
    mutable QFont m_measuredFont;
    mutable QMargins m_measuredMargins;
    mutable bool m_measured = false;
    mutable QSize m_minimum, m_maximum;
    // The rendered text, and what it was rendered for.
    QImage m_image;
    QString m_imageText;
    QFont m_imageFont;
    QColor m_imageColor;
    int m_imageFlags = 0;
    QRect m_imageBounds; ///< the text's bounding rectangle inside the image
    int m_renders = 0;
};

} // namespace pe
