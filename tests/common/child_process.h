#pragma once
// A second process for the tests that need one (a writer killed with commits behind it, a process
// that dies with its last commit still in the write-ahead log, openers racing on a new file): the
// test binary itself, started again through QProcess with a gtest filter that selects the calling
// test and STEPSCOPE_TEST_CHILD naming the part it plays there. Portable where fork() is not; the
// child starts fresh, so what it needs comes through its environment (childArgument), never through
// memory copied from the parent.
//
// In the test body, the child's part comes first:
//     if (childRole() == "writer") { ...; std::_Exit(code); }
// std::_Exit ends the child there, as a crash would: no destructor, no close, no gtest output.
#include "child_role.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

#include <algorithm>
#include <memory>
#include <string>

namespace stepscope::test
{

// QProcess and applicationFilePath() want an application object; a test binary without one gets it
// here, for the life of the process.
inline void ensureCoreApplication()
{
    static int argc = 1;
    static char arg0[] = "test";
    static char *argv[] = {arg0, nullptr};
    if (!QCoreApplication::instance())
        new QCoreApplication(argc, argv);
}

// What starts the running test again playing `role`, with `argument`: this binary, a gtest filter
// that selects the calling test, and the role in the environment. For a test of the code that
// starts processes (the supervisor's ProcessRunner), which takes these apart.
struct ChildCommand {
    QString program;
    QStringList arguments;
    QProcessEnvironment environment;
};

inline ChildCommand childCommand(const std::string &role, const std::string &argument = {})
{
    ensureCoreApplication();
    const ::testing::TestInfo *test = ::testing::UnitTest::GetInstance()->current_test_info();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("STEPSCOPE_TEST_CHILD", QString::fromStdString(role));
    env.insert("STEPSCOPE_TEST_CHILD_ARG", QString::fromStdString(argument));
    return {QCoreApplication::applicationFilePath(),
            {QStringLiteral("--gtest_filter=%1.%2").arg(test->test_suite_name(), test->name())},
            env};
}

// Starts the running test again in a child process playing `role`, with `argument`. Its stdin is a
// pipe the caller may close (closeWriteChannel) to let it go on, its stdout a pipe the caller may
// read (waitForChildLine), its stderr this process's. Fails the test when it cannot start.
inline std::unique_ptr<QProcess> startChild(const std::string &role, const std::string &argument = {})
{
    const ChildCommand command = childCommand(role, argument);
    auto child = std::make_unique<QProcess>();
    child->setProcessEnvironment(command.environment);
    child->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child->start(command.program, command.arguments);
    EXPECT_TRUE(child->waitForStarted(30000)) << role << ": " << child->errorString().toStdString();
    return child;
}

// Waits until the child prints `line` on its stdout (among gtest's own lines): the moment it has
// got where the parent's clock should start. False when it ends or takes too long first.
inline bool waitForChildLine(QProcess &child, const char *line, int timeoutMs = 60000)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        while (child.canReadLine())
            if (child.readLine().trimmed() == line)
                return true;
        if (child.state() != QProcess::Running)
            return false;
        child.waitForReadyRead(static_cast<int>(std::max<qint64>(1, deadline.remainingTime())));
    }
    return false;
}

// Waits for a child to end by itself; its exit code, or -1 when it crashed or did not end in time.
inline int waitForChild(QProcess &child, int timeoutMs = 60000)
{
    if (!child.waitForFinished(timeoutMs)) {
        ADD_FAILURE() << "the child process did not end within " << timeoutMs << " ms";
        child.kill();
        child.waitForFinished();
        return -1;
    }
    return child.exitStatus() == QProcess::NormalExit ? child.exitCode() : -1;
}

} // namespace stepscope::test
