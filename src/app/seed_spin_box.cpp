// SPDX-License-Identifier: MIT
#include "seed_spin_box.h"

#include <QLineEdit>

#include <limits>

namespace pe {

namespace {
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
}

SeedSpinBox::SeedSpinBox(QWidget* parent)
    : QAbstractSpinBox(parent) {
    lineEdit()->setText(QStringLiteral("0"));
    // Like the panel's other spin boxes (keyboard tracking off): typing commits on Enter or
    // when focus leaves; the arrows commit at once.
    connect(this, &QAbstractSpinBox::editingFinished, this, [this] {
        commitText();
        setValue(m_value);
    });
}

void SeedSpinBox::setValue(std::uint64_t v) {
    const QString text = QString::number(v);
    if (lineEdit()->text() != text)
        lineEdit()->setText(text);
    if (v == m_value)
        return;
    m_value = v;
    Q_EMIT valueChanged(v);
}

void SeedSpinBox::stepBy(int steps) {
    std::uint64_t v = m_value;
    if (steps > 0)
        v = kMax - v < static_cast<std::uint64_t>(steps) ? kMax : v + static_cast<unsigned>(steps);
    else
        v = v < static_cast<std::uint64_t>(-static_cast<long long>(steps))
                ? 0
                : v - static_cast<std::uint64_t>(-static_cast<long long>(steps));
    setValue(v);
    selectAll();
}

QValidator::State SeedSpinBox::validate(QString& input, int&) const {
    if (input.isEmpty())
        return QValidator::Intermediate;
    for (QChar c : input)
        if (!c.isDigit())
            return QValidator::Invalid;
    bool ok = false;
    input.toULongLong(&ok);
    return ok ? QValidator::Acceptable : QValidator::Invalid; // beyond 2⁶⁴−1 is refused
}

void SeedSpinBox::fixup(QString& input) const {
    input = QString::number(m_value);
}

QAbstractSpinBox::StepEnabled SeedSpinBox::stepEnabled() const {
    StepEnabled e = StepNone;
    if (m_value > 0)
        e |= StepDownEnabled;
    if (m_value < kMax)
        e |= StepUpEnabled;
    return e;
}

void SeedSpinBox::commitText() {
    bool ok = false;
    const std::uint64_t v = lineEdit()->text().toULongLong(&ok);
    if (ok && v != m_value) {
        m_value = v;
        Q_EMIT valueChanged(v);
    }
}

} // namespace pe
