// SPDX-License-Identifier: MIT
#pragma once

#include <QEvent>
#include <QList>
#include <QObject>
#include <QPaintEvent>
#include <QRect>
#include <QString>

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

} // namespace pe::test
