// SPDX-License-Identifier: MIT
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>

#include "mapped_npy.h"
#include "npy.h"
#include "write_failure.h"

using namespace pe;

Q_DECLARE_METATYPE(pe::DType)

namespace {

/** Distinct, signed, non-integral elements (integers for int32) at `dst`. */
void fillPattern(Tensor& t) {
    for (std::int64_t i = 0; i < t.size(); ++i) {
        const double v = (i % 2 ? -1.0 : 1.0) * (0.125 + 3.5 * static_cast<double>(i));
        switch (t.dtype()) {
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
}

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestMappedNpy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void computedInPlaceMatchesWriteNpy_data() {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<QList<qint64>>("shape");
        const std::pair<const char*, DType> types[] = {
            {"f4", DType::F32}, {"f8", DType::F64}, {"i4", DType::I32}};
        for (const auto& [name, dt] : types) {
            QTest::addRow("%s rank1", name) << dt << QList<qint64>{7};
            QTest::addRow("%s rank3", name) << dt << QList<qint64>{2, 3, 4};
            // Past 2 MB, so the huge-page alignment of the mapping is exercised.
            QTest::addRow("%s 3 MB", name) << dt << QList<qint64>{3, 512, 257};
        }
    }

    // An engine computing into tensor() writes the very file writeNpy writes.
    void computedInPlaceMatchesWriteNpy() {
        QFETCH(DType, dtype);
        QFETCH(QList<qint64>, shape);
        const std::vector<std::int64_t> s(shape.begin(), shape.end());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString mappedPath = dir.filePath(QStringLiteral("mapped.npy"));
        auto npy = MappedNpy::create(mappedPath.toStdString(), dtype, s);
        QVERIFY2(npy.ok(), npy.ok() ? "" : npy.error().message.c_str());
        QVERIFY(npy->mapped());
        npy->prefault();
        Tensor view = npy->tensor();
        QVERIFY(view.isExternal());
        QCOMPARE(view.dtype(), dtype);
        QCOMPARE(view.shape(), s);
        QCOMPARE(reinterpret_cast<std::uintptr_t>(view.raw()) % 64, std::uintptr_t{0});
        for (std::int64_t i = 0; i < view.size(); ++i) // zeros until written, prefault or not
            QCOMPARE(view.at(i), 0.0);
        fillPattern(view);
        QVERIFY(npy->holds(view));

        Tensor owned(dtype, s);
        fillPattern(owned);
        QVERIFY(!npy->holds(owned));
        const QString plainPath = dir.filePath(QStringLiteral("plain.npy"));
        QVERIFY(writeNpy(plainPath.toStdString(), owned).ok());

        npy->release(); // the view still holds the mapping
        const QByteArray want = fileBytes(plainPath);
        QCOMPARE(want.size(), static_cast<qsizetype>(npyHeader(owned).size() + owned.byteSize()));
        QCOMPARE(fileBytes(mappedPath), want);
        view = Tensor(); // unmapped now; the file keeps its bytes
        QCOMPARE(fileBytes(mappedPath), want);
        const auto back = readNpy(mappedPath.toStdString());
        QVERIFY(back.ok());
        QVERIFY(std::memcmp(back->raw(), owned.raw(), owned.byteSize()) == 0);
    }

    // A tensor computed elsewhere is copied in when it fits, refused when it does not.
    void copyFrom() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("t.npy"));
        auto npy = MappedNpy::create(path.toStdString(), DType::F32, {4, 5});
        QVERIFY(npy.ok() && npy->mapped());
        Tensor t(DType::F32, {4, 5});
        fillPattern(t);
        QVERIFY(!npy->copyFrom(Tensor(DType::F64, {4, 5})));
        QVERIFY(!npy->copyFrom(Tensor(DType::F32, {5, 4})));
        QVERIFY(npy->copyFrom(t));
        npy->release();
        QCOMPARE(fileBytes(path), QByteArray::fromStdString(encodeNpy(t)));
    }

    // Copies of a tensor over a mapping own their elements: writing a copy leaves the file alone.
    void copiesOwnTheirElements() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("t.npy"));
        auto npy = MappedNpy::create(path.toStdString(), DType::F64, {3, 2});
        QVERIFY(npy.ok() && npy->mapped());
        Tensor view = npy->tensor();
        fillPattern(view);
        Tensor copy = view;
        QVERIFY(!copy.isExternal());
        QVERIFY(copy.raw() != view.raw());
        QCOMPARE(copy.shape(), view.shape());
        QVERIFY(std::memcmp(copy.raw(), view.raw(), view.byteSize()) == 0);
        copy.data<double>()[0] = 42.0;
        QVERIFY(view.at(0) != 42.0);
        Tensor assigned;
        assigned = view;
        QVERIFY(!assigned.isExternal());
        QCOMPARE(assigned.at(5), view.at(5));
        const Tensor moved = std::move(view); // a move keeps the mapping
        QVERIFY(moved.isExternal());
        QVERIFY(npy->holds(moved));
        QVERIFY(moved.holds<double>());
        QVERIFY(!moved.holds<float>());
        QVERIFY_THROWS_EXCEPTION(std::bad_variant_access, (void)moved.data<float>());
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, (void)moved.at(6));
        QCOMPARE(moved.converted(DType::F32).at(1),
                 static_cast<double>(static_cast<float>(moved.at(1))));
    }

    // A full disk (here a file size limit: EFBIG where a disk gives ENOSPC) or a folder that
    // cannot be written: an Error naming the file and the reason, and no file left behind.
    void failuresLeaveNoFile_data() {
        QTest::addColumn<bool>("fullDisk");
        QTest::newRow("full disk") << true;
        QTest::newRow("read-only folder") << false;
    }
    void failuresLeaveNoFile() {
        QFETCH(bool, fullDisk);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString folder = fullDisk ? dir.path() : readOnlyFolder(dir.path());
        const QStringList before = everyEntry(folder);
        const QString path = QDir(folder).filePath(QStringLiteral("t.npy"));
        Expected<MappedNpy> npy = Error{"not run"};
        {
            FileSizeLimit limit(4096);
            QVERIFY(limit.ok());
            npy = MappedNpy::create(path.toStdString(), DType::F32, {64, 64});
        }
        QVERIFY(!npy.ok());
        const QString message = QString::fromStdString(npy.error().message);
        QVERIFY2(message.startsWith(path + QStringLiteral(": ")), qPrintable(message));
        QVERIFY2(message.contains(fullDisk ? QStringLiteral("File too large")
                                           : QStringLiteral("cannot create")),
                 qPrintable(message));
        QVERIFY(!QFileInfo::exists(path));
        if (folder != QLatin1String("/proc"))
            QCOMPARE(everyEntry(folder), before);
    }

    // No data: nothing to map; the caller writes the header with writeNpy.
    void emptyTensorIsNotMapped() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("t.npy"));
        auto npy = MappedNpy::create(path.toStdString(), DType::F32, {0, 4});
        QVERIFY(npy.ok());
        QVERIFY(!npy->mapped());
        QVERIFY(npy->tensor().empty());
        QVERIFY(!QFileInfo::exists(path));
    }
};

QTEST_GUILESS_MAIN(TestMappedNpy)
#include "tst_mapped_npy.moc"
