// SPDX-License-Identifier: MIT
// Presets named after real models: each sets what that model's configuration says, validates,
// and keeps the user's sequence length and seed.
#include <QTest>

#include <set>
#include <string>

#include "params.h"
#include "presets.h"

using namespace pe;

class TestPresets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyPresetIsValid() {
        std::set<std::string_view> names;
        for (const ModelPreset& m : modelPresets()) {
            QVERIFY2(names.insert(m.name).second, m.name.data());
            QCOMPARE(findModelPreset(m.name), &m);
            Params start;
            start.n = 20;
            start.seed = 77;
            const Params p = withPreset(start, m);
            const Status st = validate(p);
            QVERIFY2(st.ok(), st.ok() ? "" : st.error().message.c_str());
            QCOMPARE(p.n, 20);
            QCOMPARE(p.seed, std::uint64_t(77));
        }
        QCOMPARE(names.size(), std::size_t(7));
        QVERIFY(findModelPreset("gpt-3") == nullptr);
    }

    void valuesOfEachModel_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("scheme");
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("heads");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<bool>("specialTokens");
        auto row = [](const char* name, Scheme s, int d, int h, bool causal, bool special) {
            QTest::newRow(name) << QString::fromLatin1(name) << static_cast<int>(s) << d << h
                                << causal << special;
        };
        row("bert", Scheme::Learned, 768, 12, false, true);
        row("gpt2", Scheme::Learned, 768, 12, true, false);
        row("t5", Scheme::T5, 512, 8, false, false);
        row("deberta-v3", Scheme::DeBERTa, 768, 12, false, true);
        row("llama", Scheme::RoPE, 4096, 32, true, false);
        row("gpt-neox", Scheme::RoPE, 2048, 16, true, false);
        row("bloom", Scheme::ALiBi, 1024, 16, true, false);
    }

    void valuesOfEachModel() {
        QFETCH(QString, name);
        QFETCH(int, scheme);
        QFETCH(int, d);
        QFETCH(int, heads);
        QFETCH(bool, causal);
        QFETCH(bool, specialTokens);
        const ModelPreset* m = findModelPreset(name.toStdString());
        QVERIFY(m);
        // Start from a configuration far from every preset: nothing of it may survive.
        Params start;
        start.scheme = Scheme::Shaw;
        start.norm = Normaliser::Relu2;
        start.mask = causal ? MaskKind::None : MaskKind::Causal;
        start.ropeConvention = RopeConvention::Interleaved;
        start.alibiMode = AlibiMode::Symmetric;
        start.cls = !specialTokens;
        start.debertaLogBuckets = false;
        const Params p = withPreset(start, *m);
        QCOMPARE(static_cast<int>(p.scheme), scheme);
        QCOMPARE(p.d, d);
        QCOMPARE(p.heads, heads);
        QCOMPARE(p.mask == MaskKind::Causal, causal);
        QCOMPARE(p.cls, specialTokens);
        QCOMPARE(p.sep, specialTokens);
        QVERIFY(p.norm == Normaliser::Softmax);
    }

    void schemeOptions() {
        const Params bert = withPreset({}, *findModelPreset("bert"));
        QCOMPARE(bert.learnedRows, 512);
        const Params gpt2 = withPreset({}, *findModelPreset("gpt2"));
        QCOMPARE(gpt2.learnedRows, 1024);
        const Params t5 = withPreset({}, *findModelPreset("t5"));
        QCOMPARE(t5.buckets, 32);
        QCOMPARE(t5.maxDistance, 128);
        QVERIFY(!t5.unidirectional);
        const Params deb = withPreset({}, *findModelPreset("deberta-v3"));
        QVERIFY(deb.debertaLogBuckets);
        QCOMPARE(deb.debertaBuckets, 256);
        QCOMPARE(deb.debertaMaxPosition, 512);
        QCOMPARE(deb.debertaSpan(), 256); // a [512, d] relative table
        QVERIFY(deb.debertaC2P && deb.debertaP2C);
        QVERIFY(deb.p2cConvention == P2CConvention::Code);
        const Params llama = withPreset({}, *findModelPreset("llama"));
        QVERIFY(llama.ropeConvention == RopeConvention::Half);
        QCOMPARE(llama.base, 10000.0);
        QCOMPARE(llama.ropeDims, 0); // all of d_h = 128
        const Params neox = withPreset({}, *findModelPreset("gpt-neox"));
        QVERIFY(neox.ropeConvention == RopeConvention::Half);
        QCOMPARE(neox.headDim(), 128);
        QCOMPARE(neox.ropeDims * 4, neox.headDim()); // rotary_pct 0.25
        const Params bloom = withPreset({}, *findModelPreset("bloom"));
        QVERIFY(bloom.alibiMode == AlibiMode::Causal);
        QVERIFY(bloom.mask == MaskKind::Causal);
    }

    void learnedTableCapsTheLength() {
        Params start;
        start.n = 4000;
        const Params bert = withPreset(start, *findModelPreset("bert"));
        QCOMPARE(bert.seqLen(), 512); // [CLS] + 510 tokens + [SEP]
        QVERIFY(validate(bert).ok());
        const Params gpt2 = withPreset(start, *findModelPreset("gpt2"));
        QCOMPARE(gpt2.n, 1024);
    }
};

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
