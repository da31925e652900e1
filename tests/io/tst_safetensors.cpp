// SPDX-License-Identifier: MIT
#include <QTemporaryDir>
#include <QTest>

#include <cstring>

#include "safetensors.h"

using namespace pe;

Q_DECLARE_METATYPE(pe::DType)

namespace {

Tensor patterned(DType dtype, const std::vector<std::int64_t>& shape, double offset) {
    Tensor t(dtype, shape);
    for (std::int64_t i = 0; i < t.size(); ++i) {
        const double v = offset + (i % 3 ? -0.75 : 1.25) * static_cast<double>(i + 1);
        switch (dtype) {
        case DType::F32:
            t.data<float>()[i] = static_cast<float>(v);
            break;
        case DType::F64:
            t.data<double>()[i] = v / 3.0;
            break;
        case DType::I32:
            t.data<std::int32_t>()[i] = static_cast<std::int32_t>(v * 100);
            break;
        }
    }
    return t;
}

/** A file with a hand-written JSON header (padded to 8) and `dataBytes` zero bytes of data. */
std::string fileWithHeader(std::string json, std::size_t dataBytes) {
    json.append((8 - json.size() % 8) % 8, ' ');
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i)
        s[static_cast<std::size_t>(i)] =
            static_cast<char>((static_cast<std::uint64_t>(json.size()) >> (8 * i)) & 0xff);
    return s + json + std::string(dataBytes, '\0');
}

bool sameTensor(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() &&
           (a.byteSize() == 0 || std::memcmp(a.raw(), b.raw(), a.byteSize()) == 0);
}

} // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_data() {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<QList<qint64>>("shape");
        const std::pair<const char*, DType> types[] = {
            {"F32", DType::F32}, {"F64", DType::F64}, {"I32", DType::I32}};
        for (const auto& [name, dt] : types) {
            QTest::addRow("%s rank1", name) << dt << QList<qint64>{5};
            QTest::addRow("%s rank2", name) << dt << QList<qint64>{4, 3};
            QTest::addRow("%s rank3", name) << dt << QList<qint64>{2, 3, 2};
        }
    }
    void roundTrip() {
        QFETCH(DType, dtype);
        QFETCH(QList<qint64>, shape);
        const std::vector<std::int64_t> s(shape.begin(), shape.end());
        // Mixed with tensors of other dtypes so offsets are not all aligned to 8.
        const NamedTensors in = {{"W_q", patterned(dtype, s, 0.5)},
                                 {"a.small", patterned(DType::I32, {3}, 2)},
                                 {"z", patterned(dtype, s, -4)},
                                 {"empty", Tensor(DType::F32, {0, 3})},
                                 {"b.last", patterned(DType::F64, {1, 1}, 9)}};
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("w.safetensors")).toStdString();
        const Status st = writeSafetensors(path, in, {{"format", "pt"}});
        QVERIFY2(st.ok(), st.error().message.c_str());
        const auto out = readSafetensors(path);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
        QCOMPARE(out->size(), in.size());
        for (std::size_t i = 0; i < in.size(); ++i) {
            QCOMPARE((*out)[i].first, in[i].first);
            QVERIFY2(sameTensor((*out)[i].second, in[i].second), in[i].first.c_str());
        }
    }

    void layout() {
        const NamedTensors in = {{"x", patterned(DType::F32, {3}, 1)},
                                 {"y", patterned(DType::F64, {2}, 1)}};
        const auto bytes = encodeSafetensors(in);
        QVERIFY(bytes.ok());
        std::uint64_t n = 0;
        for (int i = 0; i < 8; ++i)
            n |= static_cast<std::uint64_t>(static_cast<unsigned char>((*bytes)[i])) << (8 * i);
        QCOMPARE(n % 8, std::uint64_t{0});
        QCOMPARE(bytes->size(), 8 + n + 12 + 16);
        const std::string header = bytes->substr(8, n);
        QVERIFY2(header.find(R"("x":{"dtype":"F32","shape":[3],"data_offsets":[0,12]})") !=
                     std::string::npos,
                 header.c_str());
        QVERIFY2(header.find(R"("y":{"dtype":"F64","shape":[2],"data_offsets":[12,28]})") !=
                     std::string::npos,
                 header.c_str());
        // Data packed back to back in the order given.
        float x0;
        std::memcpy(&x0, bytes->data() + 8 + n, 4);
        QCOMPARE(x0, in[0].second.data<float>()[0]);
    }

    void rejectsDuplicateNames() {
        const NamedTensors in = {{"x", Tensor(DType::F32, {1})}, {"x", Tensor(DType::F32, {1})}};
        QVERIFY(!encodeSafetensors(in).ok());
    }

    void metadataIsIgnored() {
        const auto t = decodeSafetensors(fileWithHeader(
            R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
            8));
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
        QCOMPARE(t->size(), std::size_t{1});
        QCOMPARE(t->front().first, std::string("a"));
    }

    void errors_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("needle");
        auto qb = [](const std::string& s) { return QByteArray::fromStdString(s); };
        const std::string good = *encodeSafetensors(
            {{"W_q", patterned(DType::F32, {2, 2}, 0)}, {"W_k", patterned(DType::F32, {2, 2}, 1)}});
        QTest::newRow("empty") << QByteArray() << QStringLiteral("truncated");
        QTest::newRow("short length") << qb(good.substr(0, 5)) << QStringLiteral("truncated");
        QTest::newRow("truncated header")
            << qb(good.substr(0, 20)) << QStringLiteral("exceeds the file size");
        QTest::newRow("truncated data")
            << qb(good.substr(0, good.size() - 1)) << QStringLiteral("'W_k'");
        std::string absurd = good;
        absurd[7] = '\x7f';
        QTest::newRow("absurd header length") << qb(absurd) << QStringLiteral("absurd");
        std::string big = good;
        big[3] = '\x08'; // 134 MB
        QTest::newRow("header over 100 MB") << qb(big) << QStringLiteral("absurd");
        QTest::newRow("not json") << qb(fileWithHeader("{\"a\": oops", 0))
                                  << QStringLiteral("not valid JSON");
        QTest::newRow("not an object")
            << qb(fileWithHeader("[1,2]", 0)) << QStringLiteral("not a JSON object");
        QTest::newRow("entry not object")
            << qb(fileWithHeader(R"({"a":3})", 0)) << QStringLiteral("'a': entry");
        QTest::newRow("unsupported dtype")
            << qb(fileWithHeader(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", 4))
            << QStringLiteral("unsupported dtype F16");
        QTest::newRow("missing dtype")
            << qb(fileWithHeader(R"({"a":{"shape":[2],"data_offsets":[0,8]}})", 8))
            << QStringLiteral("'dtype'");
        QTest::newRow("negative shape")
            << qb(fileWithHeader(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8))
            << QStringLiteral("non-negative");
        QTest::newRow("shape overflow")
            << qb(fileWithHeader(
                   R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}})",
                   8))
            << QStringLiteral("overflows");
        QTest::newRow("offsets out of range")
            << qb(fileWithHeader(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", 8))
            << QStringLiteral("outside the data region");
        QTest::newRow("offsets huge")
            << qb(fileWithHeader(
                   R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[18446744073709551608,18446744073709551615]}})",
                   8))
            << QStringLiteral("outside the data region");
        QTest::newRow("offsets reversed")
            << qb(fileWithHeader(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", 8))
            << QStringLiteral("reversed");
        QTest::newRow("size mismatch")
            << qb(fileWithHeader(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 16))
            << QStringLiteral("needs 12");
        QTest::newRow("bad offsets")
            << qb(fileWithHeader(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", 8))
            << QStringLiteral("data_offsets");
        QTest::newRow("overlap") << qb(fileWithHeader(
                                        R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                        R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                                        12))
                                 << QStringLiteral("overlap");
    }
    void errors() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, needle);
        const auto t =
            decodeSafetensors(std::string_view(bytes.constData(), bytes.size()), "w.safetensors");
        QVERIFY(!t.ok());
        const QString msg = QString::fromStdString(t.error().message);
        QVERIFY2(msg.startsWith(QLatin1String("w.safetensors: ")), qPrintable(msg));
        QVERIFY2(msg.contains(needle), qPrintable(msg));
        QVERIFY2(!msg.contains(QLatin1Char('\n')), qPrintable(msg));
    }

    void everyTruncationIsAnError() {
        const std::string full = *encodeSafetensors(
            {{"a", patterned(DType::F32, {2, 3}, 1)}, {"b", patterned(DType::I32, {4}, 2)}});
        for (std::size_t len = 0; len < full.size(); ++len) {
            const auto t = decodeSafetensors(std::string_view(full).substr(0, len));
            QVERIFY2(!t.ok(),
                     qPrintable(QStringLiteral("a prefix of %1 bytes was accepted").arg(len)));
        }
        QVERIFY(decodeSafetensors(full).ok());
    }

    void corruptHeadersNeverCrash() {
        const std::string full = *encodeSafetensors(
            {{"a", patterned(DType::F32, {2, 3}, 1)}, {"b", patterned(DType::F64, {4}, 2)}});
        const char evil[] = {'\0', '"', '[', ']', ',', '9', '-', '\\', '\xff', '}'};
        for (std::size_t i = 0; i < full.size() - 56; ++i)
            for (const char c : evil) {
                std::string b = full;
                b[i] = c;
                const auto t = decodeSafetensors(b);
                if (t.ok())
                    for (const auto& [name, tensor] : *t)
                        QVERIFY(tensor.byteSize() <= b.size());
            }
    }

    void missingFileNamesIt() {
        const auto t = readSafetensors("/nonexistent/w.safetensors");
        QVERIFY(!t.ok());
        QVERIFY(t.error().message.find("/nonexistent/w.safetensors") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
