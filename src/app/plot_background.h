// SPDX-License-Identifier: MIT
#pragma once

class QCustomPlot;

namespace pe {

/**
 * Paints `plot`'s white background into its paint buffer, under every layer, and makes that
 * buffer an opaque image. QCustomPlot cleared its buffer (a pixmap with an alpha channel) to
 * transparent before each replot, filled the whole widget white at each paint and blended the
 * buffer over it: three passes over every pixel where one copy now does. Exports (toPainter,
 * PNG/SVG/PDF) draw the same white background. Call once, after making the "overlay" layer
 * logical (one buffer for all layers) and before the first replot.
 */
void paintBackgroundInBuffer(QCustomPlot* plot);

} // namespace pe
