// SPDX-License-Identifier: MIT
// pe::Application: every event starts with the AVX registers' upper halves clear
// (application.h, vector_state.h).
#include <QEvent>
#include <QImage>
#include <QPainter>
#include <QTest>

#include "application.h"
#include "upper_state.h"
#include "vector_state.h"

using namespace pe;

class TestApplication : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void eventsStartWithUpperHalvesClear();
};

namespace {

const QEvent::Type kDirty = static_cast<QEvent::Type>(QEvent::User + 1);
const QEvent::Type kFill = static_cast<QEvent::Type>(QEvent::User + 2);
const QEvent::Type kLook = static_cast<QEvent::Type>(QEvent::User + 3);

/** Dirties the state, or paints as a view does, or records what it finds. */
class Receiver : public QObject {
public:
    std::vector<bool> dirtyAtStart; ///< per kLook event
    bool dirtiedItself = false;

    bool event(QEvent* e) override {
        if (e->type() == kDirty) {
            leaveUpperHalvesInUse();
            dirtiedItself = upperVectorStateDirty();
            return true;
        }
        if (e->type() == kFill) {
            QImage image(256, 256, QImage::Format_ARGB32_Premultiplied);
            image.fill(Qt::white);
            QPainter(&image).fillRect(10, 10, 200, 100, Qt::red);
            return true;
        }
        if (e->type() == kLook) {
            dirtyAtStart.push_back(upperVectorStateDirty());
            return true;
        }
        return QObject::event(e);
    }
};

} // namespace

void TestApplication::eventsStartWithUpperHalvesClear() {
    if (!upperVectorStateKnown())
        QSKIP("this CPU does not report the AVX state in use (XGETBV with ECX = 1)");
    Receiver r;
    for (QEvent::Type first : {kDirty, kFill}) {
        QCoreApplication::postEvent(&r, new QEvent(first));
        QCoreApplication::postEvent(&r, new QEvent(kLook));
        QCoreApplication::sendPostedEvents(&r);
    }
    QVERIFY(r.dirtiedItself); // the first handler did leave them in use
    QCOMPARE(r.dirtyAtStart, (std::vector<bool>{false, false}));
    // Sent directly, too (a child widget's paint inside its window's).
    leaveUpperHalvesInUse();
    QEvent look(kLook);
    QCoreApplication::sendEvent(&r, &look);
    QCOMPARE(r.dirtyAtStart.back(), false);
}

int main(int argc, char** argv) {
    Application app(argc, argv);
    TestApplication t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_application.moc"
