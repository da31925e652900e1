// SPDX-License-Identifier: MIT
#include "exporter.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

#include <cstring>

#include "atomic_write.h"
#include "qcp.h"

namespace pe {

namespace {

/**
 * Paints `top` and its visible descendants: every QCustomPlot through toPainter (vector in SVG
 * and PDF, sharp at any DPI, where QWidget::render would paste its screen-resolution buffer),
 * every other widget through QWidget::render without its children.
 */
void paintWidgetTree(QCPPainter& painter, QWidget* top, QWidget* w) {
    if (w != top && !w->isVisibleTo(top))
        return;
    const QPoint at = w->mapTo(top, QPoint(0, 0));
    if (auto* plot = qobject_cast<QCustomPlot*>(w)) {
        painter.save();
        painter.translate(at);
        plot->toPainter(&painter, plot->width(), plot->height());
        painter.restore();
        return;
    }
    w->render(&painter, at, QRegion(), QWidget::RenderFlags());
    for (QObject* child : w->children())
        if (auto* cw = qobject_cast<QWidget*>(child); cw && !cw->isWindow())
            paintWidgetTree(painter, top, cw);
}

} // namespace

FigureFormat figureFormatFor(const QString& path, bool* ok) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    *ok = true;
    if (suffix == QLatin1String("svg"))
        return FigureFormat::Svg;
    if (suffix == QLatin1String("pdf"))
        return FigureFormat::Pdf;
    *ok = suffix == QLatin1String("png");
    return FigureFormat::Png;
}

namespace {

/**
 * Writes one figure of `size` (pixels at 96 dpi) that `paint` draws: PNG at `dpi` (a raster of
 * size × dpi/96), SVG and PDF as vectors. Plots and whole panels share it.
 * The figure is encoded in memory first: the SVG and PDF writers ignore failed writes, so only
 * one checked write of the finished bytes can tell a complete file from a cut one.
 */
template <typename Paint>
Status exportPainting(const QString& path, FigureFormat fmt, int dpi, QSize size, Paint paint) {
    QByteArray bytes;
    QBuffer f(&bytes);
    f.open(QIODevice::WriteOnly);
    QString why;
    const bool painted = [&] {
        QCPPainter painter;
        switch (fmt) {
        case FigureFormat::Png: {
            const double scale = std::max(dpi, 1) / 96.0;
            QImage img(size * scale, QImage::Format_ARGB32);
            img.setDevicePixelRatio(scale);
            img.fill(Qt::white);
            if (img.isNull() || !painter.begin(&img)) {
                why = QStringLiteral("PNG painter failed");
                return false;
            }
            paint(painter);
            painter.end();
            img.setDotsPerMeterX(static_cast<int>(std::lround(dpi / 0.0254)));
            img.setDotsPerMeterY(static_cast<int>(std::lround(dpi / 0.0254)));
            if (!img.save(&f, "PNG")) {
                why = QStringLiteral("PNG encoding failed");
                return false;
            }
            return true;
        }
        case FigureFormat::Svg: {
            QSvgGenerator gen;
            gen.setOutputDevice(&f);
            gen.setSize(size);
            gen.setViewBox(QRect(QPoint(0, 0), size));
            gen.setTitle(QStringLiteral("pe-explorer figure"));
            if (!painter.begin(&gen)) {
                why = QStringLiteral("SVG painter failed");
                return false;
            }
            paint(painter);
            painter.end();
            return true;
        }
        case FigureFormat::Pdf: {
            QPdfWriter pdf(&f);
            pdf.setCreator(QStringLiteral("pe-explorer"));
            pdf.setResolution(96);
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
            pdf.setPageSize(QPageSize(QSizeF(size) * 72.0 / 96.0, QPageSize::Point));
            if (!painter.begin(&pdf)) {
                why = QStringLiteral("PDF painter failed");
                return false;
            }
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
            paint(painter);
            painter.end();
            return true;
        }
        }
        return false;
    }();
    f.close();
    if (!painted)
        return writeError(path, why);
    return writeAtomically(path, bytes);
}

} // namespace

Status exportPlot(QCustomPlot* plot, const QString& path, FigureFormat fmt, int dpi) {
    const QSize size(std::max(plot->width(), 200), std::max(plot->height(), 150));
    return exportPainting(path, fmt, dpi, size, [&](QCPPainter& painter) {
        plot->toPainter(&painter, size.width(), size.height());
    });
}

Status exportWidget(QWidget* widget, const QString& path, FigureFormat fmt, int dpi) {
    return exportPainting(path, fmt, dpi, widget->size(),
                          [&](QCPPainter& painter) { paintWidgetTree(painter, widget, widget); });
}

QByteArray npyBytes(const Grid& g) {
    QByteArray header =
        QStringLiteral("{'descr': '<f8', 'fortran_order': False, 'shape': (%1, %2), }")
            .arg(g.rows)
            .arg(g.cols)
            .toLatin1();
    // magic(6) + version(2) + len(2) + header + '\n', padded with spaces to a multiple of 64
    const int total = 10 + static_cast<int>(header.size()) + 1;
    header.append(QByteArray((64 - total % 64) % 64, ' '));
    header.append('\n');
    QByteArray out("\x93NUMPY\x01\x00", 8);
    const auto len = static_cast<quint16>(header.size());
    out.append(static_cast<char>(len & 0xff));
    out.append(static_cast<char>(len >> 8));
    out.append(header);
    // Little-endian doubles on every platform we build for.
    out.append(reinterpret_cast<const char*>(g.values.data()),
               static_cast<qsizetype>(g.values.size() * sizeof(double)));
    return out;
}

Status writeNpy(const Grid& g, const QString& path) {
    return writeAtomically(path, npyBytes(g));
}

Status writeCsv(const Grid& g, const QString& path) {
    return writeAtomically(path, [&](QSaveFile& f, QString&) {
        QByteArray line;
        for (int r = 0; r < g.rows; ++r) {
            line.clear();
            for (int c = 0; c < g.cols; ++c) {
                if (c)
                    line.append(',');
                line.append(QByteArray::number(g.at(r, c), 'g', 17));
            }
            line.append('\n');
            if (f.write(line) != line.size())
                return false;
        }
        return true;
    });
}

} // namespace pe
