// The supervisor against recorded worker streams (supervisor_fixture.h): storage, failures,
// timeouts, cancel.
#include "supervisor_fixture.h"

#include "platform/platform.h"
#include "report/run_summary.h"

#include "child_process.h"

#include <QThread>

#include <chrono>
#include <thread>

namespace stepscope::supervisor
{
namespace
{

using namespace test;

TEST_F(SupervisorTest, PlanInterleavesRepeats)
{
    const RunConfig a = smallConfig(8), b = smallConfig(16);
    const SweepPlan p = plan({a, b}, 3);
    ASSERT_EQ(p.runs.size(), 6u);
    for (std::size_t i = 0; i < p.runs.size(); ++i)
        EXPECT_TRUE(p.runs[i].config == (i % 2 == 0 ? a : b)) << i;
    db_->flush();

    auto r = reader();
    const auto sweep = r->sweep(p.sweepId);
    ASSERT_TRUE(sweep);
    EXPECT_EQ(sweep->status, store::SweepStatus::Running);
    EXPECT_EQ(sweep->plannedSteps, 6);
    const auto settings = QJsonDocument::fromJson(QByteArray::fromStdString(sweep->settingsJson)).object();
    EXPECT_EQ(settings.value("repeats").toInt(), 3);
    EXPECT_EQ(settings.value("configurations").toInt(), 2);

    const auto runs = r->runs(p.sweepId);
    ASSERT_EQ(runs.size(), 6u);
    const std::string nameA = canonicalName(a), nameB = canonicalName(b);
    ASSERT_NE(nameA, nameB);
    const std::vector<std::string> names{nameA, nameB, nameA, nameB, nameA, nameB};
    const std::vector<std::int64_t> repeats{0, 0, 1, 1, 2, 2};
    for (std::size_t i = 0; i < runs.size(); ++i) {
        EXPECT_EQ(runs[i].id, p.runs[i].runId);
        EXPECT_EQ(runs[i].position, static_cast<std::int64_t>(i));
        EXPECT_EQ(runs[i].configName, names[i]) << i;
        EXPECT_EQ(runs[i].repeatIndex, repeats[i]) << i;
        EXPECT_EQ(runs[i].status, RunStatus::Queued);
        EXPECT_FALSE(runs[i].configJson.empty());
    }
}

TEST_F(SupervisorTest, PlanStoresItsBaseline)
{
    RunConfig tf32 = smallConfig(), fp32 = smallConfig(), bf16 = smallConfig();
    tf32.tf32 = true;
    bf16.autocast = Autocast::BF16;
    // The default: fp32 eager of the sweep's shape where the sweep has it, wherever it is listed.
    const SweepPlan listed = plan({tf32, fp32, bf16});
    // Without it, the first configuration.
    const SweepPlan without = plan({tf32, bf16});
    // A choice overrides the rule.
    const SweepPlan chosen = planSweep(*db_, "chosen", "custom", {fp32, tf32, bf16}, 1, 6, 2);
    db_->flush();
    auto r = reader();
    EXPECT_EQ(r->sweep(listed.sweepId)->baselineConfig, canonicalName(fp32));
    EXPECT_EQ(r->sweep(without.sweepId)->baselineConfig, canonicalName(tf32));
    EXPECT_EQ(r->sweep(chosen.sweepId)->baselineConfig, canonicalName(bf16));
    EXPECT_THROW(planSweep(*db_, "bad", "custom", {fp32}, 1, 6, 1), std::out_of_range);
}

TEST_F(SupervisorTest, RecordedStreamIsStored)
{
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, options(recorded("worker-ok.jsonl", 0, "worker log line")));
    EXPECT_EQ(out.finishedCount, 1);
    EXPECT_FALSE(out.cancelled);
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, QString()) << "a complete run has no failure category";
    EXPECT_EQ(out.stepFirsts, (std::vector<int>{2, 4, 6}));
    EXPECT_EQ(out.wallMs, (std::vector<double>{11.5, 11.25, 11.125, 11.0, 10.875}));
    EXPECT_EQ(out.firstStep, 0.5);
    EXPECT_TRUE(out.environmentJson.contains("NVIDIA H200"));
    EXPECT_TRUE(out.log.contains("worker log line")) << out.log.join('|').toStdString();

    auto r = reader();
    EXPECT_EQ(r->sweep(p.sweepId)->status, store::SweepStatus::Complete);
    const auto runOpt = r->run(p.runs[0].runId);
    ASSERT_TRUE(runOpt);
    const store::RunRecord &run = *runOpt;
    EXPECT_EQ(run.status, RunStatus::Complete);
    EXPECT_FALSE(run.category);
    EXPECT_FALSE(run.started.empty());
    EXPECT_FALSE(run.finished.empty());
    ASSERT_TRUE(run.setupSeconds);
    EXPECT_EQ(*run.setupSeconds, 1.25);
    ASSERT_TRUE(run.firstStepSeconds);
    EXPECT_EQ(*run.firstStepSeconds, 0.5);
    ASSERT_TRUE(run.peakAllocatedBytes && run.peakReservedBytes);
    EXPECT_EQ(*run.peakAllocatedBytes, 1073741824);
    EXPECT_EQ(*run.peakReservedBytes, 6442450944);
    EXPECT_EQ(run.checkLosses, (std::vector<double>{6.9, 6.85, 6.8}));
    EXPECT_EQ(run.stepCount, 5);
    EXPECT_EQ(run.blockWallMs, std::optional<double>(11.15)); // from `done`
    const auto summary = r->summary(run.id);
    ASSERT_TRUE(summary) << "a complete run gets its summary";
    EXPECT_FALSE(summary->medianMs); // 5 steps after the first are too few for a steady state
    ASSERT_TRUE(summary->problem) << "the reason is stored as data";
    EXPECT_EQ(summary->problem->kind, SteadyProblem::Kind::TooFewSteps);
    EXPECT_EQ(summary->problem->steps, 5);
    EXPECT_EQ(summary->problem->needed, 10);
    EXPECT_EQ(summary->timing, store::Timing::Gpu);
    EXPECT_EQ(summary->methodVersion, report::kSummaryMethodVersion) << "stored by the one rule";

    const auto steps = r->steps(run.id);
    ASSERT_EQ(steps.size(), 5u);
    const double gpu[] = {10.5, 10.25, 10.125, 10.0, 9.875};
    const double wall[] = {11.5, 11.25, 11.125, 11.0, 10.875};
    for (std::size_t i = 0; i < steps.size(); ++i) {
        EXPECT_EQ(steps[i].index, static_cast<std::int64_t>(i + 2));
        ASSERT_TRUE(steps[i].gpuMs) << i;
        EXPECT_EQ(*steps[i].gpuMs, gpu[i]);
        EXPECT_EQ(steps[i].wallMs, wall[i]);
    }

    ASSERT_TRUE(run.environmentId);
    const auto env = r->environment(*run.environmentId);
    ASSERT_TRUE(env);
    EXPECT_EQ(env->gpu, "NVIDIA H200");
    EXPECT_EQ(env->cuda, "12.4");
    EXPECT_EQ(env->driver, "12.6");
    EXPECT_EQ(env->cudnn, "9.1.0");
    EXPECT_EQ(env->torch, "2.5.1+cu124");
    EXPECT_EQ(env->host, "rec-host");
    EXPECT_EQ(env->python, "none (LibTorch C++)");
    const auto envJson = QJsonDocument::fromJson(QByteArray::fromStdString(env->json)).object();
    EXPECT_EQ(envJson.value("gpu_sms").toString(), "132") << env->json;
    // The GPU's state after the timed steps joins the run's environment.
    EXPECT_EQ(envJson.value("after_sm_clock_mhz").toString(), "1980") << env->json;
    EXPECT_EQ(envJson.value("after_throttle_reasons").toString(), "none") << env->json;
}

TEST_F(SupervisorTest, StrayLineIsLoggedNotFatal)
{
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, options(recorded("worker-garbage.jsonl")));
    EXPECT_EQ(out.finishedCount, 1);
    bool logged = false;
    for (const auto &l : out.log)
        logged = logged || (l.startsWith("protocol:") && l.contains("stray print"));
    EXPECT_TRUE(logged) << out.log.join('|').toStdString();

    auto r = reader();
    const auto run = r->run(p.runs[0].runId);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->status, RunStatus::Complete) << run->message << "\n" << run->detail;
    EXPECT_FALSE(run->category);
    const auto steps = r->steps(run->id);
    ASSERT_EQ(steps.size(), 4u);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        EXPECT_EQ(steps[i].index, static_cast<std::int64_t>(i + 2));
        EXPECT_FALSE(steps[i].gpuMs) << "a CPU stream has no GPU times";
    }
    EXPECT_EQ(steps[3].wallMs, 20.0);
    EXPECT_EQ(run->checkLosses, (std::vector<double>{6.9, 6.85}));
}

TEST_F(SupervisorTest, TruncatedStreamIsWorkerCrashedWithLog)
{
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, options(recorded("worker-truncated.jsonl", 139, "Segmentation fault in cudnn")));
    EXPECT_EQ(out.finishedCount, 1);
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, "worker-crashed");

    auto r = reader();
    EXPECT_EQ(r->sweep(p.sweepId)->status, store::SweepStatus::Complete); // the sweep ran to its end; the run failed
    const auto run = r->run(p.runs[0].runId);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->status, RunStatus::Failed);
    ASSERT_TRUE(run->category);
    EXPECT_EQ(*run->category, FailureCategory::WorkerCrashed);
    EXPECT_TRUE(contains(run->message, "without finishing")) << run->message;
    EXPECT_TRUE(contains(run->message, "139")) << run->message;
    EXPECT_TRUE(contains(run->message, "last step 3")) << run->message;
    EXPECT_TRUE(contains(run->detail, "Segmentation fault in cudnn")) << run->detail;
    EXPECT_TRUE(contains(run->detail, "truncated last line")) << run->detail;
    // What arrived before the crash is kept.
    EXPECT_EQ(r->steps(run->id).size(), 2u);
    ASSERT_TRUE(run->setupSeconds);
    EXPECT_EQ(*run->setupSeconds, 1.5);
}

TEST_F(SupervisorTest, WorkerErrorLineIsStoredWithCategory)
{
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, options(recorded("worker-oom.jsonl", 1, "torch.OutOfMemoryError")));
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, "out-of-memory");

    const auto run = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->status, RunStatus::Failed);
    ASSERT_TRUE(run->category);
    EXPECT_EQ(*run->category, FailureCategory::OutOfMemory);
    EXPECT_EQ(run->message, "CUDA out of memory. Tried to allocate 12.00 GiB");
    EXPECT_TRUE(contains(run->detail, "at batch 4096")) << run->detail;
    EXPECT_TRUE(contains(run->detail, "torch.OutOfMemoryError")) << run->detail;
}

TEST_F(SupervisorTest, SlowWorkerTimesOut)
{
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, options(sleeper(30), {}, 1));
    EXPECT_EQ(out.finishedCount, 1);
    EXPECT_LT(out.elapsedMs, 5000);
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, "timeout");

    const auto run = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->status, RunStatus::Failed);
    ASSERT_TRUE(run->category);
    EXPECT_EQ(*run->category, FailureCategory::Timeout);
    EXPECT_TRUE(contains(run->message, "1 s")) << run->message;
    EXPECT_TRUE(contains(run->detail, "worker: sleeping")) << run->detail;
}

TEST_F(SupervisorTest, CancelStopsRunningAndQueuedRuns)
{
    const SweepPlan p = plan({smallConfig(8), smallConfig(16)}, 2);
    const Outcome out = run(p, options(sleeper(30)), [](SweepRunner &runner) {
        onEvent<event::RunStarted>(runner,
                                   [&runner] { QTimer::singleShot(200, &runner, [&runner] { runner.cancel(); }); });
    });
    EXPECT_EQ(out.finishedCount, 1);
    EXPECT_TRUE(out.cancelled);
    EXPECT_LT(out.elapsedMs, 5000);
    EXPECT_EQ(out.started.size(), 1u) << "no run starts after cancel()";

    auto r = reader();
    EXPECT_EQ(r->sweep(p.sweepId)->status, store::SweepStatus::Cancelled);
    const auto runs = r->runs(p.sweepId);
    ASSERT_EQ(runs.size(), 4u);
    for (const auto &run : runs) {
        EXPECT_EQ(run.status, RunStatus::Cancelled) << run.position;
        ASSERT_TRUE(run.category);
        EXPECT_EQ(*run.category, FailureCategory::Cancelled);
    }
    EXPECT_TRUE(contains(runs[0].message, "stopped by the user")) << runs[0].message;
    EXPECT_TRUE(contains(runs[1].message, "before this run started")) << runs[1].message;
}

TEST_F(SupervisorTest, CancelBetweenRunsFinishesOnce)
{
    // No native worker configured: every run fails at once, and cancel() lands while the next
    // run is queued rather than while a process runs.
    const SweepPlan p = plan({smallConfig(8), smallConfig(16), smallConfig(24)});
    const Outcome out = run(p, options({}), [](SweepRunner &runner) {
        onEvent<event::RunFinished>(runner, [&runner] { runner.cancel(); });
    });
    EXPECT_EQ(out.finishedCount, 1) << "finished() must be emitted exactly once";
    EXPECT_TRUE(out.cancelled);
    EXPECT_EQ(out.started.size(), 1u);

    const auto runs = reader()->runs(p.sweepId);
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].status, RunStatus::Failed);
    ASSERT_TRUE(runs[0].category);
    EXPECT_EQ(*runs[0].category, FailureCategory::Internal);
    EXPECT_EQ(runs[1].status, RunStatus::Cancelled);
    EXPECT_EQ(runs[2].status, RunStatus::Cancelled);
}

TEST_F(SupervisorTest, MissingNativeWorkerFailsAndSweepGoesOn)
{
    RunConfig python = smallConfig(16);
    python.runtime = Runtime::Python;
    const SweepPlan p = plan({smallConfig(8), python});
    const Outcome out = run(p, options({"/nonexistent/stepscope-worker", {}}, recorded("worker-ok.jsonl")));
    EXPECT_EQ(out.finishedCount, 1);
    EXPECT_FALSE(out.cancelled);
    ASSERT_EQ(out.runFinished.size(), 2u);
    EXPECT_EQ(out.runFinished[0].second, "worker-crashed");
    EXPECT_EQ(out.runFinished[1].second, QString());

    const auto runs = reader()->runs(p.sweepId);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].status, RunStatus::Failed);
    ASSERT_TRUE(runs[0].category);
    EXPECT_EQ(*runs[0].category, FailureCategory::WorkerCrashed);
    EXPECT_TRUE(contains(runs[0].message, "/nonexistent/stepscope-worker")) << runs[0].message;
    EXPECT_EQ(runs[1].status, RunStatus::Complete);
    EXPECT_EQ(runs[1].stepCount, 5);
}

TEST_F(SupervisorTest, MissingPythonIsPythonNotFound)
{
    RunConfig python = smallConfig(16);
    python.runtime = Runtime::Python;
    RunConfig python2 = python;
    python2.batch = 24;
    const SweepPlan p = plan({python, smallConfig(8)});
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), {"/nonexistent/python3", {"-u"}}));
    ASSERT_EQ(out.runFinished.size(), 2u);
    EXPECT_EQ(out.runFinished[0].second, "python-not-found");
    EXPECT_EQ(out.runFinished[1].second, QString());

    // No python configured at all: the same category, said differently.
    const SweepPlan p2 = plan({python2});
    const Outcome out2 = run(p2, options(recorded("worker-ok.jsonl")));
    ASSERT_EQ(out2.runFinished.size(), 1u);
    EXPECT_EQ(out2.runFinished[0].second, "python-not-found");

    auto r = reader();
    const auto runs = r->runs(p.sweepId);
    ASSERT_EQ(runs.size(), 2u);
    ASSERT_TRUE(runs[0].category);
    EXPECT_EQ(*runs[0].category, FailureCategory::PythonNotFound);
    EXPECT_EQ(runs[1].status, RunStatus::Complete);
    const auto unconfigured = r->run(p2.runs[0].runId);
    ASSERT_TRUE(unconfigured && unconfigured->category);
    EXPECT_EQ(*unconfigured->category, FailureCategory::PythonNotFound);
    EXPECT_TRUE(contains(unconfigured->message, "python")) << unconfigured->message;
}

TEST_F(SupervisorTest, WorkerReceivesItsConfiguration)
{
    // The worker gets `--config JSON` after its own arguments. This one echoes the JSON to its log
    // and fails, so the JSON comes back as the failure detail.
    const WorkerCommand echoConfig = fakeWorker({"--echo-config", "--exit", "3"});
    RunConfig c = smallConfig(8);
    c.seed = (1ull << 60) + 3;
    c.autocast = Autocast::BF16;
    const SweepPlan p = plan({c});
    const Outcome out = run(p, options(echoConfig));
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, "worker-crashed");

    const auto run = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(run);
    EXPECT_TRUE(contains(run->message, "exit code 3")) << run->message;
    RunConfig received;
    std::vector<ConfigError> errors;
    ASSERT_TRUE(parseConfig(QByteArray::fromStdString(run->detail).trimmed(), received, errors))
        << describe(errors) << "\n"
        << run->detail;
    EXPECT_TRUE(received == c);
}

TEST_F(SupervisorTest, EmptyPlanFinishesAtOnce)
{
    const SweepPlan p = plan({});
    const Outcome out = run(p, options(recorded("worker-ok.jsonl")));
    EXPECT_EQ(out.finishedCount, 1);
    EXPECT_FALSE(out.cancelled);
    EXPECT_EQ(reader()->sweep(p.sweepId)->status, store::SweepStatus::Complete);
}

TEST_F(SupervisorTest, NativeWorkerIsBesideTheProgramUnlessOverridden)
{
    qunsetenv("STEPSCOPE_NATIVE_WORKER");
    EXPECT_EQ(defaultNativeWorker().program, QCoreApplication::applicationDirPath() + "/stepscope-worker");
    qputenv("STEPSCOPE_NATIVE_WORKER", "/opt/elsewhere/stepscope-worker");
    EXPECT_EQ(defaultNativeWorker().program, "/opt/elsewhere/stepscope-worker");
    qunsetenv("STEPSCOPE_NATIVE_WORKER");
}

TEST_F(SupervisorTest, TimeoutWatchesSilenceNotTotalTime)
{
    // A worker that reports a step every 0.3 s for 3 s, under a 2 s timeout: alive, not hung
    // (and a loaded machine has 1.7 s of slack between lines).
    QStringList lines{R"({"type":"hello","protocol":1,"env":{}})"};
    for (int i = 2; i <= 11; ++i)
        lines << stepsLine(i);
    const QString steps = stream("steps.jsonl", lines << doneLine(11));
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, options(fakeWorker({"--pace", "300", "--replay", steps}), {}, 2));
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, QString()) << out.runFinished[0].second.toStdString();
    EXPECT_EQ(reader()->run(p.runs[0].runId)->stepCount, 10);
}

TEST_F(SupervisorTest, ClosingMidSweepLeavesNothingRunningOrQueued)
{
    const SweepPlan p = plan({smallConfig(8), smallConfig(16)}, 2);
    {
        SweepRunner runner(*db_, options(sleeper(30)));
        QEventLoop loop;
        onEvent<event::RunStarted>(runner, [&] { QTimer::singleShot(300, &loop, &QEventLoop::quit); });
        QTimer::singleShot(0, &runner, [&] { runner.start(p); });
        QTimer::singleShot(8000, &loop, &QEventLoop::quit);
        loop.exec();
    } // the window closes: the runner goes while its first worker sleeps
    db_->flush();
    auto r = reader();
    EXPECT_EQ(r->sweep(p.sweepId)->status, store::SweepStatus::Cancelled);
    for (const auto &run : r->runs(p.sweepId))
        EXPECT_EQ(run.status, RunStatus::Cancelled) << run.id;
}

// A worker that says a step, then gets SIGKILL from outside (here: from itself), as the kernel's
// OOM killer would send it.
WorkerCommand killedBy9(const QString &steps)
{
    return fakeWorker({"--replay", steps, "--sleep", "0.3", "--killed"});
}

// A stand-in for /proc/vmstat, where the kernel counts its OOM kills.
QString oomCounter(const QTemporaryDir &dir, const QByteArray &text)
{
    const QString path = dir.filePath("vmstat");
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
    return path;
}

// Issue 8: the OOM killer's SIGKILL was `worker-crashed` with an empty detail. The kernel's count
// of OOM kills rising while the worker ran names it out-of-memory ("probably": it is inferred).
TEST_F(SupervisorTest, SigkillWhileTheOomKillCountRoseIsOutOfMemory)
{
    if (!platform::killSignal())
        GTEST_SKIP() << "no SIGKILL on this system";
    const QString counter = oomCounter(dir_, "pgfault 100\noom_kill 3\n");
    RunnerOptions o = options(killedBy9(stream("step.jsonl", {stepsLine(1)})));
    o.oomCounterFiles = {counter.toStdString()};
    const SweepPlan p = plan({smallConfig()});
    // The kernel counts a kill while the worker runs: here once its step has come, before it dies.
    const Outcome out = run(p, o, [&](SweepRunner &runner) {
        QObject::connect(&runner, &SweepRunner::stepsArrived, &runner,
                         [&] { oomCounter(dir_, "pgfault 200\noom_kill 4\n"); });
    });
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, "out-of-memory");
    const auto r = reader()->run(p.runs[0].runId);
    EXPECT_TRUE(contains(r->message, "probably by the kernel's out-of-memory killer")) << r->message;
    EXPECT_TRUE(contains(r->message, "SIGKILL")) << r->message;
}

// The same SIGKILL without an OOM kill counted stays worker-crashed, and says what killed it.
TEST_F(SupervisorTest, SigkillWithoutAnOomKillIsWorkerCrashedAndSaysSo)
{
    if (!platform::killSignal())
        GTEST_SKIP() << "no SIGKILL on this system";
    const QString counter = oomCounter(dir_, "oom_kill 3\n");
    RunnerOptions o = options(killedBy9(stream("step.jsonl", {stepsLine(1)})));
    o.oomCounterFiles = {counter.toStdString()};
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, o);
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, "worker-crashed");
    const auto r = reader()->run(p.runs[0].runId);
    EXPECT_TRUE(contains(r->message, "killed (SIGKILL)")) << r->message;
    EXPECT_TRUE(contains(r->message, "not")) << r->message;
}

// Issue 8: a --timeout beyond what a timer's int milliseconds hold wrapped round to a few
// milliseconds (42949673 s) or to no timeout at all. The runner caps it instead.
TEST_F(SupervisorTest, TimeoutBeyondTheTimersRangeIsCappedNotWrapped)
{
    const QString steps = stream("steps.jsonl", {stepsLine(1), doneLine(1)});
    const SweepPlan p = plan({smallConfig()});
    const Outcome out = run(p, options(fakeWorker({"--sleep", "0.5", "--replay", steps}), {}, 42949673));
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, QString()) << out.runFinished[0].second.toStdString();
}

// Issue 8: the database deleted mid-run. The writer notices at its next commit and the sweep stops
// at once with the store's words, rather than measuring on into a file nobody can find.
TEST_F(SupervisorTest, DatabaseDeletedMidRunStopsTheSweep)
{
    QStringList lines;
    for (int i = 1; i <= 200; ++i)
        lines << stepsLine(i);
    const QString steps = stream("steps.jsonl", lines << doneLine(200));
    const SweepPlan p = plan({smallConfig(), smallConfig(16)});
    QString storageMessage;
    const Outcome out = run(p, options(fakeWorker({"--pace", "50", "--replay", steps})), [&](SweepRunner &runner) {
        QObject::connect(&runner, &SweepRunner::sweepEvent, [&](const SweepEvent &e) {
            if (const auto *failed = std::get_if<event::StorageFailed>(&e))
                storageMessage = failed->message;
        });
        onEvent<event::RunStarted>(runner, [this] {
            QTimer::singleShot(500, [this] {
                for (const char *suffix : {"", "-wal", "-shm"})
                    QFile::remove(QString::fromStdString(path_) + suffix);
            });
        });
    });
    EXPECT_EQ(out.finishedCount, 1);
    EXPECT_TRUE(out.cancelled);
    EXPECT_LT(out.elapsedMs, 5000) << "the sweep went on measuring into the deleted file";
    EXPECT_TRUE(storageMessage.contains("deleted or replaced")) << storageMessage.toStdString();
    EXPECT_TRUE(out.runFinished.empty());
    EXPECT_FALSE(QFileInfo::exists(QString::fromStdString(path_)));
}

// Issue 8: planning was one commit per row, so a kill while planning left a sweep with some or
// none of its runs for good. Now a kill at any moment leaves the whole plan or nothing.
TEST_F(SupervisorTest, AKillWhilePlanningLeavesTheWholePlanOrNothing)
{
    std::vector<RunConfig> configs;
    for (int batch = 1; batch <= 40; ++batch)
        configs.push_back(smallConfig(batch));
    constexpr int kRepeats = 50;
    if (stepscope::test::childRole() == "planner") {
        try {
            auto db = store::Database::open(stepscope::test::childArgument());
            std::printf("planning\n"); // the parent's clock starts here, not at our start-up
            std::fflush(stdout);
            planSweep(*db, "big plan", "custom", configs, kRepeats, 6);
            for (;;)
                std::this_thread::sleep_for(std::chrono::hours(1));
        } catch (const std::exception &e) {
            std::fprintf(stderr, "planner: %s\n", e.what());
        }
        std::_Exit(1);
    }
    db_.reset(); // the child opens its own
    for (const int killAfterMs : {20, 80, 200}) {
        const auto child = stepscope::test::startChild("planner", path_);
        ASSERT_TRUE(stepscope::test::waitForChildLine(*child, "planning"));
        QThread::msleep(static_cast<unsigned long>(killAfterMs));
        child->kill(); // SIGKILL; TerminateProcess on Windows
        ASSERT_TRUE(child->waitForFinished(30000));
        auto r = reader();
        for (const auto &sweep : r->sweeps())
            EXPECT_EQ(r->runs(sweep.id).size(), configs.size() * kRepeats)
                << "sweep " << sweep.id << " was left with part of its plan (killed after " << killAfterMs << " ms)";
    }
}

} // namespace
} // namespace stepscope::supervisor
