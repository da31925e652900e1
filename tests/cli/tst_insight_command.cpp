// SPDX-License-Identifier: MIT
// `pe-explorer-cli insight NAME`: the files, columns and JSON keys of every page, their values
// against the known answers, and every error case (exit 2, one line, nothing written).
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include "cli_run.h"
#include "npy.h"

using namespace pe;

namespace {

QStringList readLines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace

class TestInsightCommand : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void help() {
        const Run h = runCli(args(QStringLiteral("insight --help")));
        QCOMPARE(h.exitCode, 0);
        for (const char* word : {"binary", "offset", "cost", "distance", "depth", "--delta",
                                 "--table", "--kernel", "--n-max", "--measure", "--layers",
                                 "--no-residual", "--depth-norm", "--mlp", "--scheme", "--out"})
            QVERIFY2(h.out.contains(QLatin1String(word)), word);
    }

    void binary() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("b"));
        const Run r = runCli(args(QStringLiteral("insight binary --n 10 --d 16 --out ")) << out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(out), (QStringList{QStringLiteral("bits.npy"), QStringLiteral("omega.npy"),
                                            QStringLiteral("period.npy")}));
        const Tensor bits = readTensor(out + QStringLiteral("/bits.npy"));
        QVERIFY(bits.dtype() == DType::I32);
        QCOMPARE(bits.shape(), (std::vector<std::int64_t>{10, 4}));
        // Position 6 = 0b110, lowest bit first: 0 1 1 0.
        QCOMPARE(bits.at(6 * 4 + 0), 0.0);
        QCOMPARE(bits.at(6 * 4 + 1), 1.0);
        QCOMPARE(bits.at(6 * 4 + 2), 1.0);
        QCOMPARE(bits.at(6 * 4 + 3), 0.0);
        const Tensor omega = readTensor(out + QStringLiteral("/omega.npy"));
        QCOMPARE(omega.shape(), (std::vector<std::int64_t>{8}));
        QVERIFY(std::abs(omega.at(4) - std::pow(1e4, -0.5)) < 1e-15); // 10000^(−2·4/16)
        const Tensor period = readTensor(out + QStringLiteral("/period.npy"));
        QVERIFY(std::abs(period.at(4) - 2 * M_PI * 100) < 1e-9);
    }

    void offset_data() {
        QTest::addColumn<QString>("options");
        QTest::addColumn<QString>("method");
        QTest::addColumn<double>("maxRelative");
        QTest::addColumn<double>("minRelative");
        QTest::newRow("sinusoidal interleaved") << "--scheme sinusoidal --n 64 --d 32 --delta 5"
                                                << "exact" << 1e-5 << 0.0;
        QTest::newRow("sinusoidal concat f64")
            << "--scheme sinusoidal --layout concat --dtype float64 --n 64 --d 32 --delta 63"
            << "exact" << 1e-12 << 0.0;
        QTest::newRow("sinusoidal t2t") << "--scheme sinusoidal --layout t2t --n 64 --d 32"
                                        << "exact" << 1e-5 << 0.0;
        QTest::newRow("learned") << "--scheme learned --n 128 --d 32 --delta 2"
                                 << "least_squares" << 10.0 << 0.1;
        QTest::newRow("rope") << "--scheme rope --n 32 --d 32 --delta 3"
                              << "exact" << 1e-5 << 0.0;
    }

    void offset() {
        QFETCH(QString, options);
        QFETCH(QString, method);
        QFETCH(double, maxRelative);
        QFETCH(double, minRelative);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("o"));
        const Run r = runCli(args(QStringLiteral("insight offset ") + options)
                             << QStringLiteral("--out") << out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(out),
                 (QStringList{QStringLiteral("M.npy"), QStringLiteral("residual.json")}));
        QCOMPARE(readTensor(out + QStringLiteral("/M.npy")).shape(),
                 (std::vector<std::int64_t>{32, 32}));
        const QJsonObject j = readJson(out + QStringLiteral("/residual.json"));
        for (const char* key :
             {"max_abs_residual", "relative_residual", "method", "toeplitz_max_deviation"})
            QVERIFY2(j.contains(QLatin1String(key)), key);
        QCOMPARE(j[QLatin1String("method")].toString(), method);
        const double rel = j[QLatin1String("relative_residual")].toDouble();
        QVERIFY2(rel <= maxRelative && rel >= minRelative, qPrintable(QString::number(rel)));
    }

    void offsetTable() {
        // A user table: the identity-like ramp [i, 1] is shifted exactly by [[1, δ], [0, 1]].
        QTemporaryDir tmp;
        Tensor t(DType::F64, {20, 2});
        for (int i = 0; i < 20; ++i) {
            t.data<double>()[2 * i] = i;
            t.data<double>()[2 * i + 1] = 1;
        }
        const QString table = tmp.filePath(QStringLiteral("table.npy"));
        QVERIFY(writeNpy(table.toStdString(), t).ok());
        const QString out = tmp.filePath(QStringLiteral("o"));
        const Run r = runCli(args(QStringLiteral("insight offset --scheme t5 --dtype float64 "
                                                 "--delta 3 --table "))
                             << table << QStringLiteral("--out") << out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject j = readJson(out + QStringLiteral("/residual.json"));
        QCOMPARE(j[QLatin1String("method")].toString(), QStringLiteral("least_squares"));
        QVERIFY(j[QLatin1String("relative_residual")].toDouble() < 1e-12);
        const Tensor M = readTensor(out + QStringLiteral("/M.npy"));
        QVERIFY(std::abs(M.at(1) - 3.0) < 1e-9); // M[0, 1] = δ
        QVERIFY(std::abs(M.at(0) - 1.0) < 1e-9);
    }

    void cost() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("c"));
        const Run r = runCli(args(QStringLiteral("insight cost --d 512 --kernel 3 --n-max 1024 "
                                                 "--out "))
                             << out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(out), QStringList{QStringLiteral("cost.csv")});
        const QStringList lines = readLines(out + QStringLiteral("/cost.csv"));
        QCOMPARE(lines.first(),
                 QStringLiteral("n,cnn_flops,rnn_flops,attention_flops,cnn_sequential,"
                                "rnn_sequential,attention_sequential,cnn_path,rnn_path,"
                                "attention_path"));
        QCOMPARE(lines.size(), 12); // header + n = 1 … 1024
        // n = 1024, d = 512, k = 3: 2·3·1024·512², 2·1024·512², 4·1024²·512; paths 512, 1023, 1.
        QCOMPARE(lines.last(), QStringLiteral("1024,1610612736,536870912,2147483648,1,1024,1,"
                                              "512,1023,1"));
    }

    void costMeasure() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("m"));
        // Small sizes only (a test, not a benchmark): n = 128 … 1024.
        const Run r = runCli(args(QStringLiteral("insight cost --scheme none --d 32 --heads 2 "
                                                 "--measure --n-max 1024 --out "))
                             << out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(out), (QStringList{QStringLiteral("cost.csv"), QStringLiteral("cost.json"),
                                            QStringLiteral("measured.csv")}));
        const QStringList lines = readLines(out + QStringLiteral("/measured.csv"));
        QCOMPARE(lines.first(), QStringLiteral("n,ms"));
        QCOMPARE(lines.size(), 5); // 128, 256, 512, 1024
        QVERIFY(lines.last().startsWith(QLatin1String("1024,")));
        QVERIFY(lines.last().section(QLatin1Char(','), 1).toDouble() > 0);
        const QJsonObject j = readJson(out + QStringLiteral("/cost.json"));
        for (const char* key : {"exponent", "fit_from_n", "engine"})
            QVERIFY2(j.contains(QLatin1String(key)), key);
        // One point at n ≥ 1024: no exponent can be fitted, and the file says so (null).
        QVERIFY(j[QLatin1String("exponent")].isNull());
    }

    void distance_data() {
        QTest::addColumn<QString>("scheme");
        for (const char* s : {"sinusoidal", "t5", "alibi", "rope", "shaw", "deberta", "txl"})
            QTest::newRow(s) << QString::fromLatin1(s);
    }

    void distance() {
        QFETCH(QString, scheme);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("d"));
        const Run r = runCli(args(QStringLiteral("insight distance --n 16 --d 32 --heads 4 "
                                                 "--scheme ") +
                                  scheme)
                             << QStringLiteral("--out") << out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(out),
                 (QStringList{QStringLiteral("position_profile.npy"), QStringLiteral("profile.npy"),
                              QStringLiteral("rope_decay.npy")}));
        QCOMPARE(readTensor(out + QStringLiteral("/profile.npy")).shape(),
                 (std::vector<std::int64_t>{4, 31}));
        QCOMPARE(readTensor(out + QStringLiteral("/position_profile.npy")).shape(),
                 (std::vector<std::int64_t>{4, 31}));
        const Tensor decay = readTensor(out + QStringLiteral("/rope_decay.npy"));
        QCOMPARE(decay.shape(), (std::vector<std::int64_t>{16}));
        QCOMPARE(decay.at(0), 2.5); // d_h = 8, K = 4: (K + 1)/2
    }

    void depth() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("p"));
        const Run r = runCli(args(QStringLiteral("insight depth --n 32 --d 32 --layers 12 "
                                                 "--no-residual --dtype float64 --out "))
                             << out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(out), QStringList{QStringLiteral("depth.json")});
        const QJsonObject j = readJson(out + QStringLiteral("/depth.json"));
        const QJsonArray layers = j[QLatin1String("layers")].toArray();
        QCOMPARE(layers.size(), 12);
        for (const QJsonValue& v : layers) {
            const QJsonObject l = v.toObject();
            for (const char* key : {"layer", "effective_rank", "uniformity_residual",
                                    "attention_entropy", "position_r2"})
                QVERIFY2(l.contains(QLatin1String(key)), key);
        }
        QCOMPARE(layers[0].toObject()[QLatin1String("layer")].toInt(), 1);
        QVERIFY(j[QLatin1String("input")].toObject()[QLatin1String("attention_entropy")].isNull());
        const double first = layers[0].toObject()[QLatin1String("uniformity_residual")].toDouble();
        const double last = layers[11].toObject()[QLatin1String("uniformity_residual")].toDouble();
        QVERIFY2(last < 1e-3 * first, qPrintable(QString::number(last)));
        QCOMPARE(j[QLatin1String("residual")].toBool(), false);

        const QString kept = tmp.filePath(QStringLiteral("r"));
        const Run r2 = runCli(args(QStringLiteral("insight depth --n 32 --d 32 --layers 12 "
                                                  "--depth-norm layernorm --mlp --out "))
                              << kept);
        QVERIFY2(r2.exitCode == 0, qPrintable(r2.err));
        const QJsonArray kl =
            readJson(kept + QStringLiteral("/depth.json"))[QLatin1String("layers")].toArray();
        for (const QJsonValue& v : kl)
            QVERIFY(v.toObject()[QLatin1String("uniformity_residual")].toDouble() > 0.1);
    }

    void errors_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown page") << "insight nope"
                                      << "insight: unknown page 'nope'";
        QTest::newRow("delta = n") << "insight offset --n 16 --delta 16"
                                   << "--delta 16 must be below n = 16";
        QTest::newRow("delta > n") << "insight offset --n 16 --delta 40"
                                   << "--delta 40 must be below n = 16";
        QTest::newRow("delta 0") << "insight offset --delta 0"
                                 << "--delta 0 must be at least 1";
        QTest::newRow("no P: t5") << "insight offset --scheme t5"
                                  << "--scheme t5 has no position table P";
        QTest::newRow("no P: alibi") << "insight offset --scheme alibi"
                                     << "--scheme alibi has no position table P";
        QTest::newRow("no P: shaw") << "insight offset --scheme shaw"
                                    << "--scheme shaw has no position table P";
        QTest::newRow("odd d") << "insight offset --d 33 --heads 1"
                               << "--d 33 is odd";
        QTest::newRow("layers 0") << "insight depth --layers 0"
                                  << "--layers 0 must be between 1 and 32";
        QTest::newRow("layers 33") << "insight depth --layers 33"
                                   << "--layers 33 must be between 1 and 32";
        QTest::newRow("kernel 1") << "insight cost --kernel 1"
                                  << "--kernel 1 must be between 2 and 4096";
        QTest::newRow("n-max 0") << "insight cost --n-max 0"
                                 << "--n-max 0 must be between 1";
        QTest::newRow("measure small") << "insight cost --measure --n-max 64"
                                       << "--n-max 64 must be between 128";
        QTest::newRow("depth norm") << "insight depth --depth-norm batch"
                                    << "--depth-norm: unknown value 'batch'";
        QTest::newRow("option of another page") << "insight cost --delta 3"
                                                << "--delta applies to the offset page, not cost";
        QTest::newRow("no-residual elsewhere") << "insight binary --no-residual"
                                               << "--residual applies to the depth page";
        QTest::newRow("bad scheme") << "insight binary --scheme nope"
                                    << "--scheme: unknown value 'nope'";
        QTest::newRow("bad params") << "insight depth --d 30 --heads 4"
                                    << "--d";
        QTest::newRow("table missing") << "insight offset --table /nonexistent/t.npy"
                                       << "--table: ";
    }

    void errors() {
        QFETCH(QString, line);
        QFETCH(QString, message);
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("never"));
        const Run r = runCli(args(line) << QStringLiteral("--out") << out);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith(QStringLiteral("pe-explorer-cli: error: ") + message),
                 qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY(!QDir(out).exists());
        QCOMPARE(filesIn(tmp.path()), QStringList{}); // no staging folder left either
    }
};

QTEST_GUILESS_MAIN(TestInsightCommand)
#include "tst_insight_command.moc"
