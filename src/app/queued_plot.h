// SPDX-License-Identifier: MIT
#pragma once

#include "qcp.h"

namespace pe {

/**
 * A QCustomPlot with a replot queue of its own, for the views whose plots a change redraws
 * (HeatmapView, LinePlotView).
 *
 * QCustomPlot's rpQueuedReplot replots at the next turn of the event loop; a paint of the
 * window queued before it (a change that lays the tab out again) drew the plot's old buffers
 * first, then the replot repainted it: a stale frame, and every pixel of the plot painted
 * twice. Here the window's paint runs the pending replots first, so their plots are drawn once,
 * fresh, in that same paint.
 *
 * QCustomPlot also replots at once on every resize (colouring a map's image and drawing every
 * layer), and a heat map re-pools and replots again for the new size: this plot queues that
 * replot too, so a change that resizes the view, or each step of a window drag, replots once.
 * GUI thread only.
 */
class QueuedPlot : public QCustomPlot {
public:
    using QCustomPlot::QCustomPlot;
    ~QueuedPlot() override;

    /** replot(rpQueuedReplot), or sooner if the window paints first. */
    void queueReplot();
    /** Runs a queued replot now, if one is pending. */
    void replotIfQueued();
    /**
     * Lays the plot out for its current contents (the axes' tick labels for their ranges), as
     * the next replot would: for placing something by where the curves will be drawn.
     */
    void layOut() { updateLayout(); }

protected:
    void resizeEvent(QResizeEvent*) override;

private:
    bool m_queued = false;
};

} // namespace pe
