// A run's profile through the supervisor (issue 18.1): the timed worker is asked for it, its trace
// is summarised, stored and kept compressed beside the database; a profile that fails, or a worker
// that dies in the profiler after its timed steps, leaves the run complete with the problem noted.
#include "platform/platform.h"
#include "profile/profile_summary.h"
#include "supervisor/run_profile.h"
#include "supervisor_fixture.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <csignal>

#ifndef _WIN32
#include <sys/resource.h>
#endif

namespace stepscope::supervisor::test
{
namespace
{

TEST_F(SupervisorTest, ProfileIsAskedForSummarisedStoredAndItsTraceKept)
{
    RunnerOptions o = options(
        fakeWorker({"--replay", dataFile("worker-ok.jsonl"), "--write-trace", dataFile("profile-trace-gpu.json")}));
    o.profileSteps = 2;
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, o);
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, QString());
    const auto runRecord = reader()->run(p.runs[0].runId);
    const auto stored = profile::profileFromJson(runRecord->profileJson);
    ASSERT_TRUE(stored && stored->summary) << runRecord->profileJson;
    EXPECT_EQ(stored->summary->steps, 2);
    EXPECT_NEAR(stored->summary->busyMs, 1.575, 1e-9); // the fixture's figures (test_profile.cpp)
    ASSERT_FALSE(stored->traceFile.empty()) << stored->summary->note;
    const QString kept = keptTracePath(QString::fromStdString(path_), stored->traceFile);
    EXPECT_TRUE(QFileInfo(kept).isFile()) << kept.toStdString();
    // Named for its run and a part of its own: a later run given the same id (its sweep deleted)
    // never finds this trace as its.
    EXPECT_TRUE(QRegularExpression(QString("^run-%1-[A-Za-z0-9]{6}\\.trace\\.json\\.gz$").arg(p.runs[0].runId))
                    .match(QFileInfo(kept).fileName())
                    .hasMatch())
        << kept.toStdString();
    // The raw trace the worker wrote is gone, and its scratch folder: only the compressed one stays.
    const QDir traces(traceFolderFor(QString::fromStdString(path_)));
    EXPECT_EQ(traces.entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
              QStringList{QFileInfo(kept).fileName()});
}

// What the traces folder holds besides kept traces: nothing, once a run is over.
QStringList scratchIn(const QString &traces)
{
    return QDir(traces)
        .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot)
        .filter(QRegularExpression("^(?!run-.*\\.trace\\.json\\.gz$)"));
}

// A profile whose worker failed half-way (its profiler left a temporary file) stores the worker's
// problem and leaves nothing in the traces folder.
TEST_F(SupervisorTest, AFailedProfileLeavesNothingInTheTracesFolder)
{
    const QString db = QString::fromStdString(path_);
    std::string problem;
    {
        TraceScratch scratch(db, problem);
        ASSERT_FALSE(scratch.folder().isEmpty()) << problem;
        EXPECT_TRUE(QFileInfo(scratch.folder()).fileName().startsWith("partial-"));
        QFile junk(scratch.rawTracePath() + ".tmp");
        ASSERT_TRUE(junk.open(QIODevice::WriteOnly));
        junk.write(QByteArray(1000, '{'));
        junk.close();
        protocol::Message m;
        m.type = protocol::Message::Type::Profile;
        m.steps = 2;
        m.profileProblem = "the profiler failed: No space left on device";
        const profile::StoredProfile stored = recordProfile(m, db, 1, scratch);
        EXPECT_TRUE(contains(stored.problem, m.profileProblem)) << stored.problem;
        EXPECT_EQ(QDir(scratch.folder()).entryList(QDir::Files), QStringList{"owner"}) << "emptied before it is stored";
    }
    EXPECT_EQ(scratchIn(traceFolderFor(db)), QStringList());
}

#ifndef _WIN32
// A trace that cannot be written back (a full disk; here a file-size limit, which root cannot
// bypass, as it can a read-only folder) keeps its summary and says why the trace was not kept. The
// raw trace, and the half-written compressed one, are gone.
TEST_F(SupervisorTest, ATraceThatCannotBeWrittenKeepsTheSummaryAndLeavesNothing)
{
    const QString db = QString::fromStdString(path_);
    std::string problem;
    {
        TraceScratch scratch(db, problem);
        ASSERT_TRUE(QFile::copy(dataFile("profile-trace-gpu.json"), scratch.rawTracePath()));
        protocol::Message m;
        m.type = protocol::Message::Type::Profile;
        m.steps = 2;
        m.tracePath = scratch.rawTracePath().toStdString();
        rlimit before{};
        ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
        rlimit none = before;
        none.rlim_cur = 0; // no file may grow: every write fails with EFBIG
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &none), 0);
        const profile::StoredProfile stored = recordProfile(m, db, 1, scratch);
        setrlimit(RLIMIT_FSIZE, &before);
        std::signal(SIGXFSZ, oldHandler);
        ASSERT_TRUE(stored.summary) << stored.problem;
        EXPECT_TRUE(stored.traceFile.empty());
        EXPECT_TRUE(contains(stored.summary->note, "trace not kept")) << stored.summary->note;
        EXPECT_TRUE(contains(stored.summary->note, "file-size limit")) << stored.summary->note;
    }
    EXPECT_EQ(scratchIn(traceFolderFor(db)), QStringList());
}
#endif

TEST_F(SupervisorTest, NoProfileAskedWhenProfilingIsOff)
{
    RunnerOptions o = options(
        fakeWorker({"--replay", dataFile("worker-ok.jsonl"), "--write-trace", dataFile("profile-trace-gpu.json")}));
    o.profileSteps = 0;
    const SweepPlan p = plan({smallConfig()});
    run(p, o);
    EXPECT_EQ(reader()->run(p.runs[0].runId)->profileJson, "");
    EXPECT_FALSE(QFileInfo::exists(traceFolderFor(QString::fromStdString(path_))));
}

TEST_F(SupervisorTest, UnreadableTraceIsTheProfilesProblemNotTheRuns)
{
    const QString bad = stream("bad-trace.json", {"{\"traceEvents\": ["});
    RunnerOptions o = options(fakeWorker({"--replay", dataFile("worker-ok.jsonl"), "--write-trace", bad}));
    o.profileSteps = 2;
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, o);
    ASSERT_EQ(out.runFinished.size(), 1u);
    const auto runRecord = reader()->run(p.runs[0].runId);
    EXPECT_EQ(runRecord->status, RunStatus::Complete);
    const auto stored = profile::profileFromJson(runRecord->profileJson);
    ASSERT_TRUE(stored);
    EXPECT_FALSE(stored->summary);
    EXPECT_TRUE(contains(stored->problem, "not JSON")) << stored->problem;
}

TEST_F(SupervisorTest, TraceFolderThatCannotBeMadeLeavesTheRunCompleteWithTheProblem)
{
    QFile blocker(traceFolderFor(QString::fromStdString(path_)));
    ASSERT_TRUE(blocker.open(QIODevice::WriteOnly)); // a file where the folder would go
    blocker.close();
    RunnerOptions o = options(
        fakeWorker({"--replay", dataFile("worker-ok.jsonl"), "--write-trace", dataFile("profile-trace-gpu.json")}));
    o.profileSteps = 2;
    const SweepPlan p = plan({smallConfig()});
    run(p, o);
    const auto runRecord = reader()->run(p.runs[0].runId);
    EXPECT_EQ(runRecord->status, RunStatus::Complete);
    const auto stored = profile::profileFromJson(runRecord->profileJson);
    ASSERT_TRUE(stored);
    EXPECT_TRUE(contains(stored->problem, "cannot create the trace folder")) << stored->problem;
}

// Every timed figure (steps, memory, losses) is in before the worker says it is profiling: a
// worker that dies there has measured its run, and only its profile is lost.
TEST_F(SupervisorTest, WorkerDyingWhileProfilingLeavesACompleteRun)
{
    QStringList lines;
    QFile ok(dataFile("worker-ok.jsonl"));
    ASSERT_TRUE(ok.open(QIODevice::ReadOnly));
    for (const QString &line : QString::fromUtf8(ok.readAll()).split('\n', Qt::SkipEmptyParts))
        if (!line.contains("\"done\""))
            lines << line;
    lines << phaseLine("profiling", 0);
    RunnerOptions o = options(fakeWorker({"--replay", stream("dies.jsonl", lines), "--trace-junk", "--exit", "1"}));
    o.profileSteps = 2;
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, o);
    // What it had written of its trace went with it.
    EXPECT_EQ(scratchIn(traceFolderFor(QString::fromStdString(path_))), QStringList());
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, QString()) << "complete, not failed";
    const auto runRecord = reader()->run(p.runs[0].runId);
    EXPECT_EQ(runRecord->status, RunStatus::Complete);
    EXPECT_EQ(runRecord->stepCount, 5);
    const auto stored = profile::profileFromJson(runRecord->profileJson);
    ASSERT_TRUE(stored);
    EXPECT_TRUE(contains(stored->problem, "ended while profiling")) << stored->problem;

    // Before its losses, the same death is the run's failure.
    QStringList early = lines.mid(0, 3);
    early << phaseLine("profiling", 0);
    RunnerOptions e = options(fakeWorker({"--replay", stream("early.jsonl", early), "--exit", "1"}));
    e.profileSteps = 2;
    const SweepPlan q = plan({smallConfig()});
    run(q, e);
    EXPECT_EQ(reader()->run(q.runs[0].runId)->status, RunStatus::Failed);
}

} // namespace
} // namespace stepscope::supervisor::test
