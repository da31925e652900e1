// SPDX-License-Identifier: MIT
#pragma once

#include <QSplitter>

namespace pe {

/**
 * A splitter of maps that lays them side by side while it is wide and stacks them while it is
 * narrow: horizontal when width ≥ ratio · height, else vertical. Two square-ish maps side by
 * side in a tall, narrow area would each be a thin strip; stacked they keep the whole width.
 */
class AdaptiveSplitter : public QSplitter {
    Q_OBJECT
public:
    explicit AdaptiveSplitter(double ratio = 1.2, QWidget* parent = nullptr);

    double ratio() const { return m_ratio; }

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    double m_ratio;
};

} // namespace pe
