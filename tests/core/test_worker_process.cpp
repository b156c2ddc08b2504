// One WorkerProcess alone, without a store or a sweep: how it judges the end of a fake worker.
#include "supervisor_fixture.h"

#include "supervisor/worker_process.h"

namespace stepscope::supervisor
{
namespace
{

using namespace test;

struct Ending {
    bool exited = false;
    RunStatus status = RunStatus::Queued;
    std::optional<Failure> failure;
    std::vector<protocol::Message::Type> messages;
    QStringList log;
    qint64 elapsedMs = 0;
};

// Starts `worker` under a `timeoutSeconds` silence limit and waits (at most `limitMs`) for its end.
Ending runWorker(const WorkerCommand &worker, int timeoutSeconds = 30, int limitMs = 8000)
{
    Ending end;
    WorkerProcess process(timeoutSeconds, {});
    QEventLoop loop;
    QObject::connect(&process, &WorkerProcess::message, &loop,
                     [&](const protocol::Message &m) { end.messages.push_back(m.type); });
    QObject::connect(&process, &WorkerProcess::logLine, &loop, [&](const QString &l) { end.log << l; });
    QObject::connect(&process, &WorkerProcess::exited, &loop,
                     [&](RunStatus status, const std::optional<Failure> &failure) {
                         end.exited = true;
                         end.status = status;
                         end.failure = failure;
                         loop.quit();
                     });
    QObject::connect(&process, &WorkerProcess::failedToStart, &loop, [&](const Failure &failure) {
        end.failure = failure;
        loop.quit();
    });
    QTimer::singleShot(limitMs, &loop, [&] {
        ADD_FAILURE() << "the worker did not end within " << limitMs << " ms";
        loop.quit();
    });
    QElapsedTimer clock;
    clock.start();
    process.start(worker, smallConfig(), QProcessEnvironment::systemEnvironment());
    loop.exec();
    end.elapsedMs = clock.elapsed();
    return end;
}

TEST_F(SupervisorTest, WorkerProcessKillsASilentWorkerAndJudgesItTimedOut)
{
    const Ending end = runWorker(sleeper(30), 1);
    ASSERT_TRUE(end.exited);
    EXPECT_EQ(end.status, RunStatus::Failed);
    ASSERT_TRUE(end.failure);
    EXPECT_EQ(end.failure->category, FailureCategory::Timeout);
    EXPECT_EQ(end.failure->message, "the worker said nothing for 1 s");
    EXPECT_TRUE(contains(end.failure->detail, "worker: sleeping")) << "the worker's log is the detail";
    EXPECT_LT(end.elapsedMs, 6000) << "killed after its silence, not after its sleep";
}

TEST_F(SupervisorTest, WorkerProcessJudgesAnExitWithoutDoneAsFailed)
{
    const Ending end = runWorker(fakeWorker({"--stderr", "worker: leaving early", "--exit", "0"}));
    ASSERT_TRUE(end.exited);
    EXPECT_EQ(end.status, RunStatus::Failed);
    ASSERT_TRUE(end.failure);
    EXPECT_EQ(end.failure->category, FailureCategory::WorkerCrashed);
    EXPECT_EQ(end.failure->message, "the worker ended without finishing (exit code 0, last step 0)");
    EXPECT_TRUE(end.log.contains("worker: leaving early")) << end.log.join('|').toStdString();
}

TEST_F(SupervisorTest, WorkerProcessPassesARecordedStreamOnAndJudgesItComplete)
{
    const Ending end = runWorker(recorded("worker-ok.jsonl"));
    ASSERT_TRUE(end.exited);
    EXPECT_EQ(end.status, RunStatus::Complete);
    EXPECT_FALSE(end.failure);
    ASSERT_FALSE(end.messages.empty());
    EXPECT_EQ(end.messages.front(), protocol::Message::Type::Hello);
    EXPECT_EQ(end.messages.back(), protocol::Message::Type::Done);
}

TEST_F(SupervisorTest, WorkerProcessSaysAProgramThatCannotStart)
{
    const Ending end = runWorker({dir_.filePath("no-such-worker"), {}});
    EXPECT_FALSE(end.exited);
    ASSERT_TRUE(end.failure);
    EXPECT_EQ(end.failure->category, FailureCategory::WorkerCrashed) << "a native worker: not python-not-found";
    EXPECT_TRUE(contains(end.failure->message, "could not start the worker")) << end.failure->message;
}

} // namespace
} // namespace stepscope::supervisor
