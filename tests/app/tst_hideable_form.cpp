// SPDX-License-Identifier: MIT
// HideableForm: the scheme options' form, whose rows are hidden and shown (QFormLayout's
// setRowVisible corrupts the heap in Qt 6.4, see hideable_form.h).
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QTest>
#include <QWidget>

#include "hideable_form.h"

using namespace pe;

class TestHideableForm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void labelsAndFields();
    void hiddenRowsTakeNoSpace();
    void manyToOneRowAndBackAtChangingWidths();
};

void TestHideableForm::labelsAndFields() {
    QWidget host;
    auto* form = new HideableForm(&host);
    auto* note = new QLabel(QStringLiteral("a spanning note"));
    auto* spin = new QSpinBox;
    auto* check = new QCheckBox(QStringLiteral("alone"));
    auto* a = new QCheckBox(QStringLiteral("a"));
    auto* b = new QCheckBox(QStringLiteral("b"));
    auto* pair = new QHBoxLayout;
    pair->addWidget(a);
    pair->addWidget(b);
    form->addRow(note);
    QLabel* spinLabel = form->addRow(QStringLiteral("&Count"), spin);
    QVERIFY(form->addRow(QString(), check) == nullptr); // no label for an empty text
    QLabel* pairLabel = form->addRow(QStringLiteral("Terms"), pair);
    QVERIFY(spinLabel && pairLabel);
    QCOMPARE(spinLabel->buddy(), spin); // Alt+C reaches the spin box
    QCOMPARE(pairLabel->buddy(), a);
    QCOMPARE(form->labelForField(spin), spinLabel);
    QCOMPARE(form->labelForField(pair), pairLabel);
    QVERIFY(form->labelForField(note) == nullptr);
    QVERIFY(form->labelForField(&host) == nullptr);
    const QList<QWidget*> fields{note, spin, check, a, b};
    QCOMPARE(form->fieldWidgets(), fields);

    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    form->setRowVisible(spin, false);
    form->setRowVisible(pair, false);
    QVERIFY(!form->isRowVisible(spin) && !form->isRowVisible(pair) && form->isRowVisible(note));
    QVERIFY(!spin->isVisible() && !spinLabel->isVisible());
    QVERIFY(!a->isVisible() && !b->isVisible() && !pairLabel->isVisible());
    QVERIFY(note->isVisible() && check->isVisible());
    form->setRowVisible(pair, true);
    QVERIFY(a->isVisible() && b->isVisible() && pairLabel->isVisible());
    QVERIFY(!form->isRowVisible(&host)); // not a row
}

void TestHideableForm::hiddenRowsTakeNoSpace() {
    // One visible row of a form of thirteen: as tall as a form of that row alone.
    QWidget big, alone;
    auto* form = new HideableForm(&big);
    auto* note =
        new QLabel(QStringLiteral("No options: a long note that wraps at a narrow width."));
    note->setWordWrap(true);
    form->addRow(note);
    std::vector<QSpinBox*> spins;
    for (int k = 0; k < 12; ++k) {
        spins.push_back(new QSpinBox);
        form->addRow(QStringLiteral("row %1").arg(k), spins.back());
    }
    auto* single = new HideableForm(&alone);
    auto* note2 = new QLabel(note->text());
    note2->setWordWrap(true);
    single->addRow(note2);
    for (QSpinBox* s : spins)
        form->setRowVisible(s, false);
    big.resize(240, 400);
    alone.resize(240, 400);
    big.show();
    alone.show();
    QVERIFY(QTest::qWaitForWindowExposed(&big) && QTest::qWaitForWindowExposed(&alone));
    QCOMPARE(form->sizeHint().height(), single->sizeHint().height());
    QCOMPARE(form->heightForWidth(240), single->heightForWidth(240));
    QVERIFY(form->sizeHint().height() > 0);
    // Every row back: taller by twelve rows.
    for (QSpinBox* s : spins)
        form->setRowVisible(s, true);
    QVERIFY(form->sizeHint().height() >=
            single->sizeHint().height() + 12 * spins[0]->sizeHint().height());
}

void TestHideableForm::manyToOneRowAndBackAtChangingWidths() {
    // The sequence that overran QFormLayout's row list: all rows, then only the wrapped note, at
    // new widths each time. The shown rows must be laid out top to bottom, inside the host.
    QWidget host;
    auto* form = new HideableForm(&host);
    auto* note = new QLabel(QStringLiteral("No options: no position information at all."));
    note->setWordWrap(true);
    form->addRow(note);
    std::vector<QSpinBox*> spins;
    for (int k = 0; k < 14; ++k) {
        spins.push_back(new QSpinBox);
        form->addRow(QStringLiteral("option %1").arg(k), spins.back());
    }
    host.resize(260, 600);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    for (int round = 0; round < 20; ++round) {
        const bool onlyNote = round % 2 == 1;
        form->setRowVisible(note, onlyNote);
        for (std::size_t k = 0; k < spins.size(); ++k)
            form->setRowVisible(spins[k], !onlyNote && (k + round) % 3 != 0);
        host.resize(200 + 17 * round, 600);
        QCoreApplication::processEvents();
        form->activate();
        int lastBottom = -1;
        for (QWidget* w : form->fieldWidgets()) {
            if (!w->isVisible())
                continue;
            QVERIFY2(w->geometry().top() > lastBottom,
                     qPrintable(QStringLiteral("round %1").arg(round)));
            QVERIFY(host.rect().contains(w->geometry()));
            lastBottom = w->geometry().bottom();
        }
        QVERIFY(lastBottom >= 0);
    }
}

QTEST_MAIN(TestHideableForm)
#include "tst_hideable_form.moc"
