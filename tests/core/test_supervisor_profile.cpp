// A run's profile through the supervisor (issue 18.1): the timed worker is asked for it, its trace
// is summarised, stored and kept compressed beside the database; a profile that fails, or a worker
// that dies in the profiler after its timed steps, leaves the run complete with the problem noted.
#include "platform/platform.h"
#include "profile/profile_summary.h"
#include "supervisor/run_profile.h"
#include "supervisor_fixture.h"

#include <QDir>
#include <QFileInfo>

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
    EXPECT_TRUE(kept.endsWith(".trace.json.gz"));
    // The raw trace the worker wrote is gone: only the compressed one stays.
    const QDir traces(traceFolderFor(QString::fromStdString(path_)));
    EXPECT_EQ(traces.entryList(QDir::Files), QStringList{QFileInfo(kept).fileName()});
}

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
    RunnerOptions o = options(fakeWorker({"--replay", stream("dies.jsonl", lines), "--exit", "1"}));
    o.profileSteps = 2;
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, o);
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
