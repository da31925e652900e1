// SPDX-License-Identifier: MIT
// `pe-explorer-cli train`: the files and keys it writes, `trace --weights` reproducing a saved
// one-layer model's attention, lengths a learned table cannot reach, and every error case
// (exit 2, one line, nothing written).
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include "cli_run.h"
#include "lab.h"
#include "npy.h"

using namespace pe;

namespace {

const QString kTiny = QStringLiteral("--d 16 --heads 2 --train-len 8 --steps 30 --batch 8 "
                                     "--eval-samples 16 --vocab 8 --quiet");

} // namespace

class TestTrainCommand : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void writesModelAndRun();
    void traceReproducesTheLab_data();
    void traceReproducesTheLab();
    void learnedTableReportsNoPositions();
    void helpListsTasks();
    void errors_data();
    void errors();
};

void TestTrainCommand::writesModelAndRun() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("run"));
    const Run r = runCli(args(QStringLiteral("train --task shift-2 --scheme t5 --layers 2 ") +
                              kTiny + QStringLiteral(" --eval-lens 8,12,16 --out ") + out));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(filesIn(out),
             (QStringList{QStringLiteral("model.safetensors"), QStringLiteral("run.json")}));
    const QJsonObject j = readJson(out + QStringLiteral("/run.json"));
    QCOMPARE(j[QStringLiteral("options")].toObject()[QStringLiteral("task")].toString(),
             QStringLiteral("shift"));
    QCOMPARE(j[QStringLiteral("options")].toObject()[QStringLiteral("shift")].toInt(), 2);
    QCOMPARE(j[QStringLiteral("options")].toObject()[QStringLiteral("layers")].toInt(), 2);
    const QJsonArray curves = j[QStringLiteral("curves")].toArray();
    QCOMPARE(curves.size(), 3); // --steps 30, a point every 10
    QCOMPARE(curves.last().toObject()[QStringLiteral("step")].toInt(), 30);
    for (const auto& c : curves) {
        const double acc = c.toObject()[QStringLiteral("accuracy")].toDouble(-1);
        QVERIFY(acc >= 0 && acc <= 1);
        QVERIFY(c.toObject()[QStringLiteral("loss")].toDouble() > 0);
    }
    const QJsonObject eval = j[QStringLiteral("eval")].toObject();
    QCOMPARE(eval.keys(),
             (QStringList{QStringLiteral("12"), QStringLiteral("16"), QStringLiteral("8")}));
    for (const auto& v : eval)
        QVERIFY(v.isDouble() && v.toDouble() >= 0 && v.toDouble() <= 1);
    QVERIFY(j[QStringLiteral("seconds")].toDouble() > 0);
    // The model loads back with the same options.
    auto m = lab::Model::load((out + QStringLiteral("/model.safetensors")).toStdString());
    QVERIFY2(m, m ? "" : m.error().message.c_str());
    QCOMPARE(m->options().layers, 2);
    QCOMPARE(m->options().trainLength, 8);
}

void TestTrainCommand::traceReproducesTheLab_data() {
    QTest::addColumn<QString>("scheme");
    for (const char* s : {"t5", "alibi", "rope", "learned", "shaw", "deberta", "txl", "mlp"})
        QTest::newRow(s) << QString::fromLatin1(s);
}

// A saved one-layer model holds E (the sample input's embeddings): `trace --weights` with the
// run's trace_arguments computes the lab's own attention on that input.
void TestTrainCommand::traceReproducesTheLab() {
    QFETCH(QString, scheme);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("run"));
    Run r = runCli(args(QStringLiteral("train --task shift-2 --layers 1 --scheme ") + scheme +
                        QLatin1Char(' ') + kTiny + QStringLiteral(" --clip 4 --out ") + out));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject j = readJson(out + QStringLiteral("/run.json"));
    const QString traceArgs = j[QStringLiteral("trace_arguments")].toString();
    QVERIFY(traceArgs.contains(QStringLiteral("--mask causal")));
    const QString traced = dir.filePath(QStringLiteral("trace"));
    r = runCli(args(QStringLiteral("trace ") + traceArgs + QStringLiteral(" --weights ") + out +
                    QStringLiteral("/model.safetensors --out ") + traced));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const Tensor w = readTensor(traced + QStringLiteral("/weights.npy"));
    auto model = lab::Model::load((out + QStringLiteral("/model.safetensors")).toStdString());
    QVERIFY(model);
    const auto sample = lab::makeBatch(model->options(), 8, 1, 3, 0).tokens;
    const std::vector<float> lab = model->attentionWeights(sample, 0);
    QCOMPARE(w.size(), static_cast<std::int64_t>(lab.size()));
    double worst = 0;
    for (std::size_t k = 0; k < lab.size(); ++k)
        worst = std::max(worst, std::abs(lab[k] - w.at(static_cast<std::int64_t>(k))));
    QVERIFY2(worst <= 1e-5, QByteArray::number(worst).constData());
}

void TestTrainCommand::learnedTableReportsNoPositions() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("run"));
    const Run r = runCli(args(QStringLiteral("train --task copy --scheme learned --layers 1 ") +
                              kTiny + QStringLiteral(" --out ") + out));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject eval =
        readJson(out + QStringLiteral("/run.json"))[QStringLiteral("eval")].toObject();
    QVERIFY(eval[QStringLiteral("8")].isDouble());
    for (const char* len : {"12", "16", "32"}) {
        QVERIFY2(eval.contains(QLatin1String(len)), len);
        QVERIFY2(eval[QLatin1String(len)].isNull(), len);
    }
}

void TestTrainCommand::helpListsTasks() {
    const Run r = runCli({QStringLiteral("train"), QStringLiteral("--help")});
    QCOMPARE(r.exitCode, 0);
    for (const char* t : {"shift-k", "copy", "reverse", "first-token", "sort", "--eval-lens",
                          "--train-len", "--scheme"})
        QVERIFY2(r.out.contains(QLatin1String(t)), t);
}

void TestTrainCommand::errors_data() {
    QTest::addColumn<QString>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("L < 2") << "--train-len 1"
                           << "--train-len";
    QTest::newRow("k >= L") << "--task shift-8 --train-len 8"
                            << "--shift: k must be in [1, L - 1]";
    QTest::newRow("unknown task") << "--task rotate"
                                  << "--task: unknown task 'rotate'";
    QTest::newRow("bad shift") << "--task shift-x"
                               << "--task";
    QTest::newRow("unknown scheme") << "--scheme nope"
                                    << "--scheme: unknown value 'nope'";
    QTest::newRow("heads") << "--d 16 --heads 3"
                           << "--heads";
    QTest::newRow("layers") << "--layers 9"
                            << "--layers";
    QTest::newRow("eval lens") << "--eval-lens 8,x"
                               << "--eval-lens";
    QTest::newRow("eval len 1") << "--eval-lens 1"
                                << "--eval-lens";
    QTest::newRow("steps") << "--steps 0"
                           << "--steps";
    // Terabytes of attention tensors: refused before any allocation, with what to lower.
    QTest::newRow("memory") << "--batch 4096 --train-len 512 --d 1024 --heads 16 --layers 4"
                            << "training needs about";
    QTest::newRow("memory, evaluation") << "--eval-lens 8,8192"
                                        << "the longest --eval-lens";
}

void TestTrainCommand::errors() {
    QFETCH(QString, arguments);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("run"));
    const Run r =
        runCli(args(QStringLiteral("train ") + arguments + QStringLiteral(" --out ") + out));
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(!QDir(out).exists());
    QCOMPARE(filesIn(dir.path()), QStringList{});
}

QTEST_GUILESS_MAIN(TestTrainCommand)
#include "tst_train_command.moc"
