// What killed sweeps leave behind (issue 34.3, supervisor/leftovers.h): an owned folder names its
// owner; those of a process that has ended on this host go, and nothing else does: not a live
// owner's, not another host's, not one without an owner file, not a link that matches the name.
#include "platform/platform.h"
#include "supervisor/leftovers.h"

#include <gtest/gtest.h>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>

#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace stepscope::supervisor::test
{
namespace
{

namespace fs = std::filesystem;
using namespace leftovers;

// A folder as `makeOwnedFolder` makes it, for an owner the test chooses.
std::string plant(const std::string &parent, const std::string &name, std::int64_t pid, const std::string &host,
                  std::int64_t made)
{
    const fs::path folder = fs::path(parent) / name;
    fs::create_directories(folder / "inductor");
    std::ofstream(folder / "inductor" / "kernel.so") << std::string(1000, 'k');
    std::ofstream(folder / kOwnerFile) << "pid " << pid << "\nhost " << host << "\nmade " << made << '\n';
    return folder.string();
}

std::int64_t now()
{
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

#ifndef _WIN32
// The pid of a process that has ended and been reaped.
std::int64_t endedPid()
{
    const pid_t child = fork();
    if (child == 0)
        _exit(0);
    int status = 0;
    waitpid(child, &status, 0);
    return child;
}
#endif

TEST(Leftovers, AnOwnedFolderNamesThisProcessAndIsAlive)
{
    QTemporaryDir dir;
    std::error_code error;
    const std::string folder = makeOwnedFolder(dir.filePath("new/parent").toStdString(), kCachePrefix, error);
    ASSERT_FALSE(folder.empty()) << error.message();
    const std::string name = fs::path(folder).filename().string();
    EXPECT_EQ(name.rfind("sweep-" + std::to_string(platform::currentProcessId()) + "-", 0), 0u) << name;
    EXPECT_TRUE(fs::is_regular_file(fs::path(folder) / kOwnerFile));
    EXPECT_EQ(judgeOwner(folder), Owner::Alive);
    EXPECT_NE(makeOwnedFolder(dir.path().toStdString(), kCachePrefix, error), folder) << "two folders, one name";
}

#ifndef _WIN32
TEST(Leftovers, OnlyTheFoldersOfEndedOwnersGo)
{
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    const std::string host = platform::hostName();
    const std::int64_t dead = endedPid();
    const std::int64_t self = platform::currentProcessId();
    const std::string gone = plant(root, "sweep-1-dead01", dead, host, now());
    // This process's pid, in a folder made long before it started: a pid given again, not the owner.
    const std::string reused = plant(root, "sweep-2-reused", self, host, 1000);
    const std::string alive = plant(root, "sweep-3-live01", self, host, now());
    const std::string elsewhere = plant(root, "sweep-4-other1", dead, host + "-elsewhere", now());
    const std::string older = root + "/sweep-old001"; // an older Stepscope's: no owner file
    fs::create_directories(older);
    const std::string other = plant(root, "unrelated-dead", dead, host, now()); // not this place's prefix
    // A link with the prefix's name to a dead owner's folder outside: never followed.
    QTemporaryDir outside;
    const std::string target = plant(outside.path().toStdString(), "target", dead, host, now());
    fs::create_directory_symlink(target, root + "/sweep-5-link01");

    const auto found = clearLeftovers({{root, kCachePrefix, "cache folder"}});
    EXPECT_FALSE(fs::exists(gone));
    EXPECT_FALSE(fs::exists(reused));
    EXPECT_TRUE(fs::exists(fs::path(alive) / kOwnerFile));
    EXPECT_TRUE(fs::exists(fs::path(elsewhere) / kOwnerFile));
    EXPECT_TRUE(fs::exists(older));
    EXPECT_TRUE(fs::exists(other));
    EXPECT_TRUE(fs::exists(fs::path(target) / "inductor" / "kernel.so"));
    const std::string said = describe(found);
    EXPECT_NE(said.find("removed 2 cache folders left by ended processes"), std::string::npos) << said;
    EXPECT_NE(said.find("kept 1 of running processes"), std::string::npos) << said;
    EXPECT_NE(said.find("kept 1 of other hosts"), std::string::npos) << said;
    EXPECT_NE(said.find("kept 1 without an owner"), std::string::npos) << said;
    EXPECT_NE(said.find("remove them by hand"), std::string::npos) << said;
    EXPECT_EQ(describe(clearLeftovers({{outside.path().toStdString() + "/none", kCachePrefix, "x"}})),
              "nothing left behind");
}
#endif

TEST(Leftovers, PlacesAreTheCacheRootTwiceTheTemporaryFolderAndTheTracesFolder)
{
    const auto places = placesOf("/data/m.sqlite", "/cache/cc");
    ASSERT_EQ(places.size(), 4u);
    EXPECT_EQ(places[0].parent, "/cache/cc");
    EXPECT_EQ(places[0].prefix, kCachePrefix);
    // A killed doctor's compile folder (stepscope_py/doctor.py) goes as a killed sweep's does.
    EXPECT_EQ(places[1].parent, "/cache/cc");
    EXPECT_EQ(places[1].prefix, kDoctorPrefix);
    EXPECT_EQ(places[2].prefix, kCoordinatorPrefix);
    EXPECT_EQ(places[3].parent, "/data/m.sqlite.traces");
    EXPECT_EQ(places[3].prefix, kTracePrefix);
    EXPECT_EQ(placesOf("", "").size(), 1u); // the temporary folder only
}

} // namespace
} // namespace stepscope::supervisor::test
