// SPDX-License-Identifier: MIT
#pragma once

class QCustomPlot;

namespace pe {

/**
 * Paints `plot`'s white background into its paint buffer, under every layer, instead of
 * filling the widget before the buffer is blended over it: QCustomPlot's paintEvent filled the
 * whole plot and then blended its transparent-cleared buffer on top, two passes over every pixel
 * per paint; an opaque buffer is one copy. Exports (toPainter, PNG/SVG/PDF) draw the same white
 * background. Call once, after the plot's layers exist.
 */
void paintBackgroundInBuffer(QCustomPlot* plot);

} // namespace pe
