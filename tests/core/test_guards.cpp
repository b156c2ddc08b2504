// The lock and the watchdog of core/platform/guards.h, on this machine's kernel. The kill -9 of a
// whole setup is tests/cli/cli_setup_guards.sh; here each guard alone. Plain C++: the Windows cross
// build runs the lock's tests under wine (the watchdog is POSIX's alone: guards.h).
#include "platform/guards.h"
#include "platform/platform.h"

#include "plain_child.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#ifndef _WIN32
#include <cstdio>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace fs = std::filesystem;
using namespace stepscope;
using test::childArgument;
using test::childRole;
using test::PlainChild;

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
    void TearDown() override
    {
        std::error_code ignored;
        fs::remove_all(dir_, ignored); // a killed child's handle may close a moment late on Windows
    }
    std::string text(const fs::path &p) const
    {
        std::ifstream in(p);
        std::stringstream all;
        all << in.rdbuf();
        return all.str();
    }
    fs::path dir_;
};

// Tries the lock until it is held or `limit` passes: a killed holder's lock falls with its process,
// which on Windows the system finishes a moment after the process has ended.
std::unique_ptr<platform::FileLock> lockWithin(const std::string &path, const std::string &holder,
                                               std::chrono::seconds limit)
{
    const auto until = std::chrono::steady_clock::now() + limit;
    for (;;) {
        auto lock = std::make_unique<platform::FileLock>(path, holder);
        if (lock->state() == platform::FileLock::State::Held || std::chrono::steady_clock::now() >= until)
            return lock;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

} // namespace

TEST_F(GuardsTest, ASecondTakerIsRefusedAndReadsTheHolder)
{
    const std::string path = (dir_ / ".venv.setup-lock").string();
    auto first = std::make_unique<platform::FileLock>(path, "pid 11 on host a");
    ASSERT_EQ(first->state(), platform::FileLock::State::Held) << first->error();
    EXPECT_EQ(text(path), "pid 11 on host a\n");

    // The lock belongs to the open file, not the process (flock; LockFileEx's handle): a second
    // open in this process is refused too.
    const platform::FileLock second(path, "pid 22 on host b");
    EXPECT_EQ(second.state(), platform::FileLock::State::Busy);
    EXPECT_EQ(second.holder(), "pid 11 on host a");
    EXPECT_EQ(text(path), "pid 11 on host a\n") << "a refused taker writes nothing";

    first.reset();
    EXPECT_EQ(text(path), "") << "a released lock names nobody";
    const platform::FileLock third(path, "pid 33 on host c");
    EXPECT_EQ(third.state(), platform::FileLock::State::Held);
}

// Another process holds the lock, and is killed holding it: the lock falls with it.
TEST_F(GuardsTest, AKilledHoldersLockFallsWithIt)
{
    if (childRole() == "holder") {
        const platform::FileLock lock(childArgument(), "pid " + std::to_string(platform::currentProcessId()));
        std::cout << (lock.state() == platform::FileLock::State::Held ? "held" : "not held") << std::endl;
        while (std::cin.get() != EOF) {
        }
        std::_Exit(0);
    }
    const std::string path = (dir_ / ".venv.setup-lock").string();
    {
        PlainChild holder("holder", path);
        ASSERT_TRUE(holder.started());
        ASSERT_EQ(holder.readLine("held"), "held");
        const platform::FileLock refused(path, "pid 1 on host here");
        EXPECT_EQ(refused.state(), platform::FileLock::State::Busy);
        EXPECT_EQ(refused.holder(), "pid " + std::to_string(holder.pid()));
    } // killed here (SIGKILL, TerminateProcess), the lock still taken
    const auto lock = lockWithin(path, "pid 1 on host here", std::chrono::seconds(10));
    EXPECT_EQ(lock->state(), platform::FileLock::State::Held) << lock->error();
    EXPECT_EQ(text(path), "pid 1 on host here\n");
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
#ifdef _WIN32
    EXPECT_EQ(lock.systemError(), static_cast<int>(ERROR_PATH_NOT_FOUND));
#else
    EXPECT_EQ(lock.systemError(), ENOENT);
#endif
    EXPECT_FALSE(lock.error().empty());
}

#ifndef _WIN32
namespace
{

// Gone, or a zombie nobody reaped yet (a container's first process may never reap orphans).
bool ended(std::int64_t pid)
{
    return !platform::processExists(pid) || platform::processStart(pid).ended;
}

bool endsWithin(std::int64_t pid, int ms)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!ended(pid) && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return ended(pid);
}

// `sh` in a watched group of its own, with a `sleep` child: the shell's pid, and the sleep's.
struct WatchedShell {
    pid_t shell = -1;
    std::int64_t sleeper = -1;
};

WatchedShell startWatchedShell(const platform::GroupWatchdog &watchdog)
{
    int out[2];
    if (pipe(out) != 0)
        return {};
    const pid_t pid = fork();
    if (pid == 0) {
        platform::startOwnProcessGroup();
        watchdog.watchOwnGroup();
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        execlp("sh", "sh", "-c", "sleep 60 & echo $!; wait", static_cast<char *>(nullptr));
        _exit(127);
    }
    close(out[1]);
    WatchedShell started;
    started.shell = pid;
    if (FILE *in = fdopen(out[0], "r")) {
        long long sleeper = -1;
        if (std::fscanf(in, "%lld", &sleeper) == 1)
            started.sleeper = sleeper;
        std::fclose(in);
    }
    return started;
}

bool reapedWithin(pid_t pid, int ms)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (waitpid(pid, nullptr, WNOHANG) != pid) {
        if (std::chrono::steady_clock::now() >= until)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

} // namespace

TEST_F(GuardsTest, TheWatchdogKillsAWatchedGroupWhenItsOwnerLetsGo)
{
    auto watchdog = std::make_unique<platform::GroupWatchdog>();
    ASSERT_TRUE(watchdog->active());
    const WatchedShell shell = startWatchedShell(*watchdog);
    ASSERT_GT(shell.sleeper, 0);
    // The socket closing is what the owner's death looks like to the watchdog.
    watchdog.reset();
    EXPECT_TRUE(reapedWithin(shell.shell, 5000)) << "the shell, the group's leader, is killed";
    EXPECT_TRUE(endsWithin(shell.sleeper, 5000)) << "and its child in the same group";
    EXPECT_TRUE(endsWithin(shell.shell, 1000));
}

TEST_F(GuardsTest, AForgottenGroupIsLeftAlone)
{
    auto watchdog = std::make_unique<platform::GroupWatchdog>();
    const WatchedShell shell = startWatchedShell(*watchdog);
    ASSERT_GT(shell.sleeper, 0);
    watchdog->forget(shell.shell);
    watchdog.reset();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(ended(shell.sleeper)) << "a forgotten group survives its watchdog";
    platform::killProcessGroup(shell.shell);
    EXPECT_TRUE(reapedWithin(shell.shell, 5000));
    EXPECT_TRUE(endsWithin(shell.sleeper, 5000));
}
#endif
