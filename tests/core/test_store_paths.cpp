// The store's path rules, both styles on any machine: the Windows build is never made here, so its
// folder and URI rules are checked as plain functions.
#include "store/store_internal.h"

#include <gtest/gtest.h>

namespace stepscope::store
{
namespace
{

TEST(StorePaths, FolderOfAPosixPath)
{
    EXPECT_EQ(folderOf("/home/me/m.sqlite", PathStyle::Posix), "/home/me");
    EXPECT_EQ(folderOf("/m.sqlite", PathStyle::Posix), "/");
    EXPECT_EQ(folderOf("m.sqlite", PathStyle::Posix), ".");
    // A backslash is part of a POSIX name.
    EXPECT_EQ(folderOf("/tmp/a\\b.sqlite", PathStyle::Posix), "/tmp");
    EXPECT_EQ(folderOf("a\\b.sqlite", PathStyle::Posix), ".");
}

TEST(StorePaths, FolderOfAWindowsPath)
{
    EXPECT_EQ(folderOf("C:\\Users\\me\\m.sqlite", PathStyle::Windows), "C:\\Users\\me");
    EXPECT_EQ(folderOf("C:/Users/me/m.sqlite", PathStyle::Windows), "C:/Users/me");
    EXPECT_EQ(folderOf("C:\\m.sqlite", PathStyle::Windows), "C:\\"); // the drive's root
    EXPECT_EQ(folderOf("C:m.sqlite", PathStyle::Windows), "C:");     // that drive's current folder
    EXPECT_EQ(folderOf("\\\\server\\share\\m.sqlite", PathStyle::Windows), "\\\\server\\share");
    EXPECT_EQ(folderOf("m.sqlite", PathStyle::Windows), ".");
}

TEST(StorePaths, FileUriEncodesWhatSqliteWouldMisread)
{
    EXPECT_EQ(fileUri("/data/run 1/m#2.sqlite", "immutable=1", PathStyle::Posix),
              "file:/data/run%201/m%232.sqlite?immutable=1");
    // A drive letter gets the leading '/' SQLite expects, and Windows separators become '/'.
    EXPECT_EQ(fileUri("C:\\Users\\me\\m.sqlite", "immutable=1", PathStyle::Windows),
              "file:/C:/Users/me/m.sqlite?immutable=1");
    // On POSIX a colon and a backslash are name characters: encoded, never read as a drive or a separator.
    EXPECT_EQ(fileUri("C:\\x", "mode=ro", PathStyle::Posix), "file:C%3A%5Cx?mode=ro");
}

} // namespace
} // namespace stepscope::store
