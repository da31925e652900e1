// SPDX-License-Identifier: MIT
// The parameters panel's controls of the mlp encoding and of RoPE context stretching: values
// round-trip, each control is enabled only where it applies, edits reach changed(), and the
// tooltips give the formulas.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

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
    void tooltipsGiveTheFormulas();
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

QTEST_MAIN(TestParamsPanel)
#include "tst_params_panel.moc"
