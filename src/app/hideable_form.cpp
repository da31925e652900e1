// SPDX-License-Identifier: MIT
#include "hideable_form.h"

#include <QLabel>
#include <QWidget>

namespace pe {

HideableForm::HideableForm(QWidget* parent)
    : QGridLayout(parent) {
    setColumnStretch(1, 1); // the fields take the width the labels leave
}

QLabel* HideableForm::makeLabel(const QString& text) {
    if (text.isEmpty())
        return nullptr;
    auto* l = new QLabel(text);
    l->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    return l;
}

QLabel* HideableForm::addRow(const QString& label, QWidget* field) {
    Row row;
    row.field = field;
    return addLabelledRow(label, row);
}

QLabel* HideableForm::addRow(const QString& label, QLayout* field) {
    Row row;
    row.fieldLayout = field;
    return addLabelledRow(label, row);
}

QLabel* HideableForm::addLabelledRow(const QString& label, Row row) {
    const int r = static_cast<int>(m_rows.size());
    row.label = makeLabel(label);
    if (row.label) {
        const QList<QWidget*> ws = widgetsOf(row); // the buddy: the field, or its first widget
        if (!ws.isEmpty())
            row.label->setBuddy(ws.front());
        addWidget(row.label, r, 0);
    }
    if (row.field)
        addWidget(row.field, r, 1);
    else
        addLayout(row.fieldLayout, r, 1);
    m_rows.push_back(row);
    return row.label;
}

void HideableForm::addRow(QWidget* spanning) {
    const int r = static_cast<int>(m_rows.size());
    Row row;
    row.field = spanning;
    addWidget(spanning, r, 0, 1, 2);
    m_rows.push_back(row);
}

QList<QWidget*> HideableForm::widgetsOf(const Row& r) {
    QList<QWidget*> out;
    if (r.field)
        out << r.field;
    if (r.fieldLayout)
        for (int k = 0; k < r.fieldLayout->count(); ++k)
            if (QWidget* w = r.fieldLayout->itemAt(k)->widget())
                out << w;
    return out;
}

HideableForm::Row* HideableForm::rowOf(QObject* field) {
    for (Row& r : m_rows)
        if (field && (field == r.field || field == r.fieldLayout))
            return &r;
    return nullptr;
}

const HideableForm::Row* HideableForm::rowOf(QObject* field) const {
    return const_cast<HideableForm*>(this)->rowOf(field);
}

void HideableForm::setRowVisible(QObject* field, bool visible) {
    Row* r = rowOf(field);
    if (!r || r->visible == visible)
        return;
    r->visible = visible;
    if (r->label)
        r->label->setVisible(visible);
    for (QWidget* w : widgetsOf(*r))
        w->setVisible(visible);
}

bool HideableForm::isRowVisible(QObject* field) const {
    const Row* r = rowOf(field);
    return r && r->visible;
}

QLabel* HideableForm::labelForField(QObject* field) const {
    const Row* r = rowOf(field);
    return r ? r->label : nullptr;
}

QList<QWidget*> HideableForm::fieldWidgets() const {
    QList<QWidget*> out;
    for (const Row& r : m_rows)
        out << widgetsOf(r);
    return out;
}

} // namespace pe
