// Machine caches as a dimension (issue 16): every run's caches are its own, cold ones fresh and
// gone with the run, warm ones primed exactly once per configuration and sweep, all recorded.
// The fake worker says what each process was given (--env, --bytes) and fills a cache (--fill).
#include "supervisor_fixture.h"

#include "supervisor/start_caches.h"

#include <QDir>
#include <QFileInfo>

#include <set>

namespace stepscope::supervisor
{
using namespace test;

namespace
{

// What one worker process was given, from a --record line: the configuration, then the echoes.
struct Given {
    RunConfig config;
    QString cudaCache, kernelCache; // the folders CUDA_CACHE_PATH and PYTORCH_KERNEL_CACHE_PATH named
    qint64 cudaBytes = -1;          // what CUDA_CACHE_PATH held when the process started
};

QString valueIn(const QString &echo)
{
    const auto open = echo.indexOf('['), close = echo.lastIndexOf(']');
    return open < 0 || close < open ? QString() : echo.mid(open + 1, close - open - 1);
}

std::vector<Given> givenTo(const QString &recordFile)
{
    std::vector<Given> out;
    for (const QString &line : linesOf(recordFile)) {
        const QStringList parts = line.split('\t');
        Given g;
        std::vector<ConfigError> errors;
        EXPECT_TRUE(parseConfig(parts[0].toUtf8(), g.config, errors)) << describe(errors);
        for (const QString &p : parts.mid(1)) {
            if (p.startsWith("CUDA_CACHE_PATH="))
                g.cudaCache = valueIn(p);
            else if (p.startsWith("PYTORCH_KERNEL_CACHE_PATH="))
                g.kernelCache = valueIn(p);
            else if (p.startsWith("CUDA_CACHE_PATH holds "))
                g.cudaBytes = p.section(' ', 2, 2).toLongLong();
        }
        out.push_back(g);
    }
    return out;
}

// A worker that says what it was given, fills its CUDA cache with `fillBytes`, then replays a run.
WorkerCommand reporting(const QString &record, int fillBytes)
{
    QStringList actions{"--env",   "CUDA_CACHE_PATH", "--env",    "PYTORCH_KERNEL_CACHE_PATH",
                        "--bytes", "CUDA_CACHE_PATH", "--record", record};
    if (fillBytes > 0)
        actions << "--fill"
                << "CUDA_CACHE_PATH" << QString::number(fillBytes);
    return fakeWorker(actions << "--replay" << dataFile("worker-ok.jsonl"));
}

} // namespace

TEST_F(SupervisorTest, ColdRunsGetFreshCachesOfTheirOwnRemovedAfter)
{
    const QString record = dir_.filePath("given.txt");
    RunnerOptions o = options(reporting(record, 1000));
    const SweepPlan p = plan({smallConfig(8), smallConfig(4)}, 2, starts("fresh"));
    const Outcome out = run(p, o);
    ASSERT_EQ(out.runFinished.size(), 4u);
    const auto given = givenTo(record);
    ASSERT_EQ(given.size(), 4u);
    std::set<QString> paths;
    for (const Given &g : given) {
        EXPECT_TRUE(g.cudaCache.startsWith(cacheRoot())) << g.cudaCache.toStdString();
        EXPECT_FALSE(g.kernelCache.isEmpty());
        EXPECT_EQ(g.cudaBytes, 0) << "a cold cache is empty when the worker starts, whatever ran before";
        paths.insert(g.cudaCache);
    }
    EXPECT_EQ(paths.size(), 4u) << "no two cold runs share a cache";
    for (const QString &path : paths)
        EXPECT_FALSE(QFileInfo::exists(path)) << "removed after the run: " << path.toStdString();

    auto r = reader();
    for (const PlannedRun &planned : p.runs) {
        const auto run = r->run(planned.runId);
        ASSERT_TRUE(run);
        EXPECT_EQ(run->caches, store::StartState::Fresh);
        ASSERT_TRUE(run->cacheRecord);
        ASSERT_EQ(run->cacheRecord->caches.size(), startCaches().size());
        const store::CacheUse &cuda = run->cacheRecord->caches.front();
        EXPECT_EQ(cuda.variable, "CUDA_CACHE_PATH");
        EXPECT_EQ(cuda.state, store::CacheUse::State::Fresh);
        EXPECT_EQ(cuda.bytesBefore, 0);
        EXPECT_EQ(cuda.bytesAfter, 1000) << "what the run left, measured before its folder went";
        EXPECT_FALSE(run->cacheRecord->warmMissed());
    }
}

TEST_F(SupervisorTest, WarmConfigurationIsPrimedOnceAndItsRunsReadThePrimedCaches)
{
    const QString record = dir_.filePath("given.txt");
    const RunConfig a = smallConfig(8), b = smallConfig(4);
    const SweepPlan p = plan({a, b}, 2, starts("again"));
    const Outcome out = run(p, options(reporting(record, 500)));
    ASSERT_EQ(out.runFinished.size(), 4u);
    for (const auto &finished : out.runFinished)
        EXPECT_EQ(finished.second, QString());
    // A priming process (one step, no warm-up) before each configuration's first warm run only.
    const auto given = givenTo(record);
    ASSERT_EQ(given.size(), 6u);
    int primings = 0;
    std::map<std::string, QString> warmPath;
    for (const Given &g : given) {
        const bool priming = g.config.steps == 1;
        primings += priming ? 1 : 0;
        const std::string name = canonicalName(g.config);
        if (priming) {
            EXPECT_EQ(g.cudaBytes, 0) << "a priming process starts from empty caches";
            EXPECT_FALSE(warmPath.count(name)) << "primed twice: " << name;
            warmPath[name] = g.cudaCache;
        } else {
            ASSERT_TRUE(warmPath.count(name)) << "a warm run before its priming: " << name;
            EXPECT_EQ(g.cudaCache, warmPath[name]) << "the timed run reads what the priming process filled";
            EXPECT_GT(g.cudaBytes, 0);
        }
    }
    EXPECT_EQ(primings, 2);
    EXPECT_NE(warmPath[canonicalName(a)], warmPath[canonicalName(b)]) << "each configuration's caches are its own";

    auto r = reader();
    for (const PlannedRun &planned : p.runs) {
        const auto run = r->run(planned.runId);
        ASSERT_TRUE(run);
        EXPECT_EQ(run->caches, store::StartState::Again);
        ASSERT_TRUE(run->cacheRecord);
        EXPECT_EQ(run->cacheRecord->caches.front().state, store::CacheUse::State::Primed);
        EXPECT_GT(run->cacheRecord->caches.front().bytesBefore, 0);
        EXPECT_EQ(run->stepCount, 5) << "the priming process's steps are not stored";
        EXPECT_FALSE(run->cacheRecord->warmMissed()) << "500 bytes is within kWarmCacheGrowthBytes";
    }
}

TEST_F(SupervisorTest, UnderBothTheColdRunPrimesAndNoExtraProcessRuns)
{
    const QString record = dir_.filePath("given.txt");
    const SweepPlan p = plan({smallConfig(8)}, 1, starts("fresh,again"));
    ASSERT_EQ(p.runs.size(), 2u);
    // The warm run compiles what it lacks (grows its cache past the threshold): flagged, not warm.
    const Outcome out = run(p, options(reporting(record, static_cast<int>(store::kWarmCacheGrowthBytes) + 4096)));
    ASSERT_EQ(out.runFinished.size(), 2u);
    const auto given = givenTo(record);
    ASSERT_EQ(given.size(), 2u) << "two stored processes, no priming one";
    EXPECT_EQ(given[0].cudaBytes, 0) << "the cold run starts empty";
    EXPECT_EQ(given[1].cudaCache, given[0].cudaCache) << "the warm run reads what the cold run left";
    EXPECT_EQ(given[1].cudaBytes, store::kWarmCacheGrowthBytes + 4096);

    auto r = reader();
    const auto cold = r->run(p.runs[0].runId), warm = r->run(p.runs[1].runId);
    ASSERT_TRUE(cold && warm && cold->cacheRecord && warm->cacheRecord);
    EXPECT_EQ(cold->caches, store::StartState::Fresh);
    EXPECT_EQ(warm->caches, store::StartState::Again);
    EXPECT_FALSE(cold->cacheRecord->warmMissed());
    ASSERT_TRUE(warm->cacheRecord->warmMissed());
    EXPECT_EQ(warm->cacheRecord->missed, std::vector<std::string>{"CUDA_CACHE_PATH"});
    // The sweep's warm folders go with it.
    EXPECT_FALSE(QFileInfo::exists(given[0].cudaCache));
}

// A priming process that fails fails its warm run, saying which caches it was filling, and leaves
// no half-filled warm folders for the next run to take as warm.
TEST_F(SupervisorTest, AFailedPrimingFailsTheWarmRunAndSaysWhatItPrimed)
{
    const QString counter = dir_.filePath("count.txt");
    const WorkerCommand worker =
        fakeWorker({"--count", counter, "--first-exit", "3", "--replay", dataFile("worker-ok.jsonl")});
    const SweepPlan p = plan({smallConfig(8)}, 1, starts("again"));
    const Outcome out = run(p, options(worker));
    ASSERT_EQ(out.runFinished.size(), 1u);
    const auto failed = reader()->run(p.runs[0].runId);
    ASSERT_TRUE(failed);
    EXPECT_EQ(failed->status, RunStatus::Failed);
    EXPECT_EQ(failed->message.rfind("priming the caches of the again start failed: ", 0), 0u) << failed->message;
    EXPECT_TRUE(QDir(cacheRoot()).entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty())
        << "the half-filled again folders are gone";
}

TEST(StartCaches, FolderBytesCountsEveryFileBelow)
{
    QTemporaryDir dir;
    ASSERT_TRUE(QDir(dir.path()).mkpath("a/b"));
    for (const auto &[name, size] : {std::pair<const char *, int>{"a/x", 10}, {"a/b/y", 32}}) {
        QFile f(dir.filePath(name));
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(size, 'z'));
    }
    EXPECT_EQ(folderBytes(dir.path()), 42);
    EXPECT_EQ(folderBytes(dir.filePath("missing")), 0);
}

} // namespace stepscope::supervisor
