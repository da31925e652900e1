// SPDX-License-Identifier: MIT
#pragma once

#include <QGridLayout>

#include <vector>

class QLabel;

namespace pe {

/**
 * A two-column form (label, field) whose rows can be hidden, on a QGridLayout: a hidden row's
 * widgets are hidden, and a grid row with no visible item takes neither space nor spacing.
 *
 * Why not QFormLayout::setRowVisible: in Qt 6.4 (Debian 12's 6.4.2) a hidden row keeps the
 * layout index it had while visible, and when the form has a height-for-width item (a
 * word-wrapped label) QFormLayout::setGeometry writes that row's height to the stale index of
 * a list sized for the visible rows only: past its end, into whatever the heap holds there.
 * Switching the scheme options between many rows and one did that; the window then crashed at
 * random later (the GUI soak's intermittent crash, found with valgrind).
 */
class HideableForm : public QGridLayout {
    Q_OBJECT
public:
    explicit HideableForm(QWidget* parent = nullptr);

    /** A row with a label (none when `label` is empty; its buddy is `field`) and a field. */
    QLabel* addRow(const QString& label, QWidget* field);
    QLabel* addRow(const QString& label, QLayout* field);
    /** A row of one widget across both columns. */
    void addRow(QWidget* spanning);

    /** Shows or hides the row of `field` (a field, a spanning widget or a field layout). */
    void setRowVisible(QObject* field, bool visible);
    /** Whether the row of `field` is shown (false for an unknown field). */
    bool isRowVisible(QObject* field) const;
    /** The label of the row of `field`, or nullptr. */
    QLabel* labelForField(QObject* field) const;
    /** Every row's field widgets in order (a field layout's widgets, spanning widgets too). */
    QList<QWidget*> fieldWidgets() const;

private:
    struct Row {
        QLabel* label = nullptr;
        QWidget* field = nullptr;
        QLayout* fieldLayout = nullptr;
        bool visible = true;
    };
    QLabel* makeLabel(const QString& text);
    /** Places `row` (its field or field layout set) with a label made from `label`. */
    QLabel* addLabelledRow(const QString& label, Row row);
    Row* rowOf(QObject* field);
    const Row* rowOf(QObject* field) const;
    static QList<QWidget*> widgetsOf(const Row& r);

    std::vector<Row> m_rows;
};

} // namespace pe
