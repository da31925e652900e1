// SPDX-License-Identifier: MIT
#pragma once

#include <QApplication>

namespace pe {

/**
 * The explorer's QApplication: every event starts with the AVX registers' upper halves clear
 * (clearUpperVectorState, vector_state.h). Qt's AVX2 fills leave them in use after a paint, and
 * on Intel CPUs the x86-64 baseline code of the next handlers (a probe of the Stepper tab, the
 * core's double-precision stages) then ran 6–9 times slower on the GUI thread. Each event
 * delivered, nested ones included (a child widget's paint), starts clean; code that fills and
 * then computes within one handler still pays.
 */
class Application : public QApplication {
public:
    using QApplication::QApplication;
    bool notify(QObject* receiver, QEvent* e) override;
};

} // namespace pe
