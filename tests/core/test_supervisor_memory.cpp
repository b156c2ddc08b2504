// A run's memory snapshot through the supervisor (issue 31.2): the timed worker is told where to
// write it, the pickle is summarised, stored with the run's profile, kept gzip-compressed beside the
// trace, listed by `show RUN`'s words (report/memory_text.h) and deleted with its sweep; a run that
// fails out of memory keeps the allocator's state and its failure's text points at it.
#include "profile/profile_summary.h"
#include "report/memory_text.h"
#include "supervisor/run_profile.h"
#include "supervisor_fixture.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace stepscope::supervisor::test
{
namespace
{

QStringList entries(const QString &folder)
{
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

TEST_F(SupervisorTest, MemoryTimelineIsWrittenKeptListedAndDeletedWithItsSweep)
{
    // The worker's order: its timed lines, the snapshot, then the profile (the scratch goes with it).
    RunnerOptions o = options(
        fakeWorker({"--replay", dataFile("worker-ok.jsonl"), "--write-memory", "step",
                    dataFile("memory-snapshot-step.pickle"), "--write-trace", dataFile("profile-trace-gpu.json")}));
    o.profileSteps = 2;
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, o);
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, QString());
    const auto runRecord = reader()->run(p.runs[0].runId);
    const auto stored = profile::profileFromJson(runRecord->profileJson);
    ASSERT_TRUE(stored && stored->summary) << runRecord->profileJson;
    ASSERT_TRUE(stored->memory && stored->memory->timeline) << runRecord->profileJson;
    EXPECT_EQ(stored->memory->kind, profile::SnapshotKind::Step);
    EXPECT_EQ(stored->memory->timeline->peakAllocated, 18 << 20); // the fixture's (test_memory_timeline.cpp)
    ASSERT_FALSE(stored->memory->file.empty()) << stored->memory->timeline->note;

    // Kept: compressed, named for its run beside its trace; the pickle written and every scratch gone.
    const QString database = QString::fromStdString(path_);
    const QString kept = keptTracePath(database, stored->memory->file);
    EXPECT_TRUE(QRegularExpression(QString("^run-%1-[A-Za-z0-9]{6}\\.memory\\.pickle\\.gz$").arg(p.runs[0].runId))
                    .match(QFileInfo(kept).fileName())
                    .hasMatch())
        << kept.toStdString();
    QFile gz(kept);
    ASSERT_TRUE(gz.open(QIODevice::ReadOnly)) << kept.toStdString();
    EXPECT_TRUE(gz.read(2) == QByteArray("\x1f\x8b", 2)) << "gzip";
    gz.close();
    const QString traces = traceFolderFor(database);
    QStringList keptFiles{QFileInfo(keptTracePath(database, stored->traceFile)).fileName(), QFileInfo(kept).fileName()};
    keptFiles.sort();
    EXPECT_EQ(entries(traces), keptFiles);

    // Listed: show RUN's words name the file, how to open it, the peaks and the biggest block's frames.
    const report::MemoryLines lines = report::runMemoryLines(*runRecord);
    EXPECT_EQ(lines.title, "memory timeline");
    std::string all;
    for (const auto &l : lines.lines)
        all += l + "\n";
    EXPECT_TRUE(contains(all, stored->memory->file + " beside the database (gunzip it, then open it at "
                                                     "https://pytorch.org/memory_viz)"))
        << all;
    EXPECT_TRUE(contains(all, "allocated peaks at 18.0 MiB, reserved at 22.0 MiB")) << all;
    EXPECT_TRUE(contains(all, "8.0 MiB  _forward_impl (torchvision/models/resnet.py:270)")) << all;

    // Deleted with its sweep, the trace too.
    db_->deleteSweep(p.sweepId);
    db_->flush();
    EXPECT_FALSE(QFileInfo::exists(kept));
    EXPECT_EQ(entries(traces), QStringList());
}

TEST_F(SupervisorTest, OutOfMemoryKeepsTheAllocatorsStateAndTheFailurePointsAtIt)
{
    QStringList lines;
    QFile oom(dataFile("worker-oom.jsonl"));
    ASSERT_TRUE(oom.open(QIODevice::ReadOnly));
    lines = QString::fromUtf8(oom.readAll()).split('\n', Qt::SkipEmptyParts);
    const QString error = lines.takeLast();
    RunnerOptions o = options(fakeWorker({"--replay", stream("oom.jsonl", lines), "--write-memory", "out-of-memory",
                                          dataFile("memory-snapshot-step.pickle"), "--replay",
                                          stream("error.jsonl", {error}), "--exit", "1"}));
    o.profileSteps = 2;
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, o);
    ASSERT_EQ(out.runFinished.size(), 1u);
    const auto runRecord = reader()->run(p.runs[0].runId);
    EXPECT_EQ(runRecord->status, RunStatus::Failed);
    EXPECT_EQ(runRecord->category, FailureCategory::OutOfMemory);
    const auto stored = profile::profileFromJson(runRecord->profileJson);
    ASSERT_TRUE(stored && stored->memory && stored->memory->timeline) << runRecord->profileJson;
    EXPECT_EQ(stored->memory->kind, profile::SnapshotKind::OutOfMemory);
    const QString kept = keptTracePath(QString::fromStdString(path_), stored->memory->file);
    EXPECT_TRUE(QFileInfo(kept).isFile()) << kept.toStdString();
    // The worker's words first, then where the snapshot is and how to open it.
    EXPECT_EQ(runRecord->message,
              "CUDA out of memory. Tried to allocate 12.00 GiB; memory snapshot kept: " + kept.toStdString() +
                  " (gunzip it, then open it at https://pytorch.org/memory_viz)");
    EXPECT_EQ(report::runMemoryLines(*runRecord).title, "memory snapshot at the out-of-memory failure");
}

TEST_F(SupervisorTest, NoMemoryTimelineOnTheCpuIsSaidNotDrawn)
{
    const QString cpu =
        stream("cpu.jsonl", {R"({"type":"memory_snapshot","kind":"step","problem":"no memory timeline on the CPU"})"});
    RunnerOptions o = options(fakeWorker({"--replay", dataFile("worker-ok.jsonl"), "--replay", cpu}));
    o.profileSteps = 2;
    const SweepPlan p = plan({smallConfig()});
    run(p, o);
    const auto runRecord = reader()->run(p.runs[0].runId);
    EXPECT_EQ(runRecord->status, RunStatus::Complete);
    const report::MemoryLines lines = report::runMemoryLines(*runRecord);
    EXPECT_EQ(lines.title, "memory timeline");
    EXPECT_EQ(lines.lines, std::vector<std::string>{"none (no memory timeline on the CPU)"});
}

} // namespace
} // namespace stepscope::supervisor::test
