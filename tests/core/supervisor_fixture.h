#pragma once
// The supervisor against recorded worker streams: no torch, no GPU, no shell. A "worker" is
// stepscope-fake-worker (tests/tools/fake_worker.cpp) replaying a file from tests/data, or a stream
// a test writes, and doing what else the test asks of it through its options.
#include "child_process.h"
#include "config/config_json.h"
#include "config/run_config.h"
#include "store/store.h"
#include "supervisor/sweep_plan.h"
#include "supervisor/event_text.h"
#include "supervisor/sweep_runner.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTimer>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace stepscope::supervisor::test
{

inline const std::string kData = std::string(STEPSCOPE_SOURCE_DIR) + "/tests/data/";

inline bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

inline QString dataFile(const std::string &file)
{
    return QString::fromStdString(kData + file);
}

// The fake worker doing `actions`, in order (fake_worker.cpp lists them).
inline WorkerCommand fakeWorker(QStringList actions)
{
    return {QStringLiteral(STEPSCOPE_FAKE_WORKER), std::move(actions)};
}

// Replays the recorded stream, optionally says something on stderr, exits with `code`.
inline WorkerCommand recorded(const std::string &file, int code = 0, const std::string &stderrText = {})
{
    QStringList actions{"--replay", dataFile(file)};
    if (!stderrText.empty())
        actions << "--stderr" << QString::fromStdString(stderrText);
    return fakeWorker(actions << "--exit" << QString::number(code));
}

inline WorkerCommand sleeper(int seconds)
{
    return fakeWorker({"--stderr", "worker: sleeping", "--sleep", QString::number(seconds)});
}

// The lines of a file (a fake worker's --record or --count file); none when it is missing.
inline QStringList linesOf(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
}

// Writes `lines` to `path` as a stream for the fake worker to replay; returns `path`.
inline QString writeStream(const QString &path, const QStringList &lines)
{
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate)) << path.toStdString();
    f.write((lines.join('\n') + '\n').toUtf8());
    return path;
}

// Protocol lines a test puts into a stream of its own.
inline QString stepsLine(int first, const QString &wallMs = "1.0", const QString &gpuMs = {})
{
    return QString(R"({"type":"steps","first":%1,"gpu_ms":[%2],"wall_ms":[%3]})").arg(first).arg(gpuMs, wallMs);
}
inline QString phaseLine(const QString &phase, double elapsedSeconds)
{
    return QString(R"({"type":"phase","phase":"%1","elapsed_s":%2})").arg(phase).arg(elapsedSeconds);
}
inline QString doneLine(int steps, double meanWallMs = 1.0)
{
    return QString(R"({"type":"done","steps":%1,"mean_wall_ms":%2})").arg(steps).arg(meanWallMs);
}

inline RunConfig smallConfig(int batch = 8)
{
    RunConfig c;
    c.batch = batch;
    c.imageSize = 64;
    c.warmupSteps = 1;
    c.steps = 4;
    return c;
}

// Calls `f` on each event of kind E the runner says (a test's hook into a running sweep).
template <class E, class F> void onEvent(SweepRunner &runner, F f)
{
    QObject::connect(&runner, &SweepRunner::sweepEvent, &runner, [f](const SweepEvent &e) {
        if (std::holds_alternative<E>(e))
            f();
    });
}

struct Outcome {
    int finishedCount = 0;
    bool cancelled = false;
    std::vector<qint64> started;
    std::vector<std::pair<qint64, QString>> runFinished; // run, category
    std::vector<double> wallMs;                          // from stepsArrived, in order
    std::vector<int> stepFirsts;
    QStringList log;
    std::vector<std::pair<QString, double>> phases; // phase ("priming: " while priming), elapsed seconds
    std::vector<report::CompileRecord> compileInfos;
    QString environmentJson;
    double firstStep = -1;
    qint64 elapsedMs = 0;
};

class SupervisorTest : public ::testing::Test
{
  protected:
    static void SetUpTestSuite()
    {
        static int argc = 1;
        static char arg0[] = "test_supervisor";
        static char *argv[] = {arg0, nullptr};
        if (!QCoreApplication::instance())
            new QCoreApplication(argc, argv); // lives for the whole process
    }

    void SetUp() override
    {
        if (!stepscope::test::childRole().empty()) {
            dir_.remove(); // a child_process.h child works in its parent's folder
            return;
        }
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("stepscope.db").toStdString();
        db_ = store::Database::open(path_);
    }

    SweepPlan plan(const std::vector<RunConfig> &configs, int repeats = 1, const StartStates &starts = {})
    {
        return planSweep(*db_, "test", "custom", configs, repeats, 6, std::nullopt, starts);
    }
    // Start states by their --start words ("fresh,again", "all").
    static StartStates starts(const char *words) { return *startStatesFromString(QString::fromLatin1(words)); }

    // Runs `plan` to its end (or `limitMs`), with `during` called on the runner once it has started.
    Outcome run(const SweepPlan &plan, RunnerOptions options, const std::function<void(SweepRunner &)> &during = {},
                int limitMs = 8000)
    {
        Outcome out;
        SweepRunner runner(*db_, std::move(options));
        QEventLoop loop;
        QObject::connect(&runner, &SweepRunner::stepsArrived, &loop,
                         [&](qint64, int first, const QVector<double> &, const QVector<double> &wall) {
                             out.stepFirsts.push_back(first);
                             out.wallMs.insert(out.wallMs.end(), wall.begin(), wall.end());
                         });
        QObject::connect(&runner, &SweepRunner::sweepEvent, &loop, [&](const SweepEvent &e) {
            std::visit(Overloaded{
                           [&](const event::Finished &x) {
                               ++out.finishedCount;
                               out.cancelled = x.cancelled;
                               loop.quit();
                           },
                           [&](const event::RunStarted &x) { out.started.push_back(x.runId); },
                           [&](const event::RunFinished &x) {
                               out.runFinished.emplace_back(
                                   x.runId, x.failure ? QString::fromUtf8(toString(x.failure->category).data()) : QString());
                           },
                           [&](const event::Environment &x) { out.environmentJson = x.json; },
                           [&](const event::FirstStep &x) { out.firstStep = x.seconds; },
                           [&](const event::Phase &x) {
                               out.phases.emplace_back((x.priming ? "priming: " : "") + x.phase, x.seconds);
                           },
                           [&](const event::CompileInfo &x) { out.compileInfos.push_back(x.record); },
                           [&](const event::Log &x) { out.log << x.line; },
                           // The stages said as data, in the words both front-ends give them
                           // (supervisor/event_text.h).
                           [&](const auto &) {
                               if (isSaidInWords(e))
                                   out.log << describe(e);
                           },
                       },
                       e);
        });
        if (during)
            during(runner);
        QTimer guard;
        guard.setSingleShot(true);
        QObject::connect(&guard, &QTimer::timeout, &loop, [&] {
            ADD_FAILURE() << "the sweep did not finish within " << limitMs << " ms";
            loop.quit();
        });
        QElapsedTimer clock;
        clock.start();
        runner.start(plan);
        if (out.finishedCount == 0) {
            guard.start(limitMs);
            loop.exec();
        }
        // Let anything queued after Finished drain: nothing more may arrive.
        QTimer::singleShot(100, &loop, &QEventLoop::quit);
        loop.exec();
        out.elapsedMs = clock.elapsed();
        EXPECT_FALSE(runner.isRunning());
        return out;
    }

    std::unique_ptr<store::Reader> reader() { return store::Reader::open(path_); }

    // A stream file in the test's folder (writeStream).
    QString stream(const QString &name, const QStringList &lines) { return writeStream(dir_.filePath(name), lines); }
    QString cacheRoot() const { return dir_.filePath("caches"); }

    RunnerOptions options(WorkerCommand native, WorkerCommand python = {}, int timeoutSeconds = 30)
    {
        RunnerOptions o;
        o.native = std::move(native);
        o.python = std::move(python);
        o.timeoutSeconds = timeoutSeconds;
        o.cacheRoot = cacheRoot(); // never the user's own caches; seen by the tests, removed with dir_
        return o;
    }

    QTemporaryDir dir_;
    std::string path_;
    std::unique_ptr<store::Database> db_;
};

} // namespace stepscope::supervisor::test
