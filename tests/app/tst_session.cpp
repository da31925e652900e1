// SPDX-License-Identifier: MIT
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include "session.h"

using namespace pe;

class TestSession : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data();
    void roundTrip();
    void errorsNameTheKey_data();
    void errorsNameTheKey();
    void unreadableFileIsAnError();
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
    const Expected<Session> loaded = loadSession(path);
    QVERIFY(loaded.ok());
    QVERIFY(loaded.value() == session);
}

void TestSession::errorsNameTheKey_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("key");
    QTest::newRow("scheme") << QByteArray(R"({"scheme": "nope"})") << QStringLiteral("scheme");
    QTest::newRow("n") << QByteArray(R"({"n": 1.5})") << QStringLiteral("\"n\"");
    QTest::newRow("cls") << QByteArray(R"({"cls": 3})") << QStringLiteral("cls");
    QTest::newRow("seed") << QByteArray(R"({"seed": "x12"})") << QStringLiteral("seed");
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

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
