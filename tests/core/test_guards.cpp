// The lock and the watchdog of core/platform/guards.h, on this machine's kernel. The kill -9 of a
// whole setup is tests/cli/cli_setup_guards.sh; here each guard alone.
#include "platform/guards.h"
#include "platform/platform.h"

#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QProcess>
#include <QThread>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using namespace stepscope;

namespace
{

class GuardsTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() / ("stepscope-guards-" + std::to_string(platform::currentProcessId()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string text(const fs::path &p) const
    {
        std::ifstream in(p);
        std::stringstream all;
        all << in.rdbuf();
        return all.str();
    }
    fs::path dir_;
};

// Gone, or a zombie nobody reaped yet (a container's first process may never reap orphans).
bool ended(std::int64_t pid)
{
    return !platform::processExists(pid) || platform::processStart(pid).ended;
}

bool endsWithin(std::int64_t pid, int ms)
{
    QElapsedTimer clock;
    clock.start();
    while (!ended(pid) && clock.elapsed() < ms)
        QThread::msleep(20);
    return ended(pid);
}

#ifdef Q_OS_UNIX
// `sh` in a watched group of its own, with a `sleep` child; the sleep's pid comes back.
std::int64_t startWatchedShell(QProcess &shell, const platform::GroupWatchdog &watchdog)
{
    const platform::GroupWatchdog *w = &watchdog;
    shell.setChildProcessModifier([w] {
        platform::startOwnProcessGroup();
        w->watchOwnGroup();
    });
    shell.start("sh", {"-c", "sleep 60 & echo $!; wait"});
    if (!shell.waitForStarted(10000) || !shell.waitForReadyRead(10000))
        return -1;
    return shell.readLine().trimmed().toLongLong();
}
#endif

} // namespace

TEST_F(GuardsTest, ASecondTakerIsRefusedAndReadsTheHolder)
{
    const std::string path = (dir_ / ".venv.setup-lock").string();
    auto first = std::make_unique<platform::FileLock>(path, "pid 11 on host a");
    ASSERT_EQ(first->state(), platform::FileLock::State::Held) << first->error();
    EXPECT_EQ(text(path), "pid 11 on host a\n");

    // flock belongs to the open file, not the process: a second open in this process is refused too.
    const platform::FileLock second(path, "pid 22 on host b");
    EXPECT_EQ(second.state(), platform::FileLock::State::Busy);
    EXPECT_EQ(second.holder(), "pid 11 on host a");
    EXPECT_EQ(text(path), "pid 11 on host a\n") << "a refused taker writes nothing";

    first.reset();
    EXPECT_EQ(text(path), "") << "a released lock names nobody";
    const platform::FileLock third(path, "pid 33 on host c");
    EXPECT_EQ(third.state(), platform::FileLock::State::Held);
}

TEST_F(GuardsTest, AFileLeftByAHolderThatIsGoneBlocksNobody)
{
    const fs::path path = dir_ / ".venv.setup-lock";
    std::ofstream(path) << "pid 999999 on host gone\n"; // what a kill -9 leaves: text, no lock
    const platform::FileLock lock(path.string(), "pid 1 on host here");
    EXPECT_EQ(lock.state(), platform::FileLock::State::Held);
    EXPECT_EQ(text(path), "pid 1 on host here\n");
}

TEST_F(GuardsTest, ALockThatCannotBeMadeSaysWhy)
{
    const platform::FileLock lock((dir_ / "no-such-folder" / "lock").string(), "pid 1");
    EXPECT_EQ(lock.state(), platform::FileLock::State::Failed);
    EXPECT_EQ(lock.systemError(), ENOENT);
    EXPECT_FALSE(lock.error().empty());
}

#ifdef Q_OS_UNIX
TEST_F(GuardsTest, TheWatchdogKillsAWatchedGroupWhenItsOwnerLetsGo)
{
    auto watchdog = std::make_unique<platform::GroupWatchdog>();
    ASSERT_TRUE(watchdog->active());
    QProcess shell;
    const std::int64_t sleeper = startWatchedShell(shell, *watchdog);
    ASSERT_GT(sleeper, 0);
    const std::int64_t leader = shell.processId();
    // The socket closing is what the owner's death looks like to the watchdog.
    watchdog.reset();
    EXPECT_TRUE(shell.waitForFinished(5000)) << "the shell, the group's leader, is killed";
    EXPECT_TRUE(endsWithin(sleeper, 5000)) << "and its child in the same group";
    EXPECT_TRUE(endsWithin(leader, 1000));
}

TEST_F(GuardsTest, AForgottenGroupIsLeftAlone)
{
    auto watchdog = std::make_unique<platform::GroupWatchdog>();
    QProcess shell;
    const std::int64_t sleeper = startWatchedShell(shell, *watchdog);
    ASSERT_GT(sleeper, 0);
    watchdog->forget(shell.processId());
    watchdog.reset();
    QThread::msleep(300);
    EXPECT_FALSE(ended(sleeper)) << "a forgotten group survives its watchdog";
    platform::killProcessGroup(shell.processId());
    EXPECT_TRUE(shell.waitForFinished(5000));
    EXPECT_TRUE(endsWithin(sleeper, 5000));
}
#endif
