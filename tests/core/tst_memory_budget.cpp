// SPDX-License-Identifier: MIT
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <thread>
#include <vector>

#include "memory_budget.h"

using namespace pe;

class TestMemoryBudget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void reservationsAddUpAndRelease();
    void anotherHoldersRequestIsRefusedWithItsName();
    void aHoldersOwnReservationsDoNotBlockIt();
    void movedReservationReleasesOnce();
    void releasesFromManyThreadsBalance();
    void parseSize_data();
    void parseSize();
    void formatGigabytes();
    void configuredTotalComesFromTheEnvironment();
    void procFieldsAreReadInBytes();
};

void TestMemoryBudget::reservationsAddUpAndRelease() {
    MemoryBudget b(1000);
    QCOMPARE(b.total(), std::uint64_t{1000});
    auto r1 = b.reserve("a", 300);
    QVERIFY(r1);
    QCOMPARE(r1->bytes(), std::uint64_t{300});
    auto r2 = b.reserve("b", 200);
    QVERIFY(r2);
    auto r3 = b.reserve("a", 100);
    QVERIFY(r3);
    QCOMPARE(b.reserved(), std::uint64_t{600});
    const auto h = b.holdings();
    QCOMPARE(h.size(), std::size_t{2});
    QCOMPARE(h[0].holder, std::string("a")); // the largest first
    QCOMPARE(h[0].bytes, std::uint64_t{400});
    QCOMPARE(h[1].bytes, std::uint64_t{200});
    QCOMPARE(b.availableTo("a"), std::uint64_t{800});
    QCOMPARE(b.availableTo("b"), std::uint64_t{600});
    QCOMPARE(b.availableTo("c"), std::uint64_t{400});
    r1->release();
    QVERIFY(!r1->held());
    QCOMPARE(b.reserved(), std::uint64_t{300});
    r1->release(); // twice is once
    QCOMPARE(b.reserved(), std::uint64_t{300});
    {
        auto scoped = b.reserve("c", 700);
        QVERIFY(scoped);
        QCOMPARE(b.reserved(), std::uint64_t{1000});
    }
    QCOMPARE(b.reserved(), std::uint64_t{300}); // released with its scope
    r2 = Error{"dropped"};                      // the Expected let go of its reservation
    r3 = Error{"dropped"};
    QCOMPARE(b.reserved(), std::uint64_t{0});
    QVERIFY(b.holdings().empty());
}

void TestMemoryBudget::anotherHoldersRequestIsRefusedWithItsName() {
    MemoryBudget b(std::uint64_t{5'000'000'000});
    auto insights = b.reserve("the Insights tab's computation", 3'100'000'000);
    QVERIFY(insights);
    // 2.5 GB fits alone (under 5 GB) but not beside the 3.1 GB held.
    const auto refused = b.reserve("the main views' trace", 2'500'000'000);
    QVERIFY(!refused);
    QCOMPARE(refused.error().message,
             std::string("more than the 1.9 GB left of the 5.0 GB allowed (the Insights tab's "
                         "computation holds 3.1 GB)"));
    QCOMPARE(b.reserved(), std::uint64_t{3'100'000'000}); // nothing taken by the refusal
    // Above the whole budget: no holder to blame.
    const auto tooBig = b.reserve("the main views' trace", 6'000'000'000);
    QVERIFY(!tooBig);
    QCOMPARE(tooBig.error().message, std::string("more than the 5.0 GB allowed"));
    insights->release();
    const auto after = b.reserve("the main views' trace", 2'500'000'000);
    QVERIFY2(after, after ? "" : after.error().message.c_str());
}

void TestMemoryBudget::aHoldersOwnReservationsDoNotBlockIt() {
    // The views' trace is replaced by the next one: the old one is let go once the new is shown.
    MemoryBudget b(1'000'000'000);
    auto shown = b.reserve("views", 700'000'000);
    QVERIFY(shown);
    auto next = b.reserve("views", 700'000'000);
    QVERIFY(next);
    QCOMPARE(b.reserved(), std::uint64_t{1'400'000'000});
    QCOMPARE(b.availableTo("views"), std::uint64_t{1'000'000'000});
    QCOMPARE(b.availableTo("insights"), std::uint64_t{0});
    // …but both count against any other holder, who is refused while they are held.
    const auto other = b.reserve("insights", 1);
    QVERIFY(!other);
    QCOMPARE(other.error().message,
             std::string("more than the 0 MB left of the 1.0 GB allowed (views holds 1.4 GB)"));
    shown->release();
    QCOMPARE(b.availableTo("insights"), std::uint64_t{300'000'000});
}

void TestMemoryBudget::movedReservationReleasesOnce() {
    MemoryBudget b(100);
    auto r = b.reserve("a", 60);
    QVERIFY(r);
    MemoryBudget::Reservation moved = std::move(r).value();
    QVERIFY(moved.held());
    QCOMPARE(b.reserved(), std::uint64_t{60});
    MemoryBudget::Reservation other;
    QVERIFY(!other.held());
    other = std::move(moved);
    QVERIFY(!moved.held()); // NOLINT(bugprone-use-after-move): the moved-from state is specified
    QCOMPARE(b.reserved(), std::uint64_t{60});
    other = MemoryBudget::Reservation{};
    QCOMPARE(b.reserved(), std::uint64_t{0});
}

void TestMemoryBudget::releasesFromManyThreadsBalance() {
    // Reservations outlive nothing: each thread reserves and releases; the total returns to 0
    // and never exceeds the budget.
    MemoryBudget b(64);
    std::atomic<int> granted{0};
    std::atomic<bool> over{false};
    const std::string holders[] = {"t0", "t1", "t2", "t3"};
    std::vector<std::thread> threads;
    for (const std::string& holder : holders)
        threads.emplace_back([&] {
            for (int i = 0; i < 2000; ++i) {
                auto r = b.reserve(holder, 16 + (i % 17));
                if (r) {
                    ++granted;
                    if (b.reserved() > 64)
                        over = true;
                }
            }
        });
    for (auto& t : threads)
        t.join();
    QVERIFY(granted.load() > 0);
    QVERIFY(!over.load());
    QCOMPARE(b.reserved(), std::uint64_t{0});
}

void TestMemoryBudget::parseSize_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<qulonglong>("bytes"); // 0: refused
    QTest::newRow("bytes") << QStringLiteral("4096") << qulonglong{4096};
    QTest::newRow("K") << QStringLiteral("2K") << qulonglong{2000};
    QTest::newRow("M") << QStringLiteral("512M") << qulonglong{512'000'000};
    QTest::newRow("G fraction") << QStringLiteral("1.5G") << qulonglong{1'500'000'000};
    QTest::newRow("GB lower case") << QStringLiteral("3gb") << qulonglong{3'000'000'000};
    QTest::newRow("zero") << QStringLiteral("0") << qulonglong{0};
    QTest::newRow("negative") << QStringLiteral("-1G") << qulonglong{0};
    QTest::newRow("unknown unit") << QStringLiteral("3X") << qulonglong{0};
    QTest::newRow("empty") << QString() << qulonglong{0};
}

void TestMemoryBudget::parseSize() {
    QFETCH(QString, text);
    QFETCH(qulonglong, bytes);
    const auto parsed = MemoryBudget::parseSize(text.toStdString());
    QCOMPARE(parsed.has_value(), bytes != 0);
    if (parsed)
        QCOMPARE(qulonglong{*parsed}, bytes);
}

void TestMemoryBudget::formatGigabytes() {
    QCOMPARE(pe::formatGigabytes(3'140'000'000), std::string("3.1 GB"));
    QCOMPARE(pe::formatGigabytes(100'000'000), std::string("0.1 GB"));
    QCOMPARE(pe::formatGigabytes(12'400'000), std::string("12 MB"));
}

void TestMemoryBudget::configuredTotalComesFromTheEnvironment() {
    qputenv("PE_MEMORY_BUDGET", "1.5G");
    QCOMPARE(MemoryBudget::defaultTotal(), std::uint64_t{1'500'000'000});
    qputenv("PE_MEMORY_BUDGET", "lots");
    const std::uint64_t measured = MemoryBudget::defaultTotal(); // ignored: from the machine
    qunsetenv("PE_MEMORY_BUDGET");
    QCOMPARE(measured, MemoryBudget::defaultTotal());
    QVERIFY(measured > 0);
    if (const auto available = memAvailableBytes())
        QVERIFY(measured <= *available / 4 * 3);
}

// "Key:  N kB" lines of a /proc-style file, in bytes; absent keys and files give nothing.
void TestMemoryBudget::procFieldsAreReadInBytes() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray path = dir.filePath(QStringLiteral("status")).toLocal8Bit();
    QFile f(QString::fromLocal8Bit(path));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("Name:\tpe\nVmHWM:\t  5120 kB\nRssAnon:\t    12 kB\nBroken:\tkB\n");
    f.close();
    QCOMPARE(procFieldBytes(path.constData(), "VmHWM:"), std::optional<std::uint64_t>{5120 * 1024});
    QCOMPARE(procFieldBytes(path.constData(), "RssAnon:"), std::optional<std::uint64_t>{12 * 1024});
    QVERIFY(!procFieldBytes(path.constData(), "RssFile:"));
    QVERIFY(!procFieldBytes(path.constData(), "Broken:"));
    QVERIFY(!procFieldBytes(dir.filePath(QStringLiteral("absent")).toLocal8Bit().constData(),
                            "VmHWM:"));
}

QTEST_GUILESS_MAIN(TestMemoryBudget)
#include "tst_memory_budget.moc"
