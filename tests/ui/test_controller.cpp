// The run controller over a real tiny sweep on the CPU: the native worker runs, the store fills,
// and the facade's signals arrive on the UI thread in order.
#include "controller/query_job.h"
#include "controller/run_controller.h"
#include "models/history_model.h"
#include "presenters/live_run.h"

#include "store/store.h"
#include "supervisor/sweep_service.h"
#include "tiny_config.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QMap>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace stepscope;
using namespace stepscope::ui;

namespace
{

RunConfig tiny()
{
    return test::tinyCpuConfig(2, 12);
}

// The events the controller handed on, kept in order (supervisor/sweep_event.h).
struct EventLog {
    std::vector<supervisor::SweepEvent> all;
    explicit EventLog(RunController &controller)
    {
        QObject::connect(&controller, &RunController::sweepEvent, &controller,
                         [this](const supervisor::SweepEvent &e) { all.push_back(e); });
    }
    template <class E> std::vector<E> of() const
    {
        std::vector<E> out;
        for (const auto &e : all)
            if (const auto *x = std::get_if<E>(&e))
                out.push_back(*x);
        return out;
    }
    template <class E> int count() const { return static_cast<int>(of<E>().size()); }
};

// A finished sweep as the store keeps it.
struct SweepResult {
    qint64 sweepId = 0;
    std::vector<store::RunRecord> runs;
};

// Opens a database in `dir`, runs `request` to its end and reads its runs back; an empty result
// (sweepId 0) when it could not start or did not finish in five minutes, with *error saying which.
SweepResult runSweep(const QTemporaryDir &dir, const SweepRequest &request, QString *error)
{
    RunController controller;
    const QString path = dir.filePath("m.sqlite");
    if (!controller.openDatabase(path, error))
        return {};
    QSignalSpy started(&controller, &RunController::sweepStarted);
    EventLog events(controller);
    if (!controller.start(request, error))
        return {};
    if (!QTest::qWaitFor([&] { return events.count<supervisor::event::Finished>() > 0; }, 300000)) {
        *error = QStringLiteral("the sweep did not finish in 300 s (a loaded machine runs workers slowly)");
        return {};
    }
    SweepResult result;
    result.sweepId = started.first().at(0).toLongLong();
    result.runs = store::Reader::open(path.toStdString())->runs(result.sweepId);
    return result;
}

// The nice value of each thread of this process, by thread id (Linux: /proc/self/task).
QMap<QString, int> threadNiceValues()
{
    QMap<QString, int> out;
    for (const QString &tid : QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile stat("/proc/self/task/" + tid + "/stat");
        if (!stat.open(QIODevice::ReadOnly))
            continue; // the thread ended meanwhile
        // "tid (name) state ppid ...": nice is the 19th field, the 17th after the name.
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 16)
            out[tid] = fields.at(16).toInt();
    }
    return out;
}

} // namespace

class TestController : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The file's check runs below the UI thread, but the store's writer thread, which the sweep
    // waits on for every run it creates, must not: it is started by the opening thread and would
    // inherit its nice value, and behind other processes' work a niced writer stalled whole sweeps.
    void asyncOpenLeavesTheStoreWriterAtNormalPriority()
    {
        if (!QFile::exists("/proc/self/task"))
            QSKIP("reads thread priorities from Linux's /proc");
        QTemporaryDir dir;
        RunController controller;
        const QMap<QString, int> before = threadNiceValues();
        const QString mainThread = QString::number(QCoreApplication::applicationPid()); // its tid is the pid
        QVERIFY(before.contains(mainThread));
        QSignalSpy opened(&controller, &RunController::databaseOpened);
        QString error;
        QVERIFY2(controller.openDatabaseAsync(dir.filePath("m.sqlite"), &error), qPrintable(error));
        QVERIFY(opened.wait(60000));
        // The opening thread is gone once it has delivered; what stays is the writer.
        QMap<QString, int> added;
        const auto settled = [&] {
            added = threadNiceValues();
            for (const QString &tid : before.keys())
                added.remove(tid);
            return added.size() == 1;
        };
        QVERIFY2(QTest::qWaitFor(settled, 10000), qPrintable(QString::number(added.size()) + " new threads"));
        QCOMPARE(added.first(), before.value(mainThread)); // ctest may run the whole test niced
    }

    // Issue 29.4: the stages core words reach the Log page in the CLI's words (supervisor/event_text.h),
    // one hop: the controller hands the event on, the live-run presenter words it.
    void stagesReachTheLogInTheClisWords()
    {
        RunController controller;
        HistoryModel history;
        QueryJob query(&history);
        LiveRun live(&controller, &query);
        QSignalSpy log(&live, &LiveRun::logLine);
        EventLog events(controller);
        const Failure gone{FailureCategory::CudaUnavailable, "the device has gone", {}};
        controller.onEvent(supervisor::event::LaneRetired{"cuda:1", "native cuda b32 224px c1000 tf32", gone});
        controller.onEvent(supervisor::event::RunRequeued{"native cuda b32 224px c1000 tf32"});
        // Facts shown in their own places are no log line of the presenter's.
        controller.onEvent(supervisor::event::Environment{3, "{}"});
        QCOMPARE(events.all.size(), std::size_t(3));
        QCOMPARE(log.count(), 2);
        QVERIFY(log.at(0).at(0).toString().startsWith("lane cuda:1 retired: its run of native cuda"));
        QCOMPARE(log.at(1).at(0).toString(), QString("queued again for another lane: native cuda b32 224px c1000 tf32"));
    }

    void runsATinySweepAndReportsEveryStep()
    {
        QTemporaryDir dir;
        RunController controller;
        QString error;
        QVERIFY2(controller.openDatabase(dir.filePath("m.sqlite"), &error), qPrintable(error));

        QSignalSpy started(&controller, &RunController::sweepStarted);
        EventLog events(controller);
        using namespace supervisor::event;

        SweepRequest request;
        RunConfig bf16 = tiny();
        bf16.autocast = Autocast::BF16;
        request.configs = {tiny(), bf16};
        request.repeats = 1;
        request.preset = "custom";
        QVERIFY2(controller.start(request, &error), qPrintable(error));
        QVERIFY(controller.isRunning()); // from the call on, while the plan is stored off this thread
        QVERIFY(!controller.start(request, &error)); // one sweep at a time
        QVERIFY(error.contains("already running"));
        QCOMPARE(started.count(), 0); // prepared on the writer side, not in the call
        QTRY_COMPARE(started.count(), 1);

        qsizetype samples = 0;
        QElapsedTimer clock;
        clock.start();
        while (events.count<Finished>() == 0 && clock.elapsed() < 300000) {
            QTest::qWait(20);
            for (const auto &batch : controller.takeSamples()) {
                QVERIFY(batch.runId > 0);
                samples += batch.ms.size();
            }
        }
        QCOMPARE(events.count<Finished>(), 1);
        QCOMPARE(events.of<Finished>().front().cancelled, false);
        QCOMPARE(events.of<Finished>().front().sweepId, started.first().at(0).toLongLong());
        QVERIFY(!controller.isRunning());
        for (const auto &batch : controller.takeSamples())
            samples += batch.ms.size();
        QCOMPARE(samples, qsizetype(2 * tiny().totalSteps()));
        QCOMPARE(events.count<RunStarted>(), 2);
        QCOMPARE(events.count<RunFinished>(), 2);
        for (const auto &run : events.of<RunFinished>())
            QVERIFY(run.status == RunStatus::Complete);
        QVERIFY(events.count<Progress>() > 0);
        QCOMPARE(events.of<Progress>().back().sweepFraction, 1.0);
        // One hop: Finished is the last event handed on.
        QVERIFY(std::holds_alternative<Finished>(events.all.back()));

        auto reader = store::Reader::open(dir.filePath("m.sqlite").toStdString());
        const auto runs = reader->runs(started.first().at(0).toLongLong());
        QCOMPARE(runs.size(), std::size_t(2));
        for (const auto &r : runs)
            QCOMPARE(r.stepCount, std::int64_t(tiny().totalSteps()));

        // Deleting goes through the controller's one writer; the sweep and its runs are gone.
        const qint64 sweepId = started.first().at(0).toLongLong();
        QVERIFY2(controller.deleteSweep(sweepId, &error), qPrintable(error));
        auto after = store::Reader::open(dir.filePath("m.sqlite").toStdString());
        QVERIFY(!after->sweep(sweepId));
        QVERIFY(after->runs(sweepId).empty());
    }

    // The dashboard's adaptive repeats reach the supervisor: one planned process becomes two (no
    // interval rests on one process), and the cap of two stops it there.
    void adaptiveRepeatsAddProcessesUpToTheCap()
    {
        QTemporaryDir dir;
        SweepRequest request;
        request.configs = {tiny()};
        request.repeats = 1;
        request.preset = "single";
        request.machineWarmup = false;
        request.adaptive = true;
        request.adaptiveHalfWidth = 0.5;
        request.adaptiveMaxProcesses = 2;
        QString error;
        const auto [sweepId, runs] = runSweep(dir, request, &error);
        QVERIFY2(sweepId > 0, qPrintable(error));
        QCOMPARE(runs.size(), std::size_t(2));
        for (const auto &r : runs)
            QCOMPARE(static_cast<int>(r.status), static_cast<int>(RunStatus::Complete));
    }

    // The baseline picked in the dashboard is the one the sweep stores.
    void chosenBaselineIsStored()
    {
        QTemporaryDir dir;
        SweepRequest request;
        RunConfig bf16 = tiny();
        bf16.autocast = Autocast::BF16;
        request.configs = {tiny(), bf16};
        request.preset = "custom";
        request.baseline = 1;
        QString error;
        const SweepResult result = runSweep(dir, request, &error);
        QVERIFY2(result.sweepId > 0, qPrintable(error));
        QCOMPARE(result.runs.size(), std::size_t(2));
        const auto sweep = store::Reader::open(dir.filePath("m.sqlite").toStdString())->sweep(result.sweepId);
        QVERIFY(sweep);
        QCOMPARE(QString::fromStdString(sweep->baselineConfig), QString::fromStdString(canonicalName(bf16)));
    }

    void stopCancelsTheRunningRunAndKeepsFinishedOnes()
    {
        QTemporaryDir dir;
        RunController controller;
        QString error;
        QVERIFY(controller.openDatabase(dir.filePath("m.sqlite"), &error));
        EventLog events(controller);
        using namespace supervisor::event;
        SweepRequest request;
        RunConfig quick = tiny();
        RunConfig slow = tiny();
        slow.steps = 100000;
        request.configs = {quick, slow, quick};
        QVERIFY(controller.start(request, &error));
        QTRY_VERIFY_WITH_TIMEOUT(events.count<RunFinished>() == 1, 60000);
        // Wait until the slow run has steps on disk (a loaded machine starts workers slowly).
        const std::string db = dir.filePath("m.sqlite").toStdString();
        auto slowRunSteps = [&] {
            auto reader = store::Reader::open(db);
            const auto runs = reader->runs(controller.currentSweep());
            return runs.size() == 3 ? runs[1].stepCount : std::int64_t(0);
        };
        QTRY_VERIFY_WITH_TIMEOUT(slowRunSteps() > 3, 60000);
        QVERIFY(!controller.deleteSweep(controller.currentSweep(), &error)); // not while it runs
        QVERIFY(error.contains("Stop"));
        controller.stop();
        QTRY_VERIFY_WITH_TIMEOUT(events.count<Finished>() == 1, 30000);
        QCOMPARE(events.of<Finished>().front().cancelled, true);
        auto reader = store::Reader::open(dir.filePath("m.sqlite").toStdString());
        const auto runs = reader->runs(controller.currentSweep());
        QCOMPARE(runs.size(), std::size_t(3));
        QCOMPARE(int(runs[0].status), int(RunStatus::Complete));
        QCOMPARE(int(runs[1].status), int(RunStatus::Cancelled));
        QVERIFY(runs[1].stepCount > 1); // the cancelled run keeps what it measured
        QCOMPARE(int(runs[2].status), int(RunStatus::Cancelled));
    }

    void refusesAForeignFileWithoutTouchingIt()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("notes.sqlite");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("these are my notes, not a database\n");
        f.close();
        RunController controller;
        QString error;
        QVERIFY(!controller.openDatabase(path, &error));
        QVERIFY2(error.contains("not a Stepscope database"), qPrintable(error));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("these are my notes, not a database\n"));
    }

    // Stop pressed while the sweep is still being prepared (off the UI thread): the sweep starts as
    // planned and ends cancelled at once, with nothing measured.
    void stopWhilePreparingCancelsTheSweep()
    {
        QTemporaryDir dir;
        RunController controller;
        QString error;
        QVERIFY(controller.openDatabase(dir.filePath("m.sqlite"), &error));
        QSignalSpy started(&controller, &RunController::sweepStarted);
        EventLog events(controller);
        SweepRequest request;
        request.configs = {tiny(), tiny()};
        QVERIFY2(controller.start(request, &error), qPrintable(error));
        controller.stop();
        QVERIFY(controller.isRunning()); // until the service says it finished
        QTRY_COMPARE_WITH_TIMEOUT(events.count<supervisor::event::Finished>(), 1, 60000);
        QCOMPARE(started.count(), 1);
        QCOMPARE(events.of<supervisor::event::Finished>().front().cancelled, true);
        QVERIFY(!controller.isRunning());
        for (const auto &run : store::Reader::open(dir.filePath("m.sqlite").toStdString())->runs(controller.currentSweep()))
            QVERIFY(run.status != RunStatus::Complete);
    }

    void refusesAnEmptyOrInvalidRequest()
    {
        QTemporaryDir dir;
        RunController controller;
        QString error;
        QVERIFY(controller.openDatabase(dir.filePath("m.sqlite"), &error));
        SweepRequest empty;
        QVERIFY(!controller.start(empty, &error));
        QVERIFY(error.contains("no configuration"));
        SweepRequest bad;
        RunConfig c = tiny();
        c.cudaGraph = true; // on the CPU
        bad.configs = {c};
        QVERIFY(!controller.start(bad, &error));
        QVERIFY2(error.contains("cuda_graph"), qPrintable(error));
        QVERIFY(!controller.isRunning());
    }
};

QTEST_MAIN(TestController)
#include "test_controller.moc"
