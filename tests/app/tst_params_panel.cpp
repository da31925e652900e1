// SPDX-License-Identifier: MIT
// The parameters panel: the options group shows the current scheme's options only and keeps the
// hidden ones' values; the mlp and RoPE-stretching controls round-trip, are enabled only where
// they apply, reach changed(), and their tooltips give the formulas; the valid length cannot pass
// the sequence's length; a scheme switch repaints the options, not the boxes it moves.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLabel>
#include <QPaintEvent>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include "paint_log.h"
#include "params_panel.h"

using namespace pe;

class TestParamsPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void valuesRoundTrip_data();
    void valuesRoundTrip();
    void enabledWhereTheyApply_data();
    void enabledWhereTheyApply();
    void editsReachTheParameters();
    void showsOnlyTheCurrentSchemesOptions_data();
    void showsOnlyTheCurrentSchemesOptions();
    void switchingSchemesKeepsEveryValue();
    void tooltipsGiveTheFormulas();
    void validLenEndsAtTheSequence();
    void setValuesClampsValidLen_data();
    void setValuesClampsValidLen();
    void schemeSwitchMovesTheBoxesBelowWithoutRepainting();
};

Q_DECLARE_METATYPE(pe::Params)

void TestParamsPanel::valuesRoundTrip_data() {
    QTest::addColumn<Params>("p");
    Params m;
    m.scheme = Scheme::Mlp;
    m.mlpFeatures = 13;
    m.mlpHidden = 300;
    m.base = 500.0;
    QTest::newRow("mlp F13 H300") << m;
    m.mlpFeatures = kMaxMlpFeatures;
    m.mlpHidden = kMaxMlpHidden;
    QTest::newRow("mlp at the limits") << m;
    for (RopeScaling sc : allValues<RopeScaling>()) {
        Params r;
        r.scheme = Scheme::RoPE;
        r.ropeScaling = sc;
        r.ropeScale = 2.5;
        QTest::newRow((std::string("rope ") + std::string(toString(sc))).c_str()) << r;
    }
}

void TestParamsPanel::valuesRoundTrip() {
    QFETCH(Params, p);
    ParamsPanel panel;
    panel.setValues(p, InputChoice{});
    const Params q = panel.params();
    QVERIFY(q.scheme == p.scheme);
    QCOMPARE(q.mlpFeatures, p.mlpFeatures);
    QCOMPARE(q.mlpHidden, p.mlpHidden);
    QVERIFY(q.ropeScaling == p.ropeScaling);
    QCOMPARE(q.ropeScale, p.ropeScale);
    QCOMPARE(q.base, p.base);
}

void TestParamsPanel::enabledWhereTheyApply_data() {
    QTest::addColumn<int>("scheme");
    QTest::addColumn<int>("scaling");
    QTest::addColumn<bool>("mlp");
    QTest::addColumn<bool>("stretch");
    QTest::addColumn<bool>("scale");
    QTest::addColumn<bool>("base");
    QTest::newRow("mlp") << int(Scheme::Mlp) << int(RopeScaling::PI) << true << false << false
                         << true;
    QTest::newRow("rope none") << int(Scheme::RoPE) << int(RopeScaling::None) << false << true
                               << false << true;
    QTest::newRow("rope pi") << int(Scheme::RoPE) << int(RopeScaling::PI) << false << true << true
                             << true;
    QTest::newRow("rope ntk") << int(Scheme::RoPE) << int(RopeScaling::NTK) << false << true << true
                              << true;
    QTest::newRow("learned") << int(Scheme::Learned) << int(RopeScaling::NTK) << false << false
                             << false << false;
    QTest::newRow("t5") << int(Scheme::T5) << int(RopeScaling::None) << false << false << false
                        << false;
}

void TestParamsPanel::enabledWhereTheyApply() {
    QFETCH(int, scheme);
    QFETCH(int, scaling);
    QFETCH(bool, mlp);
    QFETCH(bool, stretch);
    QFETCH(bool, scale);
    QFETCH(bool, base);
    ParamsPanel panel;
    Params p;
    p.scheme = Scheme(scheme);
    p.ropeScaling = RopeScaling(scaling);
    panel.setValues(p, InputChoice{});
    QCOMPARE(panel.mlpFeaturesBox()->isEnabled(), mlp);
    QCOMPARE(panel.mlpHiddenBox()->isEnabled(), mlp);
    QCOMPARE(panel.ropeScalingBox()->isEnabled(), stretch);
    QCOMPARE(panel.ropeScaleBox()->isEnabled(), scale);
    QCOMPARE(panel.baseBox()->isEnabled(), base);
}

void TestParamsPanel::editsReachTheParameters() {
    ParamsPanel panel;
    Params p;
    p.scheme = Scheme::RoPE;
    panel.setValues(p, InputChoice{});
    QSignalSpy changed(&panel, &ParamsPanel::changed);
    QComboBox* scaling = panel.ropeScalingBox();
    scaling->setCurrentIndex(scaling->findText(QStringLiteral("ntk")));
    QVERIFY(panel.ropeScaleBox()->isEnabled()); // follows the choice at once
    panel.ropeScaleBox()->setValue(4.0);
    QVERIFY(changed.wait(2000));
    QTRY_VERIFY(changed.last().at(0).value<Params>().ropeScale == 4.0);
    QVERIFY(changed.last().at(0).value<Params>().ropeScaling == RopeScaling::NTK);

    panel.schemeBox()->setCurrentIndex(panel.schemeBox()->findText(QStringLiteral("mlp")));
    QVERIFY(panel.mlpFeaturesBox()->isEnabled());
    panel.mlpFeaturesBox()->setValue(5);
    panel.mlpHiddenBox()->setValue(7);
    QTRY_VERIFY(changed.last().at(0).value<Params>().mlpHidden == 7);
    const Params q = changed.last().at(0).value<Params>();
    QVERIFY(q.scheme == Scheme::Mlp);
    QCOMPARE(q.mlpFeatures, 5);
    QVERIFY(validate(q).ok());
}

void TestParamsPanel::tooltipsGiveTheFormulas() {
    ParamsPanel panel;
    QVERIFY(panel.mlpFeaturesBox()->toolTip().contains(QStringLiteral("GELU(φ·W1 + b1)·W2 + b2")));
    QVERIFY(panel.mlpFeaturesBox()->toolTip().contains(QStringLiteral("ω_k = b^(−k/F)")));
    QVERIFY(panel.mlpHiddenBox()->toolTip().contains(QStringLiteral("erf")));
    QVERIFY(panel.ropeScalingBox()->toolTip().contains(QStringLiteral("(p/s)·θ_m")));
    QVERIFY(panel.ropeScalingBox()->toolTip().contains(QStringLiteral("s^(d_rot/(d_rot−2))")));
    QVERIFY(panel.schemeBox()->toolTip().contains(QStringLiteral("mlp")));
}

namespace {
/** The labels of the scheme options shown (a label-less row: its control's text). */
QStringList shownOptions(const ParamsPanel& panel) {
    QStringList out;
    for (QWidget* w : panel.schemeOptionControls()) {
        if (!w->isVisibleTo(&panel))
            continue;
        if (const auto* c = qobject_cast<const QCheckBox*>(w)) {
            out << c->text();
            continue;
        }
        // The form's label, found as the QLabel whose buddy is w.
        QString label;
        for (const QLabel* l : panel.findChildren<QLabel*>())
            if (l->buddy() == w)
                label = l->text().remove(QLatin1Char('&'));
        out << label;
    }
    return out;
}
} // namespace

void TestParamsPanel::showsOnlyTheCurrentSchemesOptions_data() {
    QTest::addColumn<int>("scheme");
    QTest::addColumn<QString>("title");
    QTest::addColumn<QStringList>("shown");
    const auto row = [](Scheme s, const char* title, QStringList shown) {
        QTest::newRow(std::string(toString(s)).c_str())
            << int(s) << QString::fromUtf8(title) << shown;
    };
    row(Scheme::None, "No position options", {});
    row(Scheme::Sinusoidal, "Sinusoidal options",
        {QStringLiteral("Base"), QStringLiteral("Layout")});
    row(Scheme::Learned, "Learned table options", {QStringLiteral("Learned rows")});
    row(Scheme::Mlp, "MLP encoding options",
        {QStringLiteral("Base"), QStringLiteral("MLP features F"), QStringLiteral("MLP hidden H")});
    row(Scheme::Shaw, "Shaw options", {QStringLiteral("Clip k")});
    row(Scheme::TransformerXL, "Transformer-XL options", {QStringLiteral("TXL clamp")});
    row(Scheme::T5, "T5 options",
        {QStringLiteral("T5 buckets"), QStringLiteral("T5 max distance"),
         QStringLiteral("unidirectional")});
    row(Scheme::DeBERTa, "DeBERTa options",
        {QStringLiteral("Span k"), QStringLiteral("c2p"), QStringLiteral("p2c"),
         QStringLiteral("p2c index"), QStringLiteral("log buckets (v2/v3)"),
         QStringLiteral("DeBERTa buckets"), QStringLiteral("DeBERTa max pos")});
    row(Scheme::RoPE, "RoPE options",
        {QStringLiteral("Base"), QStringLiteral("RoPE pairs"), QStringLiteral("RoPE dims"),
         QStringLiteral("RoPE stretch"), QStringLiteral("RoPE stretch s")});
    row(Scheme::ALiBi, "ALiBi options", {QStringLiteral("ALiBi")});
    row(Scheme::URPE, "URPE options",
        {QStringLiteral("URPE bias"), QStringLiteral("T5 buckets"),
         QStringLiteral("T5 max distance"), QStringLiteral("unidirectional")});
}

void TestParamsPanel::showsOnlyTheCurrentSchemesOptions() {
    QFETCH(int, scheme);
    QFETCH(QString, title);
    QFETCH(QStringList, shown);
    ParamsPanel panel;
    Params p;
    p.scheme = Scheme(scheme);
    panel.setValues(p, InputChoice{});
    QCOMPARE(panel.optionsGroup()->title(), title);
    QCOMPARE(shownOptions(panel), shown);
    // The options shared by every scheme stay.
    QVERIFY(panel.normaliserBox()->isVisibleTo(&panel));
    QVERIFY(panel.headsBox()->isVisibleTo(&panel));
    QVERIFY(panel.weightsBox()->isVisibleTo(&panel));
    // Switching through the scheme box swaps the group at once, as setValues does.
    panel.schemeBox()->setCurrentIndex(panel.schemeBox()->findData(int(Scheme::Shaw)));
    QCOMPARE(shownOptions(panel), QStringList{QStringLiteral("Clip k")});
}

void TestParamsPanel::switchingSchemesKeepsEveryValue() {
    ParamsPanel panel;
    Params p;
    p.scheme = Scheme::Sinusoidal;
    panel.setValues(p, InputChoice{});
    // Edit options of three schemes, each while it is shown.
    panel.layoutBox()->setCurrentIndex(panel.layoutBox()->findText(QStringLiteral("concat")));
    panel.schemeBox()->setCurrentIndex(panel.schemeBox()->findData(int(Scheme::Shaw)));
    panel.clipBox()->setValue(7);
    panel.schemeBox()->setCurrentIndex(panel.schemeBox()->findData(int(Scheme::DeBERTa)));
    QCOMPARE(panel.clipBox()->value(), 7); // DeBERTa v1's span is the same field
    panel.logBucketsBox()->setChecked(true);
    QVERIFY(!panel.clipBox()->isEnabled()); // log buckets: the span is position_buckets
    panel.schemeBox()->setCurrentIndex(panel.schemeBox()->findData(int(Scheme::T5)));
    panel.bucketsBox()->setValue(64);
    // On T5, the hidden options of the others are still in the parameters (sessions keep them).
    const Params q = panel.params();
    QVERIFY(q.scheme == Scheme::T5);
    QCOMPARE(q.buckets, 64);
    QVERIFY(q.layout == SinLayout::Concat);
    QCOMPARE(q.clip, 7);
    QVERIFY(q.debertaLogBuckets);
    QVERIFY(!panel.layoutBox()->isVisibleTo(&panel));
    // Back on sinusoidal: its layout is as it was left.
    panel.schemeBox()->setCurrentIndex(panel.schemeBox()->findData(int(Scheme::Sinusoidal)));
    QVERIFY(panel.layoutBox()->isVisibleTo(&panel));
    QCOMPARE(panel.layoutBox()->currentText(), QStringLiteral("concat"));
    QCOMPARE(panel.params().buckets, 64);
}

void TestParamsPanel::validLenEndsAtTheSequence() {
    ParamsPanel panel;
    Params p;
    p.n = 10;
    panel.setValues(p, InputChoice{});
    QSpinBox* valid = panel.validLenBox();
    QCOMPARE(valid->minimum(), -1); // "all"
    QCOMPARE(valid->maximum(), 10);
    // [CLS] and [SEP] are positions of the sequence: each adds one.
    panel.clsBox()->setChecked(true);
    QCOMPARE(valid->maximum(), 11);
    panel.sepBox()->setChecked(true);
    QCOMPARE(valid->maximum(), 12);
    valid->setValue(12);
    QCOMPARE(panel.params().validLen, 12);
    valid->setValue(13); // past the end: the box keeps the last position
    QCOMPARE(panel.params().validLen, 12);
    // A shorter sequence pulls the value down with it, so the computation never refuses it.
    QSignalSpy changed(&panel, &ParamsPanel::changed);
    panel.lengthBox()->setValue(5);
    QCOMPARE(valid->maximum(), 7);
    QCOMPARE(panel.params().validLen, 7);
    QVERIFY(validate(panel.params()).ok());
    QVERIFY(changed.wait(1000));
    QCOMPARE(changed.last().at(0).value<Params>().validLen, 7);
    panel.sepBox()->setChecked(false);
    QCOMPARE(panel.params().validLen, 6);
    // "all" stays "all" whatever the length.
    valid->setValue(-1);
    panel.lengthBox()->setValue(3);
    QCOMPARE(panel.params().validLen, -1);
    panel.lengthBox()->setValue(300);
    QCOMPARE(valid->maximum(), 301);
    QCOMPARE(panel.params().validLen, -1);
}

void TestParamsPanel::setValuesClampsValidLen_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("cls");
    QTest::addColumn<bool>("sep");
    QTest::addColumn<int>("validLen"); // given
    QTest::addColumn<int>("shown");
    // From a panel at n = 5: a longer sequence raises the end before the value is set.
    QTest::newRow("valid, longer than before") << 100 << false << false << 90 << 90;
    QTest::newRow("the last position") << 100 << true << true << 102 << 102;
    QTest::newRow("all") << 100 << false << false << -1 << -1;
    QTest::newRow("past the end") << 8 << true << false << 50 << 9;
    QTest::newRow("past the end, no specials") << 8 << false << false << 9 << 8;
}

void TestParamsPanel::setValuesClampsValidLen() {
    QFETCH(int, n);
    QFETCH(bool, cls);
    QFETCH(bool, sep);
    QFETCH(int, validLen);
    QFETCH(int, shown);
    ParamsPanel panel;
    Params before;
    before.n = 5;
    panel.setValues(before, InputChoice{});
    Params p;
    p.n = n;
    p.cls = cls;
    p.sep = sep;
    p.validLen = validLen;
    panel.setValues(p, InputChoice{});
    QCOMPARE(panel.validLenBox()->maximum(), p.seqLen());
    QCOMPARE(panel.params().validLen, shown);
    QVERIFY(validate(panel.params()).ok());
}

void TestParamsPanel::schemeSwitchMovesTheBoxesBelowWithoutRepainting() {
    // Shaw's options are one row, T5's three: a switch moves the Attention and Input boxes.
    // They move as one opaque widget, laid out once, so Qt copies their pixels; before, each box
    // was repainted whole on every switch (frames, labels, controls: most of the panel's 1.9 ms
    // per switch) while the computation the switch starts needed the GUI thread's core.
    ParamsPanel panel;
    Params p;
    p.scheme = Scheme::Shaw;
    panel.setValues(p, InputChoice{});
    panel.resize(300, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTest::qWait(50);
    QGroupBox* attention = nullptr;
    QGroupBox* input = nullptr;
    for (QGroupBox* box : panel.findChildren<QGroupBox*>()) {
        if (box->title() == QStringLiteral("Attention"))
            attention = box;
        if (box->title() == QStringLiteral("Input"))
            input = box;
    }
    QVERIFY(attention && input);
    test::PaintLog paints;
    attention->installEventFilter(&paints);
    input->installEventFilter(&paints);
    const int y = attention->mapTo(&panel, QPoint()).y();
    QComboBox* scheme = panel.schemeBox();
    // Growing options push the boxes down: not one pixel of them is repainted.
    scheme->setCurrentIndex(scheme->findData(int(Scheme::T5)));
    QTest::qWait(50);
    const int moved = attention->mapTo(&panel, QPoint()).y();
    QVERIFY2(moved > y, qPrintable(QStringLiteral("%1 -> %2").arg(y).arg(moved)));
    QCOMPARE(paints.rects, QList<QRect>());
    // Shrinking options let them up: at most the strip the options uncover is repainted.
    scheme->setCurrentIndex(scheme->findData(int(Scheme::Shaw)));
    QTest::qWait(50);
    QCOMPARE(attention->mapTo(&panel, QPoint()).y(), y);
    for (const QRect& r : paints.rects)
        QVERIFY2(r.height() <= moved - y,
                 qPrintable(QStringLiteral("a paint of %1 rows").arg(r.height())));
}

QTEST_MAIN(TestParamsPanel)
#include "tst_params_panel.moc"
