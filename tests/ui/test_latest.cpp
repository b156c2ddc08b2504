// The job frame alone (controller/latest.h), with futures this test finishes by hand: an older result
// that arrives after a newer one is dropped, and so is one that arrives first; kinds leave each other
// alone; cancel drops everything and tells the work to stop; a result finished on another thread is
// delivered on the owner's; nothing reaches an owner that is gone; busy follows the futures. And the
// UI-thread guard every UI test has (ui_thread_guard.cpp) is on for this thread.
#include "common/blocking_call.h"
#include "controller/latest.h"

#include <QPromise>
#include <QTest>

#include <memory>
#include <thread>
#include <vector>

using namespace stepscope;
using namespace stepscope::ui;

namespace
{

// A future this test finishes when it wants, with `value`.
struct Pending {
    QPromise<int> promise;
    QFuture<int> future;
    Pending() : future(promise.future()) { promise.start(); }
    void finish(int value)
    {
        promise.addResult(value);
        promise.finish();
    }
};

// Lets queued deliveries (the watchers' signals) arrive.
void settle()
{
    for (int i = 0; i < 5; ++i)
        QCoreApplication::processEvents();
}

} // namespace

class TestLatest : public QObject
{
    Q_OBJECT

  private Q_SLOTS:
    void anOlderResultArrivingAfterANewerOneIsDropped()
    {
        QObject owner;
        Latest latest(&owner);
        std::vector<int> got;
        Pending older, newer;
        const Ticket first = latest.next();
        latest.when(first, older.future, [&](int v) { got.push_back(v); });
        const Ticket second = latest.next();
        latest.when(second, newer.future, [&](int v) { got.push_back(v); });
        QVERIFY(first.stale());
        QVERIFY(!second.stale());
        newer.finish(2);
        settle();
        older.finish(1);
        settle();
        QCOMPARE(got, std::vector<int>{2});
    }

    void anOlderResultArrivingFirstIsDroppedToo()
    {
        QObject owner;
        Latest latest(&owner);
        std::vector<int> got;
        Pending older, newer;
        latest.when(latest.next(), older.future, [&](int v) { got.push_back(v); });
        latest.when(latest.next(), newer.future, [&](int v) { got.push_back(v); });
        older.finish(1);
        settle();
        QVERIFY(got.empty());
        newer.finish(2);
        settle();
        QCOMPARE(got, std::vector<int>{2});
    }

    void kindsAndAlongsideRequestsLeaveEachOtherAlone()
    {
        QObject owner;
        Latest latest(&owner, 2);
        std::vector<int> got;
        Pending a, b, c;
        latest.when(latest.next(0), a.future, [&](int v) { got.push_back(v); });
        latest.when(latest.next(1), b.future, [&](int v) { got.push_back(v); });
        latest.when(latest.alongside(), c.future, [&](int v) { got.push_back(v); });
        const Ticket again = latest.next(0); // supersedes `a` only
        a.finish(1);
        b.finish(2);
        c.finish(3);
        settle();
        QCOMPARE(got, (std::vector<int>{2, 3}));
        QVERIFY(!again.stale());
        latest.drop(0);
        QVERIFY(again.stale());
    }

    void cancelDropsEveryResultAndTellsTheWorkToStop()
    {
        QObject owner;
        Latest latest(&owner, 2);
        std::vector<int> got;
        Pending a, b;
        const Ticket first = latest.next(0);
        const Ticket report = latest.alongside();
        const auto stop = first.stopper();
        latest.when(first, a.future, [&](int v) { got.push_back(v); });
        latest.when(report, b.future, [&](int v) { got.push_back(v); });
        QVERIFY(!stop());
        QVERIFY(!first.token().cancelled());
        latest.cancel();
        QVERIFY(stop());
        QVERIFY(first.token().cancelled());
        QVERIFY(report.stale());
        a.finish(1);
        b.finish(2);
        settle();
        QVERIFY(got.empty());
        // A request after cancel() is delivered as usual.
        Pending c;
        latest.when(latest.next(0), c.future, [&](int v) { got.push_back(v); });
        c.finish(3);
        settle();
        QCOMPARE(got, std::vector<int>{3});
    }

    void aResultFinishedElsewhereIsDeliveredOnTheOwnersThread()
    {
        QObject owner;
        Latest latest(&owner);
        Pending work;
        std::thread::id deliveredOn;
        int got = 0;
        latest.when(latest.next(), work.future, [&](int v) {
            deliveredOn = std::this_thread::get_id();
            got = v;
        });
        std::thread worker([&] { work.finish(7); });
        worker.join();
        QTRY_COMPARE(got, 7);
        QCOMPARE(deliveredOn, std::this_thread::get_id());
    }

    void nothingReachesAnOwnerThatIsGone()
    {
        auto owner = std::make_unique<QObject>();
        auto latest = std::make_unique<Latest>(owner.get());
        int delivered = 0, busyCalls = 0;
        latest->onBusyChanged([&](bool) { ++busyCalls; });
        Pending work;
        const Ticket ticket = latest->next();
        latest->when(ticket, work.future, [&](int) { ++delivered; });
        QCOMPARE(busyCalls, 1);
        // The owner's members go first (the frame), then the owner with its watchers.
        latest.reset();
        QVERIFY(ticket.stale()); // work under way is told to stop
        owner.reset();
        work.finish(1);
        settle();
        QCOMPARE(delivered, 0);
        QCOMPARE(busyCalls, 1); // no settle reached a frame that is gone
    }

    void eachResultComesAsItIsReportedAndBusyFollowsTheFutures()
    {
        QObject owner;
        Latest latest(&owner);
        std::vector<bool> busy;
        latest.onBusyChanged([&](bool b) { busy.push_back(b); });
        std::vector<int> got;
        bool done = false;
        QPromise<int> promise;
        promise.start();
        latest.each(latest.next(), promise.future(), [&](int v) { got.push_back(v); }, [&] { done = true; });
        QVERIFY(latest.isBusy());
        promise.addResult(1);
        settle();
        QCOMPARE(got, std::vector<int>{1}); // before the work ended
        QVERIFY(!done);
        promise.addResult(2);
        promise.finish();
        settle();
        QCOMPARE(got, (std::vector<int>{1, 2}));
        QVERIFY(done);
        QVERIFY(!latest.isBusy());
        QCOMPARE(busy, (std::vector<bool>{true, false}));
    }

    void theUiThreadGuardIsOnInEveryUiTest()
    {
        QVERIFY(blockingForbiddenHere());
        bool elsewhere = true;
        std::thread other([&] { elsewhere = blockingForbiddenHere(); });
        other.join();
        QVERIFY(!elsewhere);
    }
};

QTEST_MAIN(TestLatest)
#include "test_latest.moc"
