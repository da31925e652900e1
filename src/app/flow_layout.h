// SPDX-License-Identifier: MIT
#pragma once

#include <QLayout>
#include <QList>

namespace pe {

/**
 * Items left to right, wrapping onto the next line where the width ends (Qt's flow layout
 * example, reduced): a row of buttons that stays whole on a narrow window. Its minimum width is
 * the widest item's; its height follows the width (heightForWidth).
 */
class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr, int spacing = 2);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override { return static_cast<int>(m_items.size()); }
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect& rect) override;

private:
    /** Lays the items out in `rect` (or only measures, `apply` = false); returns the height. */
    int arrange(const QRect& rect, bool apply) const;

    QList<QLayoutItem*> m_items;
};

} // namespace pe
