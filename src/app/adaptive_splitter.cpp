// SPDX-License-Identifier: MIT
#include "adaptive_splitter.h"

#include <QResizeEvent>

namespace pe {

AdaptiveSplitter::AdaptiveSplitter(double ratio, QWidget* parent)
    : QSplitter(Qt::Horizontal, parent)
    , m_ratio(ratio) {
    setChildrenCollapsible(false);
}

void AdaptiveSplitter::resizeEvent(QResizeEvent* e) {
    const QSize s = e->size();
    const Qt::Orientation want = s.width() >= m_ratio * s.height() ? Qt::Horizontal : Qt::Vertical;
    if (want != orientation() && s.width() > 0 && s.height() > 0) {
        setOrientation(want);
        // Equal shares after the turn (the old sizes were measured along the other axis).
        const int n = count();
        const int total = want == Qt::Horizontal ? s.width() : s.height();
        setSizes(QList<int>(n, n > 0 ? total / n : 0));
    }
    QSplitter::resizeEvent(e);
}

} // namespace pe
