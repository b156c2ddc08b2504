// The operating-system seam (core/platform/platform.h) on the machine the tests run on: answers
// that the store, the engine and the CLI rely on, each checked against something known. Plain C++:
// the Windows cross build runs the same tests under wine (README "Windows"); where the two systems
// answer differently, both answers are written here.
#include "platform/platform.h"

#include "plain_child.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using namespace stepscope;
using test::childRole;
using test::PlainChild;

namespace
{

// A folder of its own under the system's temporary folder, removed at the end.
class PlatformTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() / ("stepscope-platform-" + std::to_string(platform::currentProcessId()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override
    {
        std::error_code ignored;
        fs::remove_all(dir_, ignored); // a child killed mid-test may still hold a file a moment
    }
    std::string file(const std::string &name, const std::string &text) const
    {
        const fs::path p = dir_ / name;
        std::ofstream(p, std::ios::binary) << text;
        return p.string();
    }
    fs::path dir_;
};

// The child's first line: its own id, as it sees it.
[[noreturn]] void sayPidAndWaitForInput(int exitCode)
{
    std::cout << "pid " << platform::currentProcessId() << std::endl;
    while (std::cin.get() != EOF) {
    }
    std::_Exit(exitCode);
}

bool endsWithin(std::int64_t pid, std::chrono::seconds limit)
{
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!platform::processStart(pid).ended && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return platform::processStart(pid).ended;
}

} // namespace

TEST_F(PlatformTest, ThisProcessExistsAndStartedBeforeNow)
{
    const std::int64_t self = platform::currentProcessId();
    ASSERT_GT(self, 0);
    EXPECT_TRUE(platform::processExists(self));
    const platform::ProcessStart start = platform::processStart(self);
    EXPECT_FALSE(start.ended);
    ASSERT_TRUE(start.time.has_value());
    const auto now = std::chrono::system_clock::now();
    // Whole seconds of the boot time on Linux: the start may read up to a second early or late.
    EXPECT_LE(*start.time, now + std::chrono::seconds(2));
    EXPECT_GE(*start.time, now - std::chrono::hours(1));
}

// A child from its start to its end: its id and start time while it runs, "ended" once it has ended
// but is still known (a zombie not yet reaped on POSIX; on Windows a process whose handle this
// process still holds), and gone once reaped or let go.
TEST_F(PlatformTest, AChildIsSeenFromItsStartToItsEnd)
{
    if (childRole() == "waiter")
        sayPidAndWaitForInput(7);
    const auto before = std::chrono::system_clock::now();
    std::int64_t pid = -1;
    {
        PlainChild child("waiter");
        ASSERT_TRUE(child.started());
        const std::string line = child.readLine("pid ");
        ASSERT_EQ(line, "pid " + std::to_string(child.pid())) << "the child's own id is the one it was started with";
        pid = child.pid();
        EXPECT_TRUE(platform::processExists(pid));
        const platform::ProcessStart start = platform::processStart(pid);
        EXPECT_FALSE(start.ended);
        ASSERT_TRUE(start.time.has_value());
        EXPECT_GE(*start.time, before - std::chrono::seconds(2));
        EXPECT_LE(*start.time, std::chrono::system_clock::now() + std::chrono::seconds(2));

        child.closeInput();
        EXPECT_TRUE(endsWithin(pid, std::chrono::seconds(30))) << "an ended child not yet let go reads as ended";
        EXPECT_TRUE(platform::processExists(pid));
        const PlainChild::End end = child.wait();
        EXPECT_FALSE(end.signalled);
        EXPECT_EQ(end.code, 7);
    }
    // The pid could be reused, but not within a test. Wine (8.0) keeps an ended child's process
    // object while its parent lives, where Windows lets it go with the last handle.
    if (test::underWine())
        EXPECT_TRUE(!platform::processExists(pid) || platform::processStart(pid).ended);
    else
        EXPECT_FALSE(platform::processExists(pid));
    EXPECT_FALSE(platform::processExists(0));
    EXPECT_FALSE(platform::processExists(-5));
}

// What a crashed worker's end is called in its failure (worker_process.cpp): a signal's name on
// POSIX, the exception's code on Windows, where the exit code of a crash is an NTSTATUS.
TEST_F(PlatformTest, ACrashIsNamed)
{
    if (childRole() == "crasher") {
#ifdef _WIN32
        // The system's own end of an unhandled exception (the code as exit code), without the error
        // report of Windows or the debugger wine starts, either of which would hold the child.
        SetUnhandledExceptionFilter([](EXCEPTION_POINTERS *) -> LONG { return EXCEPTION_EXECUTE_HANDLER; });
        RaiseException(EXCEPTION_ACCESS_VIOLATION, EXCEPTION_NONCONTINUABLE, 0, nullptr);
#else
        std::signal(SIGSEGV, SIG_DFL);
        std::raise(SIGSEGV);
#endif
        std::_Exit(0); // not reached
    }
    PlainChild child("crasher");
    ASSERT_TRUE(child.started());
    const PlainChild::End end = child.wait();
#ifdef _WIN32
    EXPECT_FALSE(end.signalled);
    EXPECT_EQ(static_cast<unsigned>(end.code), 0xC0000005u);
    EXPECT_EQ(platform::signalName(end.code), "exception 0xC0000005");
    EXPECT_FALSE(platform::killSignal().has_value()) << "TerminateProcess sets an exit code, not a signal";
#else
    EXPECT_TRUE(end.signalled);
    EXPECT_EQ(end.code, SIGSEGV);
    EXPECT_EQ(platform::signalName(end.code), "Segmentation fault");
    EXPECT_EQ(platform::killSignal(), std::optional<int>(SIGKILL));
#endif
}

// The CLI's InterruptWatch stops a run on every signal of interruptSignals(): each is one the C
// runtime takes a handler for, and a raised one reaches it.
TEST_F(PlatformTest, EveryInterruptSignalTakesAHandler)
{
    static volatile std::sig_atomic_t caught = 0;
    const auto signals = platform::interruptSignals();
    EXPECT_NE(std::find(signals.begin(), signals.end(), SIGINT), signals.end()) << "Ctrl-C everywhere";
    for (const int s : signals) {
        caught = 0;
        const auto previous = std::signal(s, [](int received) { caught = received; });
        ASSERT_NE(previous, SIG_ERR) << "signal " << s;
        std::raise(s);
        EXPECT_EQ(caught, s);
        std::signal(s, previous);
    }
}

// The system's interrupt for a console program (SIGINT on POSIX, Ctrl-Break on Windows, which the C
// runtime raises as SIGBREAK) reaches another process's handler of interruptSignals().
TEST_F(PlatformTest, AnInterruptReachesAHandlerOfTheInterruptSignals)
{
    static volatile std::sig_atomic_t caught = 0;
    if (childRole() == "interrupted") {
        for (const int s : platform::interruptSignals())
            std::signal(s, [](int received) { caught = received; });
        std::cout << "ready" << std::endl;
        for (int i = 0; i < 3000 && !caught; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::cout << "caught " << static_cast<int>(caught) << std::endl;
        std::_Exit(caught ? 0 : 1);
    }
    PlainChild child("interrupted");
    ASSERT_TRUE(child.started());
    ASSERT_EQ(child.readLine("ready"), "ready");
    const bool sent = child.interrupt();
#ifdef _WIN32
    // Wine 8.0 has console control events for a console of its own window only: without one (CI's
    // pipes) and on a terminal alike, GenerateConsoleCtrlEvent fails and nothing reaches the child.
    if (!sent && test::underWine())
        GTEST_SKIP() << "wine cannot send a console control event (GenerateConsoleCtrlEvent: error " << GetLastError()
                     << ")";
    const int expected = SIGBREAK;
#else
    const int expected = SIGINT;
#endif
    ASSERT_TRUE(sent);
    EXPECT_EQ(child.readLine("caught "), "caught " + std::to_string(expected));
    EXPECT_EQ(child.wait().code, 0);
}

TEST_F(PlatformTest, FilesAreMeasuredAndComparedByIdentity)
{
    const std::string a = file("a", "12345");
    EXPECT_TRUE(platform::pathExists(a));
    EXPECT_FALSE(platform::pathExists(a + "-missing"));
    EXPECT_EQ(platform::fileSize(a), std::optional<std::int64_t>(5));
    EXPECT_FALSE(platform::fileSize(a + "-missing").has_value());
    EXPECT_TRUE(platform::mayWrite(a));
    EXPECT_TRUE(platform::mayWrite(dir_.string()));
    EXPECT_EQ(platform::fileKind(a), platform::FileKind::Regular);
    EXPECT_EQ(platform::fileKind(dir_.string()), platform::FileKind::Directory);
    EXPECT_EQ(platform::fileKind(a + "-missing"), platform::FileKind::Missing);

    const std::string b = file("b", "12345");
    const std::string link = (dir_ / "link").string();
    EXPECT_EQ(platform::hardLinkCount(a), std::optional<std::uint64_t>(1));
    fs::create_hard_link(a, link);
    EXPECT_EQ(platform::hardLinkCount(a), std::optional<std::uint64_t>(2));
    EXPECT_EQ(platform::sameFile(a, link), std::optional<bool>(true));
    EXPECT_EQ(platform::sameFile(a, b), std::optional<bool>(false)); // same bytes, another file
    EXPECT_FALSE(platform::sameFile(a, a + "-missing").has_value());

    const auto room = platform::freeBytes(dir_.string());
    ASSERT_TRUE(room.has_value());
    EXPECT_GT(*room, 0u);
    EXPECT_FALSE(platform::freeBytes((dir_ / "no-such-folder").string()).has_value());
}

// One file, spelt in the ways a user's settings or a store's record may spell it.
TEST_F(PlatformTest, OneFileBehindManySpellingsIsOneFile)
{
    const std::string a = file("Data.sqlite", "x");
    const std::string folder = dir_.filename().string();
    for (const fs::path &other : {dir_ / "." / "Data.sqlite", dir_ / ".." / folder / "Data.sqlite"})
        EXPECT_EQ(platform::sameFile(a, other.string()), std::optional<bool>(true)) << other.string();
#ifdef _WIN32
    // Windows names are case-blind and take either slash.
    std::string upper = a, forward = a;
    for (char &c : upper)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (char &c : forward)
        c = c == '\\' ? '/' : c;
    EXPECT_EQ(platform::sameFile(a, upper), std::optional<bool>(true)) << upper;
    EXPECT_EQ(platform::sameFile(a, forward), std::optional<bool>(true)) << forward;
#else
    EXPECT_FALSE(platform::sameFile(a, (dir_ / "DATA.SQLITE").string()).has_value()) << "POSIX names are case-exact";
#endif
}

// Windows refuses paths of MAX_PATH (260) characters or more in its plain form; the platform layer
// passes them in the "\\?\" form. A path well past 260 is measured and compared as a short one. Wine
// (8.0) does not hold paths to MAX_PATH: under wine this shows that the long form works, not that it
// is needed (the same test passes there with the plain form).
TEST_F(PlatformTest, PathsLongerThanMaxPathWork)
{
    fs::path deep = dir_;
    for (const char c : {'a', 'b', 'c'})
        deep /= std::string(90, c);
#ifdef _WIN32
    CreateDirectoryW((L"\\\\?\\" + fs::absolute(deep.parent_path().parent_path()).wstring()).c_str(), nullptr);
    CreateDirectoryW((L"\\\\?\\" + fs::absolute(deep.parent_path()).wstring()).c_str(), nullptr);
    CreateDirectoryW((L"\\\\?\\" + fs::absolute(deep).wstring()).c_str(), nullptr);
#else
    fs::create_directories(deep);
#endif
    const std::string folder = deep.string(), name = (deep / "kernel.py").string();
    ASSERT_GT(name.size(), 300u);
    EXPECT_TRUE(platform::pathExists(folder));
    EXPECT_EQ(platform::fileKind(folder), platform::FileKind::Directory);
    EXPECT_TRUE(platform::freeBytes(folder).has_value());
    EXPECT_TRUE(platform::mayWrite(folder));
    EXPECT_FALSE(platform::pathExists(name));
    const std::string shortName = file("short", "abc");
    ASSERT_EQ(platform::renameNoReplace(shortName, name), 0) << "a short name moved to a long one";
    EXPECT_TRUE(platform::pathExists(name));
    EXPECT_EQ(platform::fileSize(name), std::optional<std::int64_t>(3));
    EXPECT_EQ(platform::sameFile(name, name), std::optional<bool>(true));
    EXPECT_EQ(platform::hardLinkCount(name), std::optional<std::uint64_t>(1));
    const std::string back = (dir_ / "back").string();
    ASSERT_EQ(platform::renameNoReplace(name, back), 0);
    EXPECT_EQ(platform::fileSize(back), std::optional<std::int64_t>(3));
#ifdef _WIN32
    // TearDown's remove_all goes through the plain form: the deep folders go here.
    RemoveDirectoryW((L"\\\\?\\" + fs::absolute(deep).wstring()).c_str());
    RemoveDirectoryW((L"\\\\?\\" + fs::absolute(deep.parent_path()).wstring()).c_str());
#endif
}

TEST_F(PlatformTest, ReadOnlyFilesAreNotWritable)
{
    const std::string a = file("ro", "x");
    fs::permissions(a, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    const bool writable = platform::mayWrite(a);
    fs::permissions(a, fs::perms::owner_write, fs::perm_options::add); // Windows removes no read-only file
    // root may write anything on POSIX; the check is only meaningful for anyone else.
    if (writable)
        GTEST_SKIP() << "running with the right to write read-only files (root)";
    EXPECT_FALSE(writable);
}

#ifdef _WIN32
TEST_F(PlatformTest, WindowsKeepsNoOomCounts)
{
    EXPECT_TRUE(platform::oomCounterFiles().empty());
    EXPECT_EQ(platform::oomKillCount({file("vmstat", "oom_kill 3\n")}), -1) << "no file of Windows says oom_kill";
}
#else
TEST_F(PlatformTest, OomCountsAddUpAcrossFiles)
{
    const std::string vmstat = file("vmstat", "pgfault 100\noom_kill 3\n");
    const std::string events = file("events", "low 0\noom 1\noom_kill 2\n");
    const std::string none = file("none", "pgfault 100\n");
    EXPECT_EQ(platform::oomKillCount({vmstat, events}), 5);
    EXPECT_EQ(platform::oomKillCount({none}), -1);
    EXPECT_EQ(platform::oomKillCount({}), -1);
}
#endif

#ifdef __linux__
// The load a run without a steady state records: /proc/loadavg's first figure, against the
// machine's online cores.
TEST_F(PlatformTest, MachineLoadIsTheLoadAverageOverOnlineCores)
{
    const auto load = platform::machineLoad();
    ASSERT_TRUE(load);
    EXPECT_GE(load->oneMinute, 0.0);
    EXPECT_GT(load->cores, 0);
    std::ifstream in("/proc/loadavg");
    double first = -1;
    ASSERT_TRUE(in >> first);
    EXPECT_NEAR(load->oneMinute, first, 0.5) << "the same 1-minute average, read moments apart";
}
#endif

TEST_F(PlatformTest, ErrorsAreNamed)
{
    // SQLite's system error is errno on POSIX and GetLastError() on Windows.
#ifdef _WIN32
    const int full = ERROR_DISK_FULL, tooLarge = ERROR_FILE_TOO_LARGE, denied = ERROR_ACCESS_DENIED,
              missing = ERROR_FILE_NOT_FOUND;
    EXPECT_EQ(platform::noSpaceCause(ERROR_HANDLE_DISK_FULL), platform::NoSpace::DiskFull);
#else
    const int full = ENOSPC, tooLarge = EFBIG, denied = EACCES, missing = ENOENT;
#endif
    EXPECT_EQ(platform::noSpaceCause(full), platform::NoSpace::DiskFull);
    EXPECT_EQ(platform::noSpaceCause(tooLarge), platform::NoSpace::FileTooLarge);
    EXPECT_EQ(platform::noSpaceCause(denied), platform::NoSpace::None);
    EXPECT_EQ(platform::noSpaceCause(0), platform::NoSpace::None);
    EXPECT_FALSE(platform::errorText(missing).empty());
    EXPECT_NE(platform::errorText(missing), platform::errorText(denied));
}

TEST_F(PlatformTest, UtcCalendarOfKnownInstants)
{
    const std::tm epoch = platform::utcCalendar(0);
    EXPECT_EQ(epoch.tm_year, 70);
    EXPECT_EQ(epoch.tm_mon, 0);
    EXPECT_EQ(epoch.tm_mday, 1);
    EXPECT_EQ(epoch.tm_hour, 0);
    const std::tm leap = platform::utcCalendar(951825600); // 2000-02-29T12:00:00Z
    EXPECT_EQ(leap.tm_year, 100);
    EXPECT_EQ(leap.tm_mon, 1);
    EXPECT_EQ(leap.tm_mday, 29);
    EXPECT_EQ(leap.tm_hour, 12);
}

TEST_F(PlatformTest, EnvironmentVariablesAreReadAsSet)
{
    test::setEnvironment("STEPSCOPE_PLATFORM_TEST", "a value");
    EXPECT_EQ(platform::environmentVariable("STEPSCOPE_PLATFORM_TEST"), std::optional<std::string>("a value"));
    test::setEnvironment("STEPSCOPE_PLATFORM_TEST", "");
    EXPECT_EQ(platform::environmentVariable("STEPSCOPE_PLATFORM_TEST"), std::optional<std::string>(""));
    test::setEnvironment("STEPSCOPE_PLATFORM_TEST", nullptr);
    EXPECT_FALSE(platform::environmentVariable("STEPSCOPE_PLATFORM_TEST").has_value());
}

TEST_F(PlatformTest, PinningToTheAllowedCoresKeepsThem)
{
    const std::vector<int> cores = platform::allowedCores();
    ASSERT_FALSE(cores.empty());
    ASSERT_TRUE(platform::canPinCores());
    // Pinning to what the process already has changes nothing, and must succeed.
    EXPECT_EQ(platform::pinToCores(cores), "");
    EXPECT_EQ(platform::allowedCores(), cores);
}

TEST_F(PlatformTest, SharedLibrariesLoadOrSayNo)
{
    EXPECT_FALSE(platform::SharedLibrary::open("libstepscope-no-such-library.so.9").has_value());
#ifdef _WIN32
    const auto system = platform::SharedLibrary::open("kernel32.dll");
    ASSERT_TRUE(system.has_value());
    EXPECT_NE(system->symbol("GetCurrentProcessId"), nullptr);
    EXPECT_EQ(system->symbol("stepscope_no_such_symbol"), nullptr);
#elif defined(__linux__)
    const auto libc = platform::SharedLibrary::open("libc.so.6");
    ASSERT_TRUE(libc.has_value());
    EXPECT_NE(libc->symbol("getpid"), nullptr);
    EXPECT_EQ(libc->symbol("stepscope_no_such_symbol"), nullptr);
#endif
}
