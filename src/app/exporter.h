// SPDX-License-Identifier: MIT
#pragma once

/**
 * Figure and matrix export. Every write goes through QSaveFile: a failed export leaves no
 * partial file and returns an Error that says why.
 */

#include <QString>

#include "expected.h"
#include "grid.h"

class QCustomPlot;
class QWidget;

namespace pe {

enum class FigureFormat { Png, Svg, Pdf };

/** Format from a file suffix (png, svg, pdf); nullopt-like: Png with *ok = false. */
FigureFormat figureFormatFor(const QString& path, bool* ok);

/**
 * A QCustomPlot as a figure: PNG at `dpi` (the plot's on-screen size, scaled by dpi / 96),
 * or vector SVG / PDF at the on-screen size in points.
 */
Status exportPlot(QCustomPlot* plot, const QString& path, FigureFormat fmt, int dpi = 300);

/**
 * A whole widget (a panel of several plots) at its on-screen size; PNG at `dpi`. Its plots are
 * drawn as plots (vector in SVG and PDF), everything else by QWidget::render.
 */
Status exportWidget(QWidget* widget, const QString& path, FigureFormat fmt, int dpi = 300);

/** The matrix as float64 .npy (C order) or as CSV (one row per line, %.17g). */
Status writeNpy(const Grid& g, const QString& path);
Status writeCsv(const Grid& g, const QString& path);

/** The .npy bytes of a grid (header padded to 64 bytes, '<f8'). */
QByteArray npyBytes(const Grid& g);

} // namespace pe
