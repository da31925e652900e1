// SPDX-License-Identifier: MIT
#include "map_image.h"

#include <cmath>
#include <limits>

#include "qcp.h"

namespace pe {

namespace {

// Compiled for AVX-512 and AVX2 as well as the x86-64 baseline, the loader picking the best the
// CPU runs (as grid.cpp's pooling folds): the level lookups become gathers.
// Not under ThreadSanitizer: the clones' ifunc resolver runs in the dynamic loader before
// TSan's runtime is up, and the binary crashed there before main().
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) &&       \
    !defined(__SANITIZE_THREAD__)
#define PE_COLOUR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PE_COLOUR_CLONES
#endif

/**
 * One scanline: out[c] = levels[⌊(v[c] − lo)·f⌋ clamped to 0 … top], or `masked` where v[c] is
 * not finite. The clamps come before the conversion (colorize clamps after it: the same level
 * for every value whose product fits an int) and send NaN to level 0, so every lookup is in
 * range and the loop has no branch.
 */
PE_COLOUR_CLONES void colourLine(const double* __restrict v, int w, const QRgb* __restrict levels,
                                 int top, QRgb masked, double lo, double f, QRgb* __restrict out) {
    const double topLevel = top;
    for (int c = 0; c < w; ++c) {
        const double x = v[c];
        const bool finite = x - x == 0.0; // false for ±inf and NaN
        double t = (x - lo) * f;
        t = t > 0.0 ? t : 0.0;
        t = t < topLevel ? t : topLevel;
        const QRgb colour = levels[static_cast<int>(t)];
        out[c] = finite ? colour : masked;
    }
}

} // namespace

ColourTable colourTable(const QCPColorGradient& g) {
    ColourTable t;
    const int levels = std::max(g.levelCount(), 2);
    t.levels.resize(static_cast<std::size_t>(levels));
    // Level k read back through colorize itself: the value k + ½ over 0 … levels − 1 falls in
    // level k whatever the rounding of k·(levels − 1)/(levels − 1).
    std::vector<double> at(static_cast<std::size_t>(levels));
    for (int k = 0; k < levels; ++k)
        at[static_cast<std::size_t>(k)] = k + 0.5;
    QCPColorGradient copy = g; // colorize fills the gradient's own colour buffer first
    copy.colorize(at.data(), QCPRange(0, levels - 1), t.levels.data(), levels);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    copy.colorize(&nan, QCPRange(0, 1), &t.masked, 1);
    return t;
}

void colourCells(const Grid& g, const ColourTable& t, double lo, double hi, QImage* image,
                 bool topDown) {
    if (g.empty() || t.empty()) {
        *image = QImage();
        return;
    }
    // QCPColorMap::updateMapImage's oversampling (interpolation off): a grid under 200 cells a
    // side is coloured at its size, then scaled up by whole factors to 100 pixels or more.
    const int keyFactor = static_cast<int>(1.0 + 100.0 / g.cols);
    const int valueFactor = static_cast<int>(1.0 + 100.0 / g.rows);
    const bool oversampled = keyFactor > 1 || valueFactor > 1;
    constexpr QImage::Format kFormat = QImage::Format_ARGB32_Premultiplied;
    QImage undersampled;
    QImage* target = oversampled ? &undersampled : image;
    if (target->width() != g.cols || target->height() != g.rows || target->format() != kFormat)
        *target = QImage(g.cols, g.rows, kFormat);
    if (target->isNull()) { // too large to allocate: QCPColorMap draws black
        *image = QImage(10, 10, kFormat);
        image->fill(Qt::black);
        return;
    }
    const int top = static_cast<int>(t.levels.size()) - 1;
    const double f = top / (hi - lo); // colorize's posToIndexFactor
    for (int r = 0; r < g.rows; ++r)
        colourLine(g.values.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(g.cols),
                   g.cols, t.levels.data(), top, t.masked, lo, f,
                   reinterpret_cast<QRgb*>(target->scanLine(topDown ? r : g.rows - 1 - r)));
    if (oversampled)
        *image = undersampled.scaled(g.cols * keyFactor, g.rows * valueFactor,
                                     Qt::IgnoreAspectRatio, Qt::FastTransformation);
}

} // namespace pe
