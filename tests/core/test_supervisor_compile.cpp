// The supervisor and the Python worker's torch.compile runs, against recorded streams
// (supervisor_fixture.h): phases, compile info, start states and their bundles, priming, and how the
// Python interpreter is found.
#include "scoped_env.h"
#include "supervisor_fixture.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace stepscope::supervisor
{
namespace
{

using namespace test;

RunConfig compileConfig(int batch = 8)
{
    RunConfig c = smallConfig(batch);
    c.runtime = Runtime::Python;
    c.compile = CompileMode::Default;
    return c;
}

QJsonObject objectOf(const std::string &json)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
}

using stepscope::test::ScopedEnv;

TEST_F(SupervisorTest, CompileRunStoresPhasesInfoAndFreshCaches)
{
    // The worker says where its caches are and whether they exist while it runs.
    const WorkerCommand python = fakeWorker({"--env", "TORCHINDUCTOR_CACHE_DIR", "--env", "TRITON_CACHE_DIR", "--env",
                                             "STEPSCOPE_START", "--replay", dataFile("worker-compile.jsonl")});
    const SweepPlan p = plan({compileConfig()});
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), python));
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, QString());
    ASSERT_EQ(out.phases.size(), 3u);
    EXPECT_EQ(out.phases[0], std::make_pair(QString("compiling"), 0.0));
    EXPECT_EQ(out.phases[1], std::make_pair(QString("compiling"), 12.5));
    EXPECT_EQ(out.phases[2], std::make_pair(QString("capturing"), 0.25));
    ASSERT_EQ(out.compileInfos.size(), 1u);
    ASSERT_TRUE(out.compileInfos[0].compileS.has_value());
    EXPECT_DOUBLE_EQ(*out.compileInfos[0].compileS, 38.5);

    const auto run = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->status, RunStatus::Complete) << run->message << "\n" << run->detail;
    EXPECT_EQ(run->stepCount, 5);
    EXPECT_EQ(run->firstStepSeconds, std::optional<double>(41.75));
    const QJsonObject info = objectOf(run->compileJson);
    EXPECT_EQ(info.value("mode").toString(), "reduce-overhead") << run->compileJson;
    EXPECT_EQ(info.value("compile_s").toDouble(), 38.5);
    EXPECT_TRUE(info.value("compiled").toBool());

    // One start state for every cache: the compile caches are folders of the run's own, beside the
    // machine's, and no compile_cache knob is written any more.
    EXPECT_EQ(run->compileCache, "");
    EXPECT_EQ(run->caches, store::StartState::Fresh);
    EXPECT_EQ(store::startOf(*run), store::StartState::Fresh);
    const QJsonObject dirs = objectOf(run->cacheDirs);
    ASSERT_EQ(dirs.size(), static_cast<int>(startCaches().size())) << run->cacheDirs;
    const QString inductor = dirs.value("TORCHINDUCTOR_CACHE_DIR").toString();
    const QString triton = dirs.value("TRITON_CACHE_DIR").toString();
    const QString cuda = dirs.value("CUDA_CACHE_PATH").toString();
    EXPECT_TRUE(inductor.startsWith(cacheRoot() + "/sweep-")) << inductor.toStdString();
    EXPECT_TRUE(inductor.endsWith("/inductor")) << inductor.toStdString();
    EXPECT_EQ(QFileInfo(triton).path(), QFileInfo(inductor).path());
    EXPECT_EQ(QFileInfo(cuda).path(), QFileInfo(inductor).path()) << "one folder per run for every cache";
    EXPECT_TRUE(out.log.contains("TORCHINDUCTOR_CACHE_DIR=[" + inductor + "] (a folder)"))
        << out.log.join('|').toStdString();
    EXPECT_TRUE(out.log.contains("STEPSCOPE_START=[fresh]")) << out.log.join('|').toStdString();
    // A fresh run's caches are its own: gone with it, and the sweep's folder with the sweep.
    EXPECT_FALSE(QFileInfo::exists(QFileInfo(inductor).path())) << inductor.toStdString();
    EXPECT_TRUE(QDir(cacheRoot()).entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty());
}

TEST_F(SupervisorTest, ACompiledRowRunsFreshShippedAndAgainAsOneConfiguration)
{
    const QString counter = dir_.filePath("workers.txt");
    const WorkerCommand python =
        fakeWorker({"--env", "TORCHINDUCTOR_CACHE_DIR", "--env", "STEPSCOPE_START", "--env", "STEPSCOPE_BUNDLE_SAVE",
                    "--env", "STEPSCOPE_BUNDLE_LOAD", "--record", counter, "--bundle", "3", "0", "--replay",
                    dataFile("worker-compile.jsonl")});
    const RunConfig compiled = compileConfig();
    const SweepPlan p = plan({compiled}, 1, starts("all"));
    ASSERT_EQ(p.runs.size(), 3u);
    EXPECT_EQ(p.runs[0].caches, store::StartState::Fresh);
    EXPECT_EQ(p.runs[1].caches, store::StartState::Shipped);
    EXPECT_EQ(p.runs[2].caches, store::StartState::Again);
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), python));
    ASSERT_EQ(out.runFinished.size(), 3u);
    for (const auto &f : out.runFinished)
        EXPECT_EQ(f.second, QString()) << f.second.toStdString();
    // The fresh run primes what the other two read: no priming process.
    const QStringList workers = linesOf(counter);
    ASSERT_EQ(workers.size(), 3) << workers.join('\n').toStdString();
    EXPECT_TRUE(workers[0].contains("STEPSCOPE_START=[fresh]")) << workers[0].toStdString();
    EXPECT_TRUE(workers[0].contains("STEPSCOPE_BUNDLE_SAVE=[")) << "the priming fresh run saves the bundle";
    EXPECT_TRUE(workers[0].contains("STEPSCOPE_BUNDLE_LOAD unset"));
    EXPECT_TRUE(workers[1].contains("STEPSCOPE_START=[shipped]")) << workers[1].toStdString();
    EXPECT_TRUE(workers[1].contains("STEPSCOPE_BUNDLE_LOAD=[")) << workers[1].toStdString();
    EXPECT_TRUE(workers[2].contains("STEPSCOPE_START=[again]")) << workers[2].toStdString();
    EXPECT_TRUE(workers[2].contains("STEPSCOPE_BUNDLE_LOAD unset"));

    auto r = reader();
    const auto fresh = r->run(p.runs[0].runId), shipped = r->run(p.runs[1].runId), again = r->run(p.runs[2].runId);
    ASSERT_TRUE(fresh && shipped && again);
    EXPECT_EQ(fresh->configName, shipped->configName) << "one configuration, three starts";
    EXPECT_EQ(fresh->configName, again->configName);
    ASSERT_TRUE(fresh->cacheRecord && shipped->cacheRecord && again->cacheRecord);
    EXPECT_EQ(fresh->cacheRecord->bundleSavedBytes, 1000);
    // The shipped run had caches of its own (not the again folders) and the bundle, with its hits.
    const QString freshInductor = objectOf(fresh->cacheDirs).value("TORCHINDUCTOR_CACHE_DIR").toString();
    EXPECT_NE(objectOf(shipped->cacheDirs).value("TORCHINDUCTOR_CACHE_DIR").toString(), freshInductor);
    EXPECT_EQ(objectOf(again->cacheDirs).value("TORCHINDUCTOR_CACHE_DIR").toString(), freshInductor);
    ASSERT_TRUE(shipped->cacheRecord->bundle);
    EXPECT_EQ(shipped->cacheRecord->bundle->bytes, 1000);
    EXPECT_EQ(shipped->cacheRecord->bundle->hits, 3);
    EXPECT_EQ(shipped->cacheRecord->bundle->misses, 0);
    EXPECT_TRUE(shipped->cacheRecord->bundle->reported);
    EXPECT_FALSE(shipped->cacheRecord->warmMissed());
    EXPECT_EQ(store::startOf(*shipped), store::StartState::Shipped);
    EXPECT_EQ(store::startOf(*again), store::StartState::Again);
    EXPECT_FALSE(again->cacheRecord->bundle) << "an again run loads no bundle";
}

TEST_F(SupervisorTest, AShippedRunThatCompiledAnywayIsFlaggedNotShipped)
{
    const WorkerCommand python = fakeWorker({"--bundle", "1", "2", "--replay", dataFile("worker-compile.jsonl")});
    const SweepPlan p = plan({compileConfig()}, 1, starts("fresh,shipped"));
    ASSERT_EQ(p.runs.size(), 2u);
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), python));
    ASSERT_EQ(out.runFinished.size(), 2u);
    const auto shipped = reader()->run(p.runs[1].runId);
    ASSERT_TRUE(shipped && shipped->cacheRecord && shipped->cacheRecord->bundle);
    EXPECT_EQ(shipped->status, RunStatus::Complete) << "its figures stand; its start does not";
    EXPECT_EQ(shipped->cacheRecord->bundle->misses, 2);
    ASSERT_EQ(shipped->cacheRecord->missed, std::vector<std::string>{"mega-cache"});
    EXPECT_EQ(store::startOf(*shipped), store::StartState::Unrecorded) << "never shown as shipped";
}

TEST_F(SupervisorTest, AShippedOrAgainRunWithoutAFreshOneIsPrimedOnce)
{
    const QString counter = dir_.filePath("workers.txt");
    const WorkerCommand python = fakeWorker({"--env", "STEPSCOPE_PRIMING", "--record", counter, "--bundle", "2", "0",
                                             "--replay", dataFile("worker-compile.jsonl")});
    const RunConfig compiled = compileConfig();
    const SweepPlan p = plan({compiled}, 2, starts("shipped,again"));
    ASSERT_EQ(p.runs.size(), 4u);
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), python));
    ASSERT_EQ(out.runFinished.size(), 4u);
    for (const auto &f : out.runFinished)
        EXPECT_EQ(f.second, QString()) << f.second.toStdString();
    // One priming worker (one step, no warm-up), then the four measured runs.
    const QStringList workers = linesOf(counter);
    ASSERT_EQ(workers.size(), 5) << workers.join('\n').toStdString();
    RunConfig primed;
    std::vector<ConfigError> errors;
    ASSERT_TRUE(parseConfig(workers[0].section('\t', 0, 0).toUtf8(), primed, errors)) << describe(errors);
    EXPECT_TRUE(primed == primingConfig(compiled));
    EXPECT_TRUE(workers[0].contains("STEPSCOPE_PRIMING=[1]"));
    for (int i = 1; i < 5; ++i)
        EXPECT_TRUE(workers[i].contains("STEPSCOPE_PRIMING unset")) << workers[i].toStdString();
    EXPECT_EQ(out.compileInfos.size(), 4 + 2) << "the priming worker's compile info is not the run's";
    int primingLogs = 0;
    for (const auto &l : out.log)
        primingLogs += l.startsWith("priming the shipped bundle for " + QString::fromStdString(canonicalName(compiled)));
    EXPECT_EQ(primingLogs, 1) << out.log.join('|').toStdString();
    for (const auto &planned : p.runs) {
        const auto run = reader()->run(planned.runId);
        ASSERT_TRUE(run);
        EXPECT_EQ(run->stepCount, 5) << "the priming worker's steps are not stored";
        EXPECT_EQ(store::startOf(*run), planned.caches);
    }
}

TEST_F(SupervisorTest, PrimingFailureFailsTheRunWithItsCategory)
{
    const QString counter = dir_.filePath("workers.txt");
    const WorkerCommand python = fakeWorker({"--record", counter, "--stderr", "inductor traceback here", "--replay",
                                             dataFile("worker-compile-failed.jsonl"), "--exit", "1"});
    const SweepPlan p = plan({compileConfig()}, 1, starts("again"));
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), python));
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, "compile-failed");
    EXPECT_EQ(linesOf(counter).size(), 1) << "the measured run does not start";

    const auto run = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(run && run->category);
    EXPECT_EQ(run->status, RunStatus::Failed);
    EXPECT_EQ(*run->category, FailureCategory::CompileFailed);
    EXPECT_EQ(run->message, "priming the caches of the again start failed: torch._inductor: lowering failed for "
                            "aten.convolution_backward");
    EXPECT_TRUE(contains(run->detail, "inductor traceback here")) << run->detail;
    EXPECT_EQ(run->stepCount, 0);
}

TEST_F(SupervisorTest, PrimingWorkerThatCrashesIsWorkerCrashedWithPrefix)
{
    // What a shell reports for a worker that died of SIGSEGV: its words, and 128 + 11.
    const WorkerCommand crashing = fakeWorker({"--stderr", "Segmentation fault", "--exit", "139"});
    const SweepPlan p = plan({compileConfig()}, 1, starts("shipped"));
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), crashing));
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, "worker-crashed");
    const auto run = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->message.rfind("priming the shipped bundle failed: the worker ended without finishing", 0), 0u)
        << run->message;
    EXPECT_TRUE(contains(run->detail, "Segmentation fault")) << run->detail;
}

TEST_F(SupervisorTest, CancelWhilePrimingCancelsTheRun)
{
    const WorkerCommand slowPriming =
        fakeWorker({"--replay", stream("phase.jsonl", {phaseLine("compiling", 0)}), "--sleep", "30"});
    const SweepPlan p = plan({compileConfig(), smallConfig(16)}, 1, starts("again"));
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), slowPriming), [](SweepRunner &runner) {
        onEvent<event::Phase>(runner, [&runner] { runner.cancel(); });
    });
    EXPECT_TRUE(out.cancelled);
    EXPECT_LT(out.elapsedMs, 5000);
    ASSERT_EQ(out.phases.size(), 1u);
    EXPECT_EQ(out.phases[0].first, "priming: compiling");
    const auto runs = reader()->runs(p.sweepId);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].status, RunStatus::Cancelled);
    EXPECT_EQ(runs[1].status, RunStatus::Cancelled);
}

TEST_F(SupervisorTest, PhaseLinesKeepASilentTimeoutAway)
{
    // Compiling for 3 s under a 2 s silence timeout, saying so every 0.3 s: alive.
    QStringList phases;
    for (int i = 1; i <= 10; ++i)
        phases << phaseLine("compiling", i);
    const WorkerCommand python = fakeWorker({"--pace", "300", "--replay", stream("phases.jsonl", phases), "--pace", "0",
                                             "--replay", dataFile("worker-ok.jsonl")});
    const SweepPlan p = plan({compileConfig()});
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), python, 2));
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, QString()) << out.runFinished[0].second.toStdString();
    EXPECT_EQ(out.phases.size(), 10u);
}

TEST_F(SupervisorTest, ExpectedTorchReachesTheWorker)
{
    // The build's torch, whatever the caller's environment says.
    const ScopedEnv outer("STEPSCOPE_EXPECTED_TORCH", "0.0.bogus");
    const WorkerCommand echoEnv = fakeWorker({"--env", "STEPSCOPE_EXPECTED_TORCH", "--exit", "3"});
    RunConfig python = smallConfig();
    python.runtime = Runtime::Python;
    const SweepPlan p = plan({python});
    run(p, options(recorded("worker-ok.jsonl"), echoEnv));
    const auto run = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(run);
    // Without a torch in the build the variable is removed, not passed on empty.
    const QString expected = expectedTorchVersion();
    const std::string echo = expected.isEmpty() ? "STEPSCOPE_EXPECTED_TORCH unset"
                                                : "STEPSCOPE_EXPECTED_TORCH=[" + expected.toStdString() + "]";
    EXPECT_TRUE(contains(run->detail, echo)) << run->detail;
#ifdef STEPSCOPE_TEST_ENGINE_BUILT
    EXPECT_FALSE(expectedTorchVersion().isEmpty()) << "the build found torch: the worker must hear which";
#endif
}

TEST_F(SupervisorTest, PythonNotFoundWhenStepscopePythonIsMissing)
{
    const ScopedEnv env("STEPSCOPE_PYTHON", "/nonexistent/venv/bin/python");
    const WorkerCommand python = defaultPythonWorker();
    EXPECT_TRUE(python.program.isEmpty());
    EXPECT_TRUE(python.origin.contains("STEPSCOPE_PYTHON=/nonexistent/venv/bin/python")) << python.origin.toStdString();

    RunConfig c = compileConfig();
    const SweepPlan p = plan({c});
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), python));
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, "python-not-found");
    const auto run = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(run && run->category);
    EXPECT_EQ(*run->category, FailureCategory::PythonNotFound);
    EXPECT_TRUE(contains(run->message, "STEPSCOPE_PYTHON=/nonexistent/venv/bin/python")) << run->message;
    EXPECT_TRUE(QDir(cacheRoot()).entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty())
        << "no cache is left for a run that cannot start";
}

TEST_F(SupervisorTest, PythonWorkerResolutionOrder)
{
    const ScopedEnv script("STEPSCOPE_PYTHON_WORKER", QByteArray());
    const ScopedEnv env("STEPSCOPE_PYTHON", QByteArray());
    // No managed environment here (test_torch_location.cpp covers where it comes in the order).
    const ScopedEnv managed("STEPSCOPE_VENV", dir_.filePath("no-venv").toLocal8Bit());
    const QString beside = QCoreApplication::applicationDirPath() + "/stepscope_worker.py";

    // Two programs that exist on every system the tests run on stand in for interpreters.
    const QString fake = fakeWorker({}).program;
    const QString self = QCoreApplication::applicationFilePath();

    // Configured (settings, --python) first; a bare name is looked up on PATH.
    WorkerCommand w = defaultPythonWorker(fake);
    EXPECT_EQ(w.program, fake);
    EXPECT_EQ(w.arguments, (QStringList{"-u", beside}));
    EXPECT_FALSE(w.origin.isEmpty());
    {
        const ScopedEnv path("PATH", QFileInfo(fake).absolutePath().toLocal8Bit());
        w = defaultPythonWorker(QFileInfo(fake).fileName());
        EXPECT_EQ(QFileInfo(w.program).canonicalFilePath(), QFileInfo(fake).canonicalFilePath())
            << w.program.toStdString();
    }
    // A configured interpreter that is not there is said, not replaced by another Python.
    w = defaultPythonWorker("/nonexistent/python3.12");
    EXPECT_TRUE(w.program.isEmpty());
    EXPECT_TRUE(w.origin.contains("/nonexistent/python3.12")) << w.origin.toStdString();
    EXPECT_TRUE(w.origin.contains("--python")) << w.origin.toStdString();
    {
        // STEPSCOPE_PYTHON next, and the configured one still wins over it.
        const ScopedEnv set("STEPSCOPE_PYTHON", fake.toLocal8Bit());
        EXPECT_EQ(defaultPythonWorker().program, fake);
        EXPECT_EQ(defaultPythonWorker().origin, "STEPSCOPE_PYTHON");
        EXPECT_EQ(defaultPythonWorker(self).program, self);
    }
    {
        const ScopedEnv other("STEPSCOPE_PYTHON_WORKER", "/opt/worker.py");
        EXPECT_EQ(defaultPythonWorker(fake).arguments, (QStringList{"-u", "/opt/worker.py"}));
    }
    // Then the build's environment or python3 on PATH; with neither, what was tried.
    w = defaultPythonWorker();
    if (w.program.isEmpty()) {
        EXPECT_TRUE(w.origin.contains("python3 on PATH")) << w.origin.toStdString();
        EXPECT_TRUE(w.origin.contains("STEPSCOPE_PYTHON")) << w.origin.toStdString();
    } else {
        EXPECT_TRUE(QFileInfo(w.program).isExecutable()) << w.program.toStdString();
    }
    {
        const ScopedEnv nothing("PATH", "/nonexistent");
        w = defaultPythonWorker();
        if (w.program.isEmpty()) // unless the build's environment exists
            EXPECT_TRUE(w.origin.contains("--python")) << w.origin.toStdString();
        else
            EXPECT_EQ(w.origin, "the build's environment");
    }
}

TEST_F(SupervisorTest, CachesUnderAnUnusableRootFailTheRunClearly)
{
    QFile blocker(dir_.filePath("not-a-dir"));
    ASSERT_TRUE(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    RunnerOptions o = options(recorded("worker-ok.jsonl"), recorded("worker-compile.jsonl"));
    o.cacheRoot = blocker.fileName() + "/cc";
    const SweepPlan p = plan({compileConfig(), smallConfig(16)});
    const Outcome out = run(p, o);
    ASSERT_EQ(out.runFinished.size(), 2u);
    EXPECT_EQ(out.runFinished[0].second, "internal");
    const auto failed = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(failed);
    EXPECT_TRUE(contains(failed->message, "--cache-dir")) << failed->message;

    // A name the file system refuses as too long is the category the user can act on.
    o.cacheRoot = dir_.filePath(QString(300, 'c'));
    const SweepPlan p2 = plan({compileConfig()}, 1, starts("again"));
    const Outcome out2 = run(p2, o);
    ASSERT_EQ(out2.runFinished.size(), 1u);
    EXPECT_EQ(out2.runFinished[0].second, "cache-path-too-long");
}

TEST_F(SupervisorTest, MachineWarmupRunsOneDiscardedStepBeforeTheFirstRun)
{
    const QString counter = dir_.filePath("warmup.txt");
    // Each worker records its configuration and whether the compile caches reached it.
    const WorkerCommand python = fakeWorker(
        {"--env", "TORCHINDUCTOR_CACHE_DIR", "--record", counter, "--replay", dataFile("worker-compile.jsonl")});
    const RunConfig compiled = compileConfig();
    RunConfig eager = compiled;
    eager.compile = CompileMode::None;
    const SweepPlan p = plan({compiled, eager});
    RunnerOptions o = options(recorded("worker-ok.jsonl"), python);
    o.machineWarmup = true;
    const Outcome out = run(p, o);
    ASSERT_EQ(out.runFinished.size(), 2u);

    // Three workers: the warm-up (one step of the first run's eager part, no compile caches), then
    // the two measured runs.
    const QStringList workers = linesOf(counter);
    ASSERT_EQ(workers.size(), 3) << workers.join('|').toStdString();
    EXPECT_EQ(workers[0].section('\t', 1), "TORCHINDUCTOR_CACHE_DIR unset")
        << "the warm-up must not fill a cold compile cache";
    EXPECT_TRUE(workers[1].section('\t', 1).startsWith("TORCHINDUCTOR_CACHE_DIR=[" + cacheRoot()))
        << "the measured compile run gets its caches: " << workers[1].toStdString();
    RunConfig warmup;
    std::vector<ConfigError> errors;
    ASSERT_TRUE(parseConfig(workers[0].section('\t', 0, 0).toUtf8(), warmup, errors)) << describe(errors);
    EXPECT_TRUE(warmup == machineWarmupConfig(compiled));
    EXPECT_EQ(warmup.steps, 1);
    EXPECT_EQ(warmup.warmupSteps, 0);
    EXPECT_EQ(warmup.compile, CompileMode::None);
    EXPECT_TRUE(std::any_of(out.log.begin(), out.log.end(), [](const QString &l) {
        return l.startsWith("machine warm-up: one discarded step");
    })) << out.log.join('|').toStdString();

    auto r = reader();
    for (const auto &planned : p.runs) {
        const auto stored = r->run(planned.runId);
        ASSERT_TRUE(stored);
        EXPECT_EQ(stored->status, RunStatus::Complete) << stored->message;
        EXPECT_EQ(stored->stepCount, 5) << "the warm-up's steps are not stored";
        EXPECT_EQ(stored->machineWarmup, store::MachineWarmup::WarmedUp);
    }
}

TEST_F(SupervisorTest, WithoutWarmupTheFirstRunSaysItWasTheFirstProcess)
{
    const SweepPlan p = plan({compileConfig(), compileConfig(4)});
    const Outcome out = run(p, options(recorded("worker-ok.jsonl"), recorded("worker-compile.jsonl")));
    ASSERT_EQ(out.runFinished.size(), 2u);
    auto r = reader();
    const auto first = r->run(p.runs[0].runId), second = r->run(p.runs[1].runId);
    ASSERT_TRUE(first && second);
    EXPECT_EQ(first->machineWarmup, store::MachineWarmup::FirstProcess);
    EXPECT_EQ(second->machineWarmup, store::MachineWarmup::AfterOthers);
}

// A stream of 40 steady steps at `level` ms (each other one 0.02 ms slower).
QStringList levelStream(int level)
{
    QStringList values;
    for (int i = 0; i < 40; ++i)
        values << QString::number(level) + (i % 2 == 0 ? ".0" : ".02");
    const QString v = values.join(',');
    return {R"({"type":"hello","protocol":1,"env":{"worker":"level"}})",
            R"({"type":"ready","setup_s":0.1})",
            R"({"type":"first_step","wall_s":0.2})",
            stepsLine(2, v, v),
            R"({"type":"check","losses":[1.0]})",
            doneLine(41, 10.0)};
}

// A worker that reports 40 steady steps at a level that alternates between 10 and 14 ms from one
// invocation to the next when `alternate`, else always 10 ms (the invocation count is kept in `counter`).
WorkerCommand levelWorker(const QTemporaryDir &dir, const QString &counter, bool alternate)
{
    const QString ten = writeStream(dir.filePath("level10.jsonl"), levelStream(10));
    if (!alternate)
        return fakeWorker({"--count", counter, "--replay", ten});
    return fakeWorker(
        {"--count", counter, "--alternate", ten, writeStream(dir.filePath("level14.jsonl"), levelStream(14))});
}

TEST_F(SupervisorTest, AdaptiveRepeatsStopWhenTheIntervalIsNarrow)
{
    RunConfig a = compileConfig();
    a.runtime = Runtime::Native;
    a.compile = CompileMode::None;
    RunConfig b = a;
    b.batch = 4;
    const SweepPlan p = plan({a, b}, 2);
    RunnerOptions o = options(levelWorker(dir_, dir_.filePath("n.txt"), false));
    o.adaptive.enabled = true;
    o.adaptive.maxProcesses = 6;
    const Outcome out = run(p, o);
    EXPECT_EQ(out.runFinished.size(), 4u) << "two identical processes each give a narrow interval: no more";
    EXPECT_EQ(linesOf(dir_.filePath("n.txt")).value(0), "4");
}

TEST_F(SupervisorTest, AdaptiveRepeatsAddProcessesUpToTheCapWhileTheIntervalIsWide)
{
    RunConfig a = compileConfig();
    a.runtime = Runtime::Native;
    a.compile = CompileMode::None;
    const SweepPlan p = plan({a}, 2);
    RunnerOptions o = options(levelWorker(dir_, dir_.filePath("n.txt"), true));
    o.adaptive.enabled = true;
    o.adaptive.maxProcesses = 5;
    const Outcome out = run(p, o, {}, 20000);
    ASSERT_EQ(out.runFinished.size(), 5u) << out.log.join('|').toStdString();
    const int notes = static_cast<int>(std::count_if(out.log.begin(), out.log.end(), [](const QString &l) {
        return l.startsWith("adaptive repeats: one more process of");
    }));
    EXPECT_EQ(notes, 3);
    auto r = reader();
    const auto runs = r->runs(p.sweepId);
    ASSERT_EQ(runs.size(), 5u);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        EXPECT_EQ(runs[i].repeatIndex, static_cast<std::int64_t>(i));
        EXPECT_EQ(runs[i].status, RunStatus::Complete);
    }
}

TEST_F(SupervisorTest, AFailedWarmupIsNotRecordedAsWarmCaches)
{
    // The first process (the warm-up) dies; the runs that follow must not claim warm machine caches.
    const QString counter = dir_.filePath("n.txt");
    const WorkerCommand native =
        fakeWorker({"--count", counter, "--first-exit", "3", "--replay", dataFile("worker-ok.jsonl")});
    RunConfig a = compileConfig();
    a.runtime = Runtime::Native;
    a.compile = CompileMode::None;
    const SweepPlan p = plan({a});
    RunnerOptions o = options(native);
    o.machineWarmup = true;
    const Outcome out = run(p, o);
    ASSERT_EQ(out.runFinished.size(), 1u);
    EXPECT_EQ(out.runFinished[0].second, QString()) << "the warm-up's failure is not the run's";
    EXPECT_TRUE(std::any_of(out.log.begin(), out.log.end(),
                            [](const QString &l) { return l.startsWith("machine warm-up process failed"); }));
    auto r = reader();
    const auto stored = r->run(p.runs[0].runId);
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->machineWarmup, store::MachineWarmup::AfterOthers);
}

} // namespace
} // namespace stepscope::supervisor
