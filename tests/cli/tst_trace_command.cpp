// SPDX-License-Identifier: MIT
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>

#include "cli_run.h"
#include "npy.h"
#include "pooling.h"
#include "safetensors.h"
#include "write_failure.h"

using namespace pe;

namespace {

/** A float32 [rows, cols] tensor with a simple, non-symmetric pattern. */
Tensor pattern(std::int64_t rows, std::int64_t cols, double scale, DType dtype = DType::F32) {
    Tensor t(DType::F64, {rows, cols});
    for (std::int64_t i = 0; i < rows * cols; ++i)
        t.data<double>()[i] = scale * std::sin(0.7 * static_cast<double>(i) + 0.3);
    return t.converted(dtype);
}

} // namespace

class TestTraceCommand : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void helpAndVersion() {
        const Run v = runCli({QStringLiteral("--version")});
        QCOMPARE(v.exitCode, 0);
        QVERIFY2(v.out.contains(QLatin1String("0.")), qPrintable(v.out));
        const Run h = runCli({QStringLiteral("trace"), QStringLiteral("--help")});
        QCOMPARE(h.exitCode, 0);
        for (const char* opt : {"--scheme",
                                "--n",
                                "--d",
                                "--heads",
                                "--norm",
                                "--mask",
                                "--valid-len",
                                "--clip",
                                "--base",
                                "--layout",
                                "--rope-convention",
                                "--rope-scaling",
                                "--rope-scale",
                                "--mlp-features",
                                "--mlp-hidden",
                                "--buckets",
                                "--max-distance",
                                "--unidirectional",
                                "--alibi-mode",
                                "--deberta-terms",
                                "--p2c-convention",
                                "--urpe-bias",
                                "--cls",
                                "--sep",
                                "--seed",
                                "--weights",
                                "--input",
                                "--text",
                                "--backend",
                                "--dtype",
                                "--tensors",
                                "--out",
                                "--dump-weights"})
            QVERIFY2(h.out.contains(QLatin1String(opt)), opt);
        for (const char* word : {"mlp", "mlp.w1", "ntk", "pi"})
            QVERIFY2(h.out.contains(QLatin1String(word)), word);
        // The help points to the documentation in the repository, not to a folder beside it.
        QVERIFY2(h.out.contains(QLatin1String("docs/trace-format.md")), qPrintable(h.out));
        QVERIFY2(!h.out.contains(QLatin1String("shared/")), qPrintable(h.out));
        QVERIFY(QFileInfo::exists(QStringLiteral(PE_SOURCE_DIR "/docs/trace-format.md")));
        QVERIFY(QFileInfo::exists(QStringLiteral(PE_SOURCE_DIR "/docs/encodings.md")));
    }

    // --preset NAME sets a model's configuration; options given as well win, before or after it.
    void presetSetsAModelAndOptionsOverride_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("expected");
        auto s = [](const char* a) { return QString::fromLatin1(a).split(QLatin1Char(' ')); };
        QTest::newRow("bert scheme") << s("--preset bert") << "scheme"
                                     << "learned";
        QTest::newRow("bert rows") << s("--preset bert") << "max-positions"
                                   << "512";
        QTest::newRow("bert cls") << s("--preset bert") << "cls"
                                  << "true";
        QTest::newRow("gpt2 mask") << s("--preset gpt2") << "mask"
                                   << "causal";
        QTest::newRow("t5 buckets") << s("--preset t5 --d 64") << "buckets"
                                    << "32";
        QTest::newRow("deberta buckets") << s("--preset deberta-v3 --d 48") << "deberta-log-buckets"
                                         << "true";
        QTest::newRow("llama pairs") << s("--preset llama --d 64") << "rope-convention"
                                     << "half";
        QTest::newRow("bloom alibi") << s("--preset bloom --d 64") << "alibi-mode"
                                     << "causal";
        QTest::newRow("override after") << s("--preset llama --d 64 --heads 2") << "heads"
                                        << "2";
        QTest::newRow("override before") << s("--d 64 --heads 2 --preset llama") << "d"
                                         << "64";
        QTest::newRow("preset recorded") << s("--preset gpt2 --d 48") << "preset"
                                         << "gpt2";
    }

    void presetSetsAModelAndOptionsOverride() {
        QFETCH(QStringList, args);
        QFETCH(QString, option);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString out = tmp.filePath(QStringLiteral("out"));
        const Run r =
            runCli(QStringList{QStringLiteral("trace"), QStringLiteral("--n"), QStringLiteral("4"),
                               QStringLiteral("--tensors"), QStringLiteral("out")} +
                   args + QStringList{QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile mf(out + QStringLiteral("/manifest.json"));
        QVERIFY(mf.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(mf.readAll())
                                  .object()
                                  .value(QLatin1String("options"))
                                  .toObject();
        const QJsonValue v = o.value(option);
        const QString got = v.isBool()     ? QString::fromLatin1(v.toBool() ? "true" : "false")
                            : v.isDouble() ? QString::number(v.toDouble())
                                           : v.toString();
        QCOMPARE(got, expected);
    }

    void unknownPresetExits2() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("out"));
        const Run r = runCli({QStringLiteral("trace"), QStringLiteral("--preset"),
                              QStringLiteral("gpt-3"), QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith(QLatin1String("pe-explorer-cli: error: --preset")),
                 qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(out));
    }

    // Issue 13: the help once said the log-bucket span was half of --deberta-buckets. The code
    // (like HF DeBERTa-v2, pos_ebd_size = position_buckets) uses span = buckets: the relative
    // table has 2·buckets rows. The help must say so, and the dumped table must agree.
    void debertaLogBucketSpanIsBuckets() {
        const Run h = runCli({QStringLiteral("trace"), QStringLiteral("--help")});
        QCOMPARE(h.exitCode, 0);
        QVERIFY2(h.out.contains(QLatin1String("span = --deberta-buckets (")), qPrintable(h.out));
        QVERIFY2(!h.out.contains(QLatin1String("--deberta-buckets/2")), qPrintable(h.out));

        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString dump = tmp.filePath(QStringLiteral("dump.safetensors"));
        const Run r =
            runCli({QStringLiteral("trace"), QStringLiteral("--scheme"), QStringLiteral("deberta"),
                    QStringLiteral("--n"), QStringLiteral("6"), QStringLiteral("--d"),
                    QStringLiteral("8"), QStringLiteral("--heads"), QStringLiteral("2"),
                    QStringLiteral("--deberta-log-buckets"), QStringLiteral("--deberta-buckets"),
                    QStringLiteral("8"), QStringLiteral("--deberta-max-position"),
                    QStringLiteral("16"), QStringLiteral("--dump-weights"), dump,
                    QStringLiteral("--out"), tmp.filePath(QStringLiteral("out"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto dumped = readSafetensors(dump.toStdString());
        QVERIFY2(dumped.ok(), dumped.ok() ? "" : dumped.error().message.c_str());
        bool found = false;
        for (const auto& [name, t] : *dumped) {
            if (name != "deberta.rel")
                continue;
            found = true;
            QCOMPARE(t.shape(), (std::vector<std::int64_t>{16, 8})); // [2 · 8 buckets, d]
        }
        QVERIFY(found);
    }

    void writesEveryTensor_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<int>("seqLen");
        QTest::addColumn<QString>("dtype");
        const QStringList common{
            QStringLiteral("E"),       QStringLiteral("X"),        QStringLiteral("Q"),
            QStringLiteral("K"),       QStringLiteral("V"),        QStringLiteral("logits"),
            QStringLiteral("weights"), QStringLiteral("head_out"), QStringLiteral("out")};
        QTest::newRow("t5 cls") << QStringList{QStringLiteral("--scheme"), QStringLiteral("t5"),
                                               QStringLiteral("--n"),      QStringLiteral("5"),
                                               QStringLiteral("--d"),      QStringLiteral("8"),
                                               QStringLiteral("--heads"),  QStringLiteral("2"),
                                               QStringLiteral("--cls")}
                                << common + QStringList{QStringLiteral("rel_index"),
                                                        QStringLiteral("bias")}
                                << 6 << QStringLiteral("<f4");
        QTest::newRow("sinusoidal f64 cls sep")
            << QStringList{QStringLiteral("--scheme"), QStringLiteral("sinusoidal"),
                           QStringLiteral("--n"),      QStringLiteral("4"),
                           QStringLiteral("--d"),      QStringLiteral("6"),
                           QStringLiteral("--heads"),  QStringLiteral("3"),
                           QStringLiteral("--cls"),    QStringLiteral("--sep"),
                           QStringLiteral("--dtype"),  QStringLiteral("float64")}
            << common + QStringList{QStringLiteral("P")} << 6 << QStringLiteral("<f8");
        QTest::newRow("deberta c2p only")
            << QStringList{QStringLiteral("--scheme"),
                           QStringLiteral("deberta"),
                           QStringLiteral("--n"),
                           QStringLiteral("3"),
                           QStringLiteral("--d"),
                           QStringLiteral("8"),
                           QStringLiteral("--heads"),
                           QStringLiteral("2"),
                           QStringLiteral("--clip"),
                           QStringLiteral("2"),
                           QStringLiteral("--deberta-terms"),
                           QStringLiteral("c2p")}
            << common + QStringList{QStringLiteral("rel_index"), QStringLiteral("c2c"),
                                    QStringLiteral("c2p")}
            << 3 << QStringLiteral("<f4");
        QTest::newRow("shaw") << QStringList{QStringLiteral("--scheme"), QStringLiteral("shaw"),
                                             QStringLiteral("--n"),      QStringLiteral("4"),
                                             QStringLiteral("--d"),      QStringLiteral("8"),
                                             QStringLiteral("--heads"),  QStringLiteral("2"),
                                             QStringLiteral("--clip"),   QStringLiteral("2")}
                              << common + QStringList{QStringLiteral("rel_index"),
                                                      QStringLiteral("shaw_k_term"),
                                                      QStringLiteral("shaw_v_term")}
                              << 4 << QStringLiteral("<f4");
        QTest::newRow("mlp sep") << QStringList{QStringLiteral("--scheme"),
                                                QStringLiteral("mlp"),
                                                QStringLiteral("--n"),
                                                QStringLiteral("4"),
                                                QStringLiteral("--d"),
                                                QStringLiteral("8"),
                                                QStringLiteral("--heads"),
                                                QStringLiteral("2"),
                                                QStringLiteral("--mlp-features"),
                                                QStringLiteral("3"),
                                                QStringLiteral("--mlp-hidden"),
                                                QStringLiteral("5"),
                                                QStringLiteral("--sep")}
                                 << common + QStringList{QStringLiteral("P")} << 5
                                 << QStringLiteral("<f4");
    }
    void writesEveryTensor() {
        QFETCH(QStringList, args);
        QFETCH(QStringList, names);
        QFETCH(int, seqLen);
        QFETCH(QString, dtype);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString out = tmp.filePath(QStringLiteral("trace"));
        const Run r = runCli(QStringList{QStringLiteral("trace")} + args +
                             QStringList{QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));

        QStringList expectedFiles{QStringLiteral("manifest.json")};
        for (const QString& n : names)
            expectedFiles << n + QStringLiteral(".npy");
        expectedFiles.sort();
        QCOMPARE(filesIn(out), expectedFiles);
        QCOMPARE(filesIn(tmp.path()), QStringList{QStringLiteral("trace")}); // no temp left

        QFile mf(out + QStringLiteral("/manifest.json"));
        QVERIFY(mf.open(QIODevice::ReadOnly));
        const QJsonObject m = QJsonDocument::fromJson(mf.readAll()).object();
        QVERIFY(m.value(QLatin1String("version")).isString());
        QVERIFY(m.value(QLatin1String("backend")).isString());
        QCOMPARE(m.value(QLatin1String("backend")).toString(), QStringLiteral("cpu"));
        QVERIFY(!m.value(QLatin1String("device")).toString().isEmpty());
        const QJsonObject timings = m.value(QLatin1String("timings_ms")).toObject();
        QVERIFY(timings.value(QLatin1String("compute")).isDouble());
        QVERIFY(timings.value(QLatin1String("write")).isDouble());
        QVERIFY(timings.value(QLatin1String("compute")).toDouble() >= 0);
        const QJsonObject o = m.value(QLatin1String("options")).toObject();
        for (const char* key : {"n", "d", "heads", "clip", "buckets", "max-distance", "seed",
                                "rope-scale", "mlp-features", "mlp-hidden"})
            QVERIFY2(o.value(QLatin1String(key)).isDouble(), key);
        for (const char* key :
             {"scheme", "norm", "mask", "layout", "rope-convention", "rope-scaling", "alibi-mode",
              "p2c-convention", "urpe-bias", "backend", "dtype"})
            QVERIFY2(o.value(QLatin1String(key)).isString(), key);
        for (const char* key : {"cls", "sep", "unidirectional"})
            QVERIFY2(o.value(QLatin1String(key)).isBool(), key);
        QVERIFY(o.value(QLatin1String("base")).isDouble());
        QCOMPARE(o.value(QLatin1String("base")).toDouble(), 10000.0);
        QVERIFY(o.value(QLatin1String("deberta-terms")).isArray());
        QVERIFY(o.value(QLatin1String("valid-len")).isNull());
        QVERIFY(o.value(QLatin1String("weights")).isNull());
        QCOMPARE(o.value(QLatin1String("cls")).toBool(), args.contains(QStringLiteral("--cls")));
        QCOMPARE(o.value(QLatin1String("dtype")).toString(), dtype == QLatin1String("<f8")
                                                                 ? QStringLiteral("float64")
                                                                 : QStringLiteral("float32"));

        const QJsonArray tensors = m.value(QLatin1String("tensors")).toArray();
        QCOMPARE(tensors.size(), names.size());
        const int d = o.value(QLatin1String("d")).toInt();
        const int heads = o.value(QLatin1String("heads")).toInt();
        for (const auto& v : tensors) {
            const QJsonObject e = v.toObject();
            const QString name = e.value(QLatin1String("name")).toString();
            QVERIFY2(names.contains(name), qPrintable(name));
            QCOMPARE(e.value(QLatin1String("file")).toString(), name + QStringLiteral(".npy"));
            const Tensor t = readTensor(out + QLatin1Char('/') + name + QStringLiteral(".npy"));
            QList<qint64> shape;
            for (const auto& s : e.value(QLatin1String("shape")).toArray())
                shape << s.toInteger();
            QCOMPARE(shape, QList<qint64>(t.shape().begin(), t.shape().end()));
            QCOMPARE(e.value(QLatin1String("dtype")).toString(),
                     QString::fromLatin1(npyDescr(t.dtype())));
            std::vector<std::int64_t> want;
            if (name == QLatin1String("E") || name == QLatin1String("P") ||
                name == QLatin1String("X") || name == QLatin1String("out"))
                want = {seqLen, d};
            else if (name == QLatin1String("rel_index"))
                want = {seqLen, seqLen};
            else if (name == QLatin1String("Q") || name == QLatin1String("K") ||
                     name == QLatin1String("V") || name == QLatin1String("head_out") ||
                     name == QLatin1String("shaw_v_term"))
                want = {heads, seqLen, d / heads};
            else
                want = {heads, seqLen, seqLen};
            QCOMPARE(t.shape(), want);
            const QString wantType =
                name == QLatin1String("rel_index") ? QStringLiteral("<i4") : dtype;
            QCOMPARE(QString::fromLatin1(npyDescr(t.dtype())), wantType);
        }
    }

    // The engine computes into the mapped .npy files (a pooled run's O(n·d) ones; for float64
    // or another backend they are copied or written): the bytes are those of the ordinary
    // writer.
    void mappedOutputMatchesPlainWriter_data() {
        QTest::addColumn<QString>("args");
        QTest::newRow("none") << QStringLiteral("--scheme none --n 70 --d 32 --heads 4");
        QTest::newRow("t5 cls sep") << QStringLiteral("--scheme t5 --n 45 --d 16 --heads 2 --cls "
                                                      "--sep");
        QTest::newRow("deberta") << QStringLiteral("--scheme deberta --n 33 --d 16 --heads 2");
        QTest::newRow("shaw subset") << QStringLiteral("--scheme shaw --n 40 --d 16 --heads 2 "
                                                       "--tensors weights,shaw_v_term,E");
        QTest::newRow("sinusoidal float64")
            << QStringLiteral("--scheme sinusoidal --n 30 --d 16 --heads 2 --dtype float64");
        QTest::newRow("txl pooled") << QStringLiteral("--scheme txl --n 50 --d 16 --heads 2 "
                                                      "--pool 7");
        QTest::newRow("t5 pooled subset")
            << QStringLiteral("--scheme t5 --n 40 --d 16 --heads 2 --pool 8 --tensors "
                              "logits,Q,out");
    }
    void mappedOutputMatchesPlainWriter() {
        QFETCH(QString, args);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString mapped = tmp.filePath(QStringLiteral("mapped"));
        const QString plain = tmp.filePath(QStringLiteral("plain"));
        const QStringList common =
            QStringList{QStringLiteral("trace")} + args.split(QLatin1Char(' '));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("PE_TRACE_NO_MAP"));
        Run r = runCli(common + QStringList{QStringLiteral("--out"), mapped}, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        env.insert(QStringLiteral("PE_TRACE_NO_MAP"), QStringLiteral("1"));
        r = runCli(common + QStringList{QStringLiteral("--out"), plain}, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList files = filesIn(plain);
        QCOMPARE(filesIn(mapped), files);
        QVERIFY(files.size() > 2);
        for (const QString& f : files) {
            if (f == QLatin1String("manifest.json"))
                continue; // its timings differ
            QFile a(mapped + QLatin1Char('/') + f), b(plain + QLatin1Char('/') + f);
            QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
            QVERIFY2(a.readAll() == b.readAll(), qPrintable(f));
        }
        QCOMPARE(filesIn(tmp.path()),
                 (QStringList{QStringLiteral("mapped"), QStringLiteral("plain")}));
    }

    void tensorsSubsetAndExistingFolder() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString out = tmp.filePath(QStringLiteral("o"));
        QVERIFY(QDir().mkpath(out));
        QFile keep(out + QStringLiteral("/keep.txt"));
        QVERIFY(keep.open(QIODevice::WriteOnly));
        keep.write("x");
        keep.close();
        const Run r = runCli(
            {QStringLiteral("trace"), QStringLiteral("--scheme"), QStringLiteral("rope"),
             QStringLiteral("--n"), QStringLiteral("3"), QStringLiteral("--d"), QStringLiteral("8"),
             QStringLiteral("--tensors"), QStringLiteral("Q,out"), QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(out),
                 (QStringList{QStringLiteral("Q.npy"), QStringLiteral("keep.txt"),
                              QStringLiteral("manifest.json"), QStringLiteral("out.npy")}));
        QCOMPARE(filesIn(tmp.path()), QStringList{QStringLiteral("o")});
    }

    void errors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("file"); // a fixture written before the run: "" or a kind
        QTest::addColumn<QString>("needle");
        auto s = [](const char* a) { return QString::fromLatin1(a).split(QLatin1Char(' ')); };
        QTest::newRow("d not divisible by heads")
            << s("--scheme none --d 10 --heads 4") << QString() << QStringLiteral("--heads");
        QTest::newRow("odd d concat") << s("--scheme sinusoidal --layout concat --d 7 --heads 1")
                                      << QString() << QStringLiteral("--layout");
        QTest::newRow("unknown scheme")
            << s("--scheme foo") << QString() << QStringLiteral("--scheme");
        QTest::newRow("missing scheme") << s("--n 4") << QString() << QStringLiteral("--scheme");
        QTest::newRow("unknown norm")
            << s("--scheme none --norm bar") << QString() << QStringLiteral("--norm");
        QTest::newRow("negative clip")
            << s("--scheme shaw --clip -1") << QString() << QStringLiteral("--clip");
        QTest::newRow("odd buckets")
            << s("--scheme t5 --buckets 31") << QString() << QStringLiteral("--buckets");
        QTest::newRow("valid-len > n")
            << s("--scheme none --n 4 --valid-len 9") << QString() << QStringLiteral("--valid-len");
        QTest::newRow("alibi causal without mask") << s("--scheme alibi --alibi-mode causal")
                                                   << QString() << QStringLiteral("--alibi-mode");
        QTest::newRow("unknown tensors name")
            << s("--scheme none --tensors Q,foo") << QString() << QStringLiteral("foo");
        QTest::newRow("non-integer n")
            << s("--scheme none --n abc") << QString() << QStringLiteral("--n");
        QTest::newRow("too large for memory") << s("--scheme t5 --n 1000000 --d 512 --heads 8")
                                              << QString() << QStringLiteral("memory");
        QTest::newRow("learned past table") << s("--scheme learned --n 8 --max-positions 4")
                                            << QString() << QStringLiteral("learned.table");
        QTest::newRow("weights wrong shape") << s("--scheme none --d 8 --heads 2")
                                             << QStringLiteral("shape") << QStringLiteral("W_q");
        QTest::newRow("weights wrong dtype") << s("--scheme none --d 8 --heads 2")
                                             << QStringLiteral("dtype") << QStringLiteral("F64");
        QTest::newRow("weights unknown name") << s("--scheme none --d 8 --heads 2")
                                              << QStringLiteral("unknown") << QStringLiteral("W_z");
        QTest::newRow("weights truncated")
            << s("--scheme none --d 8 --heads 2") << QStringLiteral("truncated")
            << QStringLiteral("w.safetensors");
        QTest::newRow("input malformed npy")
            << s("--scheme none --d 8 --heads 2") << QStringLiteral("badnpy")
            << QStringLiteral("--input");
        QTest::newRow("negative threads")
            << s("--scheme none --threads -1") << QString() << QStringLiteral("--threads");
        QTest::newRow("mlp features 0")
            << s("--scheme mlp --mlp-features 0") << QString() << QStringLiteral("--mlp-features");
        QTest::newRow("mlp hidden 5000")
            << s("--scheme mlp --mlp-hidden 5000") << QString() << QStringLiteral("--mlp-hidden");
        QTest::newRow("rope scale 0") << s("--scheme rope --rope-scaling pi --rope-scale 0")
                                      << QString() << QStringLiteral("--rope-scale");
        QTest::newRow("rope scale -1") << s("--scheme rope --rope-scaling ntk --rope-scale -1")
                                       << QString() << QStringLiteral("--rope-scale");
        QTest::newRow("unknown rope scaling") << s("--scheme rope --rope-scaling yarn") << QString()
                                              << QStringLiteral("--rope-scaling");
        QTest::newRow("ntk with 2 rotated dims")
            << s("--scheme rope --rope-scaling ntk --rope-scale 2 --rope-dims 2") << QString()
            << QStringLiteral("--rope-scaling ntk");
        QTest::newRow("mlp weight wrong shape")
            << s("--scheme mlp --d 8 --heads 2") << QStringLiteral("mlpshape")
            << QStringLiteral("mlp.w2");
        QTest::newRow("input wrong width")
            << s("--scheme none --d 8 --heads 2") << QStringLiteral("widenpy")
            << QStringLiteral("--input");
    }
    void errors() {
        QFETCH(QStringList, args);
        QFETCH(QString, file);
        QFETCH(QString, needle);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString wpath = tmp.filePath(QStringLiteral("w.safetensors"));
        const QString npath = tmp.filePath(QStringLiteral("e.npy"));
        if (file == QLatin1String("shape") || file == QLatin1String("dtype") ||
            file == QLatin1String("unknown") || file == QLatin1String("truncated") ||
            file == QLatin1String("mlpshape")) {
            NamedTensors w;
            if (file == QLatin1String("mlpshape")) // [H, d] = [64, 8] expected
                w = {{"mlp.w2", pattern(8, 64, 0.3)}};
            else if (file == QLatin1String("shape"))
                w = {{"W_k", pattern(8, 8, 0.3)}, {"W_q", pattern(4, 8, 0.3)}};
            else if (file == QLatin1String("dtype"))
                w = {{"W_q", pattern(8, 8, 0.3, DType::F64)}};
            else if (file == QLatin1String("unknown"))
                w = {{"W_z", pattern(8, 8, 0.3)}};
            else
                w = {{"W_q", pattern(8, 8, 0.3)}, {"W_k", pattern(8, 8, 0.3)}};
            auto bytes = encodeSafetensors(w);
            QVERIFY(bytes.ok());
            if (file == QLatin1String("truncated"))
                bytes->resize(bytes->size() - 10);
            QFile f(wpath);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes->data(), static_cast<qint64>(bytes->size()));
            f.close();
            args << QStringLiteral("--weights") << wpath;
        } else if (file == QLatin1String("badnpy")) {
            QFile f(npath);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("\x93NUMPY\x01\x00\x10\x00{'descr': 'oops   \n");
            f.close();
            args << QStringLiteral("--input") << npath;
        } else if (file == QLatin1String("widenpy")) {
            QVERIFY(writeNpy(npath.toStdString(), pattern(3, 9, 1.0)).ok());
            args << QStringLiteral("--input") << npath;
        }
        const QString out = tmp.filePath(QStringLiteral("out"));
        const Run r = runCli(QStringList{QStringLiteral("trace")} + args +
                             QStringList{QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 2);
        const QString err = r.err.trimmed();
        QVERIFY2(!err.isEmpty() && !err.contains(QLatin1Char('\n')), qPrintable(r.err));
        QVERIFY2(err.contains(needle), qPrintable(err));
        QVERIFY(!QFileInfo::exists(out));
        for (const QString& f : filesIn(tmp.path()))
            QVERIFY2(!f.startsWith(QLatin1String(".out")), qPrintable(f)); // no temp folder left
    }

    // The disk fills up (a file size limit on the child: writes fail with EFBIG as with ENOSPC)
    // or the folder is read-only: an error exit with one line saying why, nothing left in --out's
    // folder.
    // The files are mapped and their room reserved before the computation ("full disk": the
    // first file fails; "disk full midway": E, P and X fit, logits does not); PE_TRACE_NO_MAP=1
    // writes them after it, the ordinary way. Either way the same one-line error.
    void writeFailureLeavesNothing_data() {
        QTest::addColumn<bool>("fullDisk");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<int>("sizeLimit");
        QTest::addColumn<bool>("mapped");
        QTest::newRow("full disk") << true << 1 << 4096 << true; // the run failed while writing
        QTest::newRow("disk full midway") << true << 1 << 40000 << true;
        QTest::newRow("full disk, not mapped") << true << 1 << 4096 << false;
        QTest::newRow("disk full midway, not mapped") << true << 1 << 40000 << false;
        QTest::newRow("read-only folder") << false << 2 << 0 << true; // refused up front
    }
    void writeFailureLeavesNothing() {
        QFETCH(bool, fullDisk);
        QFETCH(int, exitCode);
        QFETCH(int, sizeLimit);
        QFETCH(bool, mapped);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (!mapped)
            env.insert(QStringLiteral("PE_TRACE_NO_MAP"), QStringLiteral("1"));
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString folder = fullDisk ? tmp.path() : readOnlyFolder(tmp.path());
        const QStringList before = filesIn(folder);
        const QString out = QDir(folder).filePath(QStringLiteral("out"));
        const QStringList args =
            QStringLiteral("trace --scheme sinusoidal --n 64 --d 64 --heads 4 --out")
                .split(QLatin1Char(' '))
            << out;
        const auto limit = static_cast<rlim_t>(sizeLimit);
        const Run r = fullDisk ? runCli(args, env, [limit] { limitFileSizeInChild(limit); })
                               : runCli(args, env);
        QCOMPARE(r.exitCode, exitCode);
        const QString err = r.err.trimmed();
        QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(r.err));
        QVERIFY2(err.startsWith(QLatin1String("pe-explorer-cli: error: ")), qPrintable(err));
        QVERIFY2(err.contains(fullDisk ? QStringLiteral("File too large")
                                       : QStringLiteral("cannot create")),
                 qPrintable(err));
        QVERIFY(!QFileInfo::exists(out));
        if (folder != QLatin1String("/proc")) // as root /proc stands in: it lists processes
            QCOMPARE(filesIn(folder), before);
    }

    // Every option reaches the computation: adding it changes the tensor it governs.
    void optionChangesResult_data() {
        QTest::addColumn<QString>("baseArgs");
        QTest::addColumn<QString>("extra");
        QTest::addColumn<QString>("tensor");
        auto row = [](const char* name, const char* base, const char* extra, const char* tensor) {
            QTest::newRow(name) << QString::fromLatin1(base) << QString::fromLatin1(extra)
                                << QString::fromLatin1(tensor);
        };
        row("norm", "--scheme none", "--norm exp", "weights");
        row("mask", "--scheme none", "--mask causal", "weights");
        row("valid-len", "--scheme none", "--valid-len 3", "weights");
        row("seed", "--scheme none", "--seed 5", "E");
        row("clip", "--scheme shaw", "--clip 1", "rel_index");
        row("base", "--scheme sinusoidal", "--base 100", "P");
        row("layout concat", "--scheme sinusoidal", "--layout concat", "P");
        row("layout t2t", "--scheme sinusoidal", "--layout t2t", "P");
        row("rope-convention", "--scheme rope", "--rope-convention half", "Q");
        row("rope base", "--scheme rope", "--base 100", "Q");
        row("rope-dims", "--scheme rope", "--rope-dims 2", "Q");
        row("buckets", "--scheme t5", "--buckets 8", "rel_index");
        row("max-distance", "--scheme t5", "--max-distance 20", "rel_index");
        row("unidirectional", "--scheme t5", "--unidirectional", "rel_index");
        row("alibi-mode", "--scheme alibi --mask causal", "--alibi-mode causal", "bias");
        row("deberta-terms", "--scheme deberta", "--deberta-terms c2p", "logits");
        row("p2c-convention", "--scheme deberta", "--p2c-convention paper", "p2c");
        row("deberta-log-buckets", "--scheme deberta", "--deberta-log-buckets", "rel_index");
        row("clamp-len", "--scheme txl", "--clamp-len 2", "txl_bd");
        row("urpe-bias", "--scheme urpe", "--urpe-bias t5", "logits");
        row("sep", "--scheme sinusoidal --cls", "--sep", "P");
        row("rope-scaling pi", "--scheme rope --rope-scale 2", "--rope-scaling pi", "Q");
        row("rope-scaling ntk", "--scheme rope --rope-scale 2", "--rope-scaling ntk", "Q");
        row("rope-scale", "--scheme rope --rope-scaling pi", "--rope-scale 3", "Q");
        row("mlp-features", "--scheme mlp", "--mlp-features 4", "P");
        row("mlp-hidden", "--scheme mlp", "--mlp-hidden 32", "P");
        row("mlp base", "--scheme mlp", "--base 100", "P");
        row("mlp seed", "--scheme mlp", "--seed 3", "P");
    }
    void optionChangesResult() {
        QFETCH(QString, baseArgs);
        QFETCH(QString, extra);
        QFETCH(QString, tensor);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QStringList common =
            QStringList{QStringLiteral("trace"), QStringLiteral("--n"), QStringLiteral("12"),
                        QStringLiteral("--d"),   QStringLiteral("16"),  QStringLiteral("--heads"),
                        QStringLiteral("2")} +
            baseArgs.split(QLatin1Char(' '));
        const QString a = tmp.filePath(QStringLiteral("a"));
        const QString b = tmp.filePath(QStringLiteral("b"));
        Run r = runCli(common + QStringList{QStringLiteral("--out"), a});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli(common + extra.split(QLatin1Char(' ')) +
                   QStringList{QStringLiteral("--out"), b});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString file = QLatin1Char('/') + tensor + QStringLiteral(".npy");
        const Tensor ta = readTensor(a + file);
        const Tensor tb = readTensor(b + file);
        QVERIFY(!ta.empty() && !tb.empty());
        bool differs = ta.shape() != tb.shape();
        for (std::int64_t i = 0; !differs && i < ta.size(); ++i)
            differs = ta.at(i) != tb.at(i);
        QVERIFY2(differs, qPrintable(extra));
    }

    void weightsReplaceWq() {
        constexpr int n = 5, d = 8, heads = 2, dh = d / heads;
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const Tensor wq = pattern(d, d, 0.4);
        const QString wpath = tmp.filePath(QStringLiteral("w.safetensors"));
        // shaw.w_k is known but unused by --scheme none: it must be ignored.
        QVERIFY(
            writeSafetensors(wpath.toStdString(), {{"W_q", wq}, {"shaw.w_k", pattern(3, 3, 1.0)}})
                .ok());
        const QStringList base{
            QStringLiteral("trace"), QStringLiteral("--scheme"), QStringLiteral("none"),
            QStringLiteral("--n"),   QString::number(n),         QStringLiteral("--d"),
            QString::number(d),      QStringLiteral("--heads"),  QString::number(heads)};
        const QString outW = tmp.filePath(QStringLiteral("with"));
        const QString outG = tmp.filePath(QStringLiteral("generated"));
        Run r = runCli(
            base + QStringList{QStringLiteral("--weights"), wpath, QStringLiteral("--out"), outW});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli(base + QStringList{QStringLiteral("--out"), outG});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));

        const Tensor X = readTensor(outW + QStringLiteral("/X.npy"));
        const Tensor Q = readTensor(outW + QStringLiteral("/Q.npy"));
        const Tensor Qg = readTensor(outG + QStringLiteral("/Q.npy"));
        QCOMPARE(X.shape(), (std::vector<std::int64_t>{n, d}));
        QCOMPARE(Q.shape(), (std::vector<std::int64_t>{heads, n, dh}));
        double maxDiffFromGenerated = 0;
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < n; ++i)
                for (int c = 0; c < dh; ++c) {
                    double want = 0;
                    for (int k = 0; k < d; ++k)
                        want += X.at(i * d + k) * wq.at(k * d + h * dh + c);
                    const std::int64_t at = (h * n + i) * dh + c;
                    QVERIFY2(std::abs(Q.at(at) - want) <= 1e-5 * std::max(1.0, std::abs(want)),
                             qPrintable(QStringLiteral("Q[%1,%2,%3] = %4, X W_q = %5")
                                            .arg(h)
                                            .arg(i)
                                            .arg(c)
                                            .arg(Q.at(at))
                                            .arg(want)));
                    maxDiffFromGenerated =
                        std::max(maxDiffFromGenerated, std::abs(Q.at(at) - Qg.at(at)));
                }
        QVERIFY(maxDiffFromGenerated > 1e-3); // the given W_q really was used
        // X itself does not depend on W_q.
        const Tensor Xg = readTensor(outG + QStringLiteral("/X.npy"));
        QCOMPARE(std::memcmp(X.raw(), Xg.raw(), X.byteSize()), 0);
    }

    void inputAndDumpedWeightsReproduce() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString epath = tmp.filePath(QStringLiteral("e.npy"));
        const Tensor E = pattern(7, 8, 1.0);
        QVERIFY(writeNpy(epath.toStdString(), E).ok());
        const QString dump = tmp.filePath(QStringLiteral("dump.safetensors"));
        const QString out1 = tmp.filePath(QStringLiteral("one"));
        const QStringList common{QStringLiteral("trace"), QStringLiteral("--scheme"),
                                 QStringLiteral("txl"),   QStringLiteral("--d"),
                                 QStringLiteral("8"),     QStringLiteral("--heads"),
                                 QStringLiteral("2"),     QStringLiteral("--cls")};
        Run r =
            runCli(common + QStringList{QStringLiteral("--input"), epath, QStringLiteral("--seed"),
                                        QStringLiteral("3"), QStringLiteral("--dump-weights"), dump,
                                        QStringLiteral("--out"), out1});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // --input overrides --n: 7 tokens plus [CLS].
        const Tensor E1 = readTensor(out1 + QStringLiteral("/E.npy"));
        QCOMPARE(E1.shape(), (std::vector<std::int64_t>{8, 8}));
        for (std::int64_t i = 0; i < E.size(); ++i)
            QCOMPARE(E1.at(8 + i), E.at(i));

        const auto dumped = readSafetensors(dump.toStdString());
        QVERIFY2(dumped.ok(), dumped.ok() ? "" : dumped.error().message.c_str());
        QStringList names;
        for (const auto& [name, t] : *dumped)
            names << QString::fromStdString(name);
        QCOMPARE(names,
                 (QStringList{QStringLiteral("E"), QStringLiteral("W_q"), QStringLiteral("W_k"),
                              QStringLiteral("W_v"), QStringLiteral("W_o"),
                              QStringLiteral("special.cls"), QStringLiteral("txl.u"),
                              QStringLiteral("txl.v"), QStringLiteral("txl.W_r")}));

        // Another seed, every weight from the dump: the same trace.
        const QString out2 = tmp.filePath(QStringLiteral("two"));
        r = runCli(common + QStringList{QStringLiteral("--weights"), dump, QStringLiteral("--seed"),
                                        QStringLiteral("99"), QStringLiteral("--out"), out2});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const char* name : {"E", "Q", "logits", "txl_bd", "out"}) {
            const Tensor a =
                readTensor(out1 + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".npy"));
            const Tensor b =
                readTensor(out2 + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".npy"));
            QCOMPARE(a.shape(), b.shape());
            for (std::int64_t i = 0; i < a.size(); ++i)
                QVERIFY2(std::abs(a.at(i) - b.at(i)) <= 1e-5 * std::max(1.0, std::abs(a.at(i))),
                         name);
        }
    }

    void textSetsTokenCount() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString out = tmp.filePath(QStringLiteral("t"));
        const Run r =
            runCli({QStringLiteral("trace"), QStringLiteral("--scheme"), QStringLiteral("alibi"),
                    QStringLiteral("--d"), QStringLiteral("8"), QStringLiteral("--text"),
                    QStringLiteral("the cat sat ."), QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(readTensor(out + QStringLiteral("/E.npy")).shape(),
                 (std::vector<std::int64_t>{4, 8}));
        QFile mf(out + QStringLiteral("/manifest.json"));
        QVERIFY(mf.open(QIODevice::ReadOnly));
        const QJsonObject m = QJsonDocument::fromJson(mf.readAll()).object();
        QCOMPARE(m.value(QLatin1String("options")).toObject().value(QLatin1String("n")).toInt(), 4);
        QCOMPARE(m.value(QLatin1String("tokens")).toArray().toVariantList(),
                 (QVariantList{QStringLiteral("the"), QStringLiteral("cat"), QStringLiteral("sat"),
                               QStringLiteral(".")}));
    }

    // (extension) --pool R: logits/weights [heads, R', R'] equal to pooling the full trace, the
    // O(n·d) tensors whole, no other n×n tensor, and the manifest says so.
    void pooledTrace() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QStringList common{
            QStringLiteral("trace"),  QStringLiteral("--scheme"), QStringLiteral("t5"),
            QStringLiteral("--n"),    QStringLiteral("29"),       QStringLiteral("--d"),
            QStringLiteral("16"),     QStringLiteral("--heads"),  QStringLiteral("2"),
            QStringLiteral("--mask"), QStringLiteral("causal"),   QStringLiteral("--cls")};
        const QString full = tmp.filePath(QStringLiteral("full"));
        const QString pooled = tmp.filePath(QStringLiteral("pooled"));
        Run r = runCli(common + QStringList{QStringLiteral("--out"), full});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli(common + QStringList{QStringLiteral("--pool"), QStringLiteral("8"),
                                        QStringLiteral("--pool-mode"), QStringLiteral("max"),
                                        QStringLiteral("--out"), pooled});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(filesIn(pooled),
                 (QStringList{QStringLiteral("E.npy"), QStringLiteral("K.npy"),
                              QStringLiteral("Q.npy"), QStringLiteral("V.npy"),
                              QStringLiteral("X.npy"), QStringLiteral("head_out.npy"),
                              QStringLiteral("logits.npy"), QStringLiteral("manifest.json"),
                              QStringLiteral("out.npy"), QStringLiteral("weights.npy")}));
        for (const char* name : {"logits", "weights"}) {
            const QString file = QStringLiteral("/%1.npy").arg(QLatin1String(name));
            const Tensor got = readTensor(pooled + file);
            QCOMPARE(got.shape(), (std::vector<std::int64_t>{2, 8, 8}));
            const Tensor want =
                poolHeads(readTensor(full + file), PoolRegion{0, 30, 0, 30}, 8, PoolMode::Max);
            for (std::int64_t k = 0; k < want.size(); ++k)
                QVERIFY2(want.at(k) == got.at(k) ||
                             std::abs(want.at(k) - got.at(k)) < 1e-5 * (1 + std::abs(want.at(k))),
                         name);
        }
        QCOMPARE(readTensor(pooled + QStringLiteral("/out.npy")).shape(),
                 (std::vector<std::int64_t>{30, 16}));
        QFile mf(pooled + QStringLiteral("/manifest.json"));
        QVERIFY(mf.open(QIODevice::ReadOnly));
        const QJsonObject m = QJsonDocument::fromJson(mf.readAll()).object();
        const QJsonObject info = m.value(QLatin1String("pooled")).toObject();
        QCOMPARE(info.value(QLatin1String("resolution")).toInt(), 8);
        QCOMPARE(info.value(QLatin1String("mode")).toString(), QStringLiteral("max"));
        QCOMPARE(info.value(QLatin1String("seq_len")).toInt(), 30);
        QCOMPARE(m.value(QLatin1String("options")).toObject().value(QLatin1String("pool")).toInt(),
                 8);
        // Without --pool the manifest has no such key (the contract is unchanged).
        QFile ff(full + QStringLiteral("/manifest.json"));
        QVERIFY(ff.open(QIODevice::ReadOnly));
        const QJsonObject fm = QJsonDocument::fromJson(ff.readAll()).object();
        QVERIFY(!fm.contains(QLatin1String("pooled")));
        QVERIFY(!fm.value(QLatin1String("options")).toObject().contains(QLatin1String("pool")));
    }

    void threadCountIsSettable() {
        // --threads N runs the fast engine on N threads: the same tensors, the manifest says so.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QStringList common{
            QStringLiteral("trace"), QStringLiteral("--scheme"), QStringLiteral("shaw"),
            QStringLiteral("--n"),   QStringLiteral("70"),       QStringLiteral("--d"),
            QStringLiteral("32"),    QStringLiteral("--heads"),  QStringLiteral("4")};
        const QString one = tmp.filePath(QStringLiteral("one"));
        const QString all = tmp.filePath(QStringLiteral("all"));
        Run r = runCli(common + QStringList{QStringLiteral("--threads"), QStringLiteral("1"),
                                            QStringLiteral("--out"), one});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli(common + QStringList{QStringLiteral("--out"), all});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto manifest = [](const QString& dir) {
            QFile f(dir + QStringLiteral("/manifest.json"));
            return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object()
                                               : QJsonObject();
        };
        const QJsonObject m1 = manifest(one);
        QCOMPARE(
            m1.value(QLatin1String("options")).toObject().value(QLatin1String("threads")).toInt(),
            1);
        QVERIFY2(m1.value(QLatin1String("device")).toString().contains(QLatin1String(" 1 thread")),
                 qPrintable(m1.value(QLatin1String("device")).toString()));
        QVERIFY(!manifest(all)
                     .value(QLatin1String("options"))
                     .toObject()
                     .contains(QLatin1String(
                         "threads"))); // absent unless given: the contract is unchanged
        const Tensor a = readTensor(one + QStringLiteral("/weights.npy"));
        const Tensor b = readTensor(all + QStringLiteral("/weights.npy"));
        QCOMPARE(a.shape(), b.shape());
        for (std::int64_t k = 0; k < a.size(); ++k)
            QVERIFY(std::abs(a.at(k) - b.at(k)) <= 1e-6);
    }

    void engineSetUpAheadComputesTheSame() {
        // A trace large enough for the engine's threads (n = 512, d = 256) sets the engine up
        // on a thread beside the weights' generation (Backend::prepare): each worker's scratch
        // sized and touched, a product of the projections' shape run. Its tensors equal a
        // one-thread run's, which sets up nothing ahead.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QStringList common{QStringLiteral("trace"),
                                 QStringLiteral("--scheme"),
                                 QStringLiteral("shaw"),
                                 QStringLiteral("--n"),
                                 QStringLiteral("512"),
                                 QStringLiteral("--d"),
                                 QStringLiteral("256"),
                                 QStringLiteral("--heads"),
                                 QStringLiteral("4"),
                                 QStringLiteral("--tensors"),
                                 QStringLiteral("Q,logits,weights,shaw_v_term,out")};
        const QString one = tmp.filePath(QStringLiteral("one"));
        const QString three = tmp.filePath(QStringLiteral("three"));
        Run r = runCli(common + QStringList{QStringLiteral("--threads"), QStringLiteral("1"),
                                            QStringLiteral("--out"), one});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli(common + QStringList{QStringLiteral("--threads"), QStringLiteral("3"),
                                        QStringLiteral("--out"), three});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const char* name : {"Q", "logits", "weights", "shaw_v_term", "out"}) {
            const QString file = QStringLiteral("/%1.npy").arg(QLatin1String(name));
            const Tensor a = readTensor(one + file);
            const Tensor b = readTensor(three + file);
            QVERIFY2(a.shape() == b.shape() && a.size() > 0, name);
            for (std::int64_t k = 0; k < a.size(); ++k)
                QVERIFY2(std::abs(a.at(k) - b.at(k)) <= 1e-5 * (1 + std::abs(a.at(k))), name);
        }
    }

    void pooledErrors_data() {
        QTest::addColumn<QString>("extra");
        QTest::addColumn<QString>("message");
        QTest::newRow("zero") << QStringLiteral("--pool 0") << QStringLiteral("--pool");
        QTest::newRow("too large") << QStringLiteral("--pool 9000") << QStringLiteral("--pool");
        QTest::newRow("mode") << QStringLiteral("--pool 4 --pool-mode median")
                              << QStringLiteral("--pool-mode");
        QTest::newRow("mode without pool")
            << QStringLiteral("--pool-mode max") << QStringLiteral("--pool-mode");
        QTest::newRow("n×n tensor")
            << QStringLiteral("--pool 4 --tensors rel_index") << QStringLiteral("--tensors");
    }

    void pooledErrors() {
        QFETCH(QString, extra);
        QFETCH(QString, message);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString out = tmp.filePath(QStringLiteral("o"));
        const Run r =
            runCli(QStringList{QStringLiteral("trace"), QStringLiteral("--scheme"),
                               QStringLiteral("t5"), QStringLiteral("--n"), QStringLiteral("6"),
                               QStringLiteral("--d"), QStringLiteral("8")} +
                   extra.split(QLatin1Char(' ')) + QStringList{QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY(!QDir(out).exists());
    }
};

QTEST_GUILESS_MAIN(TestTraceCommand)
#include "tst_trace_command.moc"
