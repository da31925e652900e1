// SPDX-License-Identifier: MIT
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>

#include "npy.h"

using namespace pe;

Q_DECLARE_METATYPE(pe::DType)

namespace {

/** A tensor of the given dtype and shape whose elements are distinct, signed and non-integral. */
Tensor patterned(DType dtype, const std::vector<std::int64_t>& shape) {
    Tensor t(dtype, shape);
    for (std::int64_t i = 0; i < t.size(); ++i) {
        const double v = (i % 2 ? -1.0 : 1.0) * (0.125 + 3.5 * static_cast<double>(i));
        switch (dtype) {
        case DType::F32:
            t.data<float>()[i] = static_cast<float>(v) + 1e-3f;
            break;
        case DType::F64:
            t.data<double>()[i] = v + 1e-12 * static_cast<double>(i);
            break;
        case DType::I32:
            t.data<std::int32_t>()[i] = static_cast<std::int32_t>(v * 1000);
            break;
        }
    }
    return t;
}

std::string npyFile(const std::string& dict, std::uint16_t headerLen, std::string_view data = {}) {
    std::string s("\x93NUMPY\x01\x00", 8);
    s += static_cast<char>(headerLen & 0xff);
    s += static_cast<char>(headerLen >> 8);
    std::string h = dict;
    h.append(headerLen - 1 - dict.size(), ' ');
    return s + h + "\n" + std::string(data);
}

std::string f32Bytes(std::initializer_list<float> v) {
    std::string s(v.size() * 4, '\0');
    std::memcpy(s.data(), std::data(v), s.size());
    return s;
}

} // namespace

class TestNpy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_data() {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<QList<qint64>>("shape");
        const std::pair<const char*, DType> types[] = {
            {"f4", DType::F32}, {"f8", DType::F64}, {"i4", DType::I32}};
        for (const auto& [name, dt] : types) {
            QTest::addRow("%s rank1", name) << dt << QList<qint64>{7};
            QTest::addRow("%s rank2", name) << dt << QList<qint64>{3, 5};
            QTest::addRow("%s rank3", name) << dt << QList<qint64>{2, 3, 4};
            QTest::addRow("%s empty", name) << dt << QList<qint64>{0, 4};
        }
    }
    void roundTrip() {
        QFETCH(DType, dtype);
        QFETCH(QList<qint64>, shape);
        const Tensor t = patterned(dtype, std::vector<std::int64_t>(shape.begin(), shape.end()));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("t.npy")).toStdString();
        const Status st = writeNpy(path, t);
        QVERIFY2(st.ok(), st.error().message.c_str());
        const auto back = readNpy(path);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QCOMPARE(back->dtype(), dtype);
        QCOMPARE(back->shape(), t.shape());
        QCOMPARE(back->byteSize(), t.byteSize());
        QVERIFY(t.byteSize() == 0 || std::memcmp(back->raw(), t.raw(), t.byteSize()) == 0);
        // The data starts at a multiple of 64 and the file is exactly header + data.
        QCOMPARE(npyHeader(t).size() % 64, std::size_t{0});
        QCOMPARE(encodeNpy(t).size(), npyHeader(t).size() + t.byteSize());
    }

    // Headers exactly as numpy 1.24's np.save writes them (learned once with numpy, embedded).
    void headerBytes_data() {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<QList<qint64>>("shape");
        QTest::addColumn<QByteArray>("dict");
        QTest::addColumn<int>("total");
        QTest::newRow("f4 (2,3)") << DType::F32 << QList<qint64>{2, 3}
                                  << QByteArray("{'descr': '<f4', 'fortran_order': False, "
                                                "'shape': (2, 3), }")
                                  << 128;
        QTest::newRow("f8 (5,)") << DType::F64 << QList<qint64>{5}
                                 << QByteArray("{'descr': '<f8', 'fortran_order': False, "
                                               "'shape': (5,), }")
                                 << 128;
        QTest::newRow("i4 (2,3,4)") << DType::I32 << QList<qint64>{2, 3, 4}
                                    << QByteArray("{'descr': '<i4', 'fortran_order': False, "
                                                  "'shape': (2, 3, 4), }")
                                    << 128;
        QTest::newRow("f4 scalar") << DType::F32 << QList<qint64>{}
                                   << QByteArray("{'descr': '<f4', 'fortran_order': False, "
                                                 "'shape': (), }")
                                   << 128;
        // numpy's growth padding (21 digits for the first axis) pushes this one to 192 bytes.
        QTest::newRow("f4 growth")
            << DType::F32 << QList<qint64>{1, 1000000000, 1000000000, 1000000000, 1000000000, 0}
            << QByteArray("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1000000000, "
                          "1000000000, 1000000000, 1000000000, 0), }")
            << 192;
    }
    void headerBytes() {
        QFETCH(DType, dtype);
        QFETCH(QList<qint64>, shape);
        QFETCH(QByteArray, dict);
        QFETCH(int, total);
        const std::vector<std::int64_t> s(shape.begin(), shape.end());
        const Tensor t(dtype, s);
        const std::string expected =
            npyFile(dict.toStdString(), static_cast<std::uint16_t>(total - 10));
        const std::string got = npyHeader(t);
        QCOMPARE(QByteArray::fromStdString(got), QByteArray::fromStdString(expected));
        QCOMPARE(static_cast<int>(got.size()), total);
    }

    void readsOtherVersions_data() {
        QTest::addColumn<int>("major");
        QTest::newRow("2.0") << 2;
        QTest::newRow("3.0") << 3;
    }
    void readsOtherVersions() {
        QFETCH(int, major);
        std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
        std::string padded = dict;
        padded.append(128 - 12 - dict.size() - 1, ' ');
        padded += '\n';
        std::string file("\x93NUMPY", 6);
        file += static_cast<char>(major);
        file += '\0';
        const auto len = static_cast<std::uint32_t>(padded.size());
        for (int i = 0; i < 4; ++i)
            file += static_cast<char>((len >> (8 * i)) & 0xff);
        file += padded + f32Bytes({1.5f, -2.25f});
        const auto t = decodeNpy(file);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
        QCOMPARE(t->shape(), (std::vector<std::int64_t>{2}));
        QCOMPARE(t->data<float>()[0], 1.5f);
        QCOMPARE(t->data<float>()[1], -2.25f);
    }

    void fortranOrderIsTransposed() {
        // np.asfortranarray(np.arange(6.).reshape(2, 3)): data 0 3 1 4 2 5 on disk.
        std::string data(6 * 8, '\0');
        const double disk[] = {0, 3, 1, 4, 2, 5};
        std::memcpy(data.data(), disk, sizeof disk);
        const auto t = decodeNpy(
            npyFile("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", 118, data));
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
        QCOMPARE(t->shape(), (std::vector<std::int64_t>{2, 3}));
        for (int i = 0; i < 6; ++i)
            QCOMPARE(t->data<double>()[i], static_cast<double>(i));
    }

    void doubleQuotedKeysAndTrailingCommas() {
        const auto t =
            decodeNpy(npyFile("{\"descr\": \"<f4\", \"shape\": (1, 2,), \"fortran_order\": False}",
                              118, f32Bytes({3.f, 4.f})));
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
        QCOMPARE(t->shape(), (std::vector<std::int64_t>{1, 2}));
        QCOMPARE(t->data<float>()[1], 4.f);
    }

    void errors_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("needle");
        const std::string good =
            npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 118,
                    f32Bytes({1, 2, 3, 4}));
        auto qb = [](const std::string& s) { return QByteArray::fromStdString(s); };
        QTest::newRow("empty") << QByteArray() << QStringLiteral("bad magic");
        QTest::newRow("bad magic")
            << qb(std::string("\x92") + good.substr(1)) << QStringLiteral("bad magic");
        QTest::newRow("bad version")
            << qb(good.substr(0, 6) + "\x04" + good.substr(7)) << QStringLiteral("version 4.0");
        QTest::newRow("truncated data")
            << qb(good.substr(0, good.size() - 3)) << QStringLiteral("truncated");
        QTest::newRow("trailing bytes") << qb(good + "xyz") << QStringLiteral("trailing");
        QTest::newRow("truncated header")
            << qb(good.substr(0, 60)) << QStringLiteral("header length");
        QTest::newRow("big-endian")
            << qb(npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", 118,
                          f32Bytes({1, 2, 3, 4})))
            << QStringLiteral("'>f4'");
        QTest::newRow("int64") << qb(npyFile(
                                      "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                                      118, f32Bytes({1, 2, 3, 4})))
                               << QStringLiteral("'<i8'");
        QTest::newRow("missing shape")
            << qb(npyFile("{'descr': '<f4', 'fortran_order': False, }", 118, f32Bytes({1})))
            << QStringLiteral("'shape'");
        QTest::newRow("negative dim")
            << qb(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 2), }", 118))
            << QStringLiteral("non-negative");
        QTest::newRow("not a dict")
            << qb(npyFile("[1, 2, 3]", 118)) << QStringLiteral("not a dict");
        QTest::newRow("garbage header")
            << qb(npyFile("{'descr': '<f4', oops", 118)) << QStringLiteral("not a dict");
        QTest::newRow("unterminated string")
            << qb(npyFile("{'descr: <f4", 118)) << QStringLiteral("unterminated");
        QTest::newRow("fortran not bool")
            << qb(npyFile("{'descr': '<f4', 'fortran_order': 3, 'shape': (1,), }", 118,
                          f32Bytes({1})))
            << QStringLiteral("fortran_order");
        QTest::newRow("huge shape")
            << qb(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': "
                          "(4294967296, 4294967296, 4294967296), }",
                          118))
            << QStringLiteral("too large");
    }
    void errors() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, needle);
        const auto t = decodeNpy(std::string_view(bytes.constData(), bytes.size()), "in.npy");
        QVERIFY(!t.ok());
        const QString msg = QString::fromStdString(t.error().message);
        QVERIFY2(msg.startsWith(QLatin1String("in.npy: ")), qPrintable(msg));
        QVERIFY2(msg.contains(needle), qPrintable(msg));
        QVERIFY2(!msg.contains(QLatin1Char('\n')), qPrintable(msg));
    }

    void everyTruncationIsAnError() {
        const std::string full = encodeNpy(patterned(DType::F64, {3, 2}));
        for (std::size_t len = 0; len < full.size(); ++len) {
            const auto t = decodeNpy(std::string_view(full).substr(0, len), "cut.npy");
            QVERIFY2(!t.ok(),
                     qPrintable(QStringLiteral("a prefix of %1 bytes was accepted").arg(len)));
        }
        QVERIFY(decodeNpy(full).ok());
    }

    void corruptHeadersNeverCrash() {
        // Each header byte replaced by a few troublesome values: the decoder returns a value
        // (a tensor or an error) and, when it accepts, the shape matches the data it holds.
        const std::string full = encodeNpy(patterned(DType::F32, {2, 3}));
        const char evil[] = {'\0', '\'', '(', ')', ',', '9', '-', '\\', '\xff', ' '};
        int accepted = 0;
        for (std::size_t i = 0; i < 128; ++i)
            for (const char c : evil) {
                std::string b = full;
                b[i] = c;
                const auto t = decodeNpy(b);
                if (t.ok()) {
                    ++accepted;
                    QCOMPARE(t->byteSize() + 128, b.size());
                }
            }
        QVERIFY(accepted > 0); // padding spaces and digits may change harmlessly
    }

    void missingFileNamesIt() {
        const auto t = readNpy("/nonexistent/dir/x.npy");
        QVERIFY(!t.ok());
        QVERIFY(t.error().message.find("/nonexistent/dir/x.npy") != std::string::npos);
    }

    void numpyLoadsWrittenFiles() {
        const QString python = QStringLiteral("/usr/bin/python3");
        if (!QFile::exists(python))
            QSKIP("no /usr/bin/python3");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::pair<const char*, DType> types[] = {
            {"a.npy", DType::F32}, {"b.npy", DType::F64}, {"c.npy", DType::I32}};
        double expectedSum = 0;
        for (const auto& [file, dt] : types) {
            const Tensor t = patterned(dt, {2, 3, 4});
            for (std::int64_t i = 0; i < t.size(); ++i)
                expectedSum += t.at(i);
            QVERIFY(writeNpy(dir.filePath(QLatin1String(file)).toStdString(), t).ok());
        }
        QProcess py;
        py.setWorkingDirectory(dir.path());
        py.start(python,
                 {QStringLiteral("-c"),
                  QStringLiteral("import sys\n"
                                 "try:\n import numpy as np\nexcept ImportError:\n sys.exit(77)\n"
                                 "s = 0.0\n"
                                 "for f, dt in (('a.npy','<f4'),('b.npy','<f8'),('c.npy','<i4')):\n"
                                 " a = np.load(f)\n"
                                 " assert a.shape == (2, 3, 4) and a.dtype == np.dtype(dt), f\n"
                                 " assert a.flags['C_CONTIGUOUS']\n"
                                 " s += float(a.astype(np.float64).sum())\n"
                                 "print(repr(s))\n")});
        QVERIFY(py.waitForFinished(30000));
        if (py.exitCode() == 77)
            QSKIP("numpy is not installed for /usr/bin/python3");
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        const double sum = py.readAllStandardOutput().trimmed().toDouble();
        QVERIFY(std::abs(sum - expectedSum) <= 1e-9 * std::abs(expectedSum));
    }
};

QTEST_GUILESS_MAIN(TestNpy)
#include "tst_npy.moc"
