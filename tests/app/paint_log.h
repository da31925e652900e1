// SPDX-License-Identifier: MIT
#pragma once

#include <QEvent>
#include <QList>
#include <QObject>
#include <QPaintEvent>
#include <QRect>
#include <QString>
#include <QTest>
#include <QWidget>

#include "qcp.h"

namespace pe::test {

/**
 * The paint events of the widgets it filters (installEventFilter): their rectangles, and with
 * `order` set, a 'P' appended to it for each, to interleave with other events a test logs.
 */
class PaintLog : public QObject {
public:
    QList<QRect> rects;
    QString* order = nullptr;
    int count() const { return static_cast<int>(rects.size()); }

protected:
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::Paint) {
            rects << static_cast<QPaintEvent*>(e)->rect();
            if (order)
                *order += u'P';
        }
        return false;
    }
};

/**
 * What `plot` does while `change` runs and right after, as one letter per event in order: 'R' a
 * replot, 'P' a paint. After `change`, the window `host` is sent its UpdateRequest at once, as a
 * paint the window had already asked for (before the replot the change queued) would come; the
 * events of the next 100 ms are counted too.
 */
template <class Change> QString replotPaintOrder(QCustomPlot* plot, QWidget* host, Change change) {
    QString order;
    PaintLog log;
    log.order = &order;
    plot->installEventFilter(&log);
    // The log is the connection's context: it ends with the log.
    QObject::connect(plot, &QCustomPlot::afterReplot, &log, [&order] { order += u'R'; });
    change();
    QEvent paintNow(QEvent::UpdateRequest);
    QCoreApplication::sendEvent(host, &paintNow);
    QTest::qWait(100);
    plot->removeEventFilter(&log);
    return order;
}

} // namespace pe::test
