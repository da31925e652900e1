// SPDX-License-Identifier: MIT
#include "application.h"

#include "vector_state.h"

namespace pe {

bool Application::notify(QObject* receiver, QEvent* e) {
    clearUpperVectorState();
    return QApplication::notify(receiver, e);
}

} // namespace pe
