// SPDX-License-Identifier: MIT
#pragma once

// qcustomplot.h uses the Qt keywords (signals, foreach) that QT_NO_KEYWORDS removes from our
// own code; spell them out for its header only. This header is precompiled (CMakeLists.txt).
#include <QObject>
#include <QtGlobal>

#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
