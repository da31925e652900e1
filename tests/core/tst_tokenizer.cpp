// SPDX-License-Identifier: MIT
#include <QTest>

#include <string>
#include <vector>

#include "tokenizer.h"
#include "weights.h"

using namespace pe;

class TestTokenizer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splits_data();
    void splits();
    void embeddingsArePerToken();
};

void TestTokenizer::splits_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("tokens");
    QTest::newRow("words and punctuation")
        << QStringLiteral("The cat, the hat.")
        << QStringList{QStringLiteral("The"), QStringLiteral("cat"), QStringLiteral(","),
                       QStringLiteral("the"), QStringLiteral("hat"), QStringLiteral(".")};
    QTest::newRow("apostrophe") << QStringLiteral("don't stop")
                                << QStringList{QStringLiteral("don't"), QStringLiteral("stop")};
    QTest::newRow("CJK by character") << QStringLiteral("我爱NLP。")
                                      << QStringList{QStringLiteral("我"), QStringLiteral("爱"),
                                                     QStringLiteral("NLP"), QStringLiteral("。")};
    QTest::newRow("accents stay in words")
        << QStringLiteral("café au lait")
        << QStringList{QStringLiteral("café"), QStringLiteral("au"), QStringLiteral("lait")};
    QTest::newRow("empty") << QString() << QStringList{};
    QTest::newRow("spaces only") << QStringLiteral("  \t\n ") << QStringList{};
}

void TestTokenizer::splits() {
    QFETCH(QString, text);
    QFETCH(QStringList, tokens);
    const auto got = tokenize(text.toStdString());
    QStringList g;
    for (const auto& t : got)
        g << QString::fromStdString(t);
    QCOMPARE(g, tokens);
}

void TestTokenizer::embeddingsArePerToken() {
    const auto E = embedTokens({"the", "cat", "the"}, 16, 3);
    QCOMPARE(E.rows(), Eigen::Index(3));
    QVERIFY((E.row(0) - E.row(2)).norm() == 0);  // same token, same vector
    QVERIFY((E.row(0) - E.row(1)).norm() > 0.1); // different tokens differ
    const auto E2 = embedTokens({"cat"}, 16, 3);
    QVERIFY((E2.row(0) - E.row(1)).norm() == 0); // independent of the sentence
    const auto E3 = embedTokens({"cat"}, 16, 4);
    QVERIFY((E3.row(0) - E.row(1)).norm() > 0.1); // seeded
    // Each row is exactly its token's seeded draw, whatever the order of first appearance.
    const std::vector<std::string> tokens{"a", "b", "a", "c", "b", "a", "d"};
    const auto E4 = embedTokens(tokens, 24, 7);
    QCOMPARE(E4.rows(), Eigen::Index(7));
    QCOMPARE(E4.cols(), Eigen::Index(24));
    for (std::size_t i = 0; i < tokens.size(); ++i)
        QVERIFY(E4.row(static_cast<Eigen::Index>(i)) ==
                seededNormal(1, 24, 7, "token:" + tokens[i]).row(0));
    // Malformed UTF-8 does not crash.
    QVERIFY(!tokenize(std::string("\xff\xfe abc \xe4\xb8")).empty());
}

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
