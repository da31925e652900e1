// SPDX-License-Identifier: MIT
#pragma once

/**
 * A spin box over the whole unsigned 64-bit range (QSpinBox stops at 2³¹−1), for the seed: the
 * CLI's --seed and session files take any 64-bit value, and the window shows the same one.
 */

#include <QAbstractSpinBox>

#include <cstdint>

namespace pe {

class SeedSpinBox : public QAbstractSpinBox {
    Q_OBJECT
public:
    explicit SeedSpinBox(QWidget* parent = nullptr);

    std::uint64_t value() const { return m_value; }
    void setValue(std::uint64_t v);

    void stepBy(int steps) override;
    QValidator::State validate(QString& input, int& pos) const override;
    void fixup(QString& input) const override;

Q_SIGNALS:
    void valueChanged(std::uint64_t value);

protected:
    StepEnabled stepEnabled() const override;

private:
    void commitText();
    std::uint64_t m_value = 0;
};

} // namespace pe
