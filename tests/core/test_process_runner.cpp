// ProcessRunner (supervisor/process_runner.h) against children that misbehave: the test binary
// started again playing a part (child_process.h) that falls silent, floods its stdout, ignores TERM,
// fails or dies by a signal; both ways of driving it, and the line splitter alone.
#include "child_process.h"
#include "common/blocking_call.h"
#include "platform/platform.h"
#include "supervisor/process_run.h"
#include "supervisor/process_runner.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace stepscope::supervisor
{
namespace
{

using stepscope::test::childArgument;
using stepscope::test::childRole;

// The children's own lines start so: gtest writes some lines of its own before the test body runs.
const QByteArray kMark = "line ";

// --- the parts the children play --------------------------------------------------------------

[[noreturn]] void sleepThenExit()
{
    std::this_thread::sleep_for(std::chrono::seconds(30));
    std::_Exit(0);
}

// One line, then nothing for longer than any test waits.
[[noreturn]] void playSilent()
{
    std::printf("line hello\n");
    std::fflush(stdout);
    sleepThenExit();
}

// TERM is ignored from before the line that tells the parent to stop it.
[[noreturn]] void playDeaf()
{
#ifdef SIGTERM
    std::signal(SIGTERM, SIG_IGN);
#endif
    std::printf("line ready\n");
    std::fflush(stdout);
    sleepThenExit();
}

// childArgument() lines "line 0000000", as fast as the pipe takes them (5000 to a pipe of 64 KiB),
// then exit 0.
[[noreturn]] void playFlood()
{
    const int count = std::atoi(childArgument().c_str());
    for (int i = 0; i < count; ++i)
        std::printf("line %07d\n", i);
    std::fflush(stdout);
    std::_Exit(0);
}

// --- the parent's side ------------------------------------------------------------------------

ProcessLaunch launchAs(const std::string &role, const std::string &argument = {})
{
    const test::ChildCommand child = test::childCommand(role, argument);
    ProcessLaunch launch;
    launch.program = child.program;
    launch.arguments = child.arguments;
    launch.environment = child.environment;
    return launch;
}

std::vector<QByteArray> marked(const std::vector<QByteArray> &lines)
{
    std::vector<QByteArray> out;
    for (const QByteArray &line : lines)
        if (line.startsWith(kMark))
            out.push_back(line);
    return out;
}

struct Watched {
    bool ended = false;
    ProcessEnd end;
    std::vector<QByteArray> lines, errors;
    qint64 elapsedMs = 0;
};

// Keeps the thread busy for `us` microseconds: a receiver with work to do for each line.
void busyFor(qint64 us)
{
    QElapsedTimer busy;
    busy.start();
    while (busy.nsecsElapsed() < us * 1000) {
    }
}

// Starts `launch` on `runner` and runs this thread's event loop until it ends (at most limitMs).
Watched watch(ProcessRunner &runner, const ProcessLaunch &launch, int limitMs = 30000)
{
    Watched w;
    QEventLoop loop;
    QObject::connect(&runner, &ProcessRunner::stdoutLine, &loop, [&](const QByteArray &l) { w.lines.push_back(l); });
    QObject::connect(&runner, &ProcessRunner::stderrLine, &loop, [&](const QByteArray &l) { w.errors.push_back(l); });
    QObject::connect(&runner, &ProcessRunner::finished, &loop, [&](const ProcessEnd &end) {
        w.ended = true;
        w.end = end;
        loop.quit();
    });
    QTimer::singleShot(limitMs, &loop, [&] {
        ADD_FAILURE() << "the child did not end within " << limitMs << " ms";
        runner.abort();
        loop.quit();
    });
    QElapsedTimer clock;
    clock.start();
    EXPECT_TRUE(runner.start(launch));
    if (!w.ended) // a program that cannot start may have said so already
        loop.exec();
    w.elapsedMs = clock.elapsed();
    return w;
}

class ProcessRunnerTest : public ::testing::Test
{
  protected:
    void SetUp() override { test::ensureCoreApplication(); }
};

TEST_F(ProcessRunnerTest, ASilentChildIsStoppedAndJudgedSilent)
{
    if (childRole() == "silent")
        playSilent();
    ProcessRunner runner;
    ProcessLaunch launch = launchAs("silent");
    launch.silenceMs = 500;
    const Watched w = watch(runner, launch);
    ASSERT_TRUE(w.ended);
    EXPECT_EQ(w.end.how, ProcessEnd::How::Silent);
    EXPECT_EQ(marked(w.lines), std::vector<QByteArray>{"line hello"}) << "what it said before its silence";
    EXPECT_FALSE(w.end.succeeded());
    EXPECT_LT(w.elapsedMs, 10000) << "stopped after its silence, not after its sleep";
#ifdef Q_OS_UNIX
    EXPECT_FALSE(w.end.killed) << "TERM was enough";
    EXPECT_EQ(w.end.signal, SIGTERM);
#endif
}

TEST_F(ProcessRunnerTest, AChildThatIgnoresTermIsKilledAfterTheGrace)
{
#ifndef Q_OS_UNIX
    GTEST_SKIP() << "TERM is a POSIX signal";
#else
    if (childRole() == "deaf")
        playDeaf();
    ProcessRunner runner;
    QElapsedTimer sinceStop;
    QObject::connect(&runner, &ProcessRunner::stdoutLine, &runner, [&](const QByteArray &line) {
        if (line == "line ready") {
            sinceStop.start();
            runner.stop();
            runner.stop(); // a second request changes nothing
        }
    });
    ProcessLaunch launch = launchAs("deaf");
    launch.graceMs = 700;
    launch.silenceMs = 60000;
    const Watched w = watch(runner, launch);
    ASSERT_TRUE(w.ended);
    ASSERT_TRUE(sinceStop.isValid()) << "the child never said it was ready";
    EXPECT_EQ(w.end.how, ProcessEnd::How::Stopped);
    EXPECT_TRUE(w.end.killed);
    EXPECT_EQ(w.end.signal, SIGKILL);
    EXPECT_GE(sinceStop.elapsed(), 650) << "KILL only once the grace had passed";
    EXPECT_LT(sinceStop.elapsed(), 10000);
#endif
}

TEST_F(ProcessRunnerTest, AFloodArrivesWholeAndInOrderWithItsBacklogBounded)
{
    constexpr int kLines = 400000; // 5.2 MB, written far faster than they are taken
    if (childRole() == "flood")
        playFlood();
    ProcessRunner runner;
    std::vector<int> numbers;
    numbers.reserve(kLines);
    QObject::connect(&runner, &ProcessRunner::stdoutLine, &runner, [&](const QByteArray &line) {
        if (line.startsWith(kMark))
            numbers.push_back(line.mid(kMark.size(), 7).toInt());
        busyFor(3);
    });
    const Watched w = watch(runner, launchAs("flood", std::to_string(kLines)), 120000);
    ASSERT_TRUE(w.ended);
    EXPECT_TRUE(w.end.succeeded()) << w.end.logTail().toStdString();
    ASSERT_EQ(numbers.size(), size_t(kLines));
    for (int i = 0; i < kLines; ++i)
        ASSERT_EQ(numbers[size_t(i)], i) << "line " << i << " out of order";
    EXPECT_EQ(w.end.cutLines, 0);
    EXPECT_GE(w.end.lines, kLines) << "gtest's own lines come too";
    // What waits to be delivered stays near the backlog's bound (a pipe read or so past it), which
    // is a small part of what was written: without it, about half of it waited here.
    const qint64 bound = ProcessRunner::kBacklogBytes + 256 * 1024;
    EXPECT_LE(w.end.peakBacklogBytes, bound);
    EXPECT_LT(bound, qint64(kLines) * 13 / 3);
}

TEST_F(ProcessRunnerTest, AFloodToASlowReceiverLeavesTheEventLoopItsTurns)
{
    constexpr int kLines = 10000; // 100 us each: a second of work, about 5000 of them in one pipe read
    if (childRole() == "flood")
        playFlood();
    ProcessRunner runner;
    int received = 0;
    QObject::connect(&runner, &ProcessRunner::stdoutLine, &runner, [&](const QByteArray &line) {
        if (!line.startsWith(kMark))
            return;
        ++received;
        busyFor(100);
    });
    // The thread's other work: a tick every 5 ms, as a window's repaints.
    QTimer tick;
    tick.setInterval(5);
    QElapsedTimer sinceTick;
    qint64 longestGap = 0;
    int ticks = 0;
    QObject::connect(&tick, &QTimer::timeout, [&] {
        if (sinceTick.isValid())
            longestGap = std::max(longestGap, sinceTick.elapsed());
        sinceTick.start();
        ++ticks;
    });
    tick.start();
    const Watched w = watch(runner, launchAs("flood", std::to_string(kLines)));
    ASSERT_TRUE(w.ended);
    EXPECT_EQ(received, kLines);
    EXPECT_GT(ticks, 20) << "the ticks went on while the lines came";
    // A whole pipe read delivered at once would hold the loop for about half a second.
    EXPECT_LT(longestGap, 200) << "the loop waited this long for its turn";
}

TEST_F(ProcessRunnerTest, ANonZeroExitIsJudgedWithItsLogAndItsUnfinishedLine)
{
    if (childRole() == "exit") {
        std::fprintf(stderr, "child: first complaint\nchild: giving up\n");
        std::printf("line partial");
        std::fflush(stdout);
        std::_Exit(3);
    }
    ProcessRunner runner;
    // The asynchronous way never waits on its thread: forbidden here, nothing may fire.
    std::vector<std::string> waits;
    forbidBlockingOnThisThread([&waits](std::string_view what) { waits.emplace_back(what); });
    const Watched w = watch(runner, launchAs("exit"));
    allowBlocking();
    EXPECT_TRUE(waits.empty()) << waits.front();
    ASSERT_TRUE(w.ended);
    EXPECT_EQ(w.end.how, ProcessEnd::How::Exited);
    EXPECT_TRUE(w.end.normalExit);
    EXPECT_EQ(w.end.exitCode, 3);
    EXPECT_FALSE(w.end.succeeded());
    EXPECT_FALSE(w.end.killed);
    EXPECT_EQ(w.end.unfinishedLine, "line partial") << "a last line without its newline is not lost";
    EXPECT_TRUE(marked(w.lines).empty()) << "nor delivered as a whole line";
    EXPECT_EQ(w.end.logTail(), "child: first complaint\nchild: giving up");
    EXPECT_EQ(w.errors, (std::vector<QByteArray>{"child: first complaint", "child: giving up"}));
}

TEST_F(ProcessRunnerTest, DeathByASignalItWasNotSentIsACrash)
{
#ifndef Q_OS_UNIX
    GTEST_SKIP() << "signals are POSIX";
#else
    if (childRole() == "killed")
        std::raise(SIGKILL);
    ProcessRunner runner;
    const Watched w = watch(runner, launchAs("killed"));
    ASSERT_TRUE(w.ended);
    EXPECT_EQ(w.end.how, ProcessEnd::How::Crashed);
    EXPECT_FALSE(w.end.normalExit);
    EXPECT_EQ(w.end.signal, SIGKILL);
    EXPECT_EQ(w.end.exitCode, -1);
    EXPECT_FALSE(w.end.killed) << "not by the runner";
#endif
}

TEST_F(ProcessRunnerTest, AProgramThatCannotStartIsNamed)
{
    const QString missing = QCoreApplication::applicationDirPath() + "/no-such-program";
    ProcessLaunch launch;
    launch.program = missing;
    launch.arguments = {"--flag"};
    ProcessRunner runner;
    const Watched w = watch(runner, launch);
    ASSERT_TRUE(w.ended);
    EXPECT_EQ(w.end.how, ProcessEnd::How::NotStarted);
    EXPECT_FALSE(w.end.started());
    EXPECT_FALSE(w.end.startError.isEmpty());
    EXPECT_TRUE(w.end.startProblem().startsWith(missing + ": ")) << w.end.startProblem().toStdString();
    EXPECT_FALSE(runner.isRunning());

    // The same from the blocking way, and the runner serves again after it.
    const ProcessEnd blocking = runner.run(launch);
    EXPECT_EQ(blocking.how, ProcessEnd::How::NotStarted);
    EXPECT_EQ(blocking.startError, w.end.startError);
    const ProcessRun run = runProcess(missing, {}, QProcessEnvironment::systemEnvironment(), 5000);
    EXPECT_FALSE(run.started);
    EXPECT_EQ(run.startError, w.end.startError);
}

TEST_F(ProcessRunnerTest, ABlockingRunSaysItWaitsAndKeepsTheSameRules)
{
    if (childRole() == "silent")
        playSilent();
    if (childRole() == "deaf")
        playDeaf();
    if (childRole() == "exit") {
        std::printf("line one\nline two");
        std::fflush(stdout);
        std::_Exit(3);
    }
    // The thread that must not wait hears of it, with the program named.
    std::vector<std::string> waits;
    forbidBlockingOnThisThread([&waits](std::string_view what) { waits.emplace_back(what); });
    std::vector<QByteArray> handed;
    const ProcessRun run = runProcess(launchAs("exit").program, launchAs("exit").arguments,
                                      launchAs("exit").environment, 30000, {}, [&handed](const QByteArray &line) {
                                          if (line.startsWith(kMark))
                                              handed.push_back(line);
                                      });
    allowBlocking();
    ASSERT_EQ(waits.size(), 1u);
    EXPECT_NE(waits.front().find(QCoreApplication::applicationFilePath().toStdString()), std::string::npos)
        << waits.front();
    EXPECT_TRUE(run.started);
    EXPECT_EQ(run.exitCode, 3);
    EXPECT_FALSE(run.succeeded());
    EXPECT_EQ(handed, (std::vector<QByteArray>{"line one", "line two"})) << "the unfinished last line counts";
    EXPECT_TRUE(run.output.endsWith("line one\nline two"));

    // Silence, without an event loop.
    ProcessRunner runner;
    ProcessLaunch silent = launchAs("silent");
    silent.silenceMs = 400;
    QElapsedTimer clock;
    clock.start();
    const ProcessEnd quiet = runner.run(silent);
    EXPECT_EQ(quiet.how, ProcessEnd::How::Silent);
    EXPECT_LT(clock.elapsed(), 10000);

#ifdef Q_OS_UNIX
    // A stop flag, and TERM ignored: KILL after the grace, without an event loop either.
    bool ready = false;
    QObject::connect(&runner, &ProcessRunner::stdoutLine, &runner,
                     [&ready](const QByteArray &line) { ready = ready || line == "line ready"; });
    ProcessLaunch deaf = launchAs("deaf");
    deaf.graceMs = 500;
    clock.restart();
    const ProcessEnd stopped = runner.run(deaf, [&ready] { return ready; });
    EXPECT_EQ(stopped.how, ProcessEnd::How::Stopped);
    EXPECT_TRUE(stopped.killed);
    EXPECT_EQ(stopped.signal, SIGKILL);
    EXPECT_LT(clock.elapsed(), 10000);
#endif

    // Aborted by a receiver of its lines: the run returns at once, as stopped and killed.
    ProcessRunner aborting;
    QObject::connect(&aborting, &ProcessRunner::stdoutLine, &aborting, [&aborting](const QByteArray &line) {
        if (line == "line hello")
            aborting.abort();
    });
    clock.restart();
    const ProcessEnd aborted = aborting.run(launchAs("silent"));
    EXPECT_EQ(aborted.how, ProcessEnd::How::Stopped);
    EXPECT_TRUE(aborted.killed);
    EXPECT_LT(clock.elapsed(), 10000);

    // runProcess's own record of an over-limit run: killed at once, said as timed out.
    const ProcessRun limited = runProcess(silent.program, silent.arguments, silent.environment, 300);
    EXPECT_TRUE(limited.timedOut);
    EXPECT_FALSE(limited.succeeded());
}

// The dashboard aborts on its UI thread, which must not wait: no blockingCall there, the killed
// child is reaped all the same, and nothing more is said.
TEST_F(ProcessRunnerTest, AbortFromALineHandlerEndsItSilentlyAndTheChildIsReaped)
{
    if (childRole() == "silent")
        playSilent();
    ProcessRunner runner;
    bool finished = false;
    int lines = 0;
    qint64 pid = 0;
    std::vector<std::string> waits;
    forbidBlockingOnThisThread([&waits](std::string_view what) { waits.emplace_back(what); });
    QObject::connect(&runner, &ProcessRunner::finished, &runner, [&finished] { finished = true; });
    QObject::connect(&runner, &ProcessRunner::stdoutLine, &runner, [&](const QByteArray &line) {
        ++lines;
        if (line == "line hello") {
            pid = runner.processId();
            runner.abort();
        }
    });
    QEventLoop loop;
    QTimer::singleShot(15000, &loop, &QEventLoop::quit);
    QObject::connect(&runner, &ProcessRunner::stdoutLine, &loop, [&loop, &runner] {
        if (!runner.isRunning())
            QTimer::singleShot(300, &loop, &QEventLoop::quit); // time for a stray signal to come
    });
    ASSERT_TRUE(runner.start(launchAs("silent")));
    loop.exec();
    EXPECT_FALSE(runner.isRunning());
    EXPECT_FALSE(finished) << "an aborted run says nothing more";
    EXPECT_GE(lines, 1);
    ASSERT_GT(pid, 0);
    QElapsedTimer clock;
    clock.start();
    while (platform::processExists(pid) && clock.elapsed() < 10000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    allowBlocking();
    EXPECT_FALSE(platform::processExists(pid)) << "killed and reaped, not left a zombie";
    EXPECT_TRUE(waits.empty()) << waits.front();
}

TEST(LineSplitter, CutsALongLineAndDropsItsRestHoldingLittle)
{
    LineSplitter lines(8);
    lines.append("short\nmuch too long for eight");
    EXPECT_EQ(lines.next(), QByteArray("short"));
    EXPECT_EQ(lines.next(), QByteArray("much too")) << "handed over once it passes the cap";
    EXPECT_EQ(lines.buffered(), 0) << "its rest is not kept";
    EXPECT_EQ(lines.next(), std::nullopt);
    lines.append(" and still going");
    EXPECT_EQ(lines.next(), std::nullopt);
    EXPECT_EQ(lines.buffered(), 0);
    lines.append(" to the end\nnext\nwhole ten\nrest");
    EXPECT_EQ(lines.next(), QByteArray("next")) << "the line after a cut one is whole";
    EXPECT_EQ(lines.next(), QByteArray("whole te"));
    EXPECT_EQ(lines.next(), std::nullopt);
    EXPECT_EQ(lines.cutLines(), 2);
    EXPECT_EQ(lines.takeRest(), QByteArray("rest"));
    EXPECT_EQ(lines.takeRest(), QByteArray());

    LineSplitter split;
    split.append("a\n\nb");
    split.append("c\n");
    EXPECT_EQ(split.next(), QByteArray("a"));
    EXPECT_EQ(split.next(), QByteArray("")) << "an empty line is a line";
    EXPECT_EQ(split.next(), QByteArray("bc")) << "joined across appends";
    EXPECT_EQ(split.next(), std::nullopt);
}

// Bytes as the pipe hands them over, one at a time, give the lines the whole stream gives, and the
// same unfinished tail (the worker's protocol lines come through here).
TEST(LineSplitter, ByteByByteMatchesWhole)
{
    const QByteArray stream = "{\"type\":\"hello\"}\n{\"type\":\"ready\",\"setup_s\":1}\r\n"
                              "stray print from a library\n\n{\"type\":\"done\",\"steps\":3}\n{\"type\":\"err";
    const auto drain = [](LineSplitter &split) {
        std::vector<QByteArray> lines;
        while (auto line = split.next())
            lines.push_back(*line);
        return lines;
    };
    LineSplitter whole;
    whole.append(stream);
    const auto expected = drain(whole);
    ASSERT_EQ(expected.size(), 5u);
    EXPECT_EQ(expected[1], QByteArray("{\"type\":\"ready\",\"setup_s\":1}\r")) << "a line is its bytes";
    LineSplitter bytes;
    std::vector<QByteArray> got;
    for (qsizetype i = 0; i < stream.size(); ++i) {
        bytes.append(stream.mid(i, 1));
        for (const QByteArray &line : drain(bytes))
            got.push_back(line);
    }
    EXPECT_EQ(got, expected);
    EXPECT_EQ(bytes.takeRest(), QByteArray("{\"type\":\"err"));
    EXPECT_EQ(whole.takeRest(), QByteArray("{\"type\":\"err"));
}

} // namespace
} // namespace stepscope::supervisor
