// SPDX-License-Identifier: MIT
// SPEC §12, row by row: which configurations can map n identical inputs to distinct outputs.
#include <QTest>

#include "probe.h"

using namespace pe;

class TestProbe : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void table_data();
    void table();
};

void TestProbe::table_data() {
    QTest::addColumn<int>("scheme");
    QTest::addColumn<int>("norm");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<bool>("cls");
    QTest::addColumn<bool>("sep");
    QTest::addColumn<bool>("shawValues");
    QTest::addColumn<bool>("broken");
    auto row = [](const char* name, Scheme s, Normaliser n, bool causal, bool cls, bool sep,
                  bool shawValues, bool broken) {
        QTest::newRow(name) << int(s) << int(n) << causal << cls << sep << shawValues << broken;
    };
    const auto SM = Normaliser::Softmax;
    // Logit-only schemes with softmax: identical rows, bidirectional or causal.
    for (bool causal : {false, true}) {
        const char* tag = causal ? "causal" : "bidir";
        auto name = [&](const char* s) {
            return qstrdup(qPrintable(
                QStringLiteral("%1 softmax %2").arg(QLatin1String(s), QLatin1String(tag))));
        };
        row(name("NoPE"), Scheme::None, SM, causal, false, false, true, false);
        row(name("T5"), Scheme::T5, SM, causal, false, false, true, false);
        row(name("ALiBi"), Scheme::ALiBi, SM, causal, false, false, true, false);
        row(name("RoPE"), Scheme::RoPE, SM, causal, false, false, true, false);
        row(name("TXL"), Scheme::TransformerXL, SM, causal, false, false, true, false);
        row(name("DeBERTa"), Scheme::DeBERTa, SM, causal, false, false, true, false);
        row(name("Shaw keys only"), Scheme::Shaw, SM, causal, false, false, false, false);
    }
    row("sinusoidal [IN]", Scheme::Sinusoidal, SM, false, false, false, true, true);
    row("learned [IN]", Scheme::Learned, SM, false, false, false, true, true);
    row("Shaw with a^V", Scheme::Shaw, SM, false, false, false, true, true);
    row("URPE", Scheme::URPE, SM, false, false, false, true, true);
    for (Scheme s :
         {Scheme::T5, Scheme::ALiBi, Scheme::RoPE, Scheme::TransformerXL, Scheme::DeBERTa})
        for (Normaliser n : {Normaliser::Exp, Normaliser::L2, Normaliser::Relu2}) {
            const auto nm = QStringLiteral("%1 %2").arg(QLatin1String(toString(s).data()),
                                                        QLatin1String(toString(n).data()));
            row(qstrdup(qPrintable(nm)), s, n, false, false, false, true, true);
        }
    for (Scheme s : {Scheme::T5, Scheme::ALiBi, Scheme::RoPE}) {
        const QString nm = QLatin1String(toString(s).data());
        row(qstrdup(qPrintable(nm + QStringLiteral(" +CLS"))), s, SM, false, true, false, true,
            true);
        row(qstrdup(qPrintable(nm + QStringLiteral(" +SEP"))), s, SM, false, false, true, true,
            true);
        row(qstrdup(qPrintable(nm + QStringLiteral(" +CLS+SEP"))), s, SM, false, true, true, true,
            true);
    }
    row("NoPE l2 bidir", Scheme::None, Normaliser::L2, false, false, false, true, false);
    row("NoPE +CLS bidir", Scheme::None, SM, false, true, false, true, false);
    row("NoPE +CLS causal", Scheme::None, SM, true, true, false, true, true);
    row("NoPE exp causal", Scheme::None, Normaliser::Exp, true, false, false, true, true);
}

void TestProbe::table() {
    QFETCH(int, scheme);
    QFETCH(int, norm);
    QFETCH(bool, causal);
    QFETCH(bool, cls);
    QFETCH(bool, sep);
    QFETCH(bool, shawValues);
    QFETCH(bool, broken);
    Params p;
    p.scheme = Scheme(scheme);
    p.norm = Normaliser(norm);
    p.mask = causal ? MaskKind::Causal : MaskKind::None;
    p.alibiMode = causal ? AlibiMode::Causal : AlibiMode::Symmetric;
    p.cls = cls;
    p.sep = sep;
    p.n = 12;
    p.d = 32;
    p.heads = 4;
    p.clip = 4;
    const ProbeResult r = runProbe(p, 2, shawValues);
    const QByteArray msg = "spread " + QByteArray::number(r.spread, 'g', 3);
    if (broken)
        QVERIFY2(r.spread > kProbeBrokenThreshold && r.canTellApart, msg.constData());
    else
        QVERIFY2(r.spread <= kProbeIdenticalThreshold && !r.canTellApart, msg.constData());
}

QTEST_GUILESS_MAIN(TestProbe)
#include "tst_probe.moc"
