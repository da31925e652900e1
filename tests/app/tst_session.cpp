// SPDX-License-Identifier: MIT
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include "session.h"
#include "write_failure.h"

using namespace pe;

class TestSession : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data();
    void roundTrip();
    void errorsNameTheKey_data();
    void errorsNameTheKey();
    void unreadableFileIsAnError();
    void saveFailureLeavesNoFile_data();
    void saveFailureLeavesNoFile();
    void newerVersion_data();
    void newerVersion();
    void validLenPastTheSequence_data();
    void validLenPastTheSequence();
};

Q_DECLARE_METATYPE(pe::Session)

void TestSession::roundTrip_data() {
    QTest::addColumn<Session>("session");
    Session a;
    QTest::newRow("defaults") << a;
    // Every field away from its default, including a seed above 2^53.
    Session b;
    Params& p = b.params;
    p.scheme = Scheme::DeBERTa;
    p.n = 777;
    p.d = 96;
    p.heads = 6;
    p.norm = Normaliser::Relu2Visible;
    p.mask = MaskKind::Causal;
    p.validLen = 500;
    p.clip = 7;
    p.base = 12345.678901234567;
    p.layout = SinLayout::T2T;
    p.ropeConvention = RopeConvention::Half;
    p.ropeDims = 8;
    p.ropeScaling = RopeScaling::NTK;
    p.ropeScale = 2.718281828459045;
    p.buckets = 64;
    p.maxDistance = 333;
    p.unidirectional = true;
    p.alibiMode = AlibiMode::Causal;
    p.debertaC2P = false;
    p.debertaP2C = true;
    p.p2cConvention = P2CConvention::Paper;
    p.debertaLogBuckets = true;
    p.debertaBuckets = 128;
    p.debertaMaxPosition = 1024;
    p.txlClampLen = 99;
    p.urpeBias = UrpeBias::T5;
    p.learnedRows = 2048;
    p.mlpFeatures = 17;
    p.mlpHidden = 333;
    p.cls = true;
    p.sep = true;
    p.seed = 18446744073709551557ULL;
    p.precision = Precision::Float64;
    b.input = InputChoice{InputKind::Text, 2, QStringLiteral("位置 and \"quotes\", commas"),
                          WeightsKind::Identity};
    QTest::newRow("every field") << b;
    for (Scheme s : allSchemes()) {
        Session c;
        c.params.scheme = s;
        c.input.kind = InputKind::Identical;
        QTest::newRow(std::string(toString(s)).c_str()) << c;
    }
    // The Insights tab's page and options, every one away from its default.
    Session ins;
    InsightsState st;
    st.page = InsightPage::Depth;
    st.settings.delta = 7;
    st.settings.kernel = 5;
    st.settings.depth.layers = 20;
    st.settings.depth.residual = false;
    st.settings.depth.norm = DepthNorm::RmsNorm;
    st.settings.depth.mlp = true;
    ins.insights = st;
    QTest::newRow("insights") << ins;
    for (RopeScaling sc : allValues<RopeScaling>()) {
        Session r;
        r.params.scheme = Scheme::RoPE;
        r.params.ropeScaling = sc;
        r.params.ropeScale = 0.25;
        QTest::newRow((std::string("rope ") + std::string(toString(sc))).c_str()) << r;
    }
}

void TestSession::roundTrip() {
    QFETCH(Session, session);
    // In memory, through JSON text, and through a file.
    const QByteArray text = QJsonDocument(toJson(session)).toJson();
    const Expected<Session> back = sessionFromJson(QJsonDocument::fromJson(text).object());
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(back.value() == session);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("s.json"));
    QVERIFY(saveSession(session, path).ok());
    QString ignored = QStringLiteral("stale");
    const Expected<Session> loaded = loadSession(path, &ignored);
    QVERIFY(loaded.ok());
    QVERIFY(loaded.value() == session);
    QVERIFY2(ignored.isEmpty(), qPrintable(ignored)); // every key written is a key read
}

void TestSession::errorsNameTheKey_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("key");
    QTest::newRow("scheme") << QByteArray(R"({"scheme": "nope"})") << QStringLiteral("scheme");
    QTest::newRow("n") << QByteArray(R"({"n": 1.5})") << QStringLiteral("\"n\"");
    QTest::newRow("cls") << QByteArray(R"({"cls": 3})") << QStringLiteral("cls");
    QTest::newRow("seed") << QByteArray(R"({"seed": "x12"})") << QStringLiteral("seed");
    QTest::newRow("rope_scaling") << QByteArray(R"({"rope_scaling": "yarn"})")
                                  << QStringLiteral("rope_scaling");
    QTest::newRow("rope_scale") << QByteArray(R"({"rope_scale": "2"})")
                                << QStringLiteral("rope_scale");
    QTest::newRow("mlp_features") << QByteArray(R"({"mlp_features": 2.5})")
                                  << QStringLiteral("mlp_features");
    QTest::newRow("version text") << QByteArray(R"({"version": "2"})") << QStringLiteral("version");
    QTest::newRow("version 0") << QByteArray(R"({"version": 0})") << QStringLiteral("version");
    QTest::newRow("other format") << QByteArray(R"({"format": "x", "version": 9})")
                                  << QStringLiteral("not a pe-explorer session");
}

void TestSession::errorsNameTheKey() {
    QFETCH(QByteArray, json);
    QFETCH(QString, key);
    const Expected<Session> s = sessionFromJson(QJsonDocument::fromJson(json).object());
    QVERIFY(!s.ok());
    QVERIFY2(QString::fromStdString(s.error().message).contains(key), s.error().message.c_str());
}

void TestSession::unreadableFileIsAnError() {
    QTemporaryDir dir;
    QVERIFY(!loadSession(dir.filePath(QStringLiteral("missing.json"))).ok());
    QVERIFY(!saveSession(Session{}, dir.filePath(QStringLiteral("no/such/dir/s.json"))).ok());
}

void TestSession::saveFailureLeavesNoFile_data() {
    QTest::addColumn<bool>("fullDisk");
    QTest::newRow("read-only folder") << false;
    QTest::newRow("full disk") << true;
}

void TestSession::saveFailureLeavesNoFile() {
    QFETCH(bool, fullDisk);
    QTemporaryDir scratch;
    const QString folder = fullDisk ? scratch.path() : readOnlyFolder(scratch.path());
    const QStringList before = everyEntry(folder);
    const QString path = QDir(folder).filePath(QStringLiteral("s.json"));
    Session s;
    s.input.text = QStringLiteral("a session a little longer than the limit below");
    Status st = Status::success();
    bool limited = true;
    if (fullDisk) {
        const FileSizeLimit limit(100); // the JSON is several hundred bytes
        limited = limit.ok();
        st = saveSession(s, path);
    } else {
        st = saveSession(s, path);
    }
    QVERIFY(limited);
    QVERIFY(!st.ok());
    const QString why = QString::fromStdString(st.error().message);
    qInfo("%s", qPrintable(why)); // what the user would read
    if (fullDisk) // the reason is the failed write's (EFBIG here; ENOSPC on a real full disk)
        QVERIFY2(why.endsWith(QLatin1String(": File too large")), qPrintable(why));
    QVERIFY2(why.startsWith(QStringLiteral("cannot write ") + path + QStringLiteral(": ")) &&
                 why.size() > path.size() + 16,
             qPrintable(why));
    if (folder == QLatin1String("/proc"))
        QVERIFY(!QFile::exists(path));
    else
        QCOMPARE(everyEntry(folder), before);
}

void TestSession::newerVersion_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<int>("n"); // what was loaded
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QStringList>("said"); // what the note must name; empty: no note
    QTest::newRow("current, nothing ignored")
        << QByteArray(R"({"version": 1, "scheme": "rope", "n": 12})") << 12
        << QStringLiteral("rope") << QStringList{};
    QTest::newRow("newer format, known keys")
        << QByteArray(R"({"version": 7, "scheme": "alibi", "n": 9})") << 9
        << QStringLiteral("alibi") << QStringList{QStringLiteral("format 7 is newer")};
    QTest::newRow("unknown keys")
        << QByteArray(R"({"version": 2, "n": 20, "scheme": "t5", "fancy_option": 3,)"
                      R"( "input": {"kind": "text", "text": "hi", "lang": "en"}})")
        << 20 << QStringLiteral("t5")
        << QStringList{QStringLiteral("format 2"), QStringLiteral("\"fancy_option\""),
                       QStringLiteral("\"input.lang\"")};
    QTest::newRow("unknown input kind")
        << QByteArray(R"({"n": 5, "input": {"kind": "audio"}})") << 5 << QStringLiteral("none")
        << QStringList{QStringLiteral("input kind \"audio\" (read as \"sentence\")")};
}

void TestSession::newerVersion() {
    QFETCH(QByteArray, json);
    QFETCH(int, n);
    QFETCH(QString, scheme);
    QFETCH(QStringList, said);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("newer.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(json);
    f.close();
    QString ignored = QStringLiteral("stale");
    const Expected<Session> s = loadSession(path, &ignored);
    QVERIFY2(s.ok(), s ? "" : s.error().message.c_str());
    QCOMPARE(s->params.n, n);
    QCOMPARE(QString::fromStdString(std::string(toString(s->params.scheme))), scheme);
    if (said.isEmpty())
        QVERIFY2(ignored.isEmpty(), qPrintable(ignored));
    for (const QString& part : said)
        QVERIFY2(ignored.contains(part), qPrintable(ignored));
}

void TestSession::validLenPastTheSequence_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<int>("validLen"); // what was loaded
    QTest::addColumn<QString>("said"); // empty: no note
    QTest::newRow("the last position")
        << QByteArray(R"({"n": 16, "cls": true, "sep": true, "valid_len": 18})") << 18 << QString();
    QTest::newRow("all") << QByteArray(R"({"n": 16, "valid_len": -1})") << -1 << QString();
    // Older builds accepted these; the computation refused them.
    QTest::newRow("past n")
        << QByteArray(R"({"n": 16, "valid_len": 500})") << 16
        << QStringLiteral("valid_len 500 is past the sequence length 16 ([CLS]/[SEP] included): "
                          "read as 16");
    QTest::newRow("past n + [CLS] + [SEP]")
        << QByteArray(R"({"n": 16, "cls": true, "sep": true, "valid_len": 19})") << 18
        << QStringLiteral("valid_len 19 is past the sequence length 18");
}

void TestSession::validLenPastTheSequence() {
    QFETCH(QByteArray, json);
    QFETCH(int, validLen);
    QFETCH(QString, said);
    QString note = QStringLiteral("stale");
    const Expected<Session> s = sessionFromJson(QJsonDocument::fromJson(json).object(), &note);
    QVERIFY2(s.ok(), s ? "" : s.error().message.c_str());
    QCOMPARE(s->params.validLen, validLen);
    QVERIFY(validate(s->params).ok());
    if (said.isEmpty())
        QVERIFY2(note.isEmpty(), qPrintable(note));
    else
        QVERIFY2(note.contains(said), qPrintable(note));
}

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
