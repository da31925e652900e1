// SPDX-License-Identifier: MIT
#pragma once

#include <QImage>
#include <QRgb>

#include <vector>

#include "grid.h"

class QCPColorGradient;

namespace pe {

/**
 * A colour gradient read off at each of its levels, with the colour of masked cells: what
 * QCPColorGradient::colorize looks values up in, taken out so that a map can be coloured in one
 * pass, on any thread.
 */
struct ColourTable {
    std::vector<QRgb> levels;
    QRgb masked = 0;
    bool empty() const { return levels.empty(); }
};

/** The levels of `g` and its colour for NaN (linear, not periodic: the maps' gradients). */
ColourTable colourTable(const QCPColorGradient& g);

/**
 * Colours `g` into `*image` exactly as QCPColorMap::updateMapImage colours the same cells
 * (row r = value index r, on the scanline counted from the bottom; grids under 200 cells a side
 * oversampled the same way) with `t` over lo … hi: a finite value v takes level
 * ⌊(v − lo)·(L − 1)/(hi − lo)⌋ clamped to 0 … L − 1, and ±inf and NaN the masked colour.
 * Pixel-identical to it, without the copy into QCPColorMapData or colorize's work per cell, and
 * usable off the GUI thread. `*image` is reused when its size and format already fit.
 * `topDown`: row 0 on the top scanline instead, the image that map draws on a reversed value
 * axis (it mirrors a copy of its own at every paint).
 */
void colourCells(const Grid& g, const ColourTable& t, double lo, double hi, QImage* image,
                 bool topDown = false);

} // namespace pe
