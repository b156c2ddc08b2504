// The operating-system seam (core/platform/platform.h) on the machine the tests run on: answers
// that the store, the engine and the CLI rely on, each checked against something known.
#include "platform/platform.h"

#include <gtest/gtest.h>

#include <QProcess>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using namespace stepscope;

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
    void TearDown() override { fs::remove_all(dir_); }
    std::string file(const std::string &name, const std::string &text) const
    {
        const fs::path p = dir_ / name;
        std::ofstream(p, std::ios::binary) << text;
        return p.string();
    }
    fs::path dir_;
};

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

TEST_F(PlatformTest, AReapedProcessIsGone)
{
    QProcess child;
    child.start(QString::fromStdString(STEPSCOPE_BIN_DIR "/stepscope-cli"), {"--version"});
    ASSERT_TRUE(child.waitForStarted(10000));
    const auto pid = static_cast<std::int64_t>(child.processId());
    ASSERT_TRUE(child.waitForFinished(30000));
    EXPECT_FALSE(platform::processExists(pid)); // the pid could be reused, but not within a test
    EXPECT_FALSE(platform::processExists(0));
    EXPECT_FALSE(platform::processExists(-5));
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

    const std::string b = file("b", "12345");
    const std::string link = (dir_ / "link").string();
    fs::create_hard_link(a, link);
    EXPECT_EQ(platform::sameFile(a, link), std::optional<bool>(true));
    EXPECT_EQ(platform::sameFile(a, b), std::optional<bool>(false)); // same bytes, another file
    EXPECT_FALSE(platform::sameFile(a, a + "-missing").has_value());

    const auto room = platform::freeBytes(dir_.string());
    ASSERT_TRUE(room.has_value());
    EXPECT_GT(*room, 0u);
    EXPECT_FALSE(platform::freeBytes((dir_ / "no-such-folder").string()).has_value());
}

TEST_F(PlatformTest, ReadOnlyFilesAreNotWritable)
{
    const std::string a = file("ro", "x");
    fs::permissions(a, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    // root may write anything; the check is only meaningful for anyone else.
    if (platform::mayWrite(a))
        GTEST_SKIP() << "running with the right to write read-only files (root)";
    EXPECT_FALSE(platform::mayWrite(a));
}

TEST_F(PlatformTest, OomCountsAddUpAcrossFiles)
{
    const std::string vmstat = file("vmstat", "pgfault 100\noom_kill 3\n");
    const std::string events = file("events", "low 0\noom 1\noom_kill 2\n");
    const std::string none = file("none", "pgfault 100\n");
    EXPECT_EQ(platform::oomKillCount({vmstat, events}), 5);
    EXPECT_EQ(platform::oomKillCount({none}), -1);
    EXPECT_EQ(platform::oomKillCount({}), -1);
}

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
    EXPECT_EQ(platform::noSpaceCause(ENOSPC), platform::NoSpace::DiskFull);
    EXPECT_EQ(platform::noSpaceCause(EFBIG), platform::NoSpace::FileTooLarge);
    EXPECT_EQ(platform::noSpaceCause(EACCES), platform::NoSpace::None);
    EXPECT_EQ(platform::noSpaceCause(0), platform::NoSpace::None);
    EXPECT_FALSE(platform::errorText(ENOENT).empty());
    EXPECT_NE(platform::errorText(ENOENT), platform::errorText(EACCES));
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
    qputenv("STEPSCOPE_PLATFORM_TEST", "a value");
    EXPECT_EQ(platform::environmentVariable("STEPSCOPE_PLATFORM_TEST"), std::optional<std::string>("a value"));
    qputenv("STEPSCOPE_PLATFORM_TEST", "");
    EXPECT_EQ(platform::environmentVariable("STEPSCOPE_PLATFORM_TEST"), std::optional<std::string>(""));
    qunsetenv("STEPSCOPE_PLATFORM_TEST");
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
#ifdef __linux__
    const auto libc = platform::SharedLibrary::open("libc.so.6");
    ASSERT_TRUE(libc.has_value());
    EXPECT_NE(libc->symbol("getpid"), nullptr);
    EXPECT_EQ(libc->symbol("stepscope_no_such_symbol"), nullptr);
#endif
}
