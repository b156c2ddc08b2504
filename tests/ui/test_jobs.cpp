// The background jobs over a database (controller/reader_job.h): the newest request of a kind wins
// and only its result is delivered, other kinds are left alone, cancel() drops everything pending,
// the jobs of one file share its one reader thread (another file has its own), and a job that goes
// while its work runs delivers nothing.
#include "controller/ledger_job.h"
#include "controller/query_job.h"
#include "models/history_model.h"
#include "models/ledger_model.h"
#include "store/store.h"

#include "window_fixture.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <thread>

using namespace stepscope;
using namespace stepscope::ui;

namespace
{

bool waitIdle(const ReaderJob &job)
{
    return QTest::qWaitFor([&] { return !job.isBusy(); }, 60000);
}

// A ledger job over `path` with its model, and spies on what it delivers.
struct Ledgers {
    explicit Ledgers(const QString &path) { job.setDatabase(path); }
    LedgerModel model;
    LedgerJob job{&model};
    QSignalSpy read{&job, &LedgerJob::sweepRead};
    QSignalSpy ready{&job, &LedgerJob::ready};
};

} // namespace

class TestJobs : public QObject
{
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase();
    void theNewestLedgerRequestIsTheOnlyOneDelivered();
    void aNewerQueryOfAKindLeavesOtherKindsAlone();
    void cancelDropsEveryPendingResult();
    void jobsOfAFileShareItsReaderThread();
    void aJobThatGoesWhileItsWorkRunsDeliversNothing();
    void withoutADatabaseARequestFailsLater();

  private:
    QTemporaryDir dir_;
    QString path_, otherPath_;
    const std::int64_t sweepA_ = 1, sweepB_ = 2; // the published ledger's b32 and b128 sweeps
    std::vector<store::RunRecord> runsA_;
};

void TestJobs::initTestCase()
{
    QVERIFY(dir_.isValid());
    path_ = test::copyOf(test::h200Ledger(), dir_);
    otherPath_ = test::copyOf(QStringLiteral(STEPSCOPE_SOURCE_DIR "/docs/results/h200-knobs.sqlite"), dir_);
    runsA_ = store::Reader::open(path_.toStdString())->runs(sweepA_);
    QVERIFY(runsA_.size() > 3);
}

void TestJobs::theNewestLedgerRequestIsTheOnlyOneDelivered()
{
    Ledgers ledgers(path_);
    auto &[model, job, read, ready] = ledgers;
    QSignalSpy busy(&job, &LedgerJob::busyChanged);
    job.request(sweepA_, 0);
    job.request(sweepB_, 0); // before the event loop ran: A's results, early ones too, are stale already
    QVERIFY(job.isBusy());
    QVERIFY(waitIdle(job));
    QCOMPARE(ready.count(), 1);
    QCOMPARE(ready.first().at(0).toLongLong(), sweepB_);
    QCOMPARE(read.count(), 1);
    QCOMPARE(read.first().at(0).value<SweepInfo>().sweep.id, sweepB_);
    QCOMPARE(model.sweepId(), sweepB_);
    QCOMPARE(model.rowCount(), 7);
    // Busy once, for both requests together, then idle.
    QCOMPARE(busy.count(), 2);
    QCOMPARE(busy.at(0).at(0).toBool(), true);
    QCOMPARE(busy.at(1).at(0).toBool(), false);

    // A new planned length asked twice: the later one's recommendation is the one delivered.
    QSignalSpy recommended(&job, &LedgerJob::recommended);
    job.requestPlannedSteps(500);
    job.requestPlannedSteps(250000);
    QVERIFY(waitIdle(job));
    QCOMPARE(recommended.count(), 1);
    QCOMPARE(recommended.first().at(1).toLongLong(), 250000);
}

void TestJobs::aNewerQueryOfAKindLeavesOtherKindsAlone()
{
    HistoryModel history;
    QueryJob job(&history);
    job.setDatabase(path_);
    QSignalSpy steps(&job, &QueryJob::runStepsReady);
    QSignalSpy listed(&job, &QueryJob::historyReady);
    job.requestRunSteps(runsA_.at(0).id);
    job.requestHistory();
    job.requestRunSteps(runsA_.at(3).id);
    QVERIFY(waitIdle(job));
    QCOMPARE(steps.count(), 1);
    const auto shown = steps.first().at(0).value<RunSteps>();
    QCOMPARE(shown.run.id, runsA_.at(3).id);
    QCOMPARE(shown.ms.size(), qsizetype(runsA_.at(3).stepCount));
    QCOMPARE(listed.count(), 1); // the history was no request of the steps' kind
    QVERIFY(history.rowCount() > 0);
}

void TestJobs::cancelDropsEveryPendingResult()
{
    Ledgers ledgers(path_);
    auto &[model, job, read, ready] = ledgers;
    QSignalSpy failed(&job, &LedgerJob::failed);
    job.request(sweepA_, 0);
    job.cancel();
    QVERIFY(job.isBusy()); // until the stale work has come back
    QVERIFY(waitIdle(job));
    QCOMPARE(ready.count(), 0);
    QCOMPARE(read.count(), 0);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(model.rowCount(), 0);

    // The job is as good as new after it.
    job.request(sweepA_, 0);
    QVERIFY(waitIdle(job));
    QCOMPARE(ready.count(), 1);
    QCOMPARE(model.sweepId(), sweepA_);
}

void TestJobs::jobsOfAFileShareItsReaderThread()
{
    LedgerModel first, second, third;
    LedgerJob a(&first), b(&second), elsewhere(&third);
    a.setDatabase(path_);
    b.setDatabase(dir_.path() + "/./h200-ledger.sqlite"); // the same file, spelled otherwise
    elsewhere.setDatabase(otherPath_);
    for (LedgerJob *job : {&a, &b, &elsewhere})
        job->request(1, 0);
    for (LedgerJob *job : {&a, &b, &elsewhere})
        QVERIFY(waitIdle(*job));
    QVERIFY(a.lastBuildThread() != std::thread::id());
    QVERIFY(a.lastBuildThread() != std::this_thread::get_id());
    QCOMPARE(b.lastBuildThread(), a.lastBuildThread());
    QVERIFY(elsewhere.lastBuildThread() != std::thread::id());
    QVERIFY(elsewhere.lastBuildThread() != a.lastBuildThread());
}

void TestJobs::aJobThatGoesWhileItsWorkRunsDeliversNothing()
{
    bool delivered = false;
    {
        LedgerModel model;
        auto job = std::make_unique<LedgerJob>(&model);
        job->setDatabase(path_);
        connect(job.get(), &LedgerJob::ready, this, [&] { delivered = true; });
        connect(job.get(), &LedgerJob::sweepRead, this, [&] { delivered = true; });
        job->request(sweepA_, 0);
        job->request(sweepB_, 0);
        job.reset(); // its work is queued or running on the file's thread
        QTest::qWait(300);
    }
    QVERIFY(!delivered);
    // The file's thread went with its last job, or finishes its work first: a new job reads it.
    LedgerModel model;
    LedgerJob job(&model);
    job.setDatabase(path_);
    job.request(sweepB_, 0);
    QVERIFY(waitIdle(job));
    QCOMPARE(model.sweepId(), sweepB_);
}

void TestJobs::withoutADatabaseARequestFailsLater()
{
    HistoryModel history;
    QueryJob job(&history);
    QSignalSpy failed(&job, &QueryJob::failed);
    job.requestHistory();
    QCOMPARE(failed.count(), 0); // said after the request returned, as a refused file is
    QVERIFY(waitIdle(job));
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.first().at(0).toString().contains("no database"), qPrintable(failed.first().at(0).toString()));
}

QTEST_MAIN(TestJobs)
#include "test_jobs.moc"
