// SPDX-License-Identifier: MIT
#include "queued_plot.h"

#include <QApplication>
#include <QEvent>
#include <QPointer>

#include <algorithm>
#include <vector>

namespace pe {

namespace {

/**
 * The plots with a replot queued, and an application event filter that runs those of a window
 * when the window is about to paint (QEvent::UpdateRequest), before the repaint manager
 * collects what to draw: the replots' own updates join that paint. GUI thread only.
 */
class ReplotQueue : public QObject {
public:
    /** The queue, made (a child of the application, its filter) on first use. */
    static ReplotQueue& instance() {
        if (!s_queue) {
            s_queue = new ReplotQueue(qApp);
            qApp->installEventFilter(s_queue);
        }
        return *s_queue;
    }
    /** The queue if it exists: null before the first queued replot and after the application. */
    static ReplotQueue* existing() { return s_queue; }
    void add(QueuedPlot* p) {
        if (std::find(m_pending.begin(), m_pending.end(), p) == m_pending.end())
            m_pending.push_back(p);
    }
    void remove(QueuedPlot* p) { std::erase(m_pending, p); }

protected:
    bool eventFilter(QObject* watched, QEvent* e) override {
        if (e->type() != QEvent::UpdateRequest || m_pending.empty() || !watched->isWidgetType())
            return false;
        auto* window = static_cast<QWidget*>(watched);
        // Replots may lay a plot out and queue more: take the list first.
        std::vector<QueuedPlot*> due;
        std::erase_if(m_pending, [&](QueuedPlot* p) {
            const bool here = p->window() == window;
            if (here)
                due.push_back(p);
            return here;
        });
        for (QueuedPlot* p : due)
            p->replotIfQueued();
        return false;
    }

private:
    using QObject::QObject;
    static inline QPointer<ReplotQueue> s_queue;
    std::vector<QueuedPlot*> m_pending;
};

} // namespace

QueuedPlot::~QueuedPlot() {
    if (ReplotQueue* q = ReplotQueue::existing())
        q->remove(this);
}

void QueuedPlot::queueReplot() {
    if (m_queued)
        return;
    m_queued = true;
    ReplotQueue::instance().add(this);
    // No paint of the window before the next turn of the event loop: replot then.
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (ReplotQueue* q = ReplotQueue::existing())
                q->remove(this);
            replotIfQueued();
        },
        Qt::QueuedConnection);
}

void QueuedPlot::replotIfQueued() {
    if (!m_queued)
        return;
    m_queued = false;
    replot(rpRefreshHint);
}

void QueuedPlot::resizeEvent(QResizeEvent*) {
    setViewport(rect());
    updateLayout(); // the axis rect's new size, which a heat map pools for
    queueReplot();
}

} // namespace pe
